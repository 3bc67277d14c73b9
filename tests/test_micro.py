"""Every micro workload's graph variant computes what eager computes; the micro child's JSON line
and its one-line refusals."""
import json
import subprocess

import numpy as np
import pytest

from backends.micro import WORKLOADS
from suites.child import ROOT, command
from suites.micro_child import parse
from suites.paired import AA, GC_SETTING
from suites.test_micro import MICRO_BLOCK, MICRO_BLOCK_S, _command, micro_module


@pytest.mark.parametrize("workload", WORKLOADS)
def test_graph_matches_eager(backend, workload):
    micro = micro_module(backend)
    if reason := micro.UNSUPPORTED.get((workload, "graph")):
        pytest.skip(f"{micro.NAME}/{workload}: {reason}")
    eager, _ = micro.build(workload, "eager")
    graph, traces = micro.build(workload, "graph")
    for _ in range(2):  # the second call runs the cached graph
        np.testing.assert_allclose(graph(), eager(), rtol=1e-5, atol=1e-6)
    # a graph variant that captured nothing ran eagerly: that must be known, not a surprise
    assert (traces() == 0) == (workload in micro.COMPILES_NOTHING)


def _child(backend_name, workload, arms, tmp_path, *extra):
    """Run the micro child: (exit code, stdout, stderr lines)."""
    argv = command("micro_child", backend=backend_name, workload=workload, arms=arms,
                   cache_dir=tmp_path, threads=1) + list(extra)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr.strip().splitlines()


def test_the_suites_command_line_parses_back():
    plan = {"rounds": 4, "warmup": 2, "block": MICRO_BLOCK, "block_s": MICRO_BLOCK_S}
    args = parse(_command("tf", ["conv", "dispatch"], ["eager", AA, "graph"], plan, 3, 2,
                          "/tmp/c")[3:])
    assert (args.backend, args.workloads, args.arms, args.rounds, args.warmup, args.block,
            args.block_s, args.seed, args.threads, args.cache_dir, args.warm_prime) == (
        "tf", ["conv", "dispatch"], ["eager", AA, "graph"], 4, 2, MICRO_BLOCK, MICRO_BLOCK_S, 3,
        2, "/tmp/c", False)
    assert parse(_command("tf", ["conv"], ["eager"], plan, 0, 1, "", True)[3:]).warm_prime


@pytest.mark.parametrize("workload, arms, message", [
    ("nope", "eager", f"unknown workload 'nope': choose one of {', '.join(WORKLOADS)}"),
    ("conv", "eager,xla", f"unknown arm 'xla': choose one of eager, graph, {AA}"),
    ("conv,conv", "eager", "--workload needs distinct names, got conv,conv"),
])
def test_child_refuses_bad_arguments_in_one_line(backend_name, tmp_path, workload, arms, message):
    code, out, err = _child(backend_name, workload, arms, tmp_path)
    assert (code, out, err) == (2, "", [f"micro_child: {message}"])


def test_child_refuses_an_unsupported_arm_in_one_line(backend, tmp_path):
    micro = micro_module(backend)
    if not micro.UNSUPPORTED:
        pytest.skip(f"{micro.NAME} runs every micro workload's graph variant")
    workload, variant = sorted(micro.UNSUPPORTED)[0]
    code, out, err = _child(micro.NAME, f"matmul10,{workload}", f"eager,{variant}", tmp_path)
    assert code == 2 and out == "" and len(err) == 1
    assert err[0].startswith(f"micro_child: {micro.NAME}/{workload}/{variant} is not supported: ")


def test_child_returns_every_arms_rounds(backend_name, tmp_path):
    """Each arm's rounds (seconds per call), first and second calls and traces, under an empty
    compile cache dir per workload. Chainer's child only (it starts in a second): the suite's
    --benchmark-disable run starts every backend's child in the same test command."""
    if backend_name != "chainer":
        pytest.skip("run in the chainer env; suites/test_micro.py runs this backend's child")
    code, out, err = _child(backend_name, "matmul10", f"eager,{AA},graph", tmp_path,
                            "--rounds", "3", "--warmup", "1", "--block", "4", "--seed", "5")
    assert code == 0, err[-1:]
    found = json.loads(out)["workloads"]["matmul10"]
    arms = ["eager", AA, "graph"]
    assert list(found["times"]) == arms
    assert all(len(found["times"][a]) == 3 and min(found["times"][a]) > 0 for a in arms)
    for key in ("first_call_s", "second_call_s", "traces"):
        assert list(found[key]) == arms
    assert found["traces"]["eager"] == found["traces"][AA] == 0 < found["traces"]["graph"]
    assert found["settings"] | {"calibration_s_per_call": None} == {
        "gc": GC_SETTING, "order": "seeded shuffle per round",
        "order_seed": 5, "block": 4, "warmup_rounds": 1, "block_rule": "4 calls",
        "calibration_s_per_call": None}
    assert (tmp_path / "matmul10").is_dir()


def test_the_block_grows_until_the_fastest_arm_lasts_the_target(monkeypatch):
    """The fewest calls (at most `most`) for the fastest arm to last `seconds`."""
    from suites import paired
    clock = [0.0]
    monkeypatch.setattr(paired.time, "perf_counter", lambda: clock[0])

    def step(seconds):
        return lambda: clock.__setitem__(0, clock[0] + seconds)
    steps = {"slow": step(1 / 256), "fast": step(1 / 1024)}
    assert paired.block_for(steps, 1000, 1 / 64) == (16, {"slow": 1 / 256, "fast": 1 / 1024})
    assert paired.block_for(steps, 8, 1 / 64)[0] == 8
    assert paired.block_for({"conv": step(0.5)}, 1000, 1 / 64)[0] == 1
    # equal time: each arm's own steps for the target, or for the slowest arm's one step
    assert paired.block_for(steps, 1000, 1 / 64, equal=True)[0] == {"slow": 4, "fast": 16}
    steps["slow"] = step(1 / 16)
    assert paired.block_for(steps, 1000, 1 / 64, equal=True)[0] == {"slow": 1, "fast": 64}
    assert paired.block_for(steps, 8, 1 / 64, equal=True)[0] == {"slow": 1, "fast": 8}
