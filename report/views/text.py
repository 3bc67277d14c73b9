"""How the renderers write a figure: cells, intervals, run labels (formatting only, no figures)."""
import math

from catalog import VARIANTS
from report.build.ratios import half_width

VARIANT_ORDER = tuple(VARIANTS)


def rounded(value, digits=10):
    """`value` with each float to `digits` significant digits: numpy's sums differ in their last
    bits from one vector ISA to another, so written files would change with the machine that
    drew them."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, digits) for v in value]
    return value


def variant_order(variant):
    return VARIANT_ORDER.index(variant) if variant in VARIANT_ORDER else 99


def ms(seconds):
    return "—" if seconds is None else f"{seconds * 1e3:.2f}"


def s(seconds):
    return "—" if seconds is None else f"{seconds:.2f}"


def span(low, high, spec=".2f"):
    """'low–high' in the format `spec` (',' for step counts), or one number where the two read
    the same."""
    low, high = format(low, spec), format(high, spec)
    return low if low == high else f"{low}–{high}"


def end(x):
    """An interval end: two decimals, three where two would read 1.00 (0.999 is not 1)."""
    return f"{x:.3f}" if f"{x:.2f}" == "1.00" and x != 1 else f"{x:.2f}"


def interval_cell(rec):
    """A ratio record with its 95% interval and its `mark` ('~': the interval includes 1, as the
    build marked it)."""
    return f"{rec['estimate']:.2f}× [{end(rec['low'])}, {end(rec['high'])}]" + (
        f" {rec['mark']}" if rec["mark"] else "")


def count(n, one, many):
    """'1 never pays off', '2 never pay off': a count with the verb or noun it agrees with."""
    return f"{n} {one if n == 1 else many}"


def three_digits(value):
    """A time with three significant digits, the thousands grouped: a small model's 3 ms retrace
    run reads 0.00312 s, not 0.00."""
    if value <= 0:
        return "0"
    return f"{value:,.0f}" if value >= 100 else f"{value:.{2 - math.floor(math.log10(value))}f}"


def took(seconds):
    """A time in a sentence: milliseconds below a tenth of a second ('4 ms', '0.27 s')."""
    return f"{seconds * 1e3:.3g} ms" if seconds < 0.1 else f"{seconds:.2f} s"


def duration(seconds):
    """A wall time in the unit a reader thinks in: '0.3 s', '45 s', '≈ 1 min', '2.5 h'."""
    if seconds < 60:
        return f"{seconds:.{1 if seconds < 1 else 2}g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.2g} min"
    return f"{seconds / 3600:.2g} h"


def label(rec, brief=False, more=()):
    """A record's run as the tables show it, with `more` runs its row draws on (`brief`: run
    numbers only, in one code span); † marks a dirty tree."""
    runs = [*(rec.get("pooled_runs") or [rec["run"]]), *more]  # pooled: every job it draws from
    named = ("`" + "+".join(run.split("_")[0] for run in runs) + "`" if brief else
             "+".join(f"`{run}`" for run in runs))
    return named + ("†" if rec.get("dirty") else "")


def step_text(rec):
    """A step time in ms with its interquartile range, as the tables show it."""
    if rec is None:
        return "—"
    if rec["estimate"] is None:
        return "non-finite ✗"
    return f"{ms(rec['estimate'])} ({ms(rec['low'])}–{ms(rec['high'])})"


def speedup_text(rec):
    """A speedup: paired with its interval, unpaired said so, or "—" with the reason."""
    if rec is None:
        return "—"
    if rec["estimate"] is None:
        return f"— ({rec['note']})"
    if rec["interval"]:
        return interval_cell(rec)
    return f"{rec['estimate']:.2f}× (unpaired)"


def precision_text(rec, brief=False):
    """A paired ratio's precision as the answer shows it: '±2.4% ✓' where it reached its job's
    target, else the ± and why not ('±7.1%: time budget', and unless `brief` how long the target
    would take); '' where its run set no target."""
    if rec is None or rec.get("target") is None:
        return ""
    half = f"±{half_width(rec):.1%}"
    if rec["target"] == "reached":
        return f"{half} ✓"
    more = (f" (±{rec['target_half_width']:.0%} ≈ {rec['target_minutes']:.0f} min)"
            if rec.get("target_minutes") and not brief else "")
    return f"{half}: {rec['target']}{more}"


def break_even_text(rec):
    """Steps, with the range the speedup's interval gives; 'never', or '—' with the reason."""
    if rec is None:
        return "—"
    if rec["estimate"] is None:
        return rec["note"] if rec["note"].startswith("never") else f"— ({rec['note']})"
    if rec.get("first_call_cheaper"):
        return f"{rec['estimate']:,} (first call cheaper than eager's)"
    if rec["interval"] and rec["high"] is None:  # a job never paid back: no upper end
        return f"{rec['estimate']:,} ({rec['low']:,}–never; {rec['note']})"
    if rec["interval"] and rec["low"] != rec["high"]:
        return f"{rec['estimate']:,} ({rec['low']:,}–{rec['high']:,})"
    return f"{rec['estimate']:,}"


def run_spans(runs):
    """Run names as spans of consecutive numbers: ['0110_default', ..., '0117_default',
    '0126_default'] -> '`0110`–`0117`, `0126`'."""
    numbers, spans = sorted({int(run.split("_")[0]) for run in runs}), []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"`{a:04d}`" + (f"–`{b:04d}`" if b > a else "") for a, b in spans)


def from_runs(per_backend, pooled=None):
    """One line naming the run every backend's figures of this section come from (`per_backend`:
    report.build.runs.section_runs); where repeat jobs pool (`pooled`: runs.pooled_runs), every
    run the section draws on, as spans, and what pools."""
    if pooled:
        return f"From runs {run_spans(pooled['runs'])} (repeat jobs pooled: {pooled['figures']})."
    parts = []
    for backend, runs in sorted(per_backend.items()):
        if len(runs) == 1:
            parts.append(f"{backend} {next(iter(runs))}")
        else:
            parts.append(f"{backend} " + ", ".join(f"{run} ({', '.join(sorted(models))})"
                                                   for run, models in sorted(runs.items())))
    return "From run " + "; ".join(parts) + "." if parts else ""


def chart_runs(per_backend, pooled=None):
    """A chart reading's runs as spans of run numbers ('From runs `0155`–`0170` (repeat jobs
    pooled).'), a † where one was made from uncommitted changes (runs named otherwise: as
    from_runs); the chart's subtitle and each table name every backend's run."""
    labels = [label for runs in per_backend.values() for label in runs]
    names = pooled["runs"] if pooled else [label.strip("`†") for label in labels]
    if not names:
        return ""
    if not all(name.split("_")[0].isdigit() for name in names):  # a file saved by hand
        return from_runs(per_backend, pooled)
    many = len({name.split("_")[0] for name in names}) > 1
    return (f"From run{'s' if many else ''} {run_spans(names)}"
            f"{'†' if any('†' in label for label in labels) else ''}"
            f"{' (repeat jobs pooled)' if pooled else ''}.")


def aa_control(pairs, control, where, floor):
    """'A/A control (`control`): n of m intervals contain 1; the widest, ... (`where` of it), is
    `floor`.' of aa_ratio records."""
    widest = max(pairs, key=lambda r: r["high"] / r["low"])
    return (f"A/A control ({control}): {sum(r['mark'] == '~' for r in pairs)} of {len(pairs)} "
            f"intervals contain 1; the widest, "
            f"{interval_cell(widest)} "
            f"({where(widest)}), is {floor}.")
