"""Input pipeline (seed 003): whole training epochs from encoded PNGs, per (backend, model, variant)
every loader, the baseline loader and an A/A twin of it timed in interleaved rounds in fresh child
processes (suites/pipeline_child.py); each loader's test reads its own arm."""
import math
import statistics

import pytest

import stats
from catalog import SAVED_RATIOS
from backends.pipeline import LOADERS, UNSUPPORTED
from suites import child
from suites.cases import extra_info
from suites.paired import measured_once, record
from suites.pipeline_child import (AA, BASELINE, VARIANTS, command,
                                   image_files as write_image_files)

CI_METHOD = (f"{stats.LEVEL:.0%} hierarchical bootstrap of the {stats.TRIM:.0%} trimmed mean of the "
             f"per-epoch log ratios: processes, then epochs within each, paired; "
             f"{stats.RESAMPLES} resamples, seed 0")
_files = {}  # model label -> the folder of its seeded PNG files: written once per session
_groups = {}  # (backend, label, variant) -> its measurement (or the failure), once per session


def image_files(tmp_path_factory, case, plan):
    """The folder of the model's seeded PNG files, written on first use; every child reads it."""
    if case.model not in _files:
        channels, side, _ = case.spec.input_chw
        folder = tmp_path_factory.mktemp(f"pipeline-{case.model}")
        write_image_files(folder, plan.examples, side + plan.pad, channels, case.seed,
                          case.spec.classes)
        _files[case.model] = folder
    return _files[case.model]


def _loaders(request, key):
    """The group's loaders: the baseline and those of its pipeline tests that the session runs
    (after -k, -m and skips), in LOADERS order."""
    wanted = {BASELINE}
    for item in request.session.items:
        if getattr(item, "obj", None) is not test_pipeline or item.get_closest_marker("skip"):
            continue
        params = item.callspec.params
        if params["case_id"][:3] == key:
            wanted.add(params["loader_name"])
    return [n for n in LOADERS if n in wanted and not UNSUPPORTED.get((key[0], n))]


def _measure(request, case, env, tmp_path_factory, disabled):
    """The group's paired epoch times, measured by its first test; --benchmark-disable: one
    child of one epoch per arm, without warm-up."""
    key = (case.backend.NAME, case.model, case.variant)
    profile, plan = env["profile"], env["profile"].pipeline
    rounds, warmup, processes = ((1, 0, 1) if disabled else
                                 (plan.rounds, plan.warmup_rounds, profile.steady_processes))

    def measure():
        folder = image_files(tmp_path_factory, case, plan)
        children = [child.result(command(
            case.backend.NAME, case.spec.name, case.spec.config, case.batch, case.variant,
            _loaders(request, key), folder, plan, rounds, warmup, seed, env["threads"],
            case.seed)) for seed in range(processes)]
        return {"times": {a: [c["times"][a] for c in children] for a in children[0]["arms"]},
                "children": children}
    return measured_once(_groups, key, measure)


def _paired_info(group, arm):
    """What a result saves of its group: its own epochs and how they were timed."""
    children, first = group["children"], group["children"][0]["settings"]
    return {"paired_rounds_s": group["times"][arm], "processes": len(children),
            "rounds": len(group["times"][arm][0]), "warmup_rounds": first["warmup_rounds"],
            "gc": first["gc"], "order": first["order"],
            "order_seeds": [c["settings"]["order_seed"] for c in children],
            "arms": list(group["times"]), "ci_method": CI_METHOD,
            "first_steps_s": [c["first_steps_s"] for c in children]}


def _ratios(group, loader):
    """Baseline epoch ÷ this loader's (above 1: faster) or, on the baseline, ÷ its A/A twin;
    none when an arm it reads ended on a non-finite loss in any child."""
    times, other = group["times"], AA if loader == BASELINE else loader
    if other not in times or BASELINE not in times or not all(
            math.isfinite(c["loss"][a]) for c in group["children"] for a in (BASELINE, other)):
        return {}
    found = stats.ratio(times[BASELINE], times[other])
    if loader == BASELINE:
        return {**found.as_info(*SAVED_RATIOS["aa"]),
                "aa_rounds_s": times[AA]}
    return found.as_info(*SAVED_RATIOS["loader"])


@pytest.mark.suite_models("pipeline")
@pytest.mark.parametrize("loader_name", LOADERS)
def test_pipeline(benchmark, case, env, tmp_path_factory, loader_name, request):
    """Whole epochs (input + train steps) through one loader, paired with the baseline loader's;
    input wait is measured apart."""
    backend = case.backend.NAME
    if case.variant not in VARIANTS:
        pytest.skip(f"pipeline suite compares {' and '.join(VARIANTS)} steps only")
    if reason := UNSUPPORTED.get((backend, loader_name)):
        pytest.skip(f"{backend}/{loader_name}: {reason}")
    if env["device"] != "cpu":
        pytest.skip("pipeline suite: the loaders yield host batches, measured on CPU only")
    group = _measure(request, case, env, tmp_path_factory, benchmark.disabled)
    children, times = group["children"], group["times"][loader_name]
    losses = [c["loss"][loader_name] for c in children]
    loss = next((v for v in losses if not math.isfinite(v)), losses[0])
    first, steps = children[0], children[0]["steps"][loader_name]
    epoch_s = statistics.median(t for process in times for t in process)
    benchmark.extra_info.update(extra_info(case, "pipeline", first["traces"][loader_name],
                                           env["threads"], env["device"], loss=loss))
    benchmark.extra_info.update(
        loader=loader_name, steps_per_epoch=steps, examples_per_epoch=steps * case.batch,
        input_wait_s_per_step=statistics.median(
            w for c in children for w in c["input_wait_s_per_step"][loader_name]),
        step_s=epoch_s / steps, examples_per_s=steps * case.batch / epoch_s,
        workers=first["workers"][loader_name],
        build_s=statistics.median(c["build_s"][loader_name] for c in children),
        image_format="png", stored_side=first["stored_side"],
        timed="one epoch: input + train steps", **_paired_info(group, loader_name))
    record(benchmark, times)
    if not benchmark.disabled:
        benchmark.extra_info.update(_ratios(group, loader_name))
    if not math.isfinite(loss):
        case.reject_non_finite(f"pipeline epoch produced a non-finite loss ({loss}): time not valid")
