"""Jobs by purpose (issue 35): `run.py bench` saves the answer, `--job seeds` the seeds'
experiments; together they time every suite, and each saved run says its job."""
import json
import platform
import types
from pathlib import Path

import pytest

import conftest
import run
from suites.profiles import JOBS, PROFILES

DEFAULT = PROFILES["default"]
ANSWER, SEEDS = (JOBS[name].apply(DEFAULT) for name in ("answer", "seeds"))
SUITES = {p.stem.removeprefix("test_") for p in (Path(run.ROOT) / "suites").glob("test_*.py")}


def test_the_two_jobs_time_every_suite_and_the_answer_only_what_it_needs():
    assert set(ANSWER.bench_suites) == {"steady", "construction", "scale", "peak"}
    assert set(ANSWER.bench_suites) | set(SEEDS.bench_suites) == SUITES
    assert "seeds" in ANSWER.bench_skip("micro") and "--job seeds" in ANSWER.bench_skip("retrace")
    assert SEEDS.bench_skip("construction") and SEEDS.bench_skip("steady") is None
    assert DEFAULT.job is None and DEFAULT.bench_skip("micro") is None  # no job: every suite


def test_the_answer_gives_its_steady_groups_the_time_the_seeds_left():
    assert ANSWER.adaptive.budget_s == 100.0 > DEFAULT.adaptive.budget_s
    assert ANSWER.adaptive.max_rounds == DEFAULT.adaptive.max_rounds > DEFAULT.steady_process_rounds
    assert ANSWER.adaptive.limits(("chainer", "mnist_cnn", "train")) == (180.0, 60)
    assert JOBS["answer"].apply(PROFILES["paper"]).adaptive.budget_s == 600  # never less


def test_the_answer_times_the_default_mode_and_xla_and_leaves_the_shape_polymorphic_ones():
    """At one input shape a None-dim trace is the default's graph, less specialised: the answer's
    rounds time the arms a row can choose; the retrace and lengths suites time the others."""
    from suites.test_steady import _profile_skip as skip
    for variant in ("graph_dynamic", "xla_dynamic"):
        why = skip(ANSWER, "tf", "vgg", variant, "float32", "train")
        assert why and "--job seeds" in why and variant in why, variant
        assert skip(DEFAULT, "tf", "vgg", variant, "float32", "train") is None, variant
    assert skip(ANSWER, "torch", "vgg", "graph_dynamic", "float32", "infer")
    for variant in ("eager", "graph", "xla"):
        assert skip(ANSWER, "tf", "vgg", variant, "float32", "train") is None, variant
    assert skip(SEEDS, "tf", "mnist_cnn", "graph_dynamic", "bfloat16", "train") is None  # seed 002


def test_every_sweep_point_has_its_rounds():
    """Scale.rounds finds each point's rounds, the decoder's too (run 0054's sweep failed here)."""
    for profile in (DEFAULT, PROFILES["paper"]):
        scale = profile.scale
        found = {label: scale.rounds(label) for label in scale.models}
        assert sorted(found.values()) == sorted(
            [p[-1] for p in scale.points] + [p[-1] for p in scale.decoder_points]
            + [p[-1] for p in scale.busy_points])
        assert any(label.startswith("decoder-") for label in found)


def test_the_answer_times_equal_blocks_and_the_seeds_equal_steps():
    """The mixed-precision losses compare arms after the same steps: only the answer's blocks
    last equal time."""
    from suites.paired import steady_plan
    assert steady_plan(ANSWER, False)["equal_blocks"] and not steady_plan(SEEDS, False)["equal_blocks"]
    assert not steady_plan(DEFAULT, False)["equal_blocks"] and not steady_plan(ANSWER, True).get("equal_blocks")


def test_the_seeds_job_runs_every_micro_workload():
    for workload in ("conv", "lstm_cell", "mlp_step", "matmul10", "sum_even"):
        assert DEFAULT.skip_reason("micro", "torch", workload, "graph"), workload
        assert SEEDS.skip_reason("micro", "torch", workload, "graph") is None, workload
    assert SEEDS.skip_reason("memory", "tf", "vgg", "graph")  # the other cuts stay


def test_each_job_times_its_own_steady_groups_with_their_aa_pair():
    from suites.test_steady import _profile_skip as skip
    for row in (("tf", "vgg", "graph", "float32", "infer"), ("torch", "resnet", "graph", "float32",
                "train"), ("chainer", "mnist_cnn", "eager", "float32", "train")):
        assert skip(ANSWER, *row) is None, row
    assert "--job seeds" in skip(ANSWER, "tf", "mnist_cnn", "graph", "bfloat16", "train")
    for kept in (("tf", "mnist_cnn", "graph", "bfloat16", "train"),  # seed 002
                 ("tf", "mnist_cnn", "eager", "float32", "train"),  # its A/A pair
                 ("chainer", "mnist_cnn", "graph", "float32", "train")):  # seed 004
        assert skip(SEEDS, *kept) is None, kept
    for left in (("tf", "mnist_cnn", "graph", "float32", "train"),
                 ("tf", "vgg", "eager", "float32", "train"),
                 ("jax", "vgg", "graph", "float32", "infer")):
        assert "python3 run.py bench" in skip(SEEDS, *left), left


def test_a_saved_run_records_its_job():
    config = types.SimpleNamespace(graphbench={"profile": SEEDS, "device": "cpu", "threads": 2,
                                               "wait": "step"})
    info, saved = {}, {}
    conftest.pytest_benchmark_update_machine_info(config, info)
    conftest.pytest_benchmark_update_json(config, [], saved)
    assert info["graphbench"]["job"] == "seeds" and info["graphbench"]["profile"] == "default"
    assert saved["graphbench_profile"]["job"]["name"] == "seeds"
    assert saved["graphbench_profile"]["adaptive"]["max_rounds"] == 60


@pytest.mark.parametrize("argv, job, save", [
    (["bench"], "answer", "default"), (["bench", "--job", "seeds"], "seeds", "default-seeds"),
    (["bench", "--profile", "paper", "--job", "answer"], "answer", "paper"),
    (["bench", "--profile", "quick"], None, "quick")])
def test_run_py_passes_the_job_and_names_the_run_after_it(monkeypatch, argv, job, save):
    calls = []
    monkeypatch.setattr(run, "call", lambda *args: calls.append(args) or 0)
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "disk_short", lambda envs, device="cpu": "")
    assert run.main([*argv, "--envs", "chainer"]) == 0
    suites = calls[0]
    assert f"--benchmark-save={save}" in suites
    assert (suites[suites.index("--job") + 1] == job) if job else "--job" not in suites


def test_run_py_keeps_each_run_its_env_saved_without_indentation(monkeypatch, tmp_path):
    """pytest-benchmark indents a run by four spaces; results/ travels with every GPU call (64 MiB
    at most), so run.py rewrites the env's new runs compactly: the same JSON, half the bytes."""
    new = tmp_path / "m" / "0001_default.json"
    new.parent.mkdir()
    data = {"machine_info": {"graphbench": {"tox_env": "chainer"}}, "benchmarks": [{"x": 1.5}]}
    seen = iter([set(), {new}])  # before the env, after it

    def call(*args):
        if "chainer" in args:
            new.write_text(json.dumps(data, indent=4))
        return 0
    monkeypatch.setattr(run, "call", call)
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "disk_short", lambda envs, device="cpu": "")
    monkeypatch.setattr(run, "saved_runs", lambda: next(seen, {new}))
    monkeypatch.setattr(run, "shared", lambda new: None)
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run.host, "reading", lambda: {"reference_ms": 14.0, "cpu_times": None})
    assert run.main(["bench", "--envs", "chainer"]) == 0
    host = {"reference_ms": [14.0, 14.0], "stolen": None, "python": platform.python_version(),
            "loop": run.host.LOOP}
    assert new.read_text() == json.dumps({**data, "graphbench_host": host}, separators=(",", ":"))


@pytest.mark.parametrize("argv, says", [
    (["bench", "--job", "all"], "unknown job 'all': choose one of answer, seeds"),
    (["bench", "--profile", "quick", "--job", "seeds"], "--profile quick is one job"),
    (["test", "--job", "seeds"], "--job goes with bench")])
def test_a_bad_job_is_one_line_naming_the_choices(capsys, argv, says):
    assert run.main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def test_the_report_knows_every_job_a_run_may_name():
    from report.build.conform import JOBS as KNOWN
    assert KNOWN == tuple(JOBS)
