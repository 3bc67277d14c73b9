"""Read saved pytest-benchmark runs; a bad file is a one-line warning, never fatal, never touched."""
import json
import math
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REQUIRED_KEYS = ("backend", "model", "variant", "phase")
SUMMARY = "summary.json"  # the report's own output, written into the results folder
TIMES = ("min", "max", "mean", "median", "q1", "q3")  # the statistics the tables and charts read


@dataclass
class Result:
    """One benchmark of one saved run, flattened for tables."""
    file: str
    machine: str
    run: str  # the saved run's name, e.g. 0001_default
    datetime: str
    name: str
    info: dict  # extra_info
    stats: dict  # pytest-benchmark's stats, in seconds
    graphbench: dict  # profile, device, threads, versions
    profile: dict = None  # the run's profile plan (sizes, rounds, retrace skips)
    status: dict = None  # the run's graphbench_run: complete or not, and why
    commit: dict = None  # pytest-benchmark's commit_info: id, dirty, time, branch

    @property
    def dirty(self):
        """True when the run was made from a tree with uncommitted changes to tracked files."""
        return bool((self.commit or {}).get("dirty"))

    @property
    def label(self):
        """The run's name as every table shows it; † marks a run from a dirty tree."""
        return f"`{self.run}`" + ("†" if self.dirty else "")

    @property
    def complete(self):
        return (self.status or {}).get("complete", True)

    @property
    def profile_name(self):
        return self.graphbench.get("profile")

    @property
    def valid(self):
        """False when the run produced a non-finite loss: its time is not a result."""
        return self.info.get("loss_finite") is not False

    @property
    def key(self):
        i = self.info
        if i["phase"] == "micro":
            return (i["backend"], i["workload"], i["variant"], "micro", None)
        if i["phase"] == "retrace":  # one result per step kind and shape pattern
            return (i["backend"], i["model"], i["variant"], i["phase"],
                    f"{i.get('step')}-{i.get('pattern')}")
        if i["phase"] == "pipeline":  # one result per loader
            return (i["backend"], i["model"], i["variant"], i["phase"], i.get("loader"))
        return (i["backend"], i["model"], i["variant"], i["phase"], i.get("cache"))


def warn(message):
    print(f"report: {message}", file=sys.stderr)


def load_file(path):
    """The results of one saved run; raises ValueError with a one-line reason if it is not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not readable JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ValueError(f"{path}: not a pytest-benchmark results file (no 'benchmarks' list)")
    machine_info = data.get("machine_info") or {}
    graphbench = machine_info.get("graphbench")
    if graphbench is None:
        raise ValueError(f"{path}: a pytest-benchmark file, but not from this suite "
                         "(no machine_info.graphbench)")
    _check_stats(path, data["benchmarks"])
    results = []
    for bench in data["benchmarks"]:
        info, stats = bench.get("extra_info") or {}, bench.get("stats")
        if not stats or any(k not in info for k in REQUIRED_KEYS):
            warn(f"{path}: benchmark {bench.get('name')!r} lacks stats or "
                 f"{'/'.join(REQUIRED_KEYS)}; skipped")
            continue
        cpu = machine_info.get("cpu") or {}
        machine = (f"{machine_info.get('node', '?')} ({cpu.get('brand_raw', '?')}, "
                   f"{cpu.get('count', '?')} cores, Python {machine_info.get('python_version', '?')})")
        results.append(Result(str(path), machine, Path(path).stem,
                              data.get("datetime", ""), bench["name"], info, stats, graphbench,
                              data.get("graphbench_profile"), data.get("graphbench_run"),
                              data.get("commit_info")))
    return results


def _check_stats(path, benchmarks):
    """A NaN, infinite or missing time makes the file's ratios meaningless: reject it whole."""
    for bench in benchmarks:
        stats = bench.get("stats") or {}
        for key, value in stats.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{path}: benchmark {bench.get('name')!r} has {key} = {value} "
                                 "in its stats; file left out")
        if stats and (bad := [k for k in TIMES if not isinstance(stats.get(k), (int, float))]):
            raise ValueError(f"{path}: benchmark {bench.get('name')!r} has no numeric "
                             f"{'/'.join(bad)} in its stats; file left out")


FINDINGS = "findings"  # results/findings/: the findings' sweeps (findings/*.py), not suite runs


def load_dir(directory, incomplete=False):
    """Every suite result under `directory`; bad files (and, unless asked, unfinished runs) are
    reported and left out."""
    files = sorted(p for p in Path(directory).rglob("*.json")
                   if p.name != SUMMARY and FINDINGS not in p.relative_to(directory).parts[:1])
    if not files:
        warn(f"{directory}: no saved runs (*.json) found")
    results = []
    for path in files:
        try:
            found = load_file(path)
        except ValueError as error:
            warn(str(error))
            continue
        if found and not found[0].complete and not incomplete:
            warn(f"{path}: the run did not finish ({unfinished(found[0])}); left out "
                 "(--incomplete shows it)")
            continue
        results += found
    return results


def unfinished(result):
    """Why the result's run did not finish, in a few words."""
    status = result.status or {}
    ran = f", {status['cases_run']} of {status['cases']} cases ran" if "cases" in status else ""
    return f"{status.get('reason', 'stopped early')}{ran}"


def one_profile(results, wanted=None):
    """The results of one profile, so that no ratio mixes two: `wanted`, else `default`, else the
    profile with most runs. Returns (results, a line on what was left out or None).

    Raises ValueError when `wanted` matches no run."""
    runs = Counter(p for p, _ in {(r.profile_name, r.file) for r in results})
    if wanted is not None and wanted not in runs:
        raise ValueError(f"--profile {wanted!r} matches no run; profiles: "
                         f"{', '.join(sorted(map(str, runs)))}")
    chosen = wanted or ("default" if "default" in runs else
                        min(runs, key=lambda p: (-runs[p], str(p)), default=None))
    left = sorted({(r.profile_name, r.run) for r in results if r.profile_name != chosen},
                  key=str)
    note = None
    if left:
        others = sorted({p for p, _ in left}, key=str)
        runs_of = "; ".join(f"profile {p} ({', '.join(run for q, run in left if q == p)})"
                            for p in others)
        note = (f"left out {runs_of}: ratios never mix profiles, this report shows `{chosen}`; "
                f"{' or '.join(f'--profile {p}' for p in others)} shows the others")
    return [r for r in results if r.profile_name == chosen], note
