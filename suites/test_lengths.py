"""Token lengths that vary (issue 37): a seeded stream of decoder batches, padded by each strategy,
through each variant in one cold run: total time with every compile, compiles, steady step (at a
length seen before) and the tokens spent on padding."""
import math

import numpy as np
import pytest

import stats
from models.spec import PAD
from models.weights import PAD_STRATEGIES, length_stream, token_batch
from suites.cases import extra_info
from suites.logs import count_log_signals
from suites.test_retrace import run_sequence

pytestmark = pytest.mark.suite_models("lengths")


def stream(plan, spec, batch, strategy):
    """[(ids, targets)] of the plan's seeded lengths, each batch padded by `strategy`."""
    cap = spec.input_chw[0]
    return [token_batch(spec, batch, n, PAD_STRATEGIES[strategy](n, cap), seed=i)
            for i, n in enumerate(length_stream(plan.steps, *plan.lengths, plan.median,
                                                plan.sigma))]


@pytest.mark.parametrize("strategy", list(PAD_STRATEGIES))
def test_lengths(benchmark, case, env, strategy, tmp_path_factory):
    """One cold run of the stream (fresh model, function and compile cache): its total time."""
    plan = env["profile"].lengths
    if reason := plan.skip_reason(case.backend.NAME, strategy, case.variant):
        pytest.skip(reason)
    batches = stream(plan, case.spec, case.batch, strategy)
    outcome = {}

    def setup():
        outcome["cache"] = case.backend.compile_cache(tmp_path_factory.mktemp("lengths"))
        outcome["cache"].__enter__()
        runner = case.runner()
        return (runner, [runner.to_device(x, y) for x, y in batches]), {}

    def run(runner, data):
        outcome["run"] = run_sequence(runner, data, "train", plan.budget_s,
                                      getattr(case.backend, "compiles", None))

    with count_log_signals(case.backend.LOG_SIGNALS) as signals:
        try:
            benchmark.pedantic(run, setup=setup, rounds=1)
        finally:
            outcome["cache"].__exit__(None, None, None)
    times, traces, last, compiled = outcome["run"]
    done = batches[:len(times)]
    real = sum(int((x != PAD).sum()) for x, _ in done)
    padded = sum(x.size for x, _ in done)
    cut = None
    if len(times) < len(batches):
        cut = (f"stopped after {len(times)} of {len(batches)} steps: {sum(times):.0f} s passed "
               f"the profile's {plan.budget_s:.0f} s budget")
    info = extra_info(case, "lengths", traces[-1] if traces else 0, env["threads"], env["device"],
                      last)
    benchmark.extra_info.update(
        info, strategy=strategy, step="train", steps_planned=len(batches), steps_done=len(times),
        step_times=times, traces_per_step=traces, tokens=[int(x.shape[1]) for x, _ in batches],
        distinct_shapes=len({x.shape[1] for x, _ in done}), real_tokens=real,
        padded_tokens=padded, padding_waste=1 - real / padded if padded else None,
        steady_step_s=stats.seen_shape_median(times, [x.shape for x, _ in done]), cut_short=cut,
        **signals,
        **({"compiles_per_step": compiled, "compiles": compiled[-1]} if compiled else {}))
    if cut:
        pytest.xfail(f"cut short (figure kept, marked in the results): {cut}")
    if not math.isfinite(last):
        pytest.fail(f"train step produced a non-finite value ({last})")
