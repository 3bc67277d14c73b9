"""The token-lengths table (issue 37): each run's total with its counts, the first to finish
marked as report.build.lengths decided it."""
from catalog import PADDINGS as STRATEGIES
from report.views.text import label

SINGLE = "one cold run each, no interval: read only large differences"
HOW = ("A seeded stream of train batches whose longest sequence follows a long tail, each batch "
       "padded by a strategy, through each variant in one cold run (fresh model, function and "
       "compile cache): the total time includes every trace and compile. Traces and compiles are "
       "the frameworks' own counters (TF counts no XLA compile, so `xla_dynamic`'s one trace "
       "hides a compile per length); the steady step is the median step that compiled nothing; "
       "padding waste is the share of the tokens stepped through that are PAD (within a batch "
       "too, so exact lengths waste some). " + SINGLE[0].upper() + SINGLE[1:] + ".")


def lengths_table(records):
    """One row per lengths run, by backend, strategy and total time."""
    rows = sorted((r for r in records if r["kind"] == "lengths_total"),
                  key=lambda r: (r["backend"], list(STRATEGIES).index(r["case"]), r["estimate"]))
    if not rows:
        return ""
    pct = lambda v: "—" if v is None else f"{v:.0%}"
    ms = lambda v: "—" if v is None else f"{v * 1e3:.1f}"
    lines = ["| backend | padding | variant | total s | steps | shapes | traces | compiles "
             "| steady step ms | padding waste | recompile-limit hits | run |", "|---" * 12 + "|"]
    for r in rows:
        total = f"{r['estimate']:.2f}" + (" **first**" if r.get("first") else "") + (
            " (fastest step)" if r.get("fastest_step") else "") + (
            f" (cut: {r['note']})" if r["note"] else "")
        lines.append(
            f"| {r['backend']} | {STRATEGIES[r['case']]} | `{r['variant']}` | {total} | "
            f"{r.get('steps_done')}/{r.get('steps_planned')} | {r.get('distinct_shapes')} | "
            f"{r.get('traces')} | {r.get('compiles', '—')} | {ms(r.get('steady_step_s'))} | "
            f"{pct(r.get('padding_waste'))} | {r.get('recompile_limit_hits', '—')} | "
            f"{label(r)} |")
    return "\n".join(lines)
