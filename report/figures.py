"""The main tables (per model: steps, speedups, first calls, break-even), drawn from records."""
from collections import defaultdict

from report.records import lookup, steady_records
from report.tables import VARIANT_ORDER, _s, interval_cell

HEADER = ("| backend | variant | train step ms (IQR) | train speedup | infer step ms (IQR) "
          "| infer speedup | first call s, cold | first call s, warm | break-even steps | run |")


def label(rec):
    """A record's run as the tables show it; † marks a dirty tree."""
    return f"`{rec['run']}`" + ("†" if rec["dirty"] else "")


def step_text(rec):
    """A step time in ms with its interquartile range, as the tables show it."""
    if rec is None:
        return "—"
    if rec["estimate"] is None:
        return "non-finite ✗"
    return f"{rec['estimate'] * 1e3:.2f} ({rec['low'] * 1e3:.2f}–{rec['high'] * 1e3:.2f})"


def speedup_text(rec):
    """A speedup: paired with its interval, unpaired said so, or "—" with the reason."""
    if rec is None:
        return "—"
    if rec["estimate"] is None:
        return f"— ({rec['note']})"
    if rec["interval"]:
        return interval_cell(rec["estimate"], rec["low"], rec["high"])
    return f"{rec['estimate']:.2f}× (unpaired)"


def break_even_text(rec):
    """Steps, with the range the speedup's interval gives; 'never', or '—' with the reason."""
    if rec is None:
        return "—"
    if rec["estimate"] is None:
        return rec["note"] if rec["note"].startswith("never") else f"— ({rec['note']})"
    if rec["interval"]:
        return f"{rec['estimate']:,} ({rec['low']:,}–{rec['high']:,})"
    return str(rec["estimate"])


def summary_table(results):
    """One markdown table per model: every backend and variant against its own eager."""
    return records_table(steady_records(results))


def records_table(records):
    """The main tables from their records."""
    cells, rows = lookup(records), defaultdict(set)
    for rec in records:
        rows[rec["model"]].add((rec["backend"], rec["variant"]))
    lines = []
    for model in sorted(rows):
        lines += [f"**{model}**", "", HEADER, "|---" * 10 + "|"]
        for backend, variant in sorted(rows[model], key=lambda bv: (
                bv[0], VARIANT_ORDER.index(bv[1]) if bv[1] in VARIANT_ORDER else 99)):
            get = lambda kind, phase, cache=None: cells.get((backend, model, variant, kind, phase,
                                                             cache))
            mine = [r for r in records if (r["backend"], r["model"], r["variant"]) ==
                    (backend, model, variant)]
            flag = " ⚠" if any(r["known_wrong"] for r in mine) else ""
            eager = variant == "eager"
            first = [get("first_call", "construction", c) for c in ("cold", "warm")]
            lines.append("| " + " | ".join([
                backend, variant + flag, step_text(get("step_time", "train")),
                "1" if eager else speedup_text(get("speedup", "train")),
                step_text(get("step_time", "infer")),
                "1" if eager else speedup_text(get("speedup", "infer")),
                *(_s(r and r["estimate"]) for r in first),
                "—" if eager else break_even_text(get("break_even", "train", "cold")),
                ", ".join(sorted({label(r) for r in mine}))]) + " |")
        lines.append("")
    return "\n".join(lines)
