"""Steady-state step time: train and infer steps after the first call and warm-up rounds."""
import math

import numpy as np
import pytest

from suites.cases import extra_info


@pytest.mark.precisions
@pytest.mark.parametrize("phase", ["train", "infer"])
def test_steady(benchmark, case, env, phase):
    """Time one step of `phase`; the first (tracing/compiling) call stays out of the figure."""
    runner = case.runner()
    x, y = runner.to_device(*case.data())
    losses = []
    if phase == "train":
        step = lambda: losses.append(runner.train_step(x, y))
    else:
        step = lambda: losses.append(float(np.abs(runner.infer_step(x)).max()))
    step()  # trace / compile / schedule build
    profile = env["profile"]
    benchmark.pedantic(step, rounds=profile.steady_rounds, warmup_rounds=profile.warmup_rounds)
    benchmark.extra_info.update(
        extra_info(case, phase, runner.traces(), env["threads"], env["device"], loss=losses[-1]),
        steps_taken=len(losses))  # the loss is the value after this many steps on one batch
    if not math.isfinite(losses[-1]):
        case.reject_non_finite(f"{phase} step produced a non-finite value ({losses[-1]}): "
                               "time not valid")
