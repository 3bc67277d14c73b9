"""Where graph mode stops paying: the VGG at growing work per train step (the profile's `scale`
points, from the quick profile's size up to full width at 224x224), each backend's `graph` paired
with eager in fresh processes, as the steady suite pairs them."""
import math

import pytest

import stats
from catalog import SAVED_RATIOS
from suites.cases import extra_info
from suites.paired import BARE, measure_group, measured_once, paired_info, record

pytestmark = pytest.mark.suite_models("scale")
_groups = {}  # (backend, label) -> its measurement (or the failure), once per session


def _plan(scale, label, disabled):
    """Rounds and warm-up at this point; one bare round under --benchmark-disable."""
    return BARE if disabled else {"rounds": scale.rounds(label), "warmup": scale.warmup_rounds,
                                  "block": 1}


def test_scale(benchmark, case, env):
    """This point's paired train-step times of eager or `graph`; on `graph`, eager over it (the
    speedup) with its 95% interval."""
    scale = env["profile"].scale
    if case.variant not in ("eager", *scale.variants):
        pytest.skip(f"the sweep pairs eager with {', '.join(scale.variants)} only (every variant: "
                    "the steady suite)")
    arms = ["eager", *scale.variants]
    # no adaptive repetition: the curve needs each point's ratio, not ±3% of it (8 processes a
    # point took 4 minutes in tf alone)
    group = measured_once(_groups, (case.backend.NAME, case.model), lambda: measure_group(
        case, "train", arms, _plan(scale, case.model, benchmark.disabled), env,
        1 if benchmark.disabled else scale.processes))
    losses = [c["loss"][case.variant] for c in group["children"]]
    loss = next((v for v in losses if not math.isfinite(v)), losses[0])
    info = extra_info(case, "scale", group["children"][0]["traces"][case.variant],
                      env["threads"], env["device"], loss=loss)
    benchmark.extra_info.update(info, step="train",
                                **paired_info(group, case.variant))
    record(benchmark, group["times"][case.variant])
    finite = all(math.isfinite(c["loss"][a]) for c in group["children"] for a in arms)
    if case.variant != "eager" and not benchmark.disabled and finite:
        benchmark.extra_info.update(stats.ratio(group["times"]["eager"], group["times"][
            case.variant]).as_info(*SAVED_RATIOS["speedup"]))
    if not math.isfinite(loss):
        case.reject_non_finite(f"train step produced a non-finite value ({loss}): time not valid")
