"""Seed 001's micro workloads (the tf.function / AutoGraph guide) in every backend, eager vs graph."""
import importlib
import time

import pytest

from backends.micro import DISPATCH_OPS, VARIANTS, WORKLOADS


def micro_module(backend):
    """The backend's micro workloads module."""
    return importlib.import_module(f"backends.micro.{backend[0].NAME}")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("workload", WORKLOADS)
def test_micro(benchmark, env, backend, workload, variant, tmp_path):
    """First and second call (cold compile cache), then the steady call time."""
    with backend[0].compile_cache(tmp_path):  # an empty cache dir: the first call is cold
        _micro(benchmark, env, backend, workload, variant)


def _micro(benchmark, env, backend, workload, variant):
    if env["device"] != "cpu":
        pytest.skip("micro workloads run on the CPU only")
    micro = micro_module(backend)
    if reason := micro.UNSUPPORTED.get((workload, variant)):
        pytest.skip(f"{micro.NAME}/{workload}/{variant}: {reason}")
    step, traces = micro.build(workload, variant)
    calls = []
    for _ in range(2):  # first (trace / compile) and second invocation
        start = time.perf_counter()
        step()
        calls.append(time.perf_counter() - start)
    profile = env["profile"]
    benchmark.pedantic(step, rounds=profile.steady_rounds, warmup_rounds=profile.warmup_rounds)
    module = backend[0]
    breaks = micro.graph_breaks(workload) if variant == "graph" and hasattr(micro, "graph_breaks") \
        else None
    benchmark.extra_info.update(
        backend=module.NAME, framework_version=module.version(), model="micro",
        workload=workload, variant=variant, phase="micro", device=env["device"],
        threads=env["threads"], batch=None, input_shape=None, params=None, flops=None,
        traces=traces(), first_call_s=calls[0], second_call_s=calls[1],
        ops_per_call=DISPATCH_OPS if workload == "dispatch" else None, loss=None, loss_finite=None,
        captured_nothing=micro.COMPILES_NOTHING.get(workload) if variant == "graph" else None,
        graph_breaks=breaks, cache="cold")


PITFALLS = ("python_numbers", "function_in_loop", "changing_shapes")


@pytest.mark.parametrize("fixed", [False, True], ids=["naive", "fixed"])
@pytest.mark.parametrize("pitfall", PITFALLS)
def test_pitfall(benchmark, env, backend, pitfall, fixed):
    """A tracing pitfall's call sequence, cold, with its trace count; and the same with the fix."""
    micro = micro_module(backend)
    state = {}

    def setup():
        state["run"], state["traces"] = micro.pitfall(pitfall, fixed)
        return (), {}

    try:
        benchmark.pedantic(lambda: state.__setitem__("out", state["run"]()), setup=setup, rounds=3)
    except TypeError as error:  # Chainer's @static_graph refuses some inputs outright
        pytest.skip(f"{micro.NAME} refuses {pitfall}: {error}")
    module = backend[0]
    benchmark.extra_info.update(
        backend=module.NAME, framework_version=module.version(), model="micro",
        workload=f"pitfall:{pitfall}", variant="fixed" if fixed else "naive", phase="micro",
        device=env["device"], threads=env["threads"], batch=None, input_shape=None,
        params=None, flops=None, traces=state["traces"](), calls=len(state["out"]),
        loss=None, loss_finite=None)
