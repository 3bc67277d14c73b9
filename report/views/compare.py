"""Two saved runs side by side (two versions, CPU and GPU, two machines): times, and each run's
speedups with the ratio between them."""
from report.build.load import load_file, unfinished, warn
from report.build.ratios import UNPAIRED, ratio, spread_overlaps
from report.views.text import interval_cell, ms, speedup_text


def compare_command(paths):
    """`--compare`: print two runs side by side, with a line for what makes them unlike (a run
    that did not finish, two profiles, two machines); 2 and one line when they cannot be."""
    try:
        runs = [load_file(path) for path in paths]
        print(compare_runs(*paths))
    except ValueError as error:
        warn(str(error))
        return 2
    for path, found in zip(paths, runs):
        if found and not found[0].complete:
            warn(f"{path}: the run did not finish ({unfinished(found[0])})")
    if len({found[0].profile_name for found in runs if found}) > 1:
        warn("the two runs have different profiles (sizes, rounds): their ratios are "
             "not like for like")
    if len(machines := {found[0].machine for found in runs if found}) > 1:
        warn(f"the two runs are from different machines ({' and '.join(sorted(machines))}): "
             "times and ratios across them are not like for like; each run's own speedups are")
    return 0


def _backends(results):
    return ", ".join(sorted({r.info["backend"] for r in results.values()})) or "none"


def compare_runs(path_a, path_b):
    """Markdown: every benchmark present in both runs (medians and b / a), then every speedup
    over eager within each run and the ratio of the two speedups; ValueError when the two runs
    share no benchmark."""
    a = {r.name: r for r in load_file(path_a)}
    b = {r.name: r for r in load_file(path_b)}
    shared = sorted(set(a) & set(b))
    if not shared:
        raise ValueError(f"{path_a} and {path_b} have no benchmark in common (backends: "
                         f"{_backends(a)}; {_backends(b)}): nothing to compare")
    lines = [versions_line(a, b), "",
             f"| benchmark | {path_a} median ms | {path_b} median ms | b / a |",
             "|---|---|---|---|"]
    for name in shared:
        ma, mb = a[name].median, b[name].median
        overlap = spread_overlaps(a[name], b[name])
        lines.append(f"| {name} | {ms(ma)} | {ms(mb)} | {mb / ma:.2f}{' ~' if overlap else ''} |")
    if only := sorted(set(a) ^ set(b)):
        lines += ["", f"In one run only: {len(only)} benchmarks, e.g. {', '.join(only[:3])}"]
    return "\n".join(lines + speedup_table(a, b))


def versions_line(a, b):
    """The framework versions that differ between the runs (A → B), or that none do: what a
    comparison of two releases (run.py's VERSION_ENVS) is about."""
    va, vb = (next(iter(run.values())).graphbench.get("versions") or {} for run in (a, b))
    differ = [f"{k} {va.get(k, 'absent')} → {vb.get(k, 'absent')}"
              for k in sorted(set(va) | set(vb)) if va.get(k) != vb.get(k)]
    return ("Versions (A → B): " + "; ".join(differ) + "; the others alike" if differ
            else "Versions: the same in both runs")


def _eager_of(run, r):
    """The eager result of `r`'s own run for the same backend, model, phase and flags."""
    same = ("backend", "model", "phase", "precision", "deterministic", "cache")
    return next((e for e in run.values() if e.info["variant"] == "eager"
                 and all(e.info.get(k) == r.info.get(k) for k in same)), None)


def speedup_table(a, b):
    """Rows of eager ÷ variant within run A and within run B, and B's speedup ÷ A's."""
    rows, overlaps = [], []
    for name in sorted(set(a) & set(b)):
        ra, rb = a[name], b[name]
        if ra.info["phase"] not in ("train", "infer") or ra.info["variant"] == "eager":
            continue
        ea, eb = _eager_of(a, ra), _eager_of(b, rb)
        if ea and eb:
            sa, sb = (ratio(r.saved("speedup"), e, r, None) for e, r in ((ea, ra), (eb, rb)))
            rows.append(f"| {name} | {_text(sa)} | {_text(sb)} | "
                        f"{ratio_of_ratios(sa, sb, ea, ra, eb, rb)} |")
            if sa.get("interval") and sb.get("interval"):
                overlaps.append(sa["low"] <= sb["high"] and sb["low"] <= sa["high"])
    if not rows:
        return []
    if overlaps:  # two invocations of the same command should overlap on every ratio
        rows.append(f"\nThe two runs' 95% intervals overlap for {sum(overlaps)} of "
                    f"{len(overlaps)} paired speedups.")
    return ["", "Speedup over eager within each run (never one run's time over the other's), "
            "and B's speedup ÷ A's: with a 95% interval when both runs saved paired rounds "
            "(each run's bootstrap drawn on its own), `~` when it includes 1.", "",
            "| benchmark | speedup in A | speedup in B | B ÷ A |", "|---|---|---|---|", *rows]


def _text(found):
    return speedup_text({"low": None, "high": None, "interval": None, "note": UNPAIRED, **found})


def ratio_of_ratios(sa, sb, eager_a, graph_a, eager_b, graph_b):
    """B's speedup over A's, with an interval when both runs carry paired rounds."""
    point = sb["estimate"] / sa["estimate"]
    rounds = [r.info.get("paired_rounds_s") for r in (eager_a, graph_a, eager_b, graph_b)]
    if not all(rounds):
        return f"{point:.2f}× (unpaired)"
    import stats  # NumPy: only paired runs need it
    found = stats.ratio_of_ratios(*rounds)
    return interval_cell(point, found.low, found.high)
