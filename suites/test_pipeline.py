"""Input pipeline (seed 003): one training epoch from encoded images per loader, eager and graph."""
import math
import statistics
import time

import pytest

from backends.pipeline import (LOADERS, UNSUPPORTED, close, crop_offsets, load_pipeline,
                               workers_used, write_images)
from suites.cases import extra_info

VARIANTS = ("eager", "graph")
_files = {}  # model label -> (paths, labels, offsets, stored side): written once per session


def image_files(tmp_path_factory, case, plan):
    """The model's seeded PNG files, written on first use."""
    if case.model not in _files:
        channels, side, _ = case.spec.input_chw
        stored = side + plan.pad
        folder = tmp_path_factory.mktemp(f"pipeline-{case.model}")
        paths, labels = write_images(folder, plan.examples, stored, channels, case.seed,
                                     case.spec.classes)
        _files[case.model] = (paths, labels, crop_offsets(plan.examples, stored, side, case.seed),
                              stored)
    return _files[case.model]


def run_epoch(runner, loader, record):
    """Train through one epoch; appends (epoch s, input-wait s, steps, last loss) to `record`."""
    start = time.perf_counter()
    iterator = iter(loader)  # counted as input wait: a DataLoader wakes its workers here
    wait, steps, loss = time.perf_counter() - start, 0, math.nan
    while True:
        asked = time.perf_counter()
        batch = next(iterator, None)
        wait += time.perf_counter() - asked
        if batch is None:
            break
        loss = runner.train_step(*batch)
        steps += 1
    record.append((time.perf_counter() - start, wait, steps, loss))


@pytest.mark.suite_models("pipeline")
@pytest.mark.parametrize("loader_name", LOADERS)
def test_pipeline(benchmark, case, env, tmp_path_factory, loader_name):
    """Time whole epochs (input + train steps) through one loader; input wait is measured apart."""
    backend = case.backend.NAME
    if case.variant not in VARIANTS:
        pytest.skip("pipeline suite compares eager and graph steps only")
    if reason := UNSUPPORTED.get((backend, loader_name)):
        pytest.skip(f"{backend}/{loader_name}: {reason}")
    if env["device"] != "cpu":
        pytest.skip("pipeline suite: the loaders yield host batches, measured on CPU only")
    plan = env["profile"].pipeline
    paths, labels, offsets, stored = image_files(tmp_path_factory, case, plan)
    side = case.spec.input_chw[1]
    built = time.perf_counter()
    loader = load_pipeline(backend).loader(loader_name, paths, labels, offsets, side, case.batch,
                                           plan.workers)
    build_s = time.perf_counter() - built  # the cache loader decodes every file here
    runner = case.runner()
    record = []
    try:
        runner.train_step(*next(iter(loader)))  # trace / compile / schedule build, untimed
        benchmark.pedantic(run_epoch, args=(runner, loader, record), rounds=plan.rounds,
                           warmup_rounds=plan.warmup_rounds)
    finally:
        close(loader)
    timed = record[-plan.rounds:]  # warm-up epochs come first
    epoch_s, steps, loss = statistics.median(r[0] for r in timed), timed[-1][2], timed[-1][3]
    benchmark.extra_info.update(
        extra_info(case, "pipeline", runner.traces(), env["threads"], env["device"], loss=loss))
    benchmark.extra_info.update(
        loader=loader_name, steps_per_epoch=steps, examples_per_epoch=steps * case.batch,
        input_wait_s_per_step=statistics.median(r[1] / r[2] for r in timed),
        step_s=statistics.median(r[0] / r[2] for r in timed),
        examples_per_s=steps * case.batch / epoch_s,
        workers=workers_used(backend, loader_name, plan.workers),
        build_s=build_s, image_format="png", stored_side=stored,
        timed="one epoch: input + train steps")
    if not math.isfinite(loss):
        case.reject_non_finite(f"pipeline epoch produced a non-finite loss ({loss}): time not valid")
