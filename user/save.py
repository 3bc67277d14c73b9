"""Save a user run: its measurement and records as JSON Lines in results/user/<machine>/, and the
Markdown report redrawn from every framework's measurement of that file on that machine. Each file
is written to a temporary name first and moved into place, so a failed run leaves the saved ones
as they were.

JSON Lines, not .json: the suite's report reads every *.json under results/ as a suite run."""
import json
import os
import re
import subprocess
from pathlib import Path

from backends.user import BUILDERS
from report.build import user as figures
from report.views import user_md
from report.build.load import JOB_OUTPUTS, machine_name


def machine_info():
    """pytest-benchmark's machine_info and the suites' CPU flags: what machine_name reads."""
    from pytest_benchmark.plugin import pytest_benchmark_generate_machine_info
    from suites import cpu
    return {**pytest_benchmark_generate_machine_info(), "graphbench": {"cpu": cpu.describe()}}


ROOT = Path(__file__).resolve().parents[1]


def _git(*args):
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, timeout=30,
                              cwd=ROOT)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _write(path, text):
    staged = path.with_name(path.name + ".tmp")
    staged.write_text(text)
    os.replace(staged, path)


def folder_name(machine, device="cpu", gpu=None):
    """The user folder of a machine as every report names it (host, CPU, ISA, cores, its GPU
    `gpu`), in lower-case words joined by '-': one folder whatever Python each framework's env
    runs; a GPU run whose GPU went unnamed still keeps apart from its CPU's report."""
    words = re.sub(r"[^a-z0-9]+", "-", machine.lower()).strip("-")
    return words + ("-gpu" if device == "cuda" and not gpu else "")


def save(m, results="results", folder=None):
    """Write user-<name>-<fw>.measurement.jsonl and .records.jsonl, then user-<name>.md, in
    results/user/<machine>/ (folder_name; `folder`: results/<folder>): the report holds every
    framework measured there."""
    name, fw = Path(m["file"]).stem, m["framework"]
    if "commit" not in m:  # the measurement's commit, kept when a report is redrawn from it
        status = _git("status", "--porcelain", "--untracked-files=no")
        # a report saved before (results/, tracked) is a job's output, not a change (the suite's
        # rule); each line "XY path", its leading blank stripped by _git on the first
        changed = None if status is None else [
            path for line in status.splitlines()
            if not (path := line.split(maxsplit=1)[1]).startswith(JOB_OUTPUTS)]
        m.update(commit=_git("rev-parse", "HEAD"), dirty=None if changed is None else bool(changed))
    machine = machine_name(m.setdefault("machine_info", machine_info()))
    gpu = (m["machine_info"].get("graphbench") or {}).get("gpu")
    folder = Path(results) / (folder or Path("user", folder_name(machine, m.get("device"), gpu)))
    folder.mkdir(parents=True, exist_ok=True)
    path = lambda other: folder / f"user-{name}-{other}.measurement.jsonl"
    measurements, earlier = {}, {}  # every framework's measured here; those in the old layout
    for other in BUILDERS:
        if other == fw:
            measurements[other] = m
        elif path(other).exists():
            measurements[other] = json.loads(path(other).read_text())
        elif x := _saved_before(results, name, other, machine, m.get("device")):
            measurements[other] = earlier[other] = x
    found = {other: figures.measured(x, machine, f"user-{name}", x.get("commit"), x.get("dirty"))
             for other, x in measurements.items()}
    report = folder / f"user-{name}.md"
    text = user_md.render(name, list(found.values()), machine) + "\n"  # made before any write
    for other in (*earlier, fw):  # an earlier layout's measurement is copied, its files kept
        rows = found[other][1]  # each measurement's records, each bootstrap once
        _write(path(other), json.dumps(measurements[other]) + "\n")
        _write(folder / f"user-{name}-{other}.records.jsonl",
               "".join(json.dumps(r) + "\n" for r in rows))
    _write(report, text)
    return report


def _saved_before(results, name, fw, machine, device):
    """`fw`'s measurement of user-<name> on `machine` as saved before results/user/<machine>/
    (in pytest-benchmark's folder, results/<Python folder>/), the newest; None where there is
    none."""
    for path in sorted(Path(results).glob(f"*/user-{name}-{fw}.measurement.jsonl"),
                       key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            x = json.loads(path.read_text())
        except (OSError, ValueError):  # unreadable: that layout's report stays as it was
            continue
        if ((x.get("device") or "cpu") == (device or "cpu")
                and machine_name(x.get("machine_info") or {}) == machine):
            return x
    return None
