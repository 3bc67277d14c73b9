"""Paired timing: interleaved rounds with GC off, the child's JSON, pytest-benchmark's rounds."""
import contextlib
import gc
import json
import os
import subprocess
import sys
import textwrap

import pytest

from backends import DETERMINISM_UNSUPPORTED, VARIANTS
from suites.child import ROOT, result
from suites.paired import (AA, GC_SETTING, arm_name, arm_spec, child_command, group_arms,
                           interleave)
from suites.profiles import PROFILES


def test_interleave_times_every_arm_each_round_with_gc_off():
    calls, gc_on, frozen = [], [], []
    arms = {name: (lambda n=name: (calls.append(n), gc_on.append(gc.isenabled()),
                                   frozen.append(gc.get_freeze_count())))
            for name in "abc"}
    times, settings = interleave(arms, rounds=4, block=2, seed=7)
    assert {n: len(t) for n, t in times.items()} == {"a": 4, "b": 4, "c": 4}
    assert sorted(calls) == sorted("abc" * 8) and not any(gc_on) and gc.isenabled()
    assert min(frozen) > 0 and gc.get_freeze_count() == 0  # frozen for the rounds only
    rounds = [calls[i:i + 6:2] for i in range(0, 24, 6)]
    assert all(sorted(r) == list("abc") for r in rounds) and len({"".join(r) for r in rounds}) > 1
    assert settings == {"gc": GC_SETTING,
                        "order": "seeded shuffle per round", "order_seed": 7, "block": 2}
    calls.clear()
    interleave(arms, rounds=4, block=2, seed=7)
    assert calls[::2] == [c for r in rounds for c in r]  # the order is the seed's
    calls.clear()
    times, settings = interleave(arms, rounds=4, block={"a": 1, "b": 3, "c": 2}, seed=7)
    assert {n: calls.count(n) for n in "abc"} == {"a": 4, "b": 12, "c": 8}
    assert settings["block"] == {"a": 1, "b": 3, "c": 2} and len(times["b"]) == 4


def test_a_finish_ends_each_block_of_its_arm_inside_the_clock(monkeypatch):
    """--wait block: an arm's steps run back to back and its device is waited on once per block,
    before the clock is read (else the steps still queued would run in the next arm's block)."""
    clock, calls = [0.0], []
    monkeypatch.setattr("suites.paired.time.perf_counter", lambda: clock[0])

    def wait():
        calls.append("wait")
        clock[0] += 5.0
    times, _ = interleave({"a": lambda: calls.append("a")}, rounds=2, block=3, finish={"a": wait})
    assert calls == ["a", "a", "a", "wait"] * 2
    assert times["a"] == [5.0 / 3] * 2


def _command(backend, arms, rounds=2, phase="train", wait="step", **plan):
    config, batch = PROFILES["quick"].models["mnist_cnn"]
    return child_command(backend, "mnist_cnn", config, batch, phase, arms,
                         {"rounds": rounds, "warmup": 1, "block": 1, **plan}, wait=wait)


@pytest.mark.parametrize("phase", ["train", "infer"])  # quick's steady suite times train only
def test_child_times_every_arm_and_eager_runners_agree(backend, backend_name, phase):
    # infer (no update: the loss does not depend on the steps) also times the answer's blocks
    plan = {"block": 4, "block_s": 1e-3, "equal_blocks": True} if phase == "infer" else {}
    wait = "block" if phase == "train" else "step"  # a training loop's waits: once per block
    found = result(_command(backend_name, ["eager", AA], phase=phase, wait=wait, **plan),
                   timeout=300)
    assert {arm: len(t) for arm, t in found["times"].items()} == {"eager": 2, AA: 2}
    assert found["settings"]["wait"] == wait
    assert found["loss"]["eager"] == found["loss"][AA] and found["loss_finite"]
    assert found["settings"]["warmup_rounds"] == 1 and found["traces"] == {"eager": 0, AA: 0}
    if plan:
        assert set(found["settings"]["block"]) == {"eager", AA}
        assert "each arm's" in found["settings"]["block_rule"]


def test_child_refuses_an_unsupported_arm_in_one_line(backend_name):
    done = subprocess.run(_command(backend_name, ["eager", "nope"]), capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"paired_child: unknown arm 'nope': choose one of {', '.join(VARIANTS)}"]


def test_pytest_benchmark_saves_the_paired_rounds(tmp_path):
    """record() uses pytest-benchmark 5.2.3's private API: a saved run must carry the rounds."""
    (tmp_path / "test_inner.py").write_text(textwrap.dedent("""
        from suites.paired import record
        def test_inner(benchmark):
            record(benchmark, [[0.1, 0.3], [0.2]])
    """))
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path / "test_inner.py"), f"--benchmark-json={out}"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
    stats = json.loads(out.read_text())["benchmarks"][0]["stats"]
    assert stats["rounds"] == 3 and stats["median"] == pytest.approx(0.2)
    assert stats["min"] == pytest.approx(0.1) and stats["iterations"] == 1


def test_arm_names_carry_precision_and_determinism_and_the_aa_arm_is_float32_eager():
    assert [arm_name("graph"), arm_name("graph", "bfloat16"), arm_name("xla", "bfloat16", True)
            ] == ["graph", "graph@bfloat16", "xla@bfloat16+det"]
    assert [arm_spec(a) for a in ("graph", "graph@bfloat16", AA, "xla@bfloat16+det")] == [
        ("graph", "float32", False), ("graph", "bfloat16", False), ("eager", "float32", False),
        ("xla", "bfloat16", True)]


def test_contexts_wrap_their_arm_outside_the_clock():
    seen = []

    @contextlib.contextmanager
    def switch():
        seen.append("on")
        yield
        seen.append("off")

    arms = {"a": lambda: seen.append("a"), "b": lambda: seen.append("b")}
    interleave(arms, rounds=2, contexts={"b": switch})
    assert seen.count("b") == 2 and all(seen[i - 1:i + 2] == ["on", "b", "off"]
                                        for i, x in enumerate(seen) if x == "b")


def test_group_arms_bring_their_references_along():
    assert group_arms([]) == ["eager", AA]
    assert group_arms([("graph_static", "float32"), ("eager", "float32")]) == [
        "eager", AA, "graph_static"]
    assert group_arms([("graph", "bfloat16")]) == [
        "eager", AA, "graph", "eager@bfloat16", "graph@bfloat16"]


def test_child_times_a_deterministic_arm(backend, backend_name):
    if why := DETERMINISM_UNSUPPORTED.get((backend_name, "eager")):
        pytest.skip(f"{backend_name}/eager+det: {why}")
    found = result(_command(backend_name, ["eager", "eager+det"]), timeout=300)
    assert found["loss"]["eager+det"] == pytest.approx(found["loss"]["eager"], rel=1e-5)
    assert found["loss_finite"] and set(found["times"]) == {"eager", "eager+det"}


def test_no_ratio_reads_an_arm_that_ended_on_a_non_finite_loss():
    from suites.test_steady import _finite
    nan = float("nan")
    group = {"children": [{"loss": {"eager": 1.0, AA: 1.0, "graph": 1.0, "xla": nan,
                                    "eager@bfloat16": nan, "graph@bfloat16": 1.0}},
                          {"loss": {"eager": 1.0, AA: nan, "graph": 1.0, "xla": 1.0,
                                    "eager@bfloat16": 1.0, "graph@bfloat16": 1.0}}]}
    assert _finite(group, "graph", "float32")
    assert not _finite(group, "xla", "float32")
    assert not _finite(group, "eager", "float32")  # its A/A partner
    assert not _finite(group, "graph", "bfloat16")  # eager at bfloat16


def test_a_group_is_measured_once_and_its_failure_fails_every_test_of_it():
    from suites.paired import measured_once
    groups, calls = {}, []
    assert measured_once(groups, "a", lambda: calls.append(1) or {"t": 1}) == {"t": 1}
    assert measured_once(groups, "a", lambda: calls.append(1) or {"t": 2}) == {"t": 1}

    def broken():
        calls.append(1)
        raise RuntimeError("paired child exited 1: boom")
    for _ in range(2):
        with pytest.raises(pytest.fail.Exception, match="boom"):
            measured_once(groups, "b", broken)
    assert len(calls) == 2


def test_the_step_cost_study_times_each_way_of_waiting(backend_name):
    """gpu/step_cost.py (docs/METHOD.md, The step a GPU user runs), dry-run on the CPU: one line
    per variant with each arm's ms and the per-step wait's ratio over the others."""
    done = subprocess.run([sys.executable, "gpu/step_cost.py", "--backend", backend_name,
                           "--variants", "eager,cuda_graph", "--device", "cpu", "--rounds", "2",
                           "--block", "2"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    eager, cuda_graph = (json.loads(line) for line in done.stdout.splitlines()
                         if line.startswith("{"))
    arms = {"step", "block", *(("loss", "bare") if backend_name == "jax" else ())}
    assert set(eager["ms"]) == arms and set(eager["step_over"]) == arms - {"step"}
    assert "CUDA graphs exist only on an NVIDIA GPU" in cuda_graph["skipped"]
