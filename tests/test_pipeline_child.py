"""The pipeline child: its command line, the seeded files it shares, its JSON and its refusals."""
import json
import subprocess

import pytest

from backends.pipeline import LOADERS
from suites.child import ROOT, result
from suites.pipeline_child import AA, BASELINE, MANIFEST, command, image_files, parse
from suites.profiles import PROFILES

PLAN = PROFILES["quick"].pipeline


def _command(backend_name, folder, loaders, variant="eager", rounds=2):
    model, config, batch = PLAN.models["mnist_cnn"]
    return command(backend_name, model, config, batch, variant, loaders, folder, PLAN, rounds,
                   warmup=0, seed=3, threads=1)


def test_the_command_line_parses_back(tmp_path):
    args = parse(_command("chainer", tmp_path, ["naive", "cache", "naive"])[3:])
    assert (args.backend, args.model, args.variant, args.loaders, args.folder, args.examples,
            args.pad, args.workers, args.rounds, args.warmup, args.seed, args.threads) == (
        "chainer", "mnist_cnn", "eager", ["naive", "cache"], str(tmp_path), PLAN.examples,
        PLAN.pad, PLAN.workers, 2, 0, 3, 1)


def test_image_files_are_written_once_then_read_and_must_match(tmp_path):
    paths, labels = image_files(tmp_path, 5, 12, 1, seed=4, classes=10)
    stamps = [p.stat().st_mtime_ns for p in sorted(tmp_path.glob("*.png"))]
    again, same = image_files(tmp_path, 5, 12, 1, seed=4, classes=10)
    assert again == paths and same.tolist() == labels.tolist() and same.dtype == labels.dtype
    assert [p.stat().st_mtime_ns for p in sorted(tmp_path.glob("*.png"))] == stamps
    assert json.loads((tmp_path / MANIFEST).read_text())["labels"] == labels.tolist()
    with pytest.raises(ValueError, match="holds images written with"):
        image_files(tmp_path, 5, 12, 1, seed=5, classes=10)


@pytest.mark.parametrize("loaders, variant, line", [
    ("naive,turbo", "eager",
     f"pipeline_child: unknown loader 'turbo': choose one of {', '.join(LOADERS)}"),
    ("naive", "xla", "pipeline_child: variant 'xla': the pipeline suite compares eager and graph "
                     "steps only")], ids=["loader", "variant"])
def test_child_refuses_in_one_line(backend_name, tmp_path, loaders, variant, line):
    done = subprocess.run(_command(backend_name, tmp_path, loaders.split(","), variant),
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [line]
    assert not any(tmp_path.iterdir())  # refused before writing a file


def test_a_child_times_each_loader_and_the_aa_twin_on_the_same_examples(backend_name, tmp_path):
    if backend_name != "chainer":  # the suite runs this child for every backend anyway
        pytest.skip("the child's JSON is checked on chainer, the quickest to start")
    found = result(_command(backend_name, tmp_path, ["prefetch", BASELINE]), timeout=300)
    arms = ["prefetch", BASELINE, AA]
    assert found["arms"] == arms and found["loss_finite"]
    assert {a: len(t) for a, t in found["times"].items()} == dict.fromkeys(arms, 2)
    assert all(len(w) == 2 for w in found["input_wait_s_per_step"].values())
    steps = PLAN.examples // PLAN.models["mnist_cnn"][2]
    assert found["steps"] == dict.fromkeys(arms, steps)
    assert len(set(found["loss"].values())) == 1  # identical batches, identical runners
    assert found["workers"] == {"prefetch": 1, BASELINE: 0, AA: 0}
    assert found["settings"]["order_seed"] == 3 and found["settings"]["warmup_rounds"] == 0
    assert found["stored_side"] == 28 + PLAN.pad and (tmp_path / MANIFEST).exists()
