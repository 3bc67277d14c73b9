"""Two saved runs side by side (two versions, CPU and GPU, two machines), as
report.build.comparison found them: times, and each run's speedups with the ratio between them
(of one machine's runs)."""
from report.views.text import interval_cell, ms, speedup_text


def compare_text(found):
    """Markdown: every benchmark present in both runs (their medians side by side: two runs' times
    are never divided), then every speedup over eager within each run and, of one machine's two
    runs, the ratio of the two speedups; of two machines, both side by side (the README's and the
    page's rule)."""
    path_a, path_b = found["paths"]
    lines = [f"- A: {path_a}", f"- B: {path_b}", "", versions_line(found["versions"]), "",
             "Median step or call times of the two runs, side by side (never one run's time over "
             "the other's: two jobs on one machine differ by more than their rounds do).", "",
             "| benchmark | A median ms | B median ms |", "|---|---|---|"]
    lines += [f"| {row['name']} | {ms(row['a'])} | {ms(row['b'])} |" for row in found["rows"]]
    if only := found["only"]:
        lines += ["", f"In one run only: {len(only)} benchmarks, e.g. {', '.join(only[:3])}"]
    return "\n".join(lines + speedup_table(found["speedups"], len(found["machines"]) > 1))


def compare_warnings(found):
    """A line for each thing that makes the two runs unlike: a run that did not finish, two
    profiles, two machines."""
    lines = [f"{path}: the run did not finish ({why})" for path, why in found["unfinished"]]
    if len(found["profiles"]) > 1:
        lines.append("the two runs have different profiles (sizes, rounds): their ratios are "
                     "not like for like")
    if len(machines := found["machines"]) > 1:
        lines.append(f"the two runs are from different machines ({' and '.join(machines)}): "
                     "times and ratios across them are not like for like; each run's own "
                     "speedups are")
    return lines


def versions_line(differ):
    """The framework versions that differ between the runs (A → B), or that none do: what a
    comparison of two releases (run.py's VERSION_ENVS) is about."""
    named = lambda version: "absent" if version is None else version
    changes = "; ".join(f"{k} {named(a)} → {named(b)}" for k, a, b in differ)
    return f"Versions (A → B): {changes}; the others alike" if differ else (
        "Versions: the same in both runs")


def speedup_table(rows, apart=False):
    """Rows of eager ÷ variant within run A and within run B, and B's speedup ÷ A's (not where
    the runs are two machines': `apart`)."""
    if not rows:
        return []
    lines = [f"| {row['name']} | {speedup_text(row['a'])} | {speedup_text(row['b'])} |"
             + ("" if apart else f" {_ratio_cell(row['ratio'])} |") for row in rows]
    if overlaps := [row["overlap"] for row in rows if row["overlap"] is not None]:
        # two invocations of the same command should overlap on every ratio
        lines.append(f"\nThe two runs' 95% intervals overlap for {sum(overlaps)} of "
                     f"{len(overlaps)} paired speedups.")
    if apart:
        return ["", "Speedup over eager within each run, side by side: two machines' figures "
                "are never divided.", "",
                "| benchmark | speedup in A | speedup in B |", "|---|---|---|", *lines]
    return ["", "Speedup over eager within each run (never one run's time over the other's), "
            "and B's speedup ÷ A's: with a 95% interval when both runs saved paired rounds "
            "(each run's bootstrap drawn on its own), `~` when it includes 1. The interval "
            "covers each run's own processes, not the machine's drift between jobs: two jobs of "
            "one code have moved a few speedups past it (docs/JOB_TIME.md, What repeat jobs "
            "agreed on).", "",
            "| benchmark | speedup in A | speedup in B | B ÷ A |", "|---|---|---|---|", *lines]


def _ratio_cell(found):
    if found["low"] is None:
        return f"{found['estimate']:.2f}× (unpaired)"
    return interval_cell(found)
