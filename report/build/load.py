"""Read saved pytest-benchmark runs: a malformed file is a one-line warning and left out, a damaged
one (not readable) is named to the caller; none is ever touched."""
import json
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from isa import tier
from catalog import SAVED_RATIOS
from report import warn
from report.build.conform import bench_problem, file_problem

SUMMARY = "summary.json"  # the report's own output, written into the results folder
BASELINE = ("float32", False)  # (precision, deterministic) of the main tables
# what `run.py bench` writes itself (the report's README, RESULTS.md, charts, page and runs): a tree
# changed only there still is its commit, so a second job in one clone is not a dirty run
JOB_OUTPUTS = ("README.md", "RESULTS.md", "docs/charts/", "results/")
# compiled kernels a framework keeps on disk where the suite's cold rounds do not empty them, by
# (backend, device): after the first process that compiled them, a "cold" round there is a later
# run's, so it is read as warm (docs/METHOD.md, "Chainer's first calls on a GPU")
KEPT_CACHES = {("chainer", "cuda"): "CuPy's kernel cache"}


class Saved(NamedTuple):
    """A ratio a suite timed in pairs and saved, with its 95% interval."""
    estimate: float
    low: float
    high: float
    significant: bool  # None when saved without it (ratios.significant reads the interval)


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
    python: str = None  # the run's Python version (not the machine's: envs differ)
    host: dict = None  # run.py's graphbench_host: a reference loop's ms around the env, steal

    @property
    def reference_ms(self):
        """The host's reference loop around this run (host.py), the mean of before and after, in
        ms; None where run.py did not time it."""
        return sum(self.host["reference_ms"]) / 2 if self.host else None

    def saved(self, name):
        """The paired ratio `name` (SAVED_RATIOS) this result carries, or None (saved before its
        suite timed in pairs)."""
        keys = SAVED_RATIOS[name]
        if keys[0] not in self.info:
            return None
        estimate, low, high = (self.info[k] for k in keys[:3])
        return Saved(estimate, low, high, self.info.get(keys[3]))  # None: ratios.significant

    @property
    def flags(self):
        """(precision, deterministic); runs saved before these flags existed are the baseline."""
        return self.info.get("precision", "float32"), bool(self.info.get("deterministic", False))

    @property
    def median(self):
        return self.stats["median"]

    @property
    def dirty(self):
        """True when the run was made from a tree with uncommitted changes to tracked files other
        than a job's own outputs (JOB_OUTPUTS); any, where the run did not record which."""
        if not (self.commit or {}).get("dirty"):
            return False
        changed = self.graphbench.get("changed_files")
        return not changed or any(not path.startswith(JOB_OUTPUTS) for path in changed)

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
    def job(self):
        """The job that saved the run (suites/profiles.JOBS); runs saved before jobs: 'answer'."""
        return self.graphbench.get("job") or "answer"

    @property
    def valid(self):
        """False when the run produced a non-finite loss: its time is not a result."""
        return self.info.get("loss_finite") is not False

    @property
    def kept_cache(self):
        """The compiled kernels this backend keeps on this device where the suite's cold rounds
        did not empty them (KEPT_CACHES), or None: a run whose rounds counted that cache's hits
        had it in the round's folder (Chainer on a GPU since its compile_cache swaps CuPy's)."""
        counted = any(h is not None for h in self.info.get("cache_hits_per_round") or ())
        return None if counted else KEPT_CACHES.get((self.info["backend"], self.info.get("device")))

    @property
    def cache(self):
        """The compile cache a construction round started from: the suite's cold or warm, but
        warm where a cache the suite does not empty was kept (`kept_cache`)."""
        cache = self.info.get("cache")
        return "warm" if cache == "cold" and self.kept_cache else cache

    @property
    def key(self):
        i = self.info
        if i["phase"] == "micro":
            return (i["backend"], i["workload"], i["variant"], "micro", None)
        if i["phase"] == "retrace":  # one result per step kind and shape pattern
            return (i["backend"], i["model"], i["variant"], i["phase"],
                    f"{i.get('step')}-{i.get('pattern')}")
        if i["phase"] == "lengths":  # one result per padding strategy
            return (i["backend"], i["model"], i["variant"], i["phase"], i.get("strategy"))
        if i["phase"] == "pipeline":  # one result per loader
            return (i["backend"], i["model"], i["variant"], i["phase"], i.get("loader"))
        return (i["backend"], i["model"], i["variant"], i["phase"], self.cache)


class Damaged(ValueError):
    """A saved run that cannot be read at all (cut short, not text, unreadable)."""


def load_file(path):
    """The results of one saved run; raises ValueError with a one-line reason if it is not one
    (Damaged when it cannot be read)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Damaged(f"{path}: not readable JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ValueError(f"{path}: not a pytest-benchmark results file (no 'benchmarks' list)")
    machine_info = data.get("machine_info")
    graphbench = machine_info.get("graphbench") if isinstance(machine_info, dict) else None
    if not isinstance(graphbench, dict):
        raise ValueError(f"{path}: a pytest-benchmark file, but not from this suite "
                         "(no machine_info.graphbench)")
    if problem := file_problem(data) or next(filter(None, map(bench_problem, data["benchmarks"])),
                                             None):
        raise ValueError(f"{path}: {problem}; file left out")
    return [Result(str(path), machine_name(machine_info), Path(path).stem, data.get("datetime", ""),
                   bench["name"], bench["extra_info"], bench["stats"], graphbench,
                   data.get("graphbench_profile"), data.get("graphbench_run"),
                   data.get("commit_info"), machine_info.get("python_version"),
                   data.get("graphbench_host"))
            for bench in data["benchmarks"]]


def machine_name(machine_info):
    """A machine as every table names it: host, CPU model, family/model numbers, vector ISA with
    the tiers that change compiled code (isa.tier) and cores. Two CPUs one brand string calls 'AMD
    EPYC' (an AVX2-only one and an AVX-512 one), or one CPU with and without AMX, are two machines.
    Python is the run's, beside its framework versions (the jax env runs 3.12, the others 3.11).
    A --device cuda run adds its GPU: the same host without it is another machine."""
    cpu = machine_info.get("cpu") or {}
    gpu = (machine_info.get("graphbench") or {}).get("gpu")
    flags = set(cpu.get("flags") or ()) | set((machine_info.get("graphbench") or {})
                                              .get("cpu", {}).get("flags") or ())
    family = (f"family {cpu['family']} model {cpu['model']}, " if "family" in cpu and "model" in cpu
              else "")
    return (f"{machine_info.get('node', '?')} ({cpu.get('brand_raw', '?')}, {family}{tier(flags)}, "
            f"{cpu.get('count', '?')} cores{', ' + gpu.split(',')[0] if gpu else ''})")


FINDINGS = "findings"  # results/findings/: the findings' sweeps (findings/*.py), not suite runs
WAITS = "waits"  # results/waits/<device>/: runs timed with another --wait than their device's
# default (a GPU's per-step wait), read by the GPU table beside the runs they repeat, never pooled
VERSIONS = "versions"  # results/versions/<env>/: runs on another release (run.py VERSION_ENVS),
# left out of the pins' report; `--results results/versions/<env>` or --compare shows them
STUDIES = "studies"  # results/studies/<name>/: runs of a one-off study that grounds a constant
# (its README.md says which, how it was run and what it found), never in the report


def load_dir(directory, incomplete=False, damaged=None):
    """Every suite result under `directory`; bad files (and, unless asked, unfinished runs) are
    reported and left out; the paths of damaged ones are added to the list `damaged`."""
    files = sorted(p for p in Path(directory).rglob("*.json")
                   if p.name != SUMMARY
                   and not {FINDINGS, VERSIONS, WAITS, STUDIES}
                   & set(p.relative_to(directory).parts[:1]))
    if not files:
        warn(f"{directory}: no saved runs (*.json) found")
    results = []
    for path in files:
        try:
            found = load_file(path)
        except ValueError as error:
            warn(str(error))
            if isinstance(error, Damaged) and damaged is not None:
                damaged.append(str(path))
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
