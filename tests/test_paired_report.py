"""A saved paired run (chainer, quick profile): its A/A control, and intervals the report shows as
saved and a reader can recompute from the saved rounds."""
from pathlib import Path

import pytest

import stats
from report.build.ratios import UNPAIRED
from report.build.load import load_file
from report.views.readings import aa_reading, speedup_reading
from report.views.tables import summary_table
from report.views.text import interval_cell
from tests.reporting import records_of

FIXTURE = Path(__file__).parent / "fixtures" / "chainer_paired_quick.json"


@pytest.fixture(scope="module")
def results():
    return [r for r in load_file(FIXTURE) if r.info["phase"] in ("train", "infer")]


def _eagers(results):
    return [r for r in results if r.info["variant"] == "eager"]


@pytest.mark.parametrize("phase", ["train", "infer"])
def test_every_aa_interval_contains_one_or_the_report_counts_it(results, phase):
    pairs = [r.info for r in _eagers(results) if r.info["phase"] == phase]
    holding = sum(i["aa_ci_low"] <= 1 <= i["aa_ci_high"] for i in pairs)
    assert pairs and all(i["aa_significant"] == (not i["aa_ci_low"] <= 1 <= i["aa_ci_high"])
                         for i in pairs)
    assert f"{holding} of {len(pairs)} intervals contain 1" in aa_reading(records_of(results), phase)
    assert aa_reading(records_of(results), phase) in speedup_reading(records_of(results), phase)


def _saved_up_to_last_bits(*saved):
    """The saved figures, up to NumPy's last bits: its sums take other paths on another vector ISA
    (an AVX2-only Zen 3 recomputes this AVX-512 Xeon's 1.2645977325473936 as ...938)."""
    return pytest.approx(saved, rel=1e-13, abs=0)


def test_saved_intervals_are_recomputable_from_the_saved_rounds(results):
    eager = {(r.info["model"], r.info["phase"]): r.info for r in _eagers(results)}
    for r in results:
        i = r.info
        assert (i["processes"], i["rounds"]) == (2, 3) and i["arms"][:2] == ["eager", "eager_aa"]
        assert r.stats["rounds"] == i["processes"] * i["rounds"]
        if i["variant"] == "eager":
            found = stats.ratio(i["paired_rounds_s"], i["aa_rounds_s"])
            assert (found.estimate, found.low, found.high) == _saved_up_to_last_bits(
                i["aa_ratio"], i["aa_ci_low"], i["aa_ci_high"])
        else:
            found = stats.ratio(eager[i["model"], i["phase"]]["paired_rounds_s"],
                                i["paired_rounds_s"])
            assert (found.estimate, found.low, found.high) == _saved_up_to_last_bits(
                i["speedup"], i["ci_low"], i["ci_high"])


def test_table_shows_the_interval_and_marks_it_when_it_includes_one(results):
    table = summary_table(records_of(results))
    for r in results:
        i = r.info
        if i["variant"] == "eager":
            continue
        cell = interval_cell({"estimate": i["speedup"], "low": i["ci_low"], "high": i["ci_high"],
                              "mark": "" if i["significant"] else "~"})
        assert cell in table and cell.endswith(" ~") == (not i["significant"])


def test_a_paired_determinism_ratio_shows_its_interval_and_significance_follows_it(tmp_path):
    """tf_flags_quick (unpaired) with two `on` results given a paired off ÷ on: graph's IQRs
    overlap but its interval excludes 1 (slower); graph_dynamic's IQRs do not overlap but its
    interval includes 1 (not shown to cost anything)."""
    import json
    from report.views.determinism import determinism_section
    from report.build.load import load_dir
    from report.build.ratios import CI
    from report.build.sections import determinism_records
    from tests.test_report_flags import FIXTURE as FLAGS, _row
    data = json.loads(FLAGS.read_text())
    paired = {"graph": (0.9, 0.85, 0.95, True), "graph_dynamic": (0.86, 0.7, 1.05, False)}
    for b in data["benchmarks"]:
        variant = b["extra_info"]["variant"]
        if b["name"].endswith("-on]") and variant in paired:
            b["extra_info"].update(zip(("determinism_ratio", "determinism_ci_low",
                                        "determinism_ci_high", "determinism_significant"),
                                       paired[variant]))
    (tmp_path / "run.json").write_text(json.dumps(data))
    results = load_dir(tmp_path)
    section, records = determinism_section(records_of(results)), determinism_records(results)
    assert _row(section, "| tf | mnist_cnn | graph |")[5] == "0.90× [0.85, 0.95]"
    assert _row(section, "| tf | mnist_cnn | graph_dynamic |")[5] == "0.86× [0.70, 1.05] ~"
    assert _row(section, "| tf | mnist_cnn | graph_relaxed |")[5].endswith("× (unpaired)")
    what = section.splitlines()[-1]
    assert "tf/mnist_cnn/graph 1.11×" in what and "graph_dynamic" not in what
    found = {r["variant"]: r for r in records}
    for variant, (ratio, low, high, significant) in paired.items():
        assert {k: found[variant][k] for k in ("estimate", "low", "high", "interval",
                                               "significant", "kind")} == {
            "estimate": ratio, "low": low, "high": high, "interval": CI,
            "significant": significant, "kind": "determinism_ratio"}
    assert found["graph_relaxed"]["interval"] is None
    assert found["graph_relaxed"]["note"] == UNPAIRED


def test_a_paired_micro_speedup_shows_its_interval_and_significance_follows_it(tmp_path):
    """tf micro results (the flags fixture's header): square_if_positive's IQRs do not overlap
    (medians 1.50×) but its paired interval includes 1; conv's and lstm_cell's intervals do not
    overlap; train_loop is an older, unpaired result."""
    import json
    from report.build.load import load_dir
    from report.views.micro import micro_section
    from report.build.ratios import CI
    from report.build.sections import micro_records
    from tests.test_report_flags import FIXTURE as FLAGS, _row
    data = json.loads(FLAGS.read_text())
    paired = {"conv": (1.05, 0.98, 1.12, False), "lstm_cell": (1.9, 1.7, 2.1, True),
              "square_if_positive": (1.4, 0.9, 1.8, False)}
    medians = {"conv": (1e-3, 0.9e-3), "lstm_cell": (2e-4, 1e-4),
               "square_if_positive": (3e-5, 2e-5), "train_loop": (4e-3, 2e-3)}
    benchmarks = []
    for workload, times in medians.items():
        for variant, seconds in zip(("eager", "graph"), times):
            info = {"backend": "tf", "model": "micro", "workload": workload, "variant": variant,
                    "phase": "micro", "traces": int(variant == "graph"), "first_call_s": 0.1,
                    "second_call_s": seconds, "ops_per_call": None, "graph_breaks": None}
            if workload in paired and variant == "graph":
                info.update(zip(("speedup", "ci_low", "ci_high", "significant"), paired[workload]))
            if workload in paired and variant == "eager":
                info.update(aa_ratio=1.0, aa_ci_low=0.95, aa_ci_high=1.06, aa_significant=False)
            stats_ = {k: seconds for k in ("min", "max", "mean", "median", "q1", "q3")}
            benchmarks.append({"name": f"test_micro[{workload}-{variant}]", "extra_info": info,
                               "stats": {**stats_, "rounds": 6}})
    data["benchmarks"] = benchmarks
    (tmp_path / "run.json").write_text(json.dumps(data))
    results = load_dir(tmp_path)
    section, records = micro_section(records_of(results)), micro_records(results)
    assert _row(section, "| conv speedup |")[2] == "1.05× [0.98, 1.12] ~"
    assert _row(section, "| lstm_cell speedup |")[2] == "1.90× [1.70, 2.10]"
    assert "tf: holds (LSTM cell 1.90× vs conv 1.05×)" in section
    assert "tf/square_if_positive: undecided (1.40× [0.90, 1.80] ~)" in section
    assert "tf/train_loop: holds (2.00×)" in section
    assert "3 of 3 intervals contain 1" in section
    found = {r["case"]: r for r in records if r["kind"] == "micro_speedup"}
    for workload, (ratio, low, high, significant) in paired.items():
        assert {k: found[workload][k] for k in ("estimate", "low", "high", "interval",
                                                "significant")} == {
            "estimate": ratio, "low": low, "high": high, "interval": CI,
            "significant": significant}
    assert found["train_loop"]["interval"] is None
    assert found["train_loop"]["note"] == UNPAIRED
    assert sum(r["kind"] == "aa_ratio" for r in records) == 3


def test_determinism_off_and_the_steady_step_of_one_run_are_checked_against_each_other():
    from report.views.determinism import agreement_line
    from report.build.load import Result
    from report.build.sections import agreement_records

    def result(phase, rounds, variant="graph", run="0001", deterministic=False):
        info = {"backend": "tf", "model": "vgg", "variant": variant, "phase": phase,
                "deterministic": deterministic, "paired_rounds_s": rounds}
        return Result("f", "m", run, "2026-01-01", "n", info, {"median": 1.0}, {})
    same = [[0.010, 0.011, 0.010]] * 3
    slow = [[0.015, 0.016, 0.015]] * 3
    steady = [result("train", same), result("train", same, "eager")]
    det = [result("determinism", same), result("determinism", slow, "eager"),
           result("determinism", slow, deterministic=True)]
    line = agreement_line(agreement_records(det, steady))
    assert "agree in 1 of 2 cases" in line and "tf/vgg/eager 0.6" in line
    assert agreement_line(agreement_records(det, [result("train", same, run="0002")])) == ""


def _retrace_run(variant, seconds, cut=None):
    from report.build.load import Result
    info = {"backend": "tf", "model": "vgg", "variant": variant, "phase": "retrace",
            "step": "train", "pattern": "varying", "traces": 3, "cut_short": cut}
    return Result("f", "m", "0001", "2026-01-01", variant, info, {"median": seconds}, {})


def test_retrace_advice_names_the_runs_it_left_out_as_cut_short():
    from report.views.retrace import advice
    runs = [_retrace_run("eager", 5.0), _retrace_run("graph", 9.0, "stopped after 2 of 4 steps"),
            _retrace_run("graph_dynamic", 4.0)]
    text = advice(records_of(runs))
    assert "fastest is `graph_dynamic`" in text and "cut short by the budget: `graph`" in text
    cut = [_retrace_run("graph", 9.0, "stopped")]
    assert "every run was cut short" in advice(records_of(cut))


def test_a_retrace_totals_ratio_to_eager_is_a_field_of_its_record():
    """The retrace chart colours and labels each cell by `over_eager`; a cut-short eager gives none."""
    found = {r["variant"]: r["over_eager"] for r in records_of(
        [_retrace_run("eager", 5.0), _retrace_run("graph", 9.0, "stopped"), _retrace_run("xla", 4.0)])}
    assert found == {"eager": 1.0, "graph": 9.0 / 5.0, "xla": 4.0 / 5.0}
    found = records_of([_retrace_run("eager", 5.0, "stopped"), _retrace_run("graph", 9.0)])
    assert [r["over_eager"] for r in found] == [None, None]


def test_article_000s_ratio_is_a_field_of_each_retrace_record():
    """seed_comparison reads `over_signature` (÷ graph_dynamic's total), never divides itself."""
    from report.views.retrace import seed_comparison
    runs = [_retrace_run("eager", 5.0), _retrace_run("graph", 9.0),
            _retrace_run("graph_dynamic", 2.0)]
    for run in runs:
        run.info.update(model="resnet152", steps_done=4, distinct_shapes=4)
    found = records_of(runs)
    assert {r["variant"]: r["over_signature"] for r in found} == {
        "eager": 2.5, "graph": 4.5, "graph_dynamic": 1.0}
    for r in found:
        r["over_signature"] *= 10  # the view words the field as it is
    text = seed_comparison(found)
    assert "= 45.00" in text and "Eager ÷ signature here is 25.00" in text


def test_whether_a_sequence_beat_eager_is_the_builds():
    """The answer's 'use X when sizes vary' reads `beats_eager`, set beside each retrace total."""
    found = {r["variant"]: r["beats_eager"] for r in records_of(
        [_retrace_run("eager", 5.0), _retrace_run("graph", 9.0, "stopped"), _retrace_run("xla", 4.0),
         _retrace_run("graph_dynamic", 6.0)])}
    assert found == {"eager": False, "graph": None, "xla": True, "graph_dynamic": False}
