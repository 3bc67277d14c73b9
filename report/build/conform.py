"""What a saved run must hold to be read, checked once, at load: numbers that print, fields of the
types the report reads, and only the backends, phases, variants and precisions catalog.py knows."""
import math

from catalog import (BACKENDS, LOADERS, PHASES, PITFALL_VARIANTS, PRECISIONS,
                     SAVED_RATIOS, VARIANTS, WAITS)

REQUIRED_KEYS = ("backend", "model", "variant", "phase")
TIMES = ("min", "max", "mean", "median", "q1", "q3")  # the statistics the tables and charts read
FINDING_KEYS = ("loss", "max_rel_diff")  # a diverged loss is a finding the report shows as such
OPTIONAL_DICTS = ("graphbench_profile", "graphbench_run", "graphbench_host", "commit_info")
CHOICES = {"backend": BACKENDS, "phase": PHASES, "variant": {**VARIANTS, **PITFALL_VARIANTS},
           "precision": PRECISIONS, "loader": LOADERS, "wait": WAITS}  # extra_info key -> choices
DEVICES = ("cpu", "cuda")
READS = ("5.",)  # the pytest-benchmark releases whose saved files the report reads
JOBS = ("answer", "seeds")  # suites/profiles.JOBS, which the report may not import (numpy)
# the distributions whose version names a backend's framework in a run's versions
FRAMEWORK_DISTS = {name: f.versions for name, f in BACKENDS.items()}


def _count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _names(value):
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _flags(value):
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _two_times(value):
    return isinstance(value, list) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in value)


def _share(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1


FIELDS = (  # (path in the file, check, what it must be) of the fields the report reads, if present
    (("graphbench_host", "reference_ms"), _two_times, "two times in ms (before, after)"),
    (("graphbench_host", "stolen"), _share, "a share from 0 to 1"),
    (("graphbench_host", "python"), lambda v: isinstance(v, str), "a Python version"),
    (("graphbench_run", "complete"), lambda v: isinstance(v, bool), "true or false"),
    (("graphbench_run", "cases"), _count, "a count"),
    (("graphbench_run", "cases_run"), _count, "a count"),
    (("machine_info", "cpu"), lambda v: isinstance(v, dict), "an object"),
    (("machine_info", "cpu", "flags"), _flags, "a list of flag names"),
    (("machine_info", "graphbench", "versions"), _names, "an object of package: version"),
    (("machine_info", "graphbench", "cpu"), lambda v: isinstance(v, dict), "an object"),
    (("machine_info", "graphbench", "cpu", "flags"), _flags, "a list of flag names"),
)


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


def _at(data, path):
    """The value at `path` inside nested objects, or None where the path ends early."""
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _shown(value):
    return repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:37]}..."


def _framework_problem(benchmarks, versions):
    """A benchmark's backend whose framework the run's versions do not name (its rows would print
    another framework's version), or None; runs saved before versions were recorded pass."""
    if not isinstance(versions, dict) or not versions:
        return None
    for bench in benchmarks:
        info = bench.get("extra_info") if isinstance(bench, dict) else None
        backend = info.get("backend") if isinstance(info, dict) else None
        if backend in FRAMEWORK_DISTS and not any(d in versions for d in FRAMEWORK_DISTS[backend]):
            return (f"its benchmarks are {backend}'s but its versions name no "
                    f"{'/'.join(FRAMEWORK_DISTS[backend])} ({_shown(versions)})")
    return None


OWN_KEYS = ("graphbench_profile", "graphbench_run",  # what conftest.py adds to a saved run
            "graphbench_host")  # and run.py (host.between)


def file_problem(data):
    """What makes a saved run's top level unusable, in a few words, or None."""
    if (version := data.get("version")) is not None and not str(version).startswith(READS):
        return (f"saved by pytest-benchmark {_shown(version)}, which this report does not read "
                f"(it reads {READS[0]}x: the pin in tox.ini)")
    if unknown := sorted(k for k in data if k.startswith("graphbench_") and k not in OWN_KEYS):
        return (f"{unknown[0]}: a field this report does not know (saved by a newer graphbench?): "
                "report it with the graphbench that saved it")
    if bad := [k for k in OPTIONAL_DICTS if not isinstance(data.get(k, {}), (dict, type(None)))]:
        return f"{'/'.join(bad)} is not an object"
    graphbench = data["machine_info"]["graphbench"]
    if not isinstance(graphbench.get("profile"), str):
        return "machine_info.graphbench has no profile name"
    if (device := graphbench.get("device", "cpu")) not in DEVICES:
        return f"machine_info.graphbench.device {_shown(device)}: not one of {', '.join(DEVICES)}"
    if (job := graphbench.get("job")) is not None and job not in JOBS:
        return f"machine_info.graphbench.job {_shown(job)}: not one of {', '.join(JOBS)}"
    if problem := _framework_problem(data["benchmarks"], graphbench.get("versions")):
        return problem
    if device != "cpu" and not graphbench.get("gpu"):
        # the machine's name is its CPU's then: its runs would pool with that CPU's answer
        return (f"machine_info.graphbench.device is {device!r} but names no GPU "
                "(machine_info.graphbench.gpu): a GPU run must name its GPU")
    if not isinstance(data.get("datetime", ""), str):
        return "its datetime is not a string"
    for path, fits, what in FIELDS:
        if (value := _at(data, path)) is not None and not fits(value):
            return f"{'.'.join(path)} is {_shown(value)}, not {what}"
    return None


def _choice_problem(info):
    """The extra_info field whose value catalog.py does not know, with the choices, or None."""
    for key, choices in CHOICES.items():
        if key in info and info[key] not in choices:
            return f"extra_info.{key} {_shown(info[key])}: not one of {', '.join(choices)}"
    if "deterministic" in info and not isinstance(info["deterministic"], bool):
        return f"extra_info.deterministic {_shown(info['deterministic'])}: not true or false"
    return None


def bench_problem(bench):
    """What makes one saved benchmark unusable (a ratio or time that would print as nan, 0 or a
    crash, a field the catalog does not know), in a few words, or None."""
    if not isinstance(bench, dict) or not isinstance(bench.get("name"), str):
        return "a benchmark without a name"
    name, stats, info = bench["name"], bench.get("stats"), bench.get("extra_info")
    if not isinstance(stats, dict) or not isinstance(info, dict):
        return f"benchmark {name!r} has no stats or no extra_info"
    needs = REQUIRED_KEYS + (("workload",) if info.get("phase") == "micro" else ())
    if bad := [k for k in needs if not isinstance(info.get(k), str)]:
        return f"benchmark {name!r} has no {'/'.join(bad)} string in its extra_info"
    if unknown := _choice_problem(info):
        return f"benchmark {name!r} has {unknown}"
    if found := next(_non_finite(stats, "stats"), None) or next(_non_finite(info, "extra_info"), None):
        return f"benchmark {name!r} has {found[0]} = {found[1]}"
    if bad := [k for k in TIMES if not _number(stats.get(k)) or stats[k] < 0]:
        return f"benchmark {name!r} has no numeric {'/'.join(bad)} in its stats"
    if stats["median"] <= 0:
        return f"benchmark {name!r} has a median of {stats['median']} s"
    if not stats["q1"] <= stats["median"] <= stats["q3"]:  # a chart's error bar would be negative
        return (f"benchmark {name!r} has its stats.median {stats['median']} outside its quartiles "
                f"q1 {stats['q1']}, q3 {stats['q3']}")
    for keys in SAVED_RATIOS.values():
        if keys[0] in info and (bad := [k for k in keys[:3] if not _number(info.get(k))
                                        or info[k] <= 0]):
            return f"benchmark {name!r} has no positive {'/'.join(bad)} in its extra_info"
    return None
