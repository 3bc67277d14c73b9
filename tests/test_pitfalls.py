"""Tracing pitfalls give exact trace / compile / schedule counts for a fixed call sequence."""
import numpy as np
import pytest

from suites.test_micro import PITFALLS, micro_module

# (backend, pitfall) -> (count naive, count fixed); the sequences are in backends/*/micro.py
EXPECTED = {
    ("tf", "python_numbers"): (2, 1),  # Python 1.0, 1.0, 2.0, 2.0: one trace per value
    ("tf", "function_in_loop"): (4, 1),  # a new tf.function per call traces every time
    ("tf", "changing_shapes"): (3, 1),  # three distinct shapes vs an input signature
    ("torch", "python_numbers"): (2, 1),  # specialised on 1.0, recompiled for 2.0
    ("torch", "function_in_loop"): (1, 1),  # compiled code is cached on the code object
    ("torch", "changing_shapes"): (2, 1),  # default: one recompile, then dynamic
    ("chainer", "python_numbers"): (None, 1),  # @static_graph refuses a Python float input
    ("chainer", "function_in_loop"): (4, 1),  # a schedule per new static chain
    ("chainer", "changing_shapes"): (3, 3),  # a schedule per shape; there is no fix
    ("jax", "python_numbers"): (1, 1),  # jit traces a Python float as a weakly typed argument
    ("jax", "function_in_loop"): (4, 1),  # jit caches on the function object
    ("jax", "changing_shapes"): (3, 3),  # a trace per shape; no polymorphic mode to fix it
}


@pytest.mark.parametrize("fixed", [False, True], ids=["naive", "fixed"])
@pytest.mark.parametrize("pitfall", PITFALLS)
def test_pitfall_counts(backend, pitfall, fixed):
    micro = micro_module(backend)
    expected = EXPECTED[(micro.NAME, pitfall)][fixed]
    run, traces = micro.pitfall(pitfall, fixed)
    if expected is None:
        with pytest.raises(TypeError):
            run()
        return
    results = run()
    assert traces() == expected
    naive_run, _ = micro.pitfall(pitfall, False) if fixed and EXPECTED[(micro.NAME, pitfall)][0] \
        else (None, None)
    if naive_run:  # the fix changes the count, not the answer
        for a, b in zip(results, naive_run()):
            np.testing.assert_allclose(a, b)
