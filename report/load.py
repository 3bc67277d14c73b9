"""Read saved pytest-benchmark runs; a bad file is a one-line warning, never fatal, never touched."""
import json
import sys
from dataclasses import dataclass
from pathlib import Path

REQUIRED_KEYS = ("backend", "model", "variant", "phase")


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
                              data.get("graphbench_profile")))
    return results


def load_dir(directory):
    """Every suite result under `directory`; bad files are reported and left out."""
    files = sorted(Path(directory).rglob("*.json"))
    if not files:
        warn(f"{directory}: no saved runs (*.json) found")
    results = []
    for path in files:
        try:
            results += load_file(path)
        except ValueError as error:
            warn(str(error))
    return results
