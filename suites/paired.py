"""Paired timing: several arms interleaved in one process, repeated in fresh child processes."""
import contextlib
import gc
import random
import time

from backends import PRECISIONS, VARIANTS
from catalog import STEADY_AA as AA  # a second, independent float32 eager runner: the A/A control
from suites import child

run_child = child.result  # the name user/measure.py imports
GC_SETTING = ("collected before, disabled during each block; the heap older than the rounds "
              "frozen (gc.freeze), so each collection scans only what the rounds made")


def arm_name(variant, precision="float32", deterministic=False):
    """An arm's name: the variant, `@precision` unless float32, `+det` with deterministic ops on
    (graph, graph@bfloat16, graph+det)."""
    return (variant + ("" if precision == "float32" else f"@{precision}")
            + ("+det" if deterministic else ""))


def arm_spec(arm):
    """(variant, precision, deterministic) of an arm (the A/A arm is another float32 eager)."""
    name, det, _ = arm.partition("+det")
    variant, _, precision = name.partition("@")
    return ("eager" if variant == AA else variant), precision or "float32", bool(det)


def group_arms(selected):
    """A group's arms for the selected (variant, precision) pairs: eager and the A/A arm first,
    then each pair with eager at its precision and the variant at float32, in registry order."""
    arms = {"eager", AA}
    for variant, precision in selected:
        arms |= {arm_name(variant, precision), arm_name("eager", precision), variant}
    return ["eager", AA] + [arm_name(v, p) for p in PRECISIONS for v in VARIANTS
                            if arm_name(v, p) in arms - {"eager"}]


def _timed(step, block, gc_off):
    gc.collect()
    enabled = gc.isenabled()
    if gc_off:
        gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(block):
            step()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def interleave(arms, rounds, block=1, seed=0, gc_off=True, contexts=None):
    """{arm: [seconds per step, one per round]} and the settings; each round times every arm's
    block of `block` steps once, in an order shuffled per round by a generator seeded `seed`.

    `arms` maps names to callables already past their first (compiling) call; `contexts` maps
    some of them to a context factory entered around the block, outside the clock."""
    order, rng, contexts = list(arms), random.Random(seed), contexts or {}
    times = {name: [] for name in arms}
    if gc_off:  # a full collection of a framework's heap takes ~0.13 s: pay it once, not per block
        gc.collect()
        gc.freeze()
    try:
        for _ in range(rounds):
            rng.shuffle(order)
            for name in order:
                with contexts.get(name, contextlib.nullcontext)():
                    times[name].append(_timed(arms[name], block, gc_off) / block)
    finally:
        if gc_off:
            gc.unfreeze()
    settings = {"gc": GC_SETTING if gc_off else "on", "order": "seeded shuffle per round",
                "order_seed": seed, "block": block}
    return times, settings


def child_command(backend, model, config, batch, phase, arms, plan, seed=0, device="cpu",
                  threads=1):
    """The command line of one child process timing `arms` of one comparison group."""
    return child.command("paired_child", backend=backend, model=model, config=config,
                         batch=batch, phase=phase, arms=arms, rounds=plan["rounds"],
                         warmup=plan["warmup"], block=plan["block"], seed=seed, device=device,
                         threads=threads)


def measure_group(case, phase, arms, plan, env, processes):
    """Run the group in `processes` fresh children: {"times": {arm: [[s per round] per
    process]}, "children": [each child's result]}."""
    children = [child.result(child_command(
        case.backend.NAME, case.spec.name, case.spec.config, case.batch, phase, arms, plan, seed,
        env["device"], env["threads"])) for seed in range(processes)]
    return {"times": {arm: [c["times"][arm] for c in children] for arm in arms},
            "children": children}


def steady_plan(profile, disabled):
    """Rounds, warm-up and block of a paired group: the profile's, or one bare round under
    --benchmark-disable."""
    return ({"rounds": 1, "warmup": 0, "block": 1} if disabled else
            {"rounds": profile.steady_process_rounds, "warmup": profile.warmup_rounds,
             "block": profile.steady_block})


def measured_once(groups, key, measure):
    """The group's measurement, made by its first test (`measure()`) and kept in `groups`; a
    RuntimeError there fails every test of the group with its line."""
    import pytest  # not at module level: the child processes import this module too
    if key not in groups:
        try:
            groups[key] = measure()
        except RuntimeError as error:
            groups[key] = str(error)
    if isinstance(groups[key], str):
        pytest.fail(groups[key])
    return groups[key]


def record(benchmark, times):
    """Give pytest-benchmark the paired per-step times ([process][round]) as its rounds (none
    under --benchmark-disable).

    Private API of pytest-benchmark 5.2.3 (pinned in tox.ini; tests/test_paired.py checks it)."""
    benchmark._mode = "paired rounds (suites/paired.py)"  # a second use of the fixture raises
    if benchmark.disabled:
        return
    found = benchmark._make_stats(1)
    for process in times:
        for seconds in process:
            found.update(seconds)
