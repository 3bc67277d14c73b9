"""Trace / compile / schedule counts: plain graphs retrace per shape, polymorphic ones do not."""
import numpy as np
import pytest

import models

pytestmark = pytest.mark.models("vgg")  # any input side >= 32 works, so the side can vary

SIDES = (32, 48, 32, 64)  # three distinct input sizes, one repeated
# (backend, variant) -> traces after SIDES; a fixed side always gives 1 (0 for eager).
EXPECTED = {
    ("tf", "graph"): 3, ("tf", "xla"): 3,  # one concrete function per distinct shape
    ("tf", "graph_dynamic"): 1, ("tf", "xla_dynamic"): 1,  # None dims in the input signature
    ("tf", "graph_relaxed"): 2,  # the second shape widens H and W to None
    # torch 2.13.0 and 2.15.0 on CPU, at these sides: max-pool and inductor's C++ size guards
    # specialise H and W, so even dynamic=True (and the default's dynamic recompile) compiles
    # once per distinct side here (2.13.0's TORCH_LOGS=recompiles: "size mismatch at index 2")
    ("torch", "graph"): 3,
    ("torch", "graph_dynamic"): 3,
    ("torch", "graph_static"): 3,
    ("chainer", "graph"): 3,  # one schedule per distinct shape
    ("jax", "graph"): 3,  # jax.jit: one trace and one compile per distinct shape
}


def _train_on_sides(case, sides):
    runner = case.runner()
    _losses_on_sides(case, runner, sides)
    return runner.traces()


def _losses_on_sides(case, runner, sides):
    """The losses of one train step per side, each on its own seeded batch."""
    return [runner.train_step(*runner.to_device(*models.synthetic_batch(
        case.spec, case.batch, seed=i, side=side))) for i, side in enumerate(sides)]


def test_fixed_shape_traces_once(case):
    """Three steps on one shape: one trace (none in eager)."""
    assert _train_on_sides(case, (32, 32, 32)) == (0 if case.variant == "eager" else 1)


def test_changing_shapes(case):
    """Three distinct sides: a trace per shape for plain graphs, one for polymorphic ones, and
    eager's losses all along (one run for both: its compiles are most of the test's time)."""
    from tests.test_parity import TRAJECTORY_RTOL
    runner = case.runner()
    losses = _losses_on_sides(case, runner, SIDES)
    expected = 0 if case.variant == "eager" else EXPECTED[(case.backend.NAME, case.variant)]
    assert runner.traces() == expected
    if case.variant != "eager":
        eager = type(case)(**{**case.__dict__, "variant": "eager"})
        np.testing.assert_allclose(losses, _losses_on_sides(eager, eager.runner(), SIDES),
                                   rtol=TRAJECTORY_RTOL)


def test_recompile_limit_falls_back_to_eager_and_is_counted(backend, env):
    """torch.compile(dynamic=False) past its recompile limit runs eagerly: the suite counts it."""
    module, device = backend
    if module.NAME != "torch":
        pytest.skip(f"{module.NAME}: no recompile limit (PyTorch only)")
    import torch._dynamo
    from suites.cases import Case
    from suites.logs import count_log_signals
    case = Case(module, device, "vgg", "graph_static", models.build("vgg", width=1 / 16), 2)
    with torch._dynamo.config.patch(recompile_limit=2), \
            count_log_signals(module.LOG_SIGNALS) as signals:
        traces = _train_on_sides(case, (32, 40, 48, 56))
    assert traces == 2  # two compiles, then the limit: shapes three and four run eagerly
    assert signals["recompile_limit_hits"] >= 1


def test_quick_retrace_runs_the_shapes_compiled_here():
    """The quick profile's retrace sequence reuses these tests' compiles (the test command's time)."""
    from suites.profiles import PROFILES
    from suites.test_retrace import shape_sequence
    plan = PROFILES["quick"].retrace
    assert plan.models["vgg"][2] == PROFILES["quick"].models["vgg"][1]  # the same batch
    for pattern in ("varying", "repeating"):
        assert {h for h, w in shape_sequence(pattern, plan)} <= set(SIDES)
    assert len(set(shape_sequence("varying", plan))) == 3
