"""Retracing: a seeded sequence of batches whose input side changes, through every variant."""
import math
import time

import numpy as np
import pytest

import models
from suites.cases import extra_info
from suites.logs import count_log_signals

pytestmark = pytest.mark.suite_models("retrace")


def shape_sequence(pattern, plan, seed=0):
    """Seeded (height, width) per step, each drawn from the plan's range as in seed 000 (or the
    plan's square sides in order); `repeating` cycles a few of them instead."""
    rng = np.random.default_rng(seed)
    n = plan.steps if pattern == "varying" else plan.repeat_shapes
    shapes = ([(side, side) for side in plan.square_sides[:n]] if plan.square_sides else
              [tuple(int(v) for v in rng.integers(plan.sides[0], plan.sides[1] + 1, 2))
               for _ in range(n)])
    return [shapes[i % n] for i in range(plan.steps)]


def run_sequence(runner, data, phase, budget_s, compiles=None):
    """Step through `data`, timing each step; stop once the budget is spent. `compiles(runner)`,
    where the backend counts compiles apart from traces (jax), is read after each step."""
    times, traces, start, compiled = [], [], time.perf_counter(), []
    for x, y in data:
        if times and time.perf_counter() - start > budget_s:
            break
        t = time.perf_counter()
        out = runner.train_step(x, y) if phase == "train" else float(np.abs(runner.infer_step(x)).max())
        times.append(time.perf_counter() - t)
        traces.append(runner.traces())
        if compiles:
            compiled.append(compiles(runner))
    return times, traces, out, compiled


@pytest.mark.parametrize("pattern", ["varying", "repeating"])
@pytest.mark.parametrize("phase", ["train", "infer"])
def test_retrace(benchmark, case, env, phase, pattern, tmp_path_factory):
    """One cold run of the sequence (fresh model, function and compile cache): its total time."""
    plan = env["profile"].retrace
    if reason := plan.skip_reason(case.backend.NAME, case.model, case.variant, phase):
        pytest.skip(reason)
    sides = shape_sequence(pattern, plan)
    batches = [models.synthetic_batch(case.spec, case.batch, seed=i, side=s)
               for i, s in enumerate(sides)]
    outcome = {}

    def setup():
        cache_dir = tmp_path_factory.mktemp("retrace") if plan.cold else None
        outcome["cache"] = case.backend.compile_cache(cache_dir)
        outcome["cache"].__enter__()
        runner = case.runner()
        outcome["hits"] = case.backend.cache_hits()
        return (runner, [runner.to_device(x, y) for x, y in batches]), {}

    def run(runner, data):
        outcome["run"] = run_sequence(runner, data, phase, plan.budget_s,
                                      getattr(case.backend, "compiles", None))

    with count_log_signals(case.backend.LOG_SIGNALS) as signals:
        try:
            benchmark.pedantic(run, setup=setup, rounds=1)
        finally:
            hits = case.backend.cache_hits()
            outcome["cache"].__exit__(None, None, None)
    times, traces, last, compiled = outcome["run"]
    seen, first_of_shape = set(), []
    for side in sides[:len(times)]:
        first_of_shape.append(side not in seen)
        seen.add(side)
    cut = None
    if len(times) < len(sides):
        cut = (f"stopped after {len(times)} of {len(sides)} steps: {sum(times):.0f} s "
               f"passed the profile's {plan.budget_s:.0f} s budget")
    info = extra_info(case, "retrace", traces[-1] if traces else 0, env["threads"], env["device"],
                      last if phase == "train" else None)
    benchmark.extra_info.update(
        info, step=phase, pattern=pattern, sides=[list(s) for s in sides], steps_planned=len(sides),
        steps_done=len(times), step_times=times, traces_per_step=traces,
        cache="cold" if plan.cold else "session", new_shape_time=sum(t for t, new in zip(times, first_of_shape) if new),
        seen_shape_time=sum(t for t, new in zip(times, first_of_shape) if not new),
        distinct_shapes=len(set(sides[:len(times)])), cut_short=cut,
        cache_hits=None if hits is None else hits - outcome["hits"], **signals,
        **({"compiles_per_step": compiled} if compiled else {}))
    if cut:
        pytest.xfail(f"cut short (figure kept, marked in the results): {cut}")
    if not math.isfinite(last):
        pytest.fail(f"{phase} produced a non-finite value ({last})")

