"""Seed 001's micro workloads (the tf.function / AutoGraph guide) in every backend, eager vs graph."""

import pytest

import stats
from catalog import SAVED_RATIOS
from backends.micro import DISPATCH_OPS, VARIANTS, WORKLOADS, load_micro
from suites import child
from suites.paired import AA, CI_METHOD, record

# A micro call lasts from about 4 µs (a 10x10 matmul) to a third of a second (the large
# convolution): timed one call at a time (the steady block of 1), a round would be mostly the
# clock's resolution and the scheduler's slices; a fixed block long enough for the matmul (a
# few thousand calls) would make each conv round last minutes. So the child grows the block to
# the fewest calls that last MICRO_BLOCK_S for the fastest arm, at most MICRO_BLOCK calls (10 ms
# of 1 µs calls). 10 ms, not 1: on this shared, loaded 2-core machine, A/A intervals of
# chainer's matmul10, lstm_cell and square_vectorized (3 children x 10 rounds) spanned more than
# 3x (high / low) in 4 of 8 tries with 1 ms blocks, at most 2.2x in 8 tries with 10 ms.
MICRO_BLOCK = 10_000
MICRO_BLOCK_S = 0.01
SHARED_CACHE = ("child shared by every workload, on the session's compile cache (its start-up "
                "paid there too)")
_groups = {}  # (backend, workload) -> its measurement (or the failure), once per session


def micro_module(backend):
    """The backend's micro workloads module."""
    return load_micro(backend[0].NAME)


def _arms(micro, workload):
    """A group's arms: eager, the A/A eager and graph where the backend can capture it."""
    return ["eager", AA] + ([] if (workload, "graph") in micro.UNSUPPORTED else ["graph"])


def _command(backend, workloads, arms, plan, seed, threads, cache_dir, warm_prime=False):
    return child.command("micro_child", backend=backend, workload=workloads, arms=arms,
                         rounds=plan["rounds"], warmup=plan["warmup"], block=plan["block"],
                         block_s=plan["block_s"], seed=seed, threads=threads,
                         cache_dir=cache_dir, warm_prime=warm_prime)


def _selected(request, backend):
    """The workloads of this backend's micro tests that the session runs (after -k, -m)."""
    found = []
    for item in request.session.items:
        params = item.callspec.params if hasattr(item, "callspec") else {}
        if (getattr(item, "obj", None) is test_micro and params["backend_name"] == backend
                and params["workload"] not in found):
            found.append(params["workload"])
    return found


def _measure(request, micro, workload, env, disabled, tmp_path_factory):
    """The group's paired times, measured by its first test in fresh children, each with an empty
    compile cache dir. --benchmark-disable: one round of one call in one child, shared by every
    selected workload with the same arms (start-up and priming paid once per backend, as when the
    suite ran in the pytest process), on the session's compile cache (nothing is saved, so the
    earlier tests' compiles may be reused). A profile with `micro_shared_child` (quick) times
    every selected workload in each of its children too, on the session's compile cache (the
    second child's compiles hit what the first left, and so does its start-up, `--warm-prime`):
    their first calls are then not cold."""
    key = (micro.NAME, workload)
    if key not in _groups:
        profile, arms = env["profile"], _arms(micro, workload)
        plan = ({"rounds": 1, "warmup": 0, "block": 1, "block_s": 0} if disabled else
                {"rounds": profile.steady_process_rounds, "warmup": profile.warmup_rounds,
                 "block": MICRO_BLOCK, "block_s": MICRO_BLOCK_S})
        shared = disabled or profile.micro_shared_child  # one child, the session's cache: not cold
        together = [workload] if not shared else [
            w for w in _selected(request, micro.NAME) if _arms(micro, w) == arms
            and (micro.NAME, w) not in _groups] or [workload]
        try:
            children = [child.result(_command(
                micro.NAME, together, arms, plan, seed, env["threads"],
                "" if shared else tmp_path_factory.mktemp(f"micro-{micro.NAME}-{seed}"), shared))
                for seed in range(1 if disabled else profile.steady_processes)]
            for w in together:
                found = [c["workloads"][w] for c in children]
                _groups[micro.NAME, w] = {
                    "times": {arm: [f["times"][arm] for f in found] for arm in arms},
                    "children": found, "framework_version": children[0]["framework_version"],
                    "child_shared_by": together}
        except RuntimeError as error:
            _groups.update({(micro.NAME, w): str(error) for w in together})
    if isinstance(_groups[key], str):
        pytest.fail(_groups[key])
    return _groups[key]


def _paired_info(group, arm):
    """What a result saves of its group: its own rounds and how they were timed."""
    children = group["children"]
    first = children[0]["settings"]
    return {"paired_rounds_s": group["times"][arm], "processes": len(children),
            "rounds": len(group["times"][arm][0]), "warmup_rounds": first["warmup_rounds"],
            "block": [c["settings"]["block"] for c in children], "block_rule": first["block_rule"],
            "gc": first["gc"], "order": first["order"],
            "order_seeds": [c["settings"]["order_seed"] for c in children],
            "arms": list(group["times"]), "ci_method": CI_METHOD,
            "first_calls_s": [c["first_call_s"][arm] for c in children],
            "second_calls_s": [c["second_call_s"][arm] for c in children],
            "compile_cache_hits": [c["compile_cache_hits"] for c in children]}


def _ratios(group, variant):
    """On graph, eager over graph (the speedup); on eager, eager over the A/A eager."""
    times = group["times"]
    if variant == "graph":
        return stats.ratio(times["eager"], times["graph"]).as_info(*SAVED_RATIOS["speedup"])
    return {**stats.ratio(times["eager"], times[AA]).as_info(*SAVED_RATIOS["aa"]),
            "aa_rounds_s": times[AA]}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("workload", WORKLOADS)
def test_micro(benchmark, env, backend, workload, variant, tmp_path_factory, request):
    """Eager, a second eager (the A/A control) and graph of one workload, interleaved in fresh
    processes: this variant's first and second call (cold compile cache), its paired per-call
    times and, on graph, the speedup over eager with its 95% interval."""
    if env["device"] != "cpu":
        pytest.skip("micro workloads run on the CPU only")
    micro = micro_module(backend)
    if reason := micro.UNSUPPORTED.get((workload, variant)):
        pytest.skip(f"{micro.NAME}/{workload}/{variant}: {reason}")
    if reason := env["profile"].skip_reason("micro", micro.NAME, workload, variant):
        pytest.skip(reason)
    group = _measure(request, micro, workload, env, benchmark.disabled, tmp_path_factory)
    first = group["children"][0]
    module = backend[0]
    benchmark.extra_info.update(
        backend=module.NAME, framework_version=group["framework_version"], model="micro",
        workload=workload, variant=variant, phase="micro", device=env["device"],
        threads=env["threads"], batch=None, input_shape=None, params=None, flops=None,
        traces=first["traces"][variant], first_call_s=first["first_call_s"][variant],
        second_call_s=first["second_call_s"][variant],
        ops_per_call=DISPATCH_OPS if workload == "dispatch" else None, loss=None, loss_finite=None,
        captured_nothing=micro.COMPILES_NOTHING.get(workload) if variant == "graph" else None,
        graph_breaks=first["graph_breaks"] if variant == "graph" else None,
        cache="cold" if len(group["child_shared_by"]) == 1 else SHARED_CACHE,
        child_shared_by=group["child_shared_by"],
        **_paired_info(group, variant))
    record(benchmark, group["times"][variant])
    if not benchmark.disabled:
        benchmark.extra_info.update(_ratios(group, variant))


PITFALLS = ("python_numbers", "function_in_loop", "changing_shapes")


@pytest.mark.parametrize("fixed", [False, True], ids=["naive", "fixed"])
@pytest.mark.parametrize("pitfall", PITFALLS)
def test_pitfall(benchmark, env, backend, pitfall, fixed, tmp_path_factory):
    """A tracing pitfall's call sequence, cold, with its trace count; and the same with the fix."""
    micro, module = micro_module(backend), backend[0]
    state, hits = {}, []

    def setup():  # each round a fresh function object in an empty compile cache dir
        state["cache"] = module.compile_cache(tmp_path_factory.mktemp("pitfall"))
        state["cache"].__enter__()
        state["hits"] = module.cache_hits()
        state["run"], state["traces"] = micro.pitfall(pitfall, fixed)
        return (), {}

    def teardown():
        after = module.cache_hits()
        hits.append(None if after is None else after - state["hits"])
        state.pop("cache").__exit__(None, None, None)

    def run():
        state["out"] = state["run"]()
        if benchmark.disabled:  # pytest-benchmark runs no teardown then
            teardown()

    try:
        benchmark.pedantic(run, setup=setup, teardown=teardown, rounds=3)
    except TypeError as error:  # Chainer's @static_graph refuses some inputs outright
        pytest.skip(f"{micro.NAME} refuses {pitfall}: {error}")
    finally:
        if "cache" in state:
            state.pop("cache").__exit__(None, None, None)
    benchmark.extra_info.update(
        backend=module.NAME, framework_version=module.version(), model="micro",
        workload=f"pitfall:{pitfall}", variant="fixed" if fixed else "naive", phase="micro",
        device=env["device"], threads=env["threads"], batch=None, input_shape=None,
        params=None, flops=None, traces=state["traces"](), calls=len(state["out"]),
        loss=None, loss_finite=None, cache="a fresh cache dir per round",
        cache_hits_per_round=hits)  # hits inside a round: the pitfall recompiling one graph
