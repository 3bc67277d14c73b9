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


def fake_children(monkeypatch, step_s, spread, ratio=1.0, **fields):
    """Children whose eager and A/A rounds scatter by `spread` (relative) around `step_s` and
    whose graph arm is `ratio`× faster (`fields`: more of each child's result); returns the list
    of seeds run."""
    seeds = []

    def result(command):
        seed = int(command[command.index("--seed") + 1])
        seeds.append(seed)
        rng = random.Random(seed)
        offset = rng.gauss(0, spread)  # the process's own level: between-process noise
        times = {arm: [step_s * (1 + offset + rng.gauss(0, spread)) / (ratio if arm == "graph"
                                                                        else 1)
                       for _ in range(10)] for arm in ("eager", paired.AA, "graph")}
        return {"times": times, **fields}
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


def test_quiet_comparisons_stop_at_the_targets_minimum_of_processes(monkeypatch):
    seeds = fake_children(monkeypatch, 0.02, 0.001, ratio=1.5)
    found = measure(Adaptive(target=0.03))["adaptive"]
    assert found["reached_target"] and found["stopped_by"] == "target"
    assert len(seeds) == Adaptive().min_processes == 5  # not the profile's 3
    seeds.clear()
    measure(Adaptive(target=0.03), processes=6)
    assert len(seeds) == 6  # a profile with more starts them all, and adds none


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
    assert found["half_widths"] == {} and found["reached_target"]
    assert len(seeds) == Adaptive().min_processes


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


def test_children_with_a_block_per_arm_get_processes_too(monkeypatch):
    """The answer job's children: a block per arm, and their rounds' own cost (run 0054 failed
    here: the cost of a round multiplied a dict)."""
    blocks = {"eager": 4, paired.AA: 4, "graph": 16}
    fake_children(monkeypatch, 0.01, 0.2, 2.0, rounds_s=1.0, settings={"block": blocks})
    assert len(measure(Adaptive(target=0.03, max_processes=5, budget_s=1e9))["children"]) == 5
    children = [{"times": {"eager": [0.01] * 2, "graph": [0.005] * 2},
                 "settings": {"block": {"eager": 4, "graph": 8}}, "wall_s": 3.0}]
    assert paired.costs(children) == (3.0 - 0.16, 0.08)  # 2 rounds of 4 × 0.01 + 8 × 0.005


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


class Clock:
    """A clock that fake children advance by what a process of theirs would cost."""
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def costly_children(monkeypatch, process_sd, round_sd, setup_s, round_s, ratio=1.2):
    """Children that honour --rounds: a process level of sd `process_sd` (the graph arm's own),
    round noise `round_sd`, `setup_s` before the rounds and `round_s` a round on the clock;
    returns (the rounds each child ran, the clock)."""
    ran, clock = [], Clock()
    monkeypatch.setattr(paired.time, "perf_counter", clock)

    def result(command):
        seed, rounds = (int(command[command.index(flag) + 1]) for flag in ("--seed", "--rounds"))
        rng = random.Random(seed)
        level = rng.gauss(0, process_sd)
        times = {arm: [0.02 * (1 + rng.gauss(0, round_sd)) * ((1 + level) / ratio
                                                             if arm == "graph" else 1)
                       for _ in range(rounds)] for arm in ("eager", paired.AA, "graph")}
        clock.now += setup_s + rounds * round_s
        ran.append(rounds)
        return {"times": times, "rounds_s": rounds * round_s, "first_calls_s": setup_s,
                "compile_cache_hits": 0, "settings": {"warmup_rounds": 0, "block": 1, "gc": "on",
                                                      "order": "shuffled", "order_seed": seed}}
    monkeypatch.setattr(paired.child, "result", result)
    return ran, clock


def test_k_and_j_gives_the_cheapest_rounds_per_process():
    # c_process 30 s, c_round 0.3 s, round sd 9%, process sd 2%: sqrt(30 * 0.0081 / (0.3 * 0.0004))
    assert paired.k_and_j(0.09 ** 2, 0.02 ** 2, 30.0, 0.3, 10, 100) == 45
    assert paired.k_and_j(0.09 ** 2, 0.0, 30.0, 0.3, 10, 60) == 60  # no process part: the cap
    assert paired.k_and_j(0.01 ** 2, 0.2 ** 2, 1.0, 0.3, 10, 60) == 10  # processes are cheap
    assert paired.k_and_j(0.0, 0.0, 30.0, 0.3, 10, 60) == 10  # no noise: nothing to buy
    assert paired.k_and_j(0.09 ** 2, 0.02 ** 2, 30.0, 0.3, 10, 40) == 40


def test_round_noise_and_costly_processes_get_longer_processes(monkeypatch):
    """Between-process part about 0 and a process 50× a round: the later processes run the cap
    of rounds, and the interval is recomputed from the saved, ragged rounds."""
    import stats
    ran, _ = costly_children(monkeypatch, 0.0, 0.15, setup_s=15.0, round_s=0.3)
    group = measure(Adaptive(target=0.03, max_processes=20, budget_s=600, max_rounds=40))
    assert ran[:3] == [10, 10, 10] and ran[3:] and set(ran[3:]) == {40}
    info = paired.paired_info(group, "graph")
    assert info["rounds_per_process"] == ran and info["allocation"]["best_rounds"] == 40
    assert info["variance_components"]["process_sd"] < info["variance_components"]["round_sd"]
    assert info["stopped_by"] == "target" and info["reached_target"]
    recomputed = stats.ratio(group["times"]["eager"], info["paired_rounds_s"])
    assert (recomputed.high - recomputed.low) / 2 / recomputed.estimate == pytest.approx(
        info["half_width"])
    ran.clear()  # without max_rounds every process has the profile's rounds
    measure(Adaptive(target=0.03, max_processes=6, budget_s=600))
    assert ran == [10] * 6


def test_a_process_level_that_dominates_gets_more_processes_not_rounds(monkeypatch):
    ran, _ = costly_children(monkeypatch, 0.08, 0.02, setup_s=0.5, round_s=0.3)
    found = measure(Adaptive(target=0.03, max_processes=12, budget_s=600, max_rounds=40))
    assert len(ran) > 3 and set(ran) == {10}
    assert found["adaptive"]["allocation"]["best_rounds"] == 10


def test_the_last_process_is_cut_to_fit_the_time_budget(monkeypatch):
    ran, _ = costly_children(monkeypatch, 0.0, 0.3, setup_s=10.0, round_s=1.0)
    found = measure(Adaptive(target=0.001, max_processes=20, budget_s=80, max_rounds=40))
    # three processes of 20 s, then one of the 10 rounds left after its set-up: 80 s in all
    assert ran == [10, 10, 10, 10] and found["adaptive"]["stopped_by"] == "time budget"
    assert found["adaptive"]["group_seconds"] == 80

