"""The graph variant of each (backend, model) row, chosen once (issue 35, item 4): the framework's
default graph mode, unless another variant is significantly faster than it in the same group."""
from collections import defaultdict

from report.ratios import ratio, verdict

DEFAULT = "graph"  # tf.function, torch.compile(), @static_graph, jax.jit: each default graph mode
RULE = ("each row shows the framework's default graph mode (`graph`) unless another variant is "
        "significantly faster than it, paired in the same group (`graph` ÷ variant, 95% "
        "interval above 1); where `graph` is a known wrong answer or has no figure, the fastest "
        "variant significantly faster than eager, said so")


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
    return {**found, "verdict": verdict(found)}


def _fallback(rows, usable):
    """The fastest variant significantly faster than eager (else the fastest), with why the
    default is not the row's."""
    default = next((r for r in rows if r["variant"] == DEFAULT), None)
    why = ("`graph` is not measured here" if default is None else "`graph` is a known wrong "
           "answer here" if default.get("known_wrong") else "`graph` has no figure here")
    faster = [r for r in usable if r["verdict"] == "faster"]
    pick = max(faster or usable, key=lambda r: r["estimate"], default=None)
    return pick, why + (": the fastest variant significantly faster than eager" if faster
                        else ": the fastest variant (none is significantly faster than eager)")


def choose(rows, versus):
    """(the chosen train speedup record, why it is not the default or None) of one row's records;
    `versus(variant)` gives the default ÷ that variant, a ratio record with its verdict."""
    usable = [r for r in rows if r["estimate"] is not None and not r.get("known_wrong")]
    default = next((r for r in usable if r["variant"] == DEFAULT), None)
    if default is None:
        return _fallback(rows, usable)
    found = [(versus(r["variant"]), r) for r in usable if r is not default]
    faster = [(f, r) for f, r in found if f["verdict"] == "faster"]
    if not faster:
        return default, None
    f, pick = max(faster, key=lambda fr: fr[0]["estimate"])
    where = (f"[{f['low']:.2f}, {f['high']:.2f}] paired" if f["interval"]
             else "unpaired, interquartile ranges apart")
    return pick, f"significantly faster than `graph`: `graph` ÷ `{pick['variant']}` " \
                 f"{f['estimate']:.2f}× {where}"


def mark(records, result_of):
    """Sets `best` on each train speedup record (True on its row's chosen variant, False on the
    others) and `best_note` on a chosen one that is not the default; `result_of(backend, model,
    variant)` gives a train-step result."""
    rows = defaultdict(list)
    for rec in records:
        if rec["kind"] == "speedup" and rec["phase"] == "train":
            rows[rec["backend"], rec["model"]].append(rec)
    for (backend, model), found in rows.items():
        pick, note = choose(found, lambda v: against_default(result_of(backend, model, DEFAULT),
                                                             result_of(backend, model, v)))
        flag(found, pick, note)
    return records


def flag(rows, pick, note):
    """Marks one row's records: `best` True on the chosen one, its `best_note` when not the
    default."""
    for rec in rows:
        rec["best"] = rec is pick
    if pick is not None and note:
        pick["best_note"] = note
