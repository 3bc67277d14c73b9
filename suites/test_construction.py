"""Graph construction overhead: the first train step of a fresh variant (trace + compile + run)."""
import contextlib
import math

import pytest

from suites.cases import extra_info

_populated = {}  # case id -> a compile cache dir left populated by a cold round


@pytest.mark.precisions
@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_construction(benchmark, case, env, cache, tmp_path_factory, request):
    """Fresh model and function object per round; `cold` uses an empty compile cache dir."""
    profile = env["profile"]
    if case.model not in profile.construction_models:
        pytest.skip(f"profile {profile.name!r} measures construction only for "
                    f"{', '.join(profile.construction_models)}")
    if cache == "warm" and (case.variant == "eager" or case.backend.cache_hits() is None):
        pytest.skip(f"{case.backend.NAME}/{case.variant}: no on-disk compile cache to warm")
    key = request.node.callspec.id.replace("warm", "cold")
    x, y = case.data()
    scope, before, after, results = contextlib.ExitStack(), [], [], []

    def cache_dir():
        if cache == "warm":
            return _populated.get(key) or _prime(case, x, y, tmp_path_factory.mktemp("primed"))
        _populated[key] = tmp_path_factory.mktemp("cold")
        return _populated[key]

    def setup():
        scope.enter_context(case.backend.compile_cache(cache_dir()))
        runner = case.runner()
        before.append(case.backend.cache_hits())
        return (runner, *runner.to_device(x, y)), {}

    def first_call(runner, xd, yd):
        results.append((runner.train_step(xd, yd), runner.traces()))

    def teardown(*args):
        after.append(case.backend.cache_hits())
        scope.close()

    rounds = profile.cold_rounds if cache == "cold" else profile.warm_rounds
    try:
        benchmark.pedantic(first_call, setup=setup, teardown=teardown, rounds=rounds)
    finally:
        if len(after) < len(before):  # --benchmark-disable runs no teardown
            teardown()
    hits = [None if b is None else a - b for a, b in zip(after, before)]
    loss, traces = results[-1]
    info = extra_info(case, "construction", traces, env["threads"], env["device"], loss)
    benchmark.extra_info.update(info, cache=cache, cache_hits_per_round=hits, step="train")
    if cache == "cold" and any(h for h in hits if h):
        pytest.fail(f"a cold round hit the compile cache ({hits}): the figure is not cold")
    if not math.isfinite(loss):
        pytest.fail(f"first train step produced a non-finite loss ({loss})")


def _prime(case, x, y, cache_dir):
    """Populate `cache_dir` with one untimed compile of this case (when no cold round ran)."""
    with case.backend.compile_cache(cache_dir):
        runner = case.runner()
        runner.train_step(*runner.to_device(x, y))
    return cache_dir

