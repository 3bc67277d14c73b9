"""The section tables (determinism, micro, pipeline, memory) say what summary.json's records say."""
import json
from pathlib import Path

import pytest

from report import __main__ as cli
from report.views.text import interval_cell
from report.publish.write import SUMMARY_END, SUMMARY_START
from tests.reporting import tables_of
from tests.test_report_runs import save

SECTIONS = Path(__file__).parent / "fixtures" / "tf_sections_default.json"  # a trimmed real run
KINDS = ("determinism_ratio", "micro_speedup", "loader_ratio", "memory_ratio", "aa_ratio")


def _publish(tmp_path):
    results = tmp_path / "results"
    save(results / "m", json.loads(SECTIONS.read_text()), "0001_default", "2026-01-01T00:00:00")
    readme = tmp_path / "README.md"
    readme.write_text(f"{SUMMARY_START}\n{SUMMARY_END}\n{cli.START}\n{cli.END}\n")
    assert cli.main(["--results", str(results), "--readme", str(readme)]) == 0
    records = json.loads((results / "summary.json").read_text())["records"]
    return records, tables_of(results)


def test_every_section_ratio_with_an_interval_is_printed_as_its_record_says(tmp_path):
    records, details = _publish(tmp_path)
    shown = [r for r in records if r["kind"] in KINDS and r["low"] is not None
             and not (r["kind"] == "aa_ratio" and r["phase"] in ("train", "infer", "micro"))]
    # (steady and micro A/A pairs: their lines name the widest only)
    assert {r["kind"] for r in shown} >= set(KINDS) - {"aa_ratio"}, "the fixture lost a section"
    for r in shown:
        assert interval_cell(r) in details, r


def test_significant_means_the_interval_excludes_one_in_every_section_record(tmp_path):
    records, _ = _publish(tmp_path)
    for r in records:
        if r["kind"] in KINDS and r["low"] is not None:
            assert r["significant"] == (not r["low"] <= 1 <= r["high"]), r


def test_every_record_of_the_run_carries_its_steady_aa_floor(tmp_path):
    records, _ = _publish(tmp_path)
    floors = {(r["aa_floor_low"], r["aa_floor_high"]) for r in records}
    assert len(floors) == 1 and None not in next(iter(floors))


def test_a_claim_left_out_is_one_line_naming_where_its_figures_are():
    from report.views.micro import micro_section
    timed = lambda case, variant="eager": {"kind": "micro_time", "backend": "tf", "case": case,
                                          "variant": variant, "estimate": 1e-3, "traces": 1,
                                          "ops_per_call": 10, "graph_breaks": None}
    text = micro_section([timed("dispatch"), timed("dispatch", "graph"), timed("square_naive")],
                         [("xeon", [timed("conv"), timed("matmul10")])])
    assert "Verdict: ." not in text and "best variant of each: ." not in text
    assert "**2. First vs later calls**: left out of this machine's runs by their profile; its " \
           "figures: machine `xeon`'s section." in text
    assert "| backend | variant | first call ms" not in text
    assert "(`--profile paper` measures them)" in text  # square_vectorized: measured nowhere


def test_charts_on_log_axes_draw_dots_and_label_known_wrong_rows():
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    import inspect
    from report.views import charts, cost_charts
    for chart in (charts.break_even_chart, charts.overhead_chart, cost_charts.retrace_step_chart):
        assert "barh(" not in inspect.getsource(chart), chart.__name__
    wrong = charts.known_wrong([{"backend": "chainer", "model": "resnet", "variant": "graph",
                                 "known_wrong": "NaN (findings/x.md)"}])
    assert "known wrong" in charts.row_label("chainer", "resnet", "graph", wrong)
    assert charts.row_label("chainer", "vgg", "graph", wrong) == "chainer/graph"


def test_the_micro_section_words_the_builds_claims_and_decides_none():
    """Article 001's claims are decided in report.build.claims; micro_section only words them."""
    from report.build.claims import micro_claims
    from report.views.micro import micro_section
    times = [{"machine": "m", "run": "0001_x", "backend": "tf", "case": w, "variant": v,
              "kind": "micro_time", "phase": "micro", "estimate": t, "traces": 1,
              "ops_per_call": 1, "graph_breaks": None}
             for w, v, t in (("square_naive", "eager", 2e-3), ("square_vectorized", "eager", 1e-5),
                             ("dispatch", "eager", 1e-4))]
    claims = micro_claims(times)
    assert [(c["case"], c["claim"]) for c in claims] == [("vectorized", "holds")]
    claims[0]["claim"] = "does not hold"
    assert "tf: does not hold (200× faster)" in micro_section(times + claims)
