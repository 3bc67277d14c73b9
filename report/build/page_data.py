"""What the results page shows beyond summary.json's records: a compact table of the runs they come
from (commit, timing code, date, versions, threads, profile, job), and the records of the runs on
other framework releases (results/versions/<env>/), built by the same rules, never pooled with the
pins."""
import os
from pathlib import Path

from report.build.load import VERSIONS, load_dir
from report.build.machine_records import machine_records
from report.build.select import code, views

PINS = "pins"  # the source of summary.json's records: the runs on tox.ini's pinned releases


def run_table(results, root=".", source=PINS):
    """One row per saved run in `results`: what a reader checks before trusting its figures."""
    runs = {}
    for r in results:
        found = runs.setdefault((r.machine, r.run), _run_row(r, root, source))
        found["frameworks"][r.info["backend"]] = r.info.get("framework_version")
    return [runs[key] for key in sorted(runs)]


def _run_row(r, root, source):
    g, commit = r.graphbench, r.commit or {}
    return {"source": source, "machine": r.machine, "run": r.run, "commit": commit.get("id"),
            "code": code(r), "dirty": r.dirty, "date": r.datetime, "python": r.python,
            "versions": g.get("versions") or {}, "frameworks": {}, "threads": g.get("threads"),
            "device": g.get("device"), "profile": g.get("profile"), "job": r.job,
            "complete": r.complete, "file": os.path.relpath(r.file, root)}


def release_sets(results_dir, root=".", skip_damaged=False):
    """[(source, records, runs)] per folder of results/versions/: a framework on another release,
    its runs' records by the rules of summary.json's; ValueError naming a damaged run unless
    `skip_damaged` (as for the pins' runs)."""
    found = []
    for folder in sorted(p for p in Path(results_dir, VERSIONS).glob("*") if p.is_dir()):
        damaged = []
        results = load_dir(folder, damaged=damaged)
        if damaged and not skip_damaged:
            raise ValueError(f"{', '.join(damaged)}: cannot be read (above): move it out of "
                             f"{folder}, or pass --skip-damaged to publish without it")
        source = f"{VERSIONS}/{folder.name}"
        records = [rec for _, view in views(results) for rec in machine_records(view)]
        if records:
            found.append((source, records, run_table(results, root, source)))
    return found


def page_links(root="."):
    """[(title, path from `root`)] of what the page links to: the README, RESULTS.md, the method,
    each finding."""
    found = [("README", "README.md"), ("RESULTS.md", "RESULTS.md"), ("method", "docs/METHOD.md")]
    found += [(f"finding: {p.stem}", f"findings/{p.name}")
              for p in sorted(Path(root, "findings").glob("*.md"))]
    return [(title, path) for title, path in found if Path(root, path).exists()]
