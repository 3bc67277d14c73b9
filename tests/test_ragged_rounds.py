"""Intervals over processes of different lengths (adaptive allocation gives later processes more
rounds): stats recomputes them from the saved rounds as it does for equal ones."""
import numpy as np
import pytest

import stats


def arms(sizes, round_sd=0.1, process_sd=0.0, ratio=1.25, seed=0):
    """Paired eager and graph rounds: `sizes` rounds per process, a process level of sd
    `process_sd` in the graph arm only, lognormal round noise."""
    rng = np.random.default_rng(seed)
    eager, graph = [], []
    for n in sizes:
        level = rng.normal(0, process_sd)
        base = 0.02 * np.exp(rng.normal(0, round_sd, n))
        eager.append(list(base))
        graph.append(list(base / ratio * np.exp(level + rng.normal(0, round_sd, n))))
    return eager, graph


def test_a_ragged_ratio_is_the_trimmed_mean_of_all_rounds_log_ratios_with_an_interval():
    eager, graph = arms([10, 10, 10, 40, 40])
    found = stats.ratio(eager, graph)
    pooled = np.exp(stats.trimmed_mean(np.log(np.concatenate(eager) / np.concatenate(graph))))
    assert found.estimate == pytest.approx(pooled) and found.low < found.estimate < found.high
    assert stats.ratio(eager, graph) == found  # seeded: recomputable
    with pytest.raises(ValueError):  # arms that differ in a process
        stats.ratio(eager, [*graph[:4], graph[4][:39]])
    equal = arms([10, 10, 10])  # equal lengths keep the rectangular draws
    assert stats.ratio(*equal) == stats.ratio(*map(np.array, equal))


def test_longer_processes_narrow_the_interval_when_rounds_carry_the_noise():
    width = lambda r: (r.high - r.low) / r.estimate
    short = stats.ratio(*arms([10] * 5))
    long = stats.ratio(*arms([10, 10, 10, 60, 60]))
    assert width(long) < width(short)


def test_noise_splits_ragged_rounds_into_its_two_levels():
    quiet = stats.noise(*arms([10, 10, 10, 40, 40, 40], round_sd=0.1))
    assert quiet.within == pytest.approx(0.1, rel=0.2) and quiet.between < 0.03
    loud = stats.noise(*arms([10, 10, 40, 40, 40, 40, 40, 40], round_sd=0.02, process_sd=0.1))
    assert loud.between > 0.05
