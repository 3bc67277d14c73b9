"""Where graph mode stops paying: the sweep's table, its reading and where the answer's rows sit."""
from report.build.ratios import SAME, UNDECIDED
from report.views.text import interval_cell, ms, speedup_text


def gflop(rec):
    """GFLOP per step of a record that carries its setting's FLOPs."""
    return rec["flops"] / 1e9


def sweep(records):
    """{backend: [scale_speedup records, smallest work per step first]}."""
    out = {}
    for r in records:
        if r["kind"] == "scale_speedup" and r.get("flops"):
            out.setdefault(r["backend"], []).append(r)
    return {b: sorted(rows, key=gflop) for b, rows in sorted(out.items())}


def point(rec):
    """'1/4 width, 64² px, batch 8' of a sweep record."""
    config = rec.get("model_config") or {}
    width = config.get("width", 1)
    share = "full width" if width == 1 else f"1/{round(1 / width)} width"
    return f"{share}, {config.get('side')}² px, batch {rec.get('batch')}"


def stops_paying(rows):
    """Where graph mode's gain ends along the sweep, in a few words (rows: one backend's), and
    every point where it is slower than eager."""
    slower = [r for r in rows if r["verdict"] == "slower"]
    said = "; slower than eager at " + ", ".join(
        f"{point(r)} ({interval_cell(r)}, {gflop(r):.3g} GFLOP)"
        for r in slower) if slower else ""
    return _gain_ends(rows) + said


def _gain_ends(rows):
    """Where the gain ends along the sweep, in a few words."""
    paying = [r for r in rows if r["verdict"] == "faster"]
    if not paying:
        return "no gain beyond the interval at any size"
    last = paying[-1]
    after = rows[rows.index(last) + 1:]
    if not after:
        return f"it gains at every size measured, up to {gflop(last):.3g} GFLOP per step"
    nxt = after[0]
    what = {"slower": "slower than eager", SAME: f"{SAME} of eager", UNDECIDED: UNDECIDED}
    return (f"it stops paying between {gflop(last):.3g} and {gflop(nxt):.3g} GFLOP per step "
            f"({what.get(nxt['verdict'], nxt['verdict'])} from there)"
            if nxt["estimate"] is not None else
            f"it gains up to {gflop(last):.3g} GFLOP per step ({nxt['note']} after)")


def curve_text(rows):
    """Each point's speedup with its work per step, smallest first."""
    return ", ".join(f"{interval_cell(r)} at {gflop(r):.3g}"
                     if r["interval"] else f"{speedup_text(r)} at {gflop(r):.3g}" for r in rows)


def placement(records, backend, rows):
    """Where the answer's own rows (their work per train step) sit on this backend's sweep."""
    mine = sorted({round(gflop(r), 2) for r in records if r["kind"] == "step_time"
                   and r["backend"] == backend and r["phase"] == "train"
                   and r["precision"] == "float32" and r.get("flops")})
    paying = [r for r in rows if r["verdict"] == "faster"]
    if not mine or not paying:
        return ""
    low, high, edge = mine[0], mine[-1], gflop(paying[-1])
    where = ("below the sweep's last gaining size" if high <= edge else
             "partly past the sweep's last gaining size")
    return f"the rows above ({low:.3g}–{high:.3g} GFLOP per train step) lie {where}"


def answer_line(records, backend):
    """The answer's sweep sentence for one backend ('' without a sweep)."""
    rows = sweep(records).get(backend)
    if not rows:
        return ""
    where = placement(records, backend, rows)
    return (f"along the VGG sweep (eager ÷ `{rows[0]['variant']}`, GFLOP per train step): "
            f"{curve_text(rows)}: {stops_paying(rows)}" + (f"; {where}" if where else "") + ";")


def compute_line(records, backend):
    """The answer's words for the decoder where compute dominates ('' without that point)."""
    found = next((r for r in records if r["kind"] == "compute_speedup"
                  and r["backend"] == backend), None)
    if found is None:
        return ""
    c = found.get("model_config") or {}
    return (f"on a decoder where compute dominates (d_model {c.get('width')}, {c.get('depth')} "
            f"blocks, {c.get('tokens')} tokens, batch {found.get('batch')}: {gflop(found):.3g} "
            f"GFLOP per train step), eager ÷ `{found['variant']}` is {speedup_text(found)};")


def scale_table(records):
    """Every sweep point per backend: setting, work, both step times and the paired speedup."""
    steps = {(r["backend"], r["model"], r["variant"]): r for r in records
             if r["kind"] in ("scale_step_time", "compute_step_time", "busy_step_time")}
    lines = ["| backend | point | GFLOP per train step | eager ms | graph ms | speedup | run |",
             "|---|---|---|---|---|---|---|"]
    compute = [r for r in records if r["kind"] in ("compute_speedup", "busy_speedup")
               and r.get("flops")]
    for backend, rows in sweep(records).items():
        for r in rows + [c for c in compute if c["backend"] == backend]:
            eager = steps.get((backend, r["model"], "eager")) or {}
            graph = steps.get((backend, r["model"], r["variant"])) or {}
            where = point(r) if r["kind"] == "scale_speedup" else r["model"]
            lines.append(f"| {backend} | {where} | {gflop(r):.3g} | "
                         f"{ms(eager.get('estimate'))} | {ms(graph.get('estimate'))} "
                         f"(`{r['variant']}`) | {speedup_text(r)} | `{r['run']}` |")
    return "\n".join(lines) if len(lines) > 2 else ""


def scale_reading(records):
    """The chart's reading: per backend, where the gain ends."""
    found = sweep(records)
    if not found:
        return "No sweep results."
    return ("The VGG at growing width, input size and batch (each point in RESULTS.md), eager ÷ "
            "each backend's default graph mode, paired, with 95% intervals as bars; hollow marks "
            "are the answer's own rows at their work per step. "
            + " ".join(f"{', '.join(f'**{b}**' for b in backends)}: {said}."
                       for said, backends in _alike(found).items()))


def _alike(found):
    """{what the sweep says of a backend: the backends it says it of}, in the sweep's order:
    one reading said once."""
    said = {}
    for backend, rows in found.items():
        said.setdefault(stops_paying(rows), []).append(backend)
    return said
