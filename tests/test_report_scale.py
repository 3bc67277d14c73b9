"""The sweep's report: where graph mode stops paying, where the answer's rows sit, its table and
chart, from records only."""
import pytest

from report.build.ratios import verdict
from report.views.scale import answer_line, scale_reading, scale_table, stops_paying, sweep


def speedup(gflop, estimate, low, high, backend="torch", width=1.0, side=224, batch=1):
    found = _speedup(gflop, estimate, low, high, backend, width, side, batch)
    return {**found, "verdict": verdict(found)}  # as records.record saves it


def _speedup(gflop, estimate, low, high, backend, width, side, batch):
    return {"kind": "scale_speedup", "backend": backend, "model": f"vgg-{gflop}",
            "variant": "graph", "phase": "scale", "precision": "float32", "run": "0001_default",
            "dirty": False, "estimate": estimate, "low": low, "high": high,
            "interval": "95% paired bootstrap", "significant": not low <= 1 <= high,
            "mark": "~" if low <= 1 <= high else "",
            "note": None, "flops": gflop * 1e9, "batch": batch,
            "model_config": {"width": width, "side": side}}


def step(gflop, backend="torch", model="vgg", phase="train"):
    return {"kind": "step_time", "backend": backend, "model": model, "variant": "eager",
            "phase": phase, "precision": "float32", "flops": gflop * 1e9, "estimate": 0.01}


CURVE = [speedup(0.016, 3.0, 2.5, 3.5), speedup(3.8, 1.4, 1.3, 1.5),
         speedup(23, 0.98, 0.9, 1.05), speedup(92, 0.8, 0.75, 0.85)]


def test_the_gain_ends_after_the_last_point_whose_interval_excludes_one():
    assert stops_paying(CURVE).startswith("it stops paying between 3.8 and 23 GFLOP per step "
                                          "(undecided from there)")


def test_a_slower_point_after_the_last_gain_is_called_slower():
    assert "slower than eager" in stops_paying([CURVE[1], CURVE[3]])


def test_gains_everywhere_and_nowhere():
    assert stops_paying(CURVE[:2]) == "it gains at every size measured, up to 3.8 GFLOP per step"
    assert stops_paying(CURVE[2:3]) == "no gain beyond the interval at any size"


def test_a_slower_point_is_never_hidden_behind_no_gain():
    assert stops_paying(CURVE[2:]) == ("no gain beyond the interval at any size; slower than "
                                       "eager at full width, 224² px, batch 1 (0.80× [0.75, "
                                       "0.85], 92 GFLOP)")


def test_points_are_read_smallest_work_first():
    found = sweep([CURVE[2], CURVE[0]])["torch"]
    assert [r["flops"] for r in found] == [0.016e9, 23e9]
    assert "between 0.016 and 23" in stops_paying(found)


def test_the_answer_places_its_rows_on_the_curve():
    below = answer_line([*CURVE, step(0.19, model="mnist_cnn"), step(0.94, model="resnet")],
                        "torch")
    assert "the rows above (0.19–0.94 GFLOP per train step) lie below the sweep's last gaining" \
           in below
    past = answer_line([*CURVE, step(50, model="resnet")], "torch")
    assert "partly past the sweep's last gaining size" in past
    assert answer_line(CURVE, "tf") == ""


def test_table_and_reading_name_every_point_and_backend():
    records = CURVE + [speedup(0.016, 5.0, 4.0, 6.0, backend="tf", width=1 / 16, side=32, batch=2)]
    table = scale_table(records)
    assert table.count("\n") == 1 + 5  # header, rule and five points: six line breaks
    assert "| tf | 1/16 width, 32² px, batch 2 | 0.016 |" in table
    assert "**tf**: it gains at every size" in scale_reading(records)
    assert scale_table([step(1.0)]) == "" and scale_reading([]) == "No sweep results."
    jax = [speedup(0.016, 4.0, 3.5, 4.5, backend="jax", width=1 / 16, side=32, batch=2)]
    said = scale_reading(records + jax)  # one reading of two backends, said once
    assert "**jax**, **tf**: it gains at every size" in said and said.count("gains at every") == 1


CONTEXT = {"machines": [("m", "cpu", 2, "default")], "versions": {}, "runs": [], "gaps": [],
           "retrace_rules": {}}  # select.chart_context of no runs


def test_the_chart_draws_the_curve_and_nothing_without_a_sweep(tmp_path):
    pytest.importorskip("matplotlib")
    from report.views.scale_chart import _rows_of, scale_chart
    assert scale_chart([step(1.0)], CONTEXT, tmp_path / "none.png") is None
    records = CURVE + [{**step(0.49), "kind": "speedup", "variant": "graph", "estimate": 1.2,
                        "best": True}, {**step(0.49), "variant": "graph"}]
    assert [r["estimate"] for r in _rows_of(records, "torch")] == [1.2]  # the table's rows
    path = scale_chart(records, CONTEXT, tmp_path / "scale.png")
    assert path.stat().st_size > 10_000


def test_the_scope_names_the_sweeps_largest_point():
    from report.views.answer import scope
    text = scope([("m", {}, CURVE + [step(0.19)])])
    assert "up to the VGG at full width, 224² px, batch 1" in text
    assert "where graph mode stops paying" not in scope([("m", {}, [step(0.19)])])


def test_the_compute_bound_decoder_is_its_own_line_and_row_never_a_point_of_the_vgg_curve():
    from report.views.answer import backend_lines
    from report.views.scale import compute_line, scale_table, sweep
    from tests.test_answer import rec, steady
    decoder = rec("compute_speedup", backend="torch", model="decoder-d512-h8-x6-t256-b1",
                  estimate=1.04, low=1.01, high=1.07, batch=1, flops=3.16e10,
                  model_config={"width": 512, "heads": 8, "depth": 6, "tokens": 256})
    records = steady() + [decoder]
    assert sweep(records) == {}
    assert compute_line(records, "torch") == (
        "on a decoder where compute dominates (d_model 512, 6 blocks, 256 tokens, batch 1: 31.6 "
        "GFLOP per train step), eager ÷ `graph` is 1.04× [1.01, 1.07];")
    assert compute_line(records, "tf") == ""
    assert "on a decoder where compute dominates" in "\n".join(backend_lines(records))
    vgg = rec("scale_speedup", backend="torch", model="vgg-1", flops=1e9,
              model_config={"width": 1, "side": 224}, batch=1)
    assert "| torch | decoder-d512-h8-x6-t256-b1 | 31.6 |" in scale_table(
        records + [vgg])
