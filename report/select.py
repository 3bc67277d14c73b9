"""Which saved run each table comes from: per (machine, backend, section, model) one run only."""
from collections import defaultdict
from pathlib import Path

STEADY = ("train", "infer", "construction")  # one table: steady steps, first calls, break-even
WHOLE = ("micro", "peak")  # sections whose figures compare models: one run per backend


def section(r):
    """The report section a result belongs to ('steady' for the main table's phases)."""
    phase = r.info["phase"]
    return "steady" if phase in STEADY else phase


def unit(r):
    """(machine, backend, section, model): every figure of a unit comes from one run."""
    name = section(r)
    return r.machine, r.info["backend"], name, None if name in WHOLE else r.info["model"]


def names(run):
    """What `--run` may call a run: its name (0009_default-flags) or its number (0009)."""
    return {run, run.split("_", 1)[0]}


def chosen(results, wanted=()):
    """{unit: run file}: a run named in `wanted` where it has the unit, else the newest complete run
    that has it (an unfinished one only when no finished run has it)."""
    runs = defaultdict(dict)  # keyed by file: two machines' copies may share a run name
    for r in results:
        runs[unit(r)][r.file] = max(runs[unit(r)].get(r.file, (False, "")), (r.complete, r.datetime))
    out = {}
    for key, found in runs.items():
        named = [file for file in found if names(Path(file).stem) & set(wanted)]
        out[key] = max(named or found, key=lambda file: (found[file], file))
    return out


def pick(results, name, wanted=()):
    """The results of section `name`, each unit from its chosen run; the peak brings the train
    steps of its own run (throughput is never one run's step over another run's peak)."""
    runs = chosen(results, wanted)
    picked = [r for r in results if section(r) == name and runs[unit(r)] == r.file]
    if name == "peak":
        peak_runs = {(r.info["backend"], r.file) for r in picked}
        picked += [r for r in results if r.info["phase"] == "train"
                   and (r.info["backend"], r.file) in peak_runs]
    return picked


def machines(results):
    """The machines of the results, sorted: each gets its own tables, never a shared ratio."""
    return sorted({r.machine for r in results})


def from_runs(picked):
    """One line naming the run every backend's figures of this section come from."""
    per_backend = defaultdict(lambda: defaultdict(set))
    for r in picked:
        per_backend[r.info["backend"]][r.label].add(r.info.get("model") or r.info["phase"])
    parts = []
    for backend, runs in sorted(per_backend.items()):
        if len(runs) == 1:
            parts.append(f"{backend} {next(iter(runs))}")
        else:
            parts.append(f"{backend} " + ", ".join(f"{run} ({', '.join(sorted(models))})"
                                                   for run, models in sorted(runs.items())))
    return "From run " + "; ".join(parts) + "." if parts else ""


def shown_runs(results, wanted=()):
    """{(machine, run)} of the runs some section of the report shows."""
    runs = chosen(results, wanted)
    return {(r.machine, r.run) for r in results if runs[unit(r)] == r.file}
