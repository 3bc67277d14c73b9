"""Paired timing: several arms interleaved in one process, repeated in fresh child processes."""
import contextlib
import gc
import math
import random
import time

import stats
from backends import PRECISIONS, VARIANTS
from catalog import WAITS  # noqa: F401 (paired_child's choices)
from catalog import STEADY_AA as AA  # a second, independent float32 eager runner: the A/A control
from suites import child

CI_METHOD = (f"{stats.LEVEL:.0%} hierarchical bootstrap of the {stats.TRIM:.0%} trimmed mean of "
             f"the per-round log ratios: processes, then rounds within each, paired; "
             f"{stats.RESAMPLES} resamples, seed 0")

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


def _timed(step, block, gc_off, finish=None):
    gc.collect()
    enabled = gc.isenabled()
    if gc_off:
        gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(block):
            step()
        if finish:  # --wait block: the device is waited on once, inside the clock
            finish()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def block_for(steps, most, seconds, contexts=None, equal=False, finish=None):
    """The fewest steps, at most `most`, whose block lasts `seconds` for the fastest arm (`equal`:
    {arm: steps} whose blocks each last about as long, `seconds` or the slowest arm's step), and
    each arm's seconds per step over the steps that measured it (extra warm-up for every arm)."""
    per_call, contexts, finish = {}, contexts or {}, finish or {}
    for arm, step in steps.items():
        with contexts.get(arm, contextlib.nullcontext)():
            calls, start = 0, time.perf_counter()
            while calls < most and time.perf_counter() - start < seconds:
                step()
                calls += 1
                if arm in finish:  # else an asynchronous dispatch looks as fast as a launch
                    finish[arm]()
            per_call[arm] = (time.perf_counter() - start) / calls
    fastest = min(per_call.values())
    if equal:  # per-round noise fell with block length as if white (issue 35): equal time per arm
        span = max(seconds, *per_call.values())
        return {arm: min(most, max(1, math.ceil(span / s))) if s > 0 else most
                for arm, s in per_call.items()}, per_call
    return min(most, math.ceil(seconds / fastest) if fastest > 0 else most), per_call


def arm_block(block, arm):
    """An arm's steps per block: `block` is one count for every arm or {arm: steps}."""
    return block[arm] if isinstance(block, dict) else block


def interleave(arms, rounds, block=1, seed=0, gc_off=True, contexts=None, finish=None):
    """{arm: [seconds per step, one per round]} and the settings; each round times every arm's
    block of `block` steps ({arm: steps}: each its own) once, in an order shuffled per round by a generator seeded `seed`.

    `arms` maps names to callables already past their first (compiling) call; `contexts` maps
    some of them to a context factory entered around the block, outside the clock; `finish` maps
    arms to what ends each of their blocks inside the clock (--wait block: wait for the device)."""
    order, rng, contexts, finish = list(arms), random.Random(seed), contexts or {}, finish or {}
    times = {name: [] for name in arms}
    if gc_off:  # a full collection of a framework's heap takes ~0.13 s: pay it once, not per block
        gc.collect()
        gc.freeze()
    try:
        for _ in range(rounds):
            rng.shuffle(order)
            for name in order:
                with contexts.get(name, contextlib.nullcontext)():
                    steps = arm_block(block, name)
                    times[name].append(_timed(arms[name], steps, gc_off, finish.get(name))
                                       / steps)
    finally:
        if gc_off:
            gc.unfreeze()
    settings = {"gc": GC_SETTING if gc_off else "on", "order": "seeded shuffle per round",
                "order_seed": seed, "block": block}
    return times, settings


def child_command(backend, model, config, batch, phase, arms, plan, seed=0, device="cpu",
                  threads=1, wait="step"):
    """The command line of one child process timing `arms` of one comparison group."""
    return child.command("paired_child", backend=backend, model=model, config=config,
                         batch=batch, phase=phase, arms=arms, rounds=plan["rounds"],
                         warmup=plan["warmup"], block=plan["block"],
                         block_s=plan.get("block_s") or None,
                         equal_blocks=plan.get("equal_blocks", False), seed=seed, device=device,
                         threads=threads, wait=wait)


def measure_group(case, phase, arms, plan, env, processes, adaptive=None):
    """Run the group in `processes` fresh children, and more while `adaptive` (profiles.Adaptive)
    asks for them, each with the rounds `allocate` chooses: {"times": {arm: [[s per round] per
    process]}, "children": [each child's result], "adaptive": how the repetition went}."""
    def run(seed, rounds):
        began = time.perf_counter()
        found = child.result(child_command(
            case.backend.NAME, case.spec.name, case.spec.config, case.batch, phase, arms,
            {**plan, "rounds": rounds}, seed, env["device"], env["threads"],
            env.get("wait", "step")))
        return {**found, "wall_s": time.perf_counter() - began}
    start = time.perf_counter()
    children = [run(seed, plan["rounds"]) for seed in range(processes)]
    allocation = None  # the choice that ran the last added process
    if adaptive:
        budget_s, most = adaptive.limits((case.backend.NAME, case.model, phase))
    while adaptive:
        times = _times(arms, children)
        widths = half_widths(times, adaptive.min_step_s)
        reached = all(w <= adaptive.target for w in widths.values())
        spent = time.perf_counter() - start
        chosen = allocate(times, children, widths, adaptive, plan["rounds"], budget_s - spent)
        stopped = ("target" if reached and len(children) >= adaptive.min_processes
                   else "process cap" if len(children) >= most
                   else "time budget" if chosen["rounds"] < plan["rounds"] else None)
        if stopped:
            break
        allocation = chosen
        children.append(run(len(children), chosen["rounds"]))
    group = {"times": _times(arms, children), "children": children}
    if adaptive:
        group["adaptive"] = {"target_half_width": adaptive.target, "reached_target": reached,
                             "half_widths": widths, "group_seconds": spent,
                             "budget_s": budget_s, "stopped_by": stopped,
                             "min_step_s": adaptive.min_step_s, "allocation": allocation,
                             "components": components(group["times"])}
    return group


def allocate(times, children, widths, adaptive, least, left_s):
    """The next process's rounds by Kalibera & Jones (ISMM 2013): the ratio that is furthest from
    its target gives the per-round and between-process variances of its log ratio, the children
    so far the cost of a process and of a round; fewer than `least` when no process of `least`
    rounds fits in `left_s`."""
    process_s, round_s = costs(children)
    wide = {arm: w for arm, w in widths.items() if w > adaptive.target}
    arm = max(wide, key=wide.get, default=None)
    found = stats.noise(times[_base(arm)], times[arm]) if arm else None
    best = (k_and_j(found.within ** 2, found.between ** 2, process_s, round_s, least,
                    max(least, adaptive.max_rounds)) if found else least)
    fits = math.floor((left_s - process_s) / round_s) if round_s > 0 else best
    return {"rounds": min(best, fits), "best_rounds": best, "arm": arm,
            "round_sd": found and found.within, "process_sd": found and found.between,
            "process_s": process_s, "round_s": round_s}


def k_and_j(round_var, process_var, process_s, round_s, least, most):
    """Rounds per process that reach a target precision at least cost: r* = sqrt(c_process ·
    σ²_round / (c_round · σ²_process)), within [least, most]; `most` where the between-process
    variance is about 0 (another process then buys nothing that a round does not)."""
    if round_var <= 0 or round_s <= 0:
        return least
    if process_var <= 1e-12 * round_var:
        return most
    best = math.sqrt(process_s * round_var / (round_s * process_var))
    return int(min(most, max(least, round(best))))


def costs(children):
    """(seconds a fresh process costs before its rounds: start-up, first calls, calibration and
    warm-up; seconds one timed round costs), means over `children`."""
    rounds_s = [c["rounds_s"] if "rounds_s" in c else sum(
        sum(t) * arm_block(c.get("settings", {}).get("block", 1), arm)
        for arm, t in c["times"].items()) for c in children]
    per_round = [r / len(next(iter(c["times"].values()))) for r, c in zip(rounds_s, children)]
    setup = [max(0.0, c.get("wall_s", r) - r) for r, c in zip(rounds_s, children)]
    return sum(setup) / len(setup), sum(per_round) / len(per_round)


def components(times):
    """{arm: (per-round sd, between-process sd)} of log(eager ÷ arm) at its precision, every arm
    but eager (stats.noise)."""
    out = {}
    for arm in times:
        if arm != _base(arm) and _base(arm) in times:
            found = stats.noise(times[_base(arm)], times[arm])
            out[arm] = {"round_sd": found.within, "process_sd": found.between}
    return out


def _base(arm):
    return arm_name("eager", arm_spec(arm)[1])


def _times(arms, children):
    return {arm: [c["times"][arm] for c in children] for arm in arms}


def half_widths(times, min_step_s=0.0):
    """{arm: half the width of eager ÷ arm's 95% interval, relative to its estimate} for every
    arm but eager (the A/A arm included), where eager's median step is at least `min_step_s`."""
    import statistics

    import stats  # NumPy: the parent's, never a child's import
    out = {}
    for arm in times:
        variant, precision, _ = arm_spec(arm)
        base = arm_name("eager", precision)
        if arm == base or base not in times:
            continue
        if statistics.median(t for process in times[base] for t in process) < min_step_s:
            continue
        found = stats.ratio(times[base], times[arm])
        out[arm] = (found.high - found.low) / 2 / found.estimate
    return out


BARE = {"rounds": 1, "warmup": 0, "block": 1}  # --benchmark-disable: one bare round


def steady_plan(profile, disabled):
    """Rounds, warm-up and block of a paired group: the profile's, or one bare round under
    --benchmark-disable."""
    return (BARE if disabled else
            {"rounds": profile.steady_process_rounds, "warmup": profile.warmup_rounds,
             "block": profile.steady_block, "block_s": profile.steady_block_s,
             "equal_blocks": profile.steady_equal_blocks})


def paired_info(group, arm, ci_method=CI_METHOD):
    """What a result saves of its group: its own rounds and how they were timed."""
    first = group["children"][0]["settings"]
    return {"paired_rounds_s": group["times"][arm], "processes": len(group["children"]),
            "rounds": len(group["times"][arm][0]), "warmup_rounds": first["warmup_rounds"],
            "block": arm_block(first["block"], arm),
            "blocks": [arm_block(c["settings"]["block"], arm) for c in group["children"]],
            "block_rule": first.get("block_rule"), "gc": first["gc"], "order": first["order"],
            "wait": first.get("wait", "step"),
            "order_seeds": [c["settings"]["order_seed"] for c in group["children"]],
            "arms": list(group["times"]), "ci_method": ci_method,
            "first_calls_s": [c["first_calls_s"] for c in group["children"]],
            "compile_cache_hits": [c["compile_cache_hits"] for c in group["children"]],
            **_signals(group["children"], arm),
            "rounds_per_process": [len(p) for p in group["times"][arm]],
            **adaptive_info(group, arm)}


def _signals(children, arm):
    """What the backend logged or counted (backend.LOG_SIGNALS: torch's graphs left out of CUDA
    graphs, recompile-limit hits) per process: at this arm's first call, and in the group's
    warm-up and timed rounds (every arm's)."""
    found = [c.get("log_signals") for c in children]
    if not all(found):  # a child of an older code, or a faked one
        return {}
    return {"signals_first_call": [f["first_call"][arm] for f in found],
            "signals_timed": [f["timed"] for f in found]}


def adaptive_info(group, arm):
    """How adaptive repetition ended for this arm's ratio: its target, whether the group reached
    it and what stopped it, this arm's half-width and variance components (eager: its A/A
    ratio's), the last allocation and the group's time and time budget."""
    found = group.get("adaptive")
    if not found:
        return {}
    ratio_arm = arm if arm != "eager" else AA
    return {"target_half_width": found["target_half_width"],
            "reached_target": found["reached_target"], "stopped_by": found["stopped_by"],
            "half_width": found["half_widths"].get(ratio_arm),
            "variance_components": found["components"].get(ratio_arm),
            "allocation": found["allocation"], "min_step_s": found["min_step_s"],
            "group_seconds": found["group_seconds"], "budget_s": found["budget_s"]}


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
