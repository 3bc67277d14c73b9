"""Deterministic ops: what they cost per train step, and whether same-seed runs repeat bit for bit.

Per (backend, model), each selected variant with the switch off (`graph`) and on (`graph+det`)
is timed in interleaved rounds in fresh processes (suites/paired.py); the bitwise checks run in
this process."""
import dataclasses
import math

import pytest

import stats
from catalog import SAVED_RATIOS
from backends import VARIANTS, determinism_skip
from suites.cases import extra_info
from suites.paired import (arm_block, arm_name, measure_group, measured_once, paired_info, record,
                           steady_plan)

_groups = {}  # (backend, model) -> its measurement (or the failure), once per session


def _max_rel_diff(a, b):
    return max(abs(p - q) / max(abs(q), 1e-30) for p, q in zip(a, b))


def _arms(request, key):
    """The group's arms, in registry order: each selected variant off (needed by its `on` test's
    ratio too) and, when its `on` test runs and the framework allows it, on."""
    found = {}
    for item in request.session.items:
        params = item.callspec.params if hasattr(item, "callspec") else {}
        if getattr(item, "obj", None) is not test_determinism or item.get_closest_marker("skip"):
            continue
        backend, label, variant, _, _ = params["case_id"]
        if (backend, label) == key and not (params["flag"] == "on" and determinism_skip(
                backend, variant, request.config.getoption("device"))):
            found.setdefault(variant, set()).add(params["flag"] == "on")
    return [arm_name(v, deterministic=d) for v in VARIANTS if v in found
            for d in (False, True) if not d or d in found[v]]


def _measure(request, case, env, disabled):
    """The group's paired times, measured by its first test; --benchmark-disable: one child."""
    key = (case.backend.NAME, case.model)
    profile = env["profile"]
    return measured_once(_groups, key, lambda: measure_group(
        case, "train", _arms(request, key), steady_plan(profile, disabled), env,
        1 if disabled else profile.steady_processes))


@pytest.mark.parametrize("flag", ["off", "on"])
def test_determinism(benchmark, case, env, flag, request):
    """Paired step time with the framework's deterministic-ops switch `flag` (on: with off ÷ on and
    its 95% interval), plus two bitwise checks."""
    profile = env["profile"]
    if case.model not in profile.determinism_models:
        pytest.skip(f"profile {profile.name!r} measures determinism on "
                    f"{', '.join(profile.determinism_models)} only")
    if flag == "on" and (why := determinism_skip(case.backend.NAME, case.variant, env["device"])):
        pytest.skip(f"{case.backend.NAME}/{case.variant}: {why}")
    case = dataclasses.replace(case, deterministic=flag == "on")
    steps = profile.determinism_steps
    with case.backend.deterministic(case.deterministic):
        first, second = case.train_losses(steps), case.train_losses(steps)
        eager = first if case.variant == "eager" else dataclasses.replace(
            case, variant="eager").train_losses(steps)
    group = _measure(request, case, env, benchmark.disabled)
    arm, children = arm_name(case.variant, deterministic=case.deterministic), group["children"]
    losses = [c["loss"][arm] for c in children]
    loss = next((v for v in losses if not math.isfinite(v)), losses[0])
    plan = children[0]["settings"]
    info = extra_info(case, "determinism", children[0]["traces"][arm], env["threads"],
                      env["device"], loss)
    benchmark.extra_info.update(
        info, losses_run1=first, losses_run2=second, losses_eager=eager,
        repeat_identical=first == second, identical_to_eager=first == eager,
        max_rel_diff_to_eager=_max_rel_diff(first, eager), compared_steps=steps,
        steps_taken=1 + ((plan["warmup_rounds"] + len(group["times"][arm][0]))
                         * arm_block(plan["block"], arm)),
        **paired_info(group, arm))
    record(benchmark, group["times"][arm])
    pair = (case.variant, arm)  # a NaN step is not a time to divide by (as in test_steady)
    if case.deterministic and not benchmark.disabled and all(
            math.isfinite(c["loss"][a]) for c in children for a in pair):
        benchmark.extra_info.update(stats.ratio(group["times"][case.variant], group["times"][arm])
                                    .as_info(*SAVED_RATIOS["determinism"]))
    if not all(map(math.isfinite, first + losses)):
        pytest.fail(f"non-finite loss ({first}, paired children {losses}): time not valid")
    if case.deterministic and env["device"] == "cpu" and first != second:
        pytest.fail(f"deterministic ops on, yet two same-seed runs differ: {first} vs {second}")
