"""The graph variant of each (backend, model) row, chosen once (issue 35, item 4): the framework's
default graph mode, unless another variant is faster than it (past the noise threshold) in the
same group."""
import functools
from collections import defaultdict

from catalog import VARIANTS
from report.build.figure import LABELS, labelled
from report.build.ratios import meaning, ratio

ORDER = list(VARIANTS)
DEFAULT = "graph"  # tf.function, torch.compile(), @static_graph, jax.jit: each default graph mode
RULE = ("each row shows the framework's default graph mode (`graph`) unless another variant is "
        "faster than it, paired in the same group (`graph` ÷ variant, 95% interval past 1.03, "
        "the noise threshold; of several, the simplest unless another is faster than it too); "
        "where `graph` is a known wrong answer or has no figure, the fastest variant faster "
        "than eager, said so")


def against_default(default, other):
    """default ÷ other as a ratio record of two results of one group: paired (stats.ratio, the
    speedups' bootstrap, over both arms' saved rounds) where both saved them, else unpaired."""
    rounds = [r.info.get("paired_rounds_s") for r in (default, other)]
    paired = None
    if all(rounds) and default.file == other.file and list(map(len, rounds[0])) == list(
            map(len, rounds[1])):
        import stats  # NumPy, imported when a figure needs it
        paired = stats.ratio(*rounds)
    return as_ratio(paired, default, other)


def as_ratio(paired, base=None, other=None):
    """A ratio record with its verdict: `paired` (a stats.Ratio), else base ÷ other unpaired."""
    found = {"interval": None, **ratio(paired, base, other, None)}
    return {**found, **meaning(found)}


def _fallback(rows, usable):
    """The fastest variant faster than eager (else the fastest), with why the
    default is not the row's."""
    default = next((r for r in rows if r["variant"] == DEFAULT), None)
    why = ("`graph` is not measured here" if default is None else "`graph` is a known wrong "
           "answer here" if default.get("known_wrong") else "`graph` has no figure here")
    faster = [r for r in usable if r["verdict"] == "faster"]
    pick = max(faster or usable, key=lambda r: r["estimate"], default=None)
    return pick, why + (": the fastest variant faster than eager" if faster
                        else ": the fastest variant (none is faster than eager)")


def choose(rows, versus):
    """(the chosen train speedup record, why it is not the default or None) of one row's records;
    `versus(a, b)` gives variant a ÷ variant b of the row's group, a ratio record with its
    verdict. Of several variants faster than the default, the first in the catalog's order (the
    simpler call: `xla` before `xla_dynamic`) stays unless a later one is faster than it too."""
    versus = functools.cache(versus)  # each pair's bootstrap once
    usable = sorted((r for r in rows if r["estimate"] is not None and not r.get("known_wrong")),
                    key=lambda r: ORDER.index(r["variant"]) if r["variant"] in ORDER
                    else len(ORDER))
    default = next((r for r in usable if r["variant"] == DEFAULT), None)
    if default is None:
        return _fallback(rows, usable)
    faster = [r for r in usable if r is not default
              and versus(DEFAULT, r["variant"])["verdict"] == "faster"]
    if not faster:
        return default, None
    pick = faster[0]
    for other in faster[1:]:
        if versus(pick["variant"], other["variant"])["verdict"] == "faster":
            pick = other
    f = pick["best_versus"] = versus(DEFAULT, pick["variant"])
    where = (f" [{f['low']:.2f}, {f['high']:.2f}]" if f["interval"]
             else ", unpaired, interquartile ranges apart")
    return pick, f"`graph` ÷ `{pick['variant']}` {f['estimate']:.2f}×{where}"


def mark(records, result_of):
    """Sets `best` on each train speedup record (True on its row's chosen variant, False on the
    others) and `best_note` on a chosen one that is not the default; `result_of(backend, model,
    variant)` gives a train-step result."""
    rows = defaultdict(list)
    for rec in records:
        if rec["kind"] == "speedup" and rec["phase"] == "train":
            rows[rec["backend"], rec["model"]].append(rec)
    for (backend, model), found in rows.items():
        pick, note = choose(found, lambda a, b: against_default(result_of(backend, model, a),
                                                                result_of(backend, model, b)))
        records += flag(found, pick, note)
    return records


def flag(rows, pick, note):
    """Marks one row's records: `best` True on the chosen one, its `best_note` when not the
    default; returns [the `default_ratio` record (`graph` ÷ the chosen variant) that note
    quotes], or []."""
    for rec in rows:
        rec["best"] = rec is pick
    if pick is None or not note:
        return []
    pick["best_note"] = note
    if not (f := pick.pop("best_versus", None)):
        return []
    labels = {k: pick[k] for k in (*LABELS, "processes", "rounds", "known_wrong")}
    return [labelled(labels, "default_ratio", "x", f["estimate"], f["low"], f["high"],
                     f["interval"], f.get("significant"), "`graph` ÷ this variant, paired in the "
                     "same group: why it is the row's", aa_low=pick.get("aa_low"),
                     aa_high=pick.get("aa_high"))]
