"""Steady-state step time: per (backend, model, phase), eager, a second eager runner (the A/A
control) and the selected variants at each selected precision, timed in interleaved rounds in
fresh processes."""
import math

import pytest

import stats
from catalog import SAVED_RATIOS
from suites.cases import extra_info
from suites.paired import (AA, arm_block, arm_name, group_arms, measure_group, measured_once,
                           paired_info, record, steady_plan)

_groups = {}  # group key -> its measurement (or the failure), once per session


def _selected(request, key, profile):
    """(variant, precision) of this group's steady tests that the session runs (after -k, -m,
    skips)."""
    found = []
    for item in request.session.items:
        params = item.callspec.params if hasattr(item, "callspec") else {}
        if getattr(item, "obj", None) is not test_steady or item.get_closest_marker("skip"):
            continue
        backend, label, variant, _, precision = params["case_id"]
        phase = params["phase"]
        if ((backend, label, phase) == key
                and not _profile_skip(profile, backend, label, variant, precision, phase)):
            found.append((variant, precision))
    return found


def _profile_skip(profile, backend, label, variant, precision, phase):
    """Why the profile leaves this steady case out, or None."""
    if phase not in profile.steady_phases:
        return (f"profile {profile.name!r} times the {', '.join(profile.steady_phases)} step "
                f"only (--profile default times train and infer)")
    if precision != "float32" and phase not in profile.precision_phases:
        return (f"profile {profile.name!r} times {precision} on the "
                f"{', '.join(profile.precision_phases)} step only (mixed precision is a training "
                f"feature; --profile paper times both)")
    return (profile.job and profile.job.steady_skip(profile, backend, label, variant, precision,
                                                     phase)
            or profile.skip_reason("steady", backend, label, variant, phase))


def _measure(request, case, env, phase, disabled):
    """The group's paired times, measured by its first test; --benchmark-disable: one child."""
    key = (case.backend.NAME, case.model, phase)
    profile = env["profile"]
    return measured_once(_groups, key, lambda: measure_group(
        case, phase, group_arms(_selected(request, key, profile)), steady_plan(profile, disabled),
        env, 1 if disabled else profile.steady_processes, None if disabled else profile.adaptive))


def _ratios(group, variant, precision):
    """Eager over this arm at its precision (the speedup), float32 over it (the precision
    speedup) and, on float32 eager, eager over the A/A arm."""
    times, arm, out = group["times"], arm_name(variant, precision), {}
    if arm == "eager":
        out.update(stats.ratio(times["eager"], times[AA]).as_info(*SAVED_RATIOS["aa"]),
                   aa_rounds_s=times[AA])
    if variant != "eager":
        out.update(stats.ratio(times[arm_name("eager", precision)], times[arm]).as_info(
            *SAVED_RATIOS["speedup"]))
    if precision != "float32":
        out.update(stats.ratio(times[variant], times[arm]).as_info(*SAVED_RATIOS["precision"]))
    return out


def _finite(group, variant, precision):
    """Whether every arm a ratio of this arm reads ended on finite values in every child: a NaN
    step is not a time to divide by."""
    arms = {arm_name(variant, precision), arm_name("eager", precision), variant}
    arms |= {AA} if arms == {"eager"} else set()
    return all(math.isfinite(c["loss"][a]) for c in group["children"] for a in arms)


@pytest.mark.precisions
@pytest.mark.parametrize("phase", ["train", "infer"])
def test_steady(benchmark, case, env, phase, request):
    """This variant's paired step times and, against eager, its speedup with a 95% interval."""
    if reason := _profile_skip(env["profile"], case.backend.NAME, case.model, case.variant,
                               case.precision, phase):
        pytest.skip(reason)
    group = _measure(request, case, env, phase, benchmark.disabled)
    arm, children = arm_name(case.variant, case.precision), group["children"]
    losses = [c["loss"][arm] for c in children]
    loss = next((v for v in losses if not math.isfinite(v)), losses[0])
    plan = children[0]["settings"]
    info = extra_info(case, phase, children[0]["traces"][arm], env["threads"], env["device"],
                      loss=loss)
    # the loss is the value after this many steps on one batch (in each child)
    rounds = plan["warmup_rounds"] + len(group["times"][arm][0])
    steps = 1 + rounds * arm_block(plan["block"], arm)
    benchmark.extra_info.update(info, steps_taken=steps, **paired_info(group, arm))
    record(benchmark, group["times"][arm])
    if not benchmark.disabled and _finite(group, case.variant, case.precision):
        benchmark.extra_info.update(_ratios(group, case.variant, case.precision))
    if not math.isfinite(loss):
        case.reject_non_finite(f"{phase} step produced a non-finite value ({loss}): time not valid")
