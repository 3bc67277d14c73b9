"""The examples' smoke runs (eager and `graph`, one short pass) and, per framework, a refused
variant, a wrong model type, a bad file's one line and Keras's own conventions (loss order, a
compiled keras.Model): in the env of each example's framework, skipped elsewhere."""
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from backends import BACKENDS, load_part
from backends.user import UserFileError, load
from report.build.load import machine_name
from user.measure import check, measure, plan_for
from user.save import save

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "user"
EXAMPLES = {"tf": "keras_text.py", "torch": "torch_transformer.py", "chainer": "chainer_textcnn.py",
            "jax": "jax_textcnn.py"}


def _framework(name):
    pytest.importorskip(BACKENDS[name].package, reason=f"{name} is not in this env: `tox -e {name}`")


@pytest.mark.slow
@pytest.mark.parametrize("framework", EXAMPLES)
def test_example_smoke_run(framework, tmp_path):
    """The example measures eager and `graph`, computes what eager computes and gets a report."""
    _framework(framework)
    path = ROOT / "examples" / EXAMPLES[framework]
    check(path, framework)
    lines = []
    m = measure(path, framework, plan_for(None, smoke=True), threads=1, log=lines.append)
    assert m["failed"] == {} and m["variants"] == ["graph"]
    first = "first calls and the retrace run in fresh processes"
    assert [line.split(";")[0] for line in lines] == [  # where the run is, part by part
        f"user: {framework}: part 1 of 3, eager: {first}",
        f"user: {framework}: part 2 of 3, graph: {first}",
        f"user: {framework}: part 3 of 3, steady rounds of every arm, process 1 of 1"]
    assert all(c["accuracy"]["graph"]["match"] for c in m["steady"])
    text = save(m, tmp_path, "vm").read_text()
    assert text.startswith(f"# Should I compile `{path.stem}`?\n\n**{framework}: ")
    assert "Smoke run" in text and "MISMATCH" not in text


def test_the_user_suite_says_each_part_in_the_terminal_as_it_starts(tmp_path):
    """The measurement runs inside one test, for minutes at the default profile: its lines get
    past pytest's capture (they stayed in it, unseen, until the test ended)."""
    _framework("chainer")  # the quickest smoke run; the lines are the suite's, not a framework's
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "user", "--backend", "chainer", "--user",
         str(ROOT / "examples" / EXAMPLES["chainer"]), "--benchmark-disable", "--threads", "1",
         "--user-results", str(tmp_path), "-q", "-p", "no:cacheprovider"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    said = [line for line in done.stdout.splitlines() if line.startswith("user: chainer: part")]
    assert [line.split(",")[0] for line in said] == [
        "user: chainer: part 1 of 3", "user: chainer: part 2 of 3", "user: chainer: part 3 of 3"]


@pytest.mark.parametrize("framework", EXAMPLES)
def test_wrong_model_type_is_one_line(framework):
    _framework(framework)
    user = load(FIXTURES / "wrong_returns.py")
    user.module.MODE = "objects"
    adapter = load_part(framework, "user")
    with pytest.raises(UserFileError) as error:
        adapter.Runner(user, "eager", example=user.batch((2, 3), 0))
    wanted = {"tf": "keras.Model", "torch": "torch.nn.Module", "chainer": "chainer.Link",
              "jax": "pure apply(params, *inputs) function"}
    assert str(error.value).endswith(f"{framework}_model(): 'model' is a object, not a "
                                     f"{wanted[framework]}")


@pytest.mark.parametrize("framework", EXAMPLES)
def test_a_bad_file_stops_the_user_suite_in_one_short_line(framework, tmp_path):
    """The one line naming file, function and fault, no source listing; pytest's usage error."""
    _framework(framework)
    path = FIXTURES / "wrong_returns.py"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "user", "--backend", framework, "--user", str(path),
         "--benchmark-disable", "--threads", "1", "--user-results", str(tmp_path), "-q",
         "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 4 and len(lines) < 15, "\n".join(lines)
    assert any(f"{path}: {framework}_model(): must return a dict with model, loss, optimizer, "
               "got list" in line for line in lines)


def test_keras_losses_take_the_target_first():
    """SparseCategoricalCrossentropy(from_logits=True) as Keras users write it runs; a loss
    wrapped for loss(outputs, target) is the one-line bad-input error naming the convention."""
    _framework("tf")
    check(ROOT / "examples" / "keras_text.py", "tf")
    with pytest.raises(UserFileError) as error:
        check(FIXTURES / "keras_swapped_loss.py", "tf")
    assert "tf_model(): a train step (model, then loss(target, outputs)) raised ValueError: " \
           "Argument `output` must have rank (ndim) `target.ndim - 1`" in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("mode", ["alone", "in_dict"])
def test_a_compiled_keras_model_brings_its_loss_and_optimizer(mode):
    """model.compile(optimizer, loss='sparse_categorical_crossentropy'), returned alone or as the
    dict's model: its loss (compute_loss, as fit) and optimizer train it, eager and graph alike."""
    _framework("tf")
    import keras
    from backends.tf.user import Runner
    user = check(FIXTURES / "keras_compiled.py", "tf")
    user.module.MODE = mode
    example = user.batch(user.shape(), 0)
    losses = {}
    for variant in ("eager", "graph"):
        runner = Runner(user, variant, example=example)
        assert isinstance(runner.optimizer, keras.optimizers.SGD)
        batch = runner.to_device(*example)
        losses[variant] = [runner.train_step(*batch) for _ in range(3)]
    assert losses["eager"][-1] < losses["eager"][0]
    assert np.allclose(losses["eager"], losses["graph"], rtol=1e-5)


def test_refused_variant_is_a_visible_skip_while_eager_runs(tmp_path):
    """Chainer's @static_graph refuses F.max's backward: `graph` skips with the framework's reason."""
    _framework("chainer")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "user", "--backend", "chainer", "--user",
         str(FIXTURES / "chainer_refused.py"), "--benchmark-disable", "--threads", "1",
         "--user-results", str(tmp_path), "-rs", "-p", "no:cacheprovider"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    out = done.stdout
    assert done.returncode == 0, out[-2000:]
    assert "1 passed, 1 skipped" in out
    assert "chainer/graph could not run:" in out and "TypeError" in out
    report = next(tmp_path.glob("user/*/user-chainer_refused.md")).read_text()
    assert "**chainer: stay eager.**" in report and "- `graph`: " in report
    saved = next(tmp_path.glob("user/*/user-chainer_refused-chainer.measurement.jsonl"))
    m = json.loads(saved.read_text())
    assert m["machine_info"]["graphbench"]["threads"] == 1  # as a suite run records it
    assert f"Machine `{machine_name(m['machine_info'])}`;" in report


def test_graph_breaks_are_counted_with_their_reason():
    """A data-dependent branch: torch._dynamo.explain counts the break and names its cause."""
    _framework("torch")
    from backends.torch.user import Runner, graph_breaks
    user = load(FIXTURES / "torch_graph_break.py")
    example = user.batch(user.shape(), 0)
    runner = Runner(user, "eager", example=example)
    found = graph_breaks(runner, *runner.to_device(*example))
    assert found["graph_breaks"] >= 1 and found["graphs"] >= 2
    assert any("item" in reason or "data" in reason.lower() for reason in found["break_reasons"])


def test_a_real_mismatch_is_loud(tmp_path):
    """Chainer's @static_graph with BatchNorm computes other losses than eager: marked, not picked."""
    _framework("chainer")
    from dataclasses import replace
    from report.build import user as U
    from report.views import user_md
    plan = replace(plan_for(None, smoke=True), accuracy_steps=5)
    m = measure(FIXTURES / "chainer_batchnorm.py", "chainer", plan, threads=1, log=lambda _: None)
    assert not m["steady"][0]["accuracy"]["graph"]["match"]
    assert m["steady"][0]["accuracy"]["eager_aa"]["match"]
    assert "⚠ **graph compute a different result from eager**" in user_md.recommend(*U.measured(m))
    assert "⚠ **MISMATCH**" in save(m, tmp_path, "vm").read_text()


def test_a_mismatch_fails_its_variant_and_keeps_the_report(tmp_path):
    """Through pytest (quick profile): the mismatching variant fails in one line, eager passes."""
    _framework("chainer")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "user", "--backend", "chainer", "--user",
         str(FIXTURES / "chainer_batchnorm.py"), "--threads", "1", "--user-results",
         str(tmp_path), "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 1 and "1 failed, 1 passed" in done.stdout
    assert "chainer/graph does not compute what eager computes: loss differs by" in done.stdout
    assert "MISMATCH" in next(tmp_path.glob("user/*/user-chainer_batchnorm.md")).read_text()


def test_several_inputs_and_outputs():
    """Two inputs (one a bool mask) and a dict of outputs: one step each, outputs flattened."""
    _framework("torch")
    from backends.torch.user import Runner
    user = check(FIXTURES / "torch_two_outputs.py", "torch")
    example = user.batch(user.shape(), 0)
    runner = Runner(user, "eager", example=example)
    xs, target = runner.to_device(*example)
    assert runner.infer_step(xs).shape == (4 * 2 + 4,)


@pytest.mark.slow
@pytest.mark.parametrize("framework", EXAMPLES)
def test_the_steady_child_waits_once_per_block_as_on_a_gpu(framework):
    """Your model's steady child in its GPU form, on this CPU: each block's steps queued and its
    end waiting on the last one's result (`--wait block`); every arm still computes what eager
    computes, and the last losses are read for the finite check. Each arm's block is sized as the
    answer job's (`--block-s`, `--equal-blocks`): the slowest arm's is one step."""
    _framework(framework)
    from suites.paired import AA, run_child
    from user.measure import _command
    path, arms = ROOT / "examples" / EXAMPLES[framework], ["eager", AA, "graph"]
    found = run_child(_command(path, framework, "steady", arms, 1, rounds=1, warmup=0, block=3,
                               block_s=1e-3, equal_blocks=True, accuracy_steps=2, wait="block"))
    assert found["settings"]["wait"] == "block"
    assert found["settings"]["block_rule"].startswith("each arm's fewest steps, at most 3, ")
    for phase, blocks in found["settings"]["block"].items():
        assert sorted(blocks) == sorted(arms) and min(blocks.values()) == 1, (phase, blocks)
        assert max(blocks.values()) <= 3
    assert not found["failed"] and not found["non_finite"]
    assert all(found["accuracy"][arm]["match"] for arm in arms)
    assert {phase: sorted(times) for phase, times in found["times"].items()} == {
        "train": sorted(arms), "infer": sorted(arms)}


def test_your_torch_model_on_a_gpu_has_reduce_overhead_and_no_hand_captured_step():
    """On a GPU your torch model gets `graph_cudagraphs` (inductor's CUDA graphs, each call one
    iteration of its graph trees); a whole step captured by hand cannot run, with its reason."""
    _framework("torch")
    import torch
    from user.measure import variants_of
    user = load(ROOT / "examples" / EXAMPLES["torch"])
    adapter, example = load_part("torch", "user"), user.batch(user.shape(), 0)
    plan = replace(plan_for(None, smoke=True), variants=None)
    assert {"graph_cudagraphs", "cuda_graph"} <= set(variants_of("torch", plan, "cuda"))
    assert "graph_cudagraphs" not in variants_of("torch", plan)
    with pytest.raises(ValueError, match="your model has no cuda_graph arm"):
        adapter.Runner(user, "cuda_graph", example=example)
    runner = adapter.Runner(user, "graph_cudagraphs", example=example)
    assert runner._mark_step is torch.compiler.cudagraph_mark_step_begin
