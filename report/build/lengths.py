"""Token lengths that vary (issue 37): which strategy and variant finishes first per backend,
decided once, here, on the records (the table and the answer's line: report.views.lengths)."""

# Each lengths total is one cold run, in the pytest process after the job's other suites. Against
# the median of 8 fresh processes of the same configuration (results/studies/lengths-noise/),
# the Zen 5's seeds job 0118-0121 landed within 1.26x on 16 of 17 and 1.54x off on one (torch
# eager at exact lengths); fresh processes scattered up to 1.34x (max/min): a lead under this
# factor is not told apart.
TIE = 1.5


def why_undecided(records, expected, per_strategy=()):
    """Per backend, why its totals can name no first: not all of `expected` ({backend: its
    (variant, strategy) pairs}, a GPU job's plan) measured yet, or, for a backend of
    `per_strategy` (whose kernels a process keeps where no cold run empties them), a run that
    held more than one strategy, each later one reusing what the first compiled."""
    out = {}
    for backend in sorted({r["backend"] for r in records}):
        mine = [r for r in records if r["backend"] == backend]
        want, have = set(expected.get(backend, ())), {(r["variant"], r["case"]) for r in mine}
        if backend in per_strategy and len({r["run"] for r in mine}) < len(mine):
            out[backend] = ("its strategies shared a process, each later one reusing the kernels "
                            "the first compiled")
        elif not want <= have:
            out[backend] = f"{len(want & have)} of its {len(want)} totals measured"
    return out


def mark_first(records, undecided=None):
    """Per backend, the complete run with the least total time gets `first` True, `by` (the
    runner-up's total ÷ its own), `runner_up`, and `vs_default` (the default graph mode at exact
    lengths ÷ its own: what padding and the variant choice buy over doing nothing), `tie` (TIE)
    and `tied`, the runs within it (one cold run each cannot order them); the one with the least
    step at a length seen before, `fastest_step` (what wins once compiles are paid). A backend of
    `undecided` ({backend: why}, why_undecided) gets neither mark; its records say why."""
    for backend in sorted({r["backend"] for r in records}):
        mine = [r for r in records if r["backend"] == backend]
        if why := (undecided or {}).get(backend):
            for r in mine:
                r.update(first=False, undecided=why)
            continue
        done = sorted((r for r in mine if not r["note"] and r["estimate"]),
                      key=lambda r: r["estimate"])
        for r in done:
            r["first"] = r is done[0]
        steady = [r for r in done if r.get("steady_step_s")]
        for r in steady:
            r["fastest_step"] = r is min(steady, key=lambda r: r["steady_step_s"])
        if len(done) < 2:
            continue
        top, default = done[0], next((r for r in mine if r["variant"] == "graph"
                                      and r["case"] == "exact"), None)
        top.update(by=done[1]["estimate"] / top["estimate"],
                   runner_up=f"{done[1]['variant']}/{done[1]['case']}",
                   tie=TIE, tied=[(r["variant"], r["case"]) for r in done[1:]
                         if r["estimate"] < TIE * top["estimate"]],
                   vs_default=(default["estimate"] / top["estimate"]
                               if default and not default["note"] else None))
    return records
