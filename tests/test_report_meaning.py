"""Meaning lives in the records (issue 36): each ratio's verdict and each row's variant are decided
once, in ratios.py and the record builders, and every renderer reads them."""
import ast
from pathlib import Path

import numpy as np

from report.views.answer import advice, answer_text
from report.build.load import Result
from report.build.claims import micro_claims
from report.views.micro import Micro, control_verdicts
from report.build.records import FIELDS, ratio_record
from report.build.steady import steady_records
from report.views.tables import chosen

REPORT = Path(__file__).resolve().parent.parent / "report"
RULES = {"ratios.py"}  # the one place that turns an interval into a verdict
BUILDERS = {"ratios.py", "records.py", "steady.py", "sections.py", "studies.py",  # they build
            "machine_records.py", "best.py", "user.py", "comparison.py"}  # ratios
EXEMPT = set()  # (file, function) left unscanned: none since interval_cell reads the build's mark
VERDICT_CALLS = {"includes_one", "clear", "verdict", "spread_overlaps", "significant"}
BOUNDS = ("low", "high", "estimate", "ratio", "cost")


def _named(node):
    """The name a value is read by: `low`, `rec["high"]`, `r.low`, `interval[0]` → its words."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    return ""


def _one(node):
    return isinstance(node, ast.Constant) and node.value in (1, 1.0) \
        and not isinstance(node.value, bool)


def decisions(source, name="x.py"):
    """Lines of `source` that decide significance or direction: an interval end or ratio compared
    with 1, a verdict rule called, or `significant` read as a condition."""
    tree, found = ast.parse(source), []
    skip = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
            and (name, f.name) in EXEMPT for n in ast.walk(f)}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(map(_one, sides)) and any(any(w in _named(s) for w in BOUNDS) for s in sides):
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and name not in BUILDERS \
                and isinstance(node.func, ast.Name) and node.func.id in VERDICT_CALLS:
            found.append(node.lineno)
        conditions = ([node.test] if isinstance(node, (ast.If, ast.IfExp, ast.While)) else
                      node.values if isinstance(node, ast.BoolOp) else
                      [node.operand] if isinstance(node, ast.UnaryOp) else
                      node.ifs if isinstance(node, ast.comprehension) else [])
        if any("significant" in _named(c) for c in conditions):
            found.append(node.lineno)
    return found


def test_no_renderer_decides_significance_or_direction():
    found = {path.name: lines for path in sorted(REPORT.rglob("*.py")) if path.name not in RULES
             and (lines := decisions(path.read_text(), path.name))}
    assert not found, f"significance decided outside ratios.py (file: lines): {found}"


def test_the_scan_catches_a_planted_decision():
    for planted in ("x = rec['low'] <= 1 <= rec['high']", "if r.high < 1:\n    pass",
                    "n = includes_one(a, b)", "y = 'a' if not rec['significant'] else 'b'",
                    "z = [r for r in rs if r['significant'] and r['estimate'] > 1]"):
        assert decisions(planted), planted
    assert not decisions("y = rec['verdict'] == 'faster'")
    assert not decisions("add(arm, r.significant)", "user.py")


def _rounds(scale, rng, drift):
    """Paired rounds (4 processes × 30 rounds) of an arm whose step is `scale`, with the drift
    every arm of the group shares and 0.5% of its own noise."""
    return (scale * drift * rng.lognormal(0, 0.005, drift.shape)).tolist()


def _group(steps, wrong=()):
    """The train results of one group: each variant's paired rounds and its speedup over eager."""
    import stats
    rng = np.random.default_rng(0)
    drift = rng.lognormal(0, 0.05, (4, 30))
    rounds = {v: _rounds(s, rng, drift) for v, s in steps.items()}
    out = []
    for variant, times in rounds.items():
        info = {"backend": "tf", "model": "resnet", "variant": variant, "phase": "train",
                "paired_rounds_s": times, "known_wrong": "wrong" if variant in wrong else None}
        if variant != "eager":
            info.update(stats.ratio(rounds["eager"], times).as_info("speedup"))
        flat = np.ravel(times)
        out.append(Result("results/m/0001_x.json", "m", "0001_x", "2026-01-01T00:00:00",
                          f"test_steady[{variant}]", info,
                          {"median": float(np.median(flat)), "q1": float(np.quantile(flat, .25)),
                           "q3": float(np.quantile(flat, .75)), "rounds": 30}, {}))
    return out


def _chosen(steps, wrong=()):
    return chosen(steady_records(_group(steps, wrong)))["tf", "resnet"]


def test_the_default_graph_mode_stays_unless_another_is_significantly_faster_paired():
    """A variant 0.2% faster than `graph` (not told apart in pairs) leaves the row on `graph`
    though its speedup over eager is the larger; one 10% faster replaces it, and says so."""
    near = _chosen({"eager": 10e-3, "graph": 8e-3, "xla_dynamic": 7.985e-3})
    assert near["variant"] == "graph" and not near.get("best_note")
    far = _chosen({"eager": 10e-3, "graph": 8e-3, "xla": 7.2e-3, "xla_dynamic": 7.99e-3})
    assert far["variant"] == "xla"
    assert far["best_note"].startswith("`graph` ÷ `xla` 1.11× [")


def test_a_wrong_default_falls_back_to_the_fastest_significant_variant_and_says_so():
    found = _chosen({"eager": 10e-3, "graph": 6e-3, "xla": 9e-3, "graph_relaxed": 8e-3},
                    wrong=("graph",))
    assert found["variant"] == "graph_relaxed"
    assert found["best_note"] == ("`graph` is a known wrong answer here: the fastest variant "
                                  "faster than eager")
    row = next(line for line in answer_text([("m", {}, steady_records(_group(
        {"eager": 10e-3, "graph": 6e-3, "graph_relaxed": 8e-3}, ("graph",))))]).splitlines()
        if line.startswith("| tf | resnet |"))
    assert "`graph_relaxed` (`graph` is a known wrong answer here" in row


def test_every_record_carries_a_verdict_and_a_best_flag():
    records = steady_records(_group({"eager": 10e-3, "graph": 8e-3, "xla": 7.985e-3}))
    assert {"verdict", "best"} <= set(FIELDS) and all({"verdict", "best"} <= set(r) for r in records)
    speedups = [r for r in records if r["kind"] == "speedup"]
    assert {r["verdict"] for r in speedups} == {"faster"}
    assert sorted((r["variant"], r["best"]) for r in speedups) == [("graph", True), ("xla", False)]
    assert {r["best"] for r in records if r["kind"] != "speedup"} == {None}
    assert {r["verdict"] for r in records if r["unit"] != "x"} == {None}


def _unpaired(kind, estimate, overlap, **fields):
    """A ratio record saved before paired timing: eager ÷ graph of medians whose IQRs overlap."""
    stats_ = {"median": 1.0, "q1": 0.5, "q3": 2.0} if overlap else {"median": 1.0, "q1": 0.99,
                                                                    "q3": 1.01}
    make = lambda variant, median: Result("f.json", "m", "0001_x", "", variant, {
        "backend": "torch", "model": "resnet", "variant": variant, "phase": "train", **fields},
        {**stats_, "median": median, "q1": stats_["q1"] * median, "q3": stats_["q3"] * median},
        {})
    return ratio_record(make("graph", 1.0), kind, make("eager", estimate), None)


def test_an_unpaired_gain_inside_the_spread_is_no_gain_anywhere():
    """answer.advice and micro once counted any unpaired ratio above 1 as a gain; ratios.clear
    does not, and now neither does any view."""
    rec = {**_unpaired("speedup", 1.3, overlap=True), "best": True}
    assert rec["verdict"] == "undecided" and "spreads overlap" in rec["verdict_note"]
    assert advice([rec], {"resnet": rec}).startswith("**advice**: stay eager")
    micro = {**_unpaired("micro_speedup", 1.3, overlap=True), "case": "sum_even"}
    times = [{**micro, "kind": "micro_time", "variant": v, "traces": 1} for v in ("eager", "graph")]
    found = times + [micro]
    assert control_verdicts(Micro(found + micro_claims(found))) == [
        "torch/sum_even: undecided (1.30×)"]


def picks_a_run(source):
    """Lines that choose a run themselves: max() or min() over records' `run` names."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("max", "min") and node.args
            and any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
                    and n.slice.value == "run" for n in ast.walk(node.args[0]))]


def test_only_select_picks_the_newest_run():
    found = {p.name: lines for p in sorted(REPORT.rglob("*.py"))
             if p.name != "select.py" and (lines := picks_a_run(p.read_text()))}
    assert not found, f"a run chosen outside select.py (file: lines): {found}"
    assert picks_a_run("newest = max((r['run'] for r in records), default=None)") == [1]


def test_of_two_variants_faster_than_graph_the_simpler_stays_unless_beaten():
    """`xla` and `xla_dynamic` compile one graph at one shape: the higher point estimate of two
    that do not differ must not pick the row (tf resnet read 15.74× against 15.59× in 0034)."""
    from report.build.best import choose
    rows = [{"variant": v, "estimate": e} for v, e in
            (("xla_dynamic", 15.74), ("graph", 4.0), ("xla", 15.59))]
    same = {("graph", "xla"): "faster", ("graph", "xla_dynamic"): "faster"}

    def versus(table):
        return lambda a, b: {"verdict": table.get((a, b), "within 3%"),
                             "estimate": 3.9, "low": 3.5, "high": 4.2, "interval": "paired"}
    assert choose(rows, versus(same))[0]["variant"] == "xla"
    beaten = {**same, ("xla", "xla_dynamic"): "faster"}
    assert choose(rows, versus(beaten))[0]["variant"] == "xla_dynamic"


def test_a_published_figure_is_placed_on_one_side_of_the_interval():
    from report.build.ratios import side
    found = {"interval": "95%", "low": 1.15, "high": 1.21}
    assert side(found, 1.12) == "above" and side(found, 1.3) == "below"
    assert side(found, 1.18) == "contains" and side({"interval": None}, 1.0) is None


def _paired(estimate, low, high, aa=None):
    rec = {"estimate": estimate, "low": low, "high": high, "interval": "95% paired bootstrap"}
    return {**rec, **({"aa_low": aa[0], "aa_high": aa[1]} if aa else {})}


def test_a_ratio_inside_the_noise_threshold_reads_the_same_in_every_job():
    from report.build.ratios import meaning
    # issue 50's Chainer MNIST pairs: four jobs, one reading
    for found in (_paired(0.976, 0.955, 0.997), _paired(0.981, 0.955, 1.011),
                  _paired(1.018, 1.0, 1.03), _paired(1.020, 1.002, 1.032)):
        assert meaning(found)["verdict"] == "within 3%", found
    assert meaning(_paired(1.06, 1.04, 1.08))["verdict"] == "faster"
    assert meaning(_paired(0.90, 0.88, 0.95))["verdict"] == "slower"


def test_a_ratio_too_wide_to_tell_is_undecided_and_says_what_would_decide_it():
    from report.build.ratios import meaning
    wide = meaning(_paired(1.11, 0.81, 5.04))  # the torch_transformer example's `graph`
    assert wide["verdict"] == "undecided" and "more processes or rounds" in wide["verdict_note"]
    noisy = meaning(_paired(1.06, 1.04, 1.08, aa=(0.97, 1.07)))
    assert noisy["verdict"] == "undecided" and "A/A control [0.970, 1.070]" in noisy["verdict_note"]
    assert meaning(_paired(6.9, 5.6, 7.4, aa=(0.97, 1.06)))["verdict"] == "faster"
    edge = meaning(_paired(1.05, 1.02, 1.08))
    assert edge["verdict"] == "undecided" and "narrower interval" in edge["verdict_note"]
    assert meaning(_paired(1.01, 0.99, 1.02))["mark"] == "~"
