"""Graph construction overhead: the first train step of a fresh variant (trace + compile + run),
each round in a fresh child process (suites/construction_child.py), so that nothing the pytest
process or an earlier round paid (imports, compiler workers, in-memory caches) is shared."""
import math
import time

import pytest

from catalog import EAGER_COMPILES
from suites import child
from suites.cases import extra_info
from suites.construction_child import cold_fault
from suites.paired import record

_populated = {}  # case id -> a compile cache dir a cold round's child left populated


def child_command(case, env, cache_dir):
    """The command line of one construction round; `--spawned-at` is stamped by run_round."""
    return child.command("construction_child", backend=case.backend.NAME, model=case.spec.name,
                         config=case.spec.config, batch=case.batch, variant=case.variant,
                         precision=case.precision, cache_dir=cache_dir, device=env["device"],
                         threads=env["threads"])


def run_round(case, env, cache_dir):
    """One fresh child on `cache_dir`: its JSON result (RuntimeError with its last line)."""
    command = child_command(case, env, cache_dir)
    return child.result(command + ["--spawned-at", repr(time.time())])


@pytest.mark.precisions
@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_construction(benchmark, case, env, cache, tmp_path_factory, request):
    """One fresh process per round; `cold` gives each an empty compile cache dir, `warm` one
    populated by an earlier child (the last cold round's, else an untimed one)."""
    profile = env["profile"]
    if case.model not in profile.construction_models:
        pytest.skip(f"profile {profile.name!r} measures construction only for "
                    f"{', '.join(profile.construction_models)}")
    if reason := profile.skip_reason("construction", case.backend.NAME, case.model, case.variant):
        pytest.skip(reason)
    if case.precision not in profile.construction_precisions:
        pytest.skip(f"profile {profile.name!r} measures first calls at "
                    f"{', '.join(profile.construction_precisions)} only")
    if cache == "warm" and (case.variant == "eager" and case.backend.NAME not in EAGER_COMPILES
                            or case.backend.cache_hits() is None):
        pytest.skip(f"{case.backend.NAME}/{case.variant}: no on-disk compile cache to warm")
    key = request.node.callspec.id.replace("warm", "cold")
    rounds = 1 if benchmark.disabled else (
        profile.cold_rounds if cache == "cold" else profile.warm_rounds)
    children = []
    try:
        if cache == "warm" and key not in _populated:  # no cold round ran: populate, untimed
            primed = tmp_path_factory.mktemp("primed")
            run_round(case, env, primed)
            _populated[key] = primed
        for _ in range(rounds):
            cache_dir = _populated[key] if cache == "warm" else tmp_path_factory.mktemp("cold")
            children.append(run_round(case, env, cache_dir))
            if cache == "cold":
                _populated[key] = cache_dir  # a warm round reuses the last cold one's cache
    except RuntimeError as error:
        pytest.fail(f"construction round {len(children) + 1} of {rounds}: {error}")
    record(benchmark, [[c["first_call_s"] for c in children]])
    hits = [c["cache_hits"] for c in children]
    loss = next((c["loss"] for c in children if not math.isfinite(c["loss"])), children[0]["loss"])
    info = extra_info(case, "construction", children[0]["traces"], env["threads"], env["device"],
                      loss)
    benchmark.extra_info.update(
        info, cache=cache, cache_hits_per_round=hits, step="train",
        startup_s=[c["startup_s"] for c in children],
        second_call_s=[c["second_call_s"] for c in children],
        processes=len(children), rounds=1, fresh_process=True,
        **({"phases_s": [c["phases_s"] for c in children]} if "phases_s" in children[0] else {}))
    if cache == "cold" and (stale := cold_fault(children)):
        pytest.fail(f"{stale}: the figure is not cold")
    if cache == "warm" and any(h == 0 for h in hits):
        pytest.fail(f"warm round missed the cache ({hits} hits per round): the figure is not warm")
    if not math.isfinite(loss):
        pytest.fail(f"first train step produced a non-finite loss ({loss})")
