"""Every micro workload's graph variant computes what eager computes."""
import numpy as np
import pytest

from backends.micro import WORKLOADS
from suites.test_micro import micro_module


@pytest.mark.parametrize("workload", WORKLOADS)
def test_graph_matches_eager(backend, workload):
    micro = micro_module(backend)
    if reason := micro.UNSUPPORTED.get((workload, "graph")):
        pytest.skip(f"{micro.NAME}/{workload}: {reason}")
    eager, _ = micro.build(workload, "eager")
    graph, traces = micro.build(workload, "graph")
    for _ in range(2):  # the second call runs the cached graph
        np.testing.assert_allclose(graph(), eager(), rtol=1e-5, atol=1e-6)
    # a graph variant that captured nothing ran eagerly: that must be known, not a surprise
    assert (traces() == 0) == (workload in micro.COMPILES_NOTHING)
