"""Deterministic ops: what they cost per train step, and whether same-seed runs repeat bit for bit."""
import dataclasses
import math

import pytest

from backends import DETERMINISM_UNSUPPORTED
from suites.cases import extra_info


def _max_rel_diff(a, b):
    return max(abs(p - q) / max(abs(q), 1e-30) for p, q in zip(a, b))


@pytest.mark.parametrize("flag", ["off", "on"])
def test_determinism(benchmark, case, env, flag):
    """Step time with the framework's deterministic-ops switch `flag`, plus two bitwise checks."""
    profile = env["profile"]
    if case.model not in profile.determinism_models:
        pytest.skip(f"profile {profile.name!r} measures determinism on "
                    f"{', '.join(profile.determinism_models)} only")
    if flag == "on" and (why := DETERMINISM_UNSUPPORTED.get((case.backend.NAME, case.variant))):
        pytest.skip(f"{case.backend.NAME}/{case.variant}: {why}")
    case = dataclasses.replace(case, deterministic=flag == "on")
    steps, losses = profile.determinism_steps, []
    with case.backend.deterministic(case.deterministic):
        first, second = case.train_losses(steps), case.train_losses(steps)
        eager = first if case.variant == "eager" else dataclasses.replace(
            case, variant="eager").train_losses(steps)
        runner = case.runner()
        xd, yd = runner.to_device(*case.data())
        step = lambda: losses.append(runner.train_step(xd, yd))
        step()  # trace / compile
        benchmark.pedantic(step, rounds=profile.steady_rounds, warmup_rounds=profile.warmup_rounds)
    info = extra_info(case, "determinism", runner.traces(), env["threads"], env["device"],
                      losses[-1])
    benchmark.extra_info.update(
        info, losses_run1=first, losses_run2=second, losses_eager=eager,
        repeat_identical=first == second, identical_to_eager=first == eager,
        max_rel_diff_to_eager=_max_rel_diff(first, eager), compared_steps=steps)
    if not all(map(math.isfinite, first + losses)):
        pytest.fail(f"non-finite loss ({first}, last {losses[-1]}): time not valid")
    if case.deterministic and env["device"] == "cpu" and first != second:
        pytest.fail(f"deterministic ops on, yet two same-seed runs differ: {first} vs {second}")
