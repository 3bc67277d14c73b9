"""Token lengths that vary (issue 37): which strategy and variant finishes first per backend
(decided once, here, on the records) and the answer's line; the table: report.views.lengths."""
from catalog import PADDINGS as STRATEGIES

FALLBACK = "findings/torch_recompile_fallback.md"


def mark_first(records):
    """Per backend, the complete run with the least total time gets `first` True, `by` (the
    runner-up's total ÷ its own), `runner_up`, and `vs_default` (the default graph mode at exact
    lengths ÷ its own: what padding and the variant choice buy over doing nothing); the one with
    the least step at a length seen before, `fastest_step` (what wins once compiles are paid)."""
    for backend in sorted({r["backend"] for r in records}):
        done = sorted((r for r in records if r["backend"] == backend and not r["note"]
                       and r["estimate"]), key=lambda r: r["estimate"])
        for r in done:
            r["first"] = r is done[0]
        steady = [r for r in done if r.get("steady_step_s")]
        for r in steady:
            r["fastest_step"] = r is min(steady, key=lambda r: r["steady_step_s"])
        if len(done) < 2:
            continue
        top, default = done[0], next((r for r in records if r["backend"] == backend
                                      and r["variant"] == "graph" and r["case"] == "exact"), None)
        top.update(by=done[1]["estimate"] / top["estimate"],
                   runner_up=f"{done[1]['variant']}/{done[1]['case']}",
                   vs_default=(default["estimate"] / top["estimate"]
                               if default and not default["note"] else None))
    return records


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
        if top.get("vs_default") and (top["variant"], top["case"]) != ("graph", "exact"):
            text += f"; `graph` at exact lengths {top['vs_default']:.2f}×"
        text += ")"
    if fast := next((r for r in mine if r.get("fastest_step")), None):
        text += f"; fastest step once compiled: {name(fast)}, {fast['steady_step_s'] * 1e3:.3g} ms"
    for r in fallbacks(records, backend):
        text += (f"; {name(r)} hit the recompile limit: later lengths ran eagerly, no error "
                 f"([finding]({FALLBACK}))")
    return text
