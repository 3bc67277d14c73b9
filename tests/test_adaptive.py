"""Adaptive repetition (suites.paired.measure_group with profiles.Adaptive): processes are added
until every ratio's interval is narrow, stopping on width only, within the group's limits."""
import random
from types import SimpleNamespace

import pytest

from suites import paired
from suites.profiles import PROFILES, Adaptive

pytest.importorskip("numpy")
CASE = SimpleNamespace(backend=SimpleNamespace(NAME="tf"), model="mnist_cnn", spec=SimpleNamespace(
    name="mnist_cnn", config={}), batch=8)
ENV = {"device": "cpu", "threads": 1}
PLAN = {"rounds": 10, "warmup": 0, "block": 1}


def fake_children(monkeypatch, step_s, spread, ratio=1.0):
    """Children whose eager and A/A rounds scatter by `spread` (relative) around `step_s` and
    whose graph arm is `ratio`× faster; returns the list of seeds run."""
    seeds = []

    def result(command):
        seed = int(command[command.index("--seed") + 1])
        seeds.append(seed)
        rng = random.Random(seed)
        offset = rng.gauss(0, spread)  # the process's own level: between-process noise
        times = {arm: [step_s * (1 + offset + rng.gauss(0, spread)) / (ratio if arm == "graph"
                                                                        else 1)
                       for _ in range(10)] for arm in ("eager", paired.AA, "graph")}
        return {"times": times}
    monkeypatch.setattr(paired.child, "result", result)
    return seeds


def measure(adaptive, processes=3):
    return paired.measure_group(CASE, "train", ["eager", paired.AA, "graph"], PLAN, ENV,
                                processes, adaptive)


def test_noisy_comparisons_get_processes_until_the_interval_is_narrow(monkeypatch):
    seeds = fake_children(monkeypatch, 0.02, 0.04)
    group = measure(Adaptive(target=0.03, max_processes=40, budget_s=60))
    found = group["adaptive"]
    assert found["reached_target"] and len(seeds) > 3
    assert max(found["half_widths"].values()) <= 0.03
    assert seeds == list(range(len(seeds)))  # a new seed per process, none repeated


def test_quiet_comparisons_stop_at_the_minimum(monkeypatch):
    seeds = fake_children(monkeypatch, 0.02, 0.001, ratio=1.5)
    assert measure(Adaptive(target=0.03))["adaptive"]["reached_target"] and len(seeds) == 3


def test_the_process_cap_ends_a_comparison_that_never_narrows(monkeypatch):
    seeds = fake_children(monkeypatch, 0.02, 0.5)
    found = measure(Adaptive(target=0.001, max_processes=5, budget_s=60))["adaptive"]
    assert not found["reached_target"] and len(seeds) == 5


def test_the_time_budget_ends_it_before_the_cap(monkeypatch):
    seeds = fake_children(monkeypatch, 0.02, 0.5)
    clock = iter(range(0, 10_000, 10))  # each reading 10 s after the last: about 10 s a process
    monkeypatch.setattr(paired.time, "perf_counter", lambda: next(clock))
    found = measure(Adaptive(target=0.001, max_processes=50, budget_s=45))["adaptive"]
    assert not found["reached_target"] and 3 <= len(seeds) < 50


def test_steps_shorter_than_the_floor_are_not_held_to_the_target(monkeypatch):
    seeds = fake_children(monkeypatch, 0.001, 0.3)
    found = measure(Adaptive(target=0.03, min_step_s=0.005))["adaptive"]
    assert found["half_widths"] == {} and found["reached_target"] and len(seeds) == 3


def test_the_stopping_rule_reads_width_never_significance(monkeypatch):
    """A clear 2× gain with a wide interval keeps going; an A/A of equal noise as well."""
    seeds = fake_children(monkeypatch, 0.02, 0.1, ratio=2.0)
    measure(Adaptive(target=0.03, max_processes=6, budget_s=60))
    assert len(seeds) == 6


def test_without_adaptive_the_group_has_its_processes_and_no_record(monkeypatch):
    seeds = fake_children(monkeypatch, 0.02, 0.5)
    group = measure(None)
    assert len(seeds) == 3 and "adaptive" not in group
    assert paired.adaptive_info(group, "graph") == {}


def test_the_default_profile_repeats_adaptively_and_quick_does_not():
    assert PROFILES["default"].adaptive.target == 0.03 and PROFILES["quick"].adaptive is None


def test_a_block_target_reaches_the_child_and_none_adds_no_flag():
    plan = {"rounds": 10, "warmup": 3, "block": 32, "block_s": 0.05}
    command = paired.child_command("tf", "mnist_cnn", {}, 8, "train", ["eager"], plan)
    assert command[command.index("--block-s") + 1] == "0.05"
    assert "--block-s" not in paired.child_command("tf", "mnist_cnn", {}, 8, "train", ["eager"],
                                                   {**plan, "block_s": 0.0})


def test_a_focus_group_gets_its_own_limits(monkeypatch):
    seeds = fake_children(monkeypatch, 0.02, 0.2)
    focus = ((("tf", "mnist_cnn", "train"), 60.0, 12),)
    found = measure(Adaptive(target=0.001, max_processes=5, budget_s=60, focus=focus))["adaptive"]
    assert len(seeds) == 12 and found["budget_s"] == 60.0 and not found["reached_target"]
    assert paired.adaptive_info({"adaptive": found}, "graph")["budget_s"] == 60.0  # saved per result
    seeds.clear()
    other = ((("tf", "mnist_cnn", "infer"), 60.0, 12),)
    measure(Adaptive(target=0.001, max_processes=5, budget_s=60, focus=other))
    assert len(seeds) == 5
