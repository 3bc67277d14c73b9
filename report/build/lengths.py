"""Token lengths that vary (issue 37): which strategy and variant finishes first per backend,
decided once, here, on the records (the table and the answer's line: report.views.lengths)."""


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
