"""Token lengths that vary (issue 37): the table, each run's total with its counts, and the
answer's line, the first to finish marked as report.build.lengths decided it."""
from catalog import PADDINGS as STRATEGIES
from report.views.text import label

FALLBACK = "findings/torch_recompile_fallback.md"

SINGLE = ("one cold run each (where jobs of one code repeat it, the geometric mean of their "
          "totals, with their range), no interval: read only large differences")


def cold_runs(records):
    """'one cold run' or, where the totals pool repeat jobs, '2 jobs' cold runs'."""
    jobs = max((len(r.get("pooled_runs") or ()) for r in records), default=0)
    return f"{jobs} jobs' cold runs" if jobs > 1 else "one cold run"
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
        spread = f" ({r['low']:.2f}–{r['high']:.2f})" if r.get("pooled_runs") else ""
        total = f"{r['estimate']:.2f}{spread}" + (" **first**" if r.get("first") else "") + (
            " (fastest step)" if r.get("fastest_step") else "") + (
            f" (cut: {r['note']})" if r["note"] else "")
        lines.append(
            f"| {r['backend']} | {STRATEGIES[r['case']]} | `{r['variant']}` | {total} | "
            f"{r.get('steps_done')}/{r.get('steps_planned')} | {r.get('distinct_shapes')} | "
            f"{r.get('traces')} | {r.get('compiles', '—')} | {ms(r.get('steady_step_s'))} | "
            f"{pct(r.get('padding_waste'))} | {r.get('recompile_limit_hits', '—')} | "
            f"{label(r)} |")
    return "\n".join(lines)


def fallbacks(records, backend):
    """The runs of `backend` that hit the framework's recompile limit: the rest of their steps ran
    eagerly without an error (torch's silent fallback)."""
    return [r for r in records if r["kind"] == "lengths_total" and r["backend"] == backend
            and r.get("recompile_limit_hits")]


def lengths_line(records, backend):
    """The answer's words for `backend`: what finishes the stream first and by how much, the
    fastest step once compiled, and any silent fallback to eager ('' without a lengths run)."""
    mine = [r for r in records if r["kind"] == "lengths_total" and r["backend"] == backend]
    top = next((r for r in mine if r.get("first")), None)
    if top is None:
        return ""
    name = lambda r: f"`{r['variant']}` at {STRATEGIES[r['case']]}"
    text = (f"token lengths that vary ({top['steps_planned']} batches), first to finish: "
            f"{name(top)}, {top['estimate']:.3g} s")
    if top.get("by"):
        text += f" (next: {top['runner_up']}, {top['by']:.2f}× as long"
        if top.get("vs_default") and "graph/exact" not in (f"{top['variant']}/{top['case']}",
                                                            top["runner_up"]):
            text += f"; `graph` at exact lengths {top['vs_default']:.2f}×"
        text += ")"
    if top.get("tied"):
        text += (f"; within {top['tie']}× of it, which {cold_runs(mine)} each cannot tell apart: "
                 + ", ".join(f"`{variant}` at {STRATEGIES[case]}" for variant, case in top["tied"]))
    if fast := next((r for r in mine if r.get("fastest_step")), None):
        text += f"; fastest step once compiled: {name(fast)}, {fast['steady_step_s'] * 1e3:.3g} ms"
    for r in fallbacks(records, backend):
        text += (f"; {name(r)} hit the recompile limit: later lengths ran eagerly, no error "
                 f"([finding]({FALLBACK}))")
    return text
