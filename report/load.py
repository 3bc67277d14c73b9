"""Read saved pytest-benchmark runs; a bad file is a one-line warning, never fatal, never touched."""
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from isa import tier

REQUIRED_KEYS = ("backend", "model", "variant", "phase")
SUMMARY = "summary.json"  # the report's own output, written into the results folder
TIMES = ("min", "max", "mean", "median", "q1", "q3")  # the statistics the tables and charts read
SAVED_RATIOS = {  # a paired ratio's name -> the extra_info keys its suite saved it under
    "speedup": ("speedup", "ci_low", "ci_high", "significant"),
    "aa": ("aa_ratio", "aa_ci_low", "aa_ci_high", "aa_significant"),
    "precision": ("precision_speedup", "precision_ci_low", "precision_ci_high",
                  "precision_significant"),
    "determinism": ("determinism_ratio", "determinism_ci_low", "determinism_ci_high",
                    "determinism_significant"),
    "loader": ("loader_ratio", "loader_ci_low", "loader_ci_high", "loader_significant"),
}
BASELINE = ("float32", False)  # (precision, deterministic) of the main tables


class Saved(NamedTuple):
    """A ratio a suite timed in pairs and saved, with its 95% interval."""
    estimate: float
    low: float
    high: float
    significant: bool


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

    def saved(self, name):
        """The paired ratio `name` (SAVED_RATIOS) this result carries, or None (saved before its
        suite timed in pairs)."""
        keys = SAVED_RATIOS[name]
        if keys[0] not in self.info:
            return None
        estimate, low, high = (self.info[k] for k in keys[:3])
        return Saved(estimate, low, high, self.info.get(keys[3], not low <= 1 <= high))

    @property
    def flags(self):
        """(precision, deterministic); runs saved before these flags existed are the baseline."""
        return self.info.get("precision", "float32"), bool(self.info.get("deterministic", False))

    @property
    def median(self):
        return self.stats["median"]

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
    machine_info = data.get("machine_info")
    graphbench = machine_info.get("graphbench") if isinstance(machine_info, dict) else None
    if not isinstance(graphbench, dict):
        raise ValueError(f"{path}: a pytest-benchmark file, but not from this suite "
                         "(no machine_info.graphbench)")
    if problem := _file_problem(data) or next(filter(None, map(_problem, data["benchmarks"])), None):
        raise ValueError(f"{path}: {problem}; file left out")
    return [Result(str(path), machine_name(machine_info), Path(path).stem, data.get("datetime", ""),
                   bench["name"], bench["extra_info"], bench["stats"], graphbench,
                   data.get("graphbench_profile"), data.get("graphbench_run"),
                   data.get("commit_info")) for bench in data["benchmarks"]]


def machine_name(machine_info):
    """A machine as every table names it: host, CPU model, family/model numbers, vector ISA with
    the tiers that change compiled code (isa.tier), cores and Python. Two CPUs one brand string
    calls 'AMD EPYC' (an AVX2-only one and an AVX-512 one), or one CPU with and without AMX, are
    two machines."""
    cpu = machine_info.get("cpu") or {}
    flags = set(cpu.get("flags") or ()) | set((machine_info.get("graphbench") or {})
                                              .get("cpu", {}).get("flags") or ())
    family = (f"family {cpu['family']} model {cpu['model']}, " if "family" in cpu and "model" in cpu
              else "")
    return (f"{machine_info.get('node', '?')} ({cpu.get('brand_raw', '?')}, {family}{tier(flags)}, "
            f"{cpu.get('count', '?')} cores, Python {machine_info.get('python_version', '?')})")


FINDING_KEYS = ("loss", "max_rel_diff")  # a diverged loss is a finding the report shows as such
OPTIONAL_DICTS = ("graphbench_profile", "graphbench_run", "commit_info")


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _non_finite(value, where):
    """(where, value) of every NaN or infinity inside `value` (dicts and lists walked)."""
    if isinstance(value, float) and not math.isfinite(value):
        yield where, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            if not str(key).startswith(FINDING_KEYS):
                yield from _non_finite(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for inner in value:
            yield from _non_finite(inner, where)


def _file_problem(data):
    """What makes a saved run's top level unusable, in a few words, or None."""
    if bad := [k for k in OPTIONAL_DICTS if not isinstance(data.get(k, {}), (dict, type(None)))]:
        return f"{'/'.join(bad)} is not an object"
    if not isinstance(data["machine_info"]["graphbench"].get("profile"), str):
        return "machine_info.graphbench has no profile name"
    if not isinstance(data.get("datetime", ""), str):
        return "its datetime is not a string"
    return None


def _problem(bench):
    """What makes one saved benchmark unusable (a ratio or time that would print as nan, 0 or a
    crash), in a few words, or None."""
    if not isinstance(bench, dict) or not isinstance(bench.get("name"), str):
        return "a benchmark without a name"
    name, stats, info = bench["name"], bench.get("stats"), bench.get("extra_info")
    if not isinstance(stats, dict) or not isinstance(info, dict):
        return f"benchmark {name!r} has no stats or no extra_info"
    needs = REQUIRED_KEYS + (("workload",) if info.get("phase") == "micro" else ())
    if bad := [k for k in needs if not isinstance(info.get(k), str)]:
        return f"benchmark {name!r} has no {'/'.join(bad)} string in its extra_info"
    if found := next(_non_finite(stats, "stats"), None) or next(_non_finite(info, "extra_info"), None):
        return f"benchmark {name!r} has {found[0]} = {found[1]}"
    if bad := [k for k in TIMES if not _number(stats.get(k)) or stats[k] < 0]:
        return f"benchmark {name!r} has no numeric {'/'.join(bad)} in its stats"
    if stats["median"] <= 0:
        return f"benchmark {name!r} has a median of {stats['median']} s"
    for keys in SAVED_RATIOS.values():
        if keys[0] in info and (bad := [k for k in keys[:3] if not _number(info.get(k))
                                        or info[k] <= 0]):
            return f"benchmark {name!r} has no positive {'/'.join(bad)} in its extra_info"
    return None


FINDINGS = "findings"  # results/findings/: the findings' sweeps (findings/*.py), not suite runs
VERSIONS = "versions"  # results/versions/<env>/: runs on another release (run.py VERSION_ENVS),
# left out of the pins' report; `--results results/versions/<env>` or --compare shows them


def load_dir(directory, incomplete=False):
    """Every suite result under `directory`; bad files (and, unless asked, unfinished runs) are
    reported and left out."""
    files = sorted(p for p in Path(directory).rglob("*.json")
                   if p.name != SUMMARY
                   and not {FINDINGS, VERSIONS} & set(p.relative_to(directory).parts[:1]))
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
