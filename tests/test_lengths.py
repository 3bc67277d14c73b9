"""The lengths study's stream: seeded long-tailed lengths, each strategy's padding, and the steady
step read from the steps that compiled nothing."""
import numpy as np
import pytest

import models
from models.spec import PAD
from models.weights import PAD_STRATEGIES, length_stream
from suites.profiles import PROFILES
import stats
from suites.test_lengths import stream

PLAN = PROFILES["default"].lengths
LABEL, (MODEL, CONFIG, BATCH) = next(iter(PLAN.models.items()))


def test_the_lengths_are_seeded_long_tailed_and_within_bounds():
    found = length_stream(PLAN.steps, *PLAN.lengths, PLAN.median, PLAN.sigma)
    assert found == length_stream(PLAN.steps, *PLAN.lengths, PLAN.median, PLAN.sigma)
    assert min(found) >= PLAN.lengths[0] and max(found) <= PLAN.lengths[1]
    assert np.median(found) < np.mean(found) < max(found) / 2  # a long right tail


def test_each_strategy_pads_to_its_buckets_and_keeps_the_real_tokens():
    spec = models.build(MODEL, **CONFIG)
    exact = stream(PLAN, spec, BATCH, "exact")
    for strategy in PAD_STRATEGIES:
        batches = stream(PLAN, spec, BATCH, strategy)
        widths = {x.shape[1] for x, _ in batches}
        if strategy == "pow2":
            assert all(w & (w - 1) == 0 for w in widths)
        if strategy == "mult32":
            assert all(w % 32 == 0 for w in widths)
        if strategy == "max":
            assert widths == {spec.input_chw[0]}
        for (x, y), (e, f) in zip(batches, exact):
            assert x.shape[1] >= e.shape[1] and (x != PAD).sum() == (e != PAD).sum()
            np.testing.assert_array_equal(x[:, :e.shape[1]], e)
            np.testing.assert_array_equal(y[:, :f.shape[1]], f)
            assert (x[:, e.shape[1]:] == PAD).all() and (y[:, f.shape[1]:] == PAD).all()
    assert len({x.shape[1] for x, _ in exact}) > len(
        {x.shape[1] for x, _ in stream(PLAN, spec, BATCH, "pow2")}) > 1


def test_the_steady_step_is_the_median_step_at_a_length_seen_before():
    times = [5.0, 0.1, 3.0, 0.2, 0.3]
    assert stats.seen_shape_median(times, [8, 8, 16, 8, 16]) == pytest.approx(0.2)  # .1 .2 .3
    assert stats.seen_shape_median(times, [8, 16, 32, 64, 8]) == pytest.approx(0.3)
    assert stats.seen_shape_median([5.0, 4.0], [8, 16]) is None
