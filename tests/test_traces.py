"""Trace / compile / schedule counts: plain graphs retrace per shape, polymorphic ones do not."""
import pytest

import models

pytestmark = pytest.mark.models("vgg")  # any input side >= 32 works, so the side can vary

SIDES = (32, 48, 32, 64)  # three distinct input sizes, one repeated
# (backend, variant) -> traces after SIDES; a fixed side always gives 1 (0 for eager).
EXPECTED = {
    ("tf", "graph"): 3, ("tf", "xla"): 3,  # one concrete function per distinct shape
    ("tf", "graph_dynamic"): 1,  # None dims in the input signature
    ("tf", "graph_relaxed"): 2,  # the second shape widens H and W to None
    ("torch", "graph"): 2,  # static first, then one recompile marks H and W dynamic
    ("torch", "graph_dynamic"): 1,
    ("torch", "graph_static"): 3,
    ("chainer", "graph"): 3,  # one schedule per distinct shape
}


def _train_on_sides(case, sides):
    runner = case.runner()
    for i, side in enumerate(sides):
        x, y = models.synthetic_batch(case.spec, case.batch, seed=i, side=side)
        runner.train_step(*runner.to_device(x, y))
    return runner.traces()


def test_fixed_shape_traces_once(case):
    """Three steps on one shape: one trace (none in eager)."""
    assert _train_on_sides(case, (32, 32, 32)) == (0 if case.variant == "eager" else 1)


def test_changing_shapes(case):
    """Three distinct sides: a trace per shape for plain graphs, one for polymorphic ones."""
    expected = 0 if case.variant == "eager" else EXPECTED[(case.backend.NAME, case.variant)]
    assert _train_on_sides(case, SIDES) == expected
