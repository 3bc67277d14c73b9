"""Issue 35 item 5: each answer ratio shows its ± and whether it reached its job's target, decided
once (ratios.target) and saved on the record."""
import pytest

from report.build.ratios import target, target_minutes
from report.build.records import record
from tests.test_answer import rec, steady
from report.views.answer import answer_text


class _Result:  # the fields records.record reads of a loaded result
    machine, run, commit, dirty, flags, key, stats, median = "m", "0001", None, False, \
        ("float32",), (None,) * 5, {}, None
    graphbench = {"code": "c0de"}

    def __init__(self, **info):
        self.info = {"backend": "torch", "variant": "graph", "phase": "train", **info}


def adaptive(low, high, **fields):
    return {"estimate": 1.2, "low": low, "high": high, "interval": "95%",
            "target_half_width": 0.03, "half_width": (high - low) / 2 / 1.2, **fields}


def test_a_ratio_within_its_target_reached_it_and_one_outside_says_what_stopped_it():
    assert target(adaptive(1.17, 1.23)) == "reached"
    assert target(adaptive(1.10, 1.30, stopped_by="time budget")) == "time budget"
    slow = adaptive(1.14, 1.26, stopped_by="time budget", group_seconds=100)
    assert target(slow) == "time budget"
    assert target_minutes(slow) == pytest.approx(278 / 60, rel=0.01)  # ±5%: (5/3)² × 100 s
    assert target_minutes(adaptive(1.17, 1.23, group_seconds=100)) is None
    assert target(adaptive(1.10, 1.30, stopped_by="process cap")) == "process cap"
    pooled = adaptive(1.10, 1.30, stopped_by="target", pooled_runs=["0002", "0001"])
    assert target(pooled) == "jobs differ"  # each job within ±3%, the two apart


def test_a_short_eager_step_is_not_aimed_at_and_a_run_without_a_target_has_no_verdict():
    found = adaptive(1.0, 1.4, half_width=None, min_step_s=0.005)
    assert target(found) == "eager step under 5 ms"
    assert target({"estimate": 1.2, "low": 1.0, "high": 1.4, "interval": "95%"}) is None
    assert target({"estimate": None, "target_half_width": 0.03}) is None


def test_the_record_carries_the_target_and_the_answer_prints_it():
    found = record(_Result(), "speedup", "x", 1.2, 1.17, 1.23, "95%", True,
                   target_half_width=0.03, half_width=0.025)
    assert found["target"] == "reached"
    rows = steady()
    rows[2].update(target="reached")
    text = answer_text([("m", {}, rows)])
    assert "1.50× [1.20, 1.80] ±20.0% ✓" in text
    rows[2].update(target="time budget", target_minutes=44.4, target_half_width=0.03)
    assert "1.50× [1.20, 1.80] ±20.0%: time budget (±3% ≈ 44 min)" in answer_text(
        [("m", {}, rows)])
    assert "1.50× [1.20, 1.80] ±20.0%: time budget |" in answer_text([("m", {}, rows)],
                                                                      more="RESULTS.md")


def test_the_decoder_row_names_its_width_heads_blocks_and_tokens():
    from report.views.answer import workload
    found = rec("step_time", "eager", model="decoder", batch=8, params=4.6e5, flops=1.1e9,
                input_shape=[8, 64], model_config={"width": 128, "heads": 4, "depth": 2,
                                                   "tokens": 64})
    assert workload(found) == ("GPT-style decoder, d_model 128, 4 heads, 2 blocks, 64 tokens, "
                               "batch 8, 0.46 M parameters, 1.10 GFLOP per train step")
