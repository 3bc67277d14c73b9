"""Where the figures come from, as records the views render: one per saved run (the page's run
row and what its provenance line adds), the run numbers missing per machine, and per machine what
its tables name beside their figures (results known to be wrong, retrace skip rules)."""
import re
import statistics
from collections import defaultdict
from pathlib import Path

from machines import gpu_model
from report.build.load import WAITS, unfinished
from report.build.page_data import run_table
from report.build.plan_gaps import not_measured
from report.build.select import (POOLED, SECTIONS, invalid, latest, part_name, retrace_rules,
                                 shown_runs, unit)


def provenance(results, machines, wanted=()):
    """{"runs": run_records, "missing": missing_runs, "tables": machine_notes} of `results` and
    their machines ([(machine, view, records)])."""
    return {"runs": run_records(results, wanted), "missing": missing_runs(results),
            "tables": machine_notes(machines)}


def run_records(results, wanted=()):
    """One record per saved run in `results` (page_data.run_table's row) with its changed files,
    CPU, jobs beside it, why it did not finish, and whether a section shows it (`shown`, with the
    runs `wanted`)."""
    shown, first = shown_runs(results, wanted), _first(results)
    return [{**row, **_more(first[row["machine"], row["run"]]),
             "shown": (row["machine"], row["run"]) in shown} for row in run_table(results)]


def _first(results):
    """{(machine, run): its first result}."""
    found = {}
    for r in results:
        found.setdefault((r.machine, r.run), r)
    return found


def _more(r):
    status = r.status or {}
    return {"changed_files": r.graphbench.get("changed_files") or [],
            "cpu": r.graphbench.get("cpu") or {}, "beside": bool(status.get("beside")),
            "load": status.get("load") or {}, "unfinished": None if r.complete else unfinished(r)}


def missing_runs(results):
    """[(machine, [run numbers])] per machine whose saved run numbers skip some after its first (a
    run deleted or never saved). pytest-benchmark numbers the runs of every machine folder under
    results/ in one sequence, so a number another folder holds (another machine's run, a run timed
    with another --wait, a profile this report leaves out) is no gap; the numbers before a
    machine's first run are none of its own (gpu/run.sh brings other machines' runs along)."""
    own, taken = defaultdict(set), set()
    for r in _first(results).values():
        if r.run[:4].isdigit():
            own[r.machine].add(int(r.run[:4]))
            taken.add(int(r.run[:4]))
        folder = Path(r.file).parent
        for path in [*folder.glob("[0-9][0-9][0-9][0-9]_*.json"),
                     *(folder.parent / WAITS).glob("*/[0-9][0-9][0-9][0-9]_*.json")]:
            taken.add(int(path.name[:4]))  # saved, if not shown: another profile, another wait
    found = [(machine, sorted(set(range(min(runs), max(runs) + 1)) - runs - taken))
             for machine, runs in sorted(own.items())]
    return [(machine, missing) for machine, missing in found if missing]


def machine_notes(machines):
    """{machine: table_notes} of [(machine, view, records)]."""
    return {machine: table_notes(view) for machine, view, _ in machines}


def table_notes(view):
    """What one machine's tables name beside their records, from its sections' runs (`view`): the
    retrace suite's skip rules, the results known to be wrong (`known_wrong`: backend, model,
    variant, why) and the newest whose loss was not finite (`non_finite`, with the loss)."""
    found = [r for name in SECTIONS for r in view(name)]
    wrong = sorted({(r.info["backend"], r.info["model"], r.info["variant"], r.info["known_wrong"])
                    for r in latest(found) if r.info.get("known_wrong")})
    return {"retrace_rules": retrace_rules(view("retrace")),
            "known_wrong": [dict(zip(("backend", "model", "variant", "why"), w)) for w in wrong],
            "non_finite": [{"backend": r.info["backend"], "model": r.info["model"],
                            "variant": r.info["variant"], "phase": r.info["phase"],
                            "precision": r.flags[0], "deterministic": r.flags[1],
                            "loss": r.info.get("loss")} for r in invalid(found)]}


def shown(view):
    """What a machine's views name beside its records, from its sections' runs (`view`): per
    section, {backend: {run: [models or phases]}} (text.from_runs words it), the section mixed
    precision draws from, and the framework versions its steady runs installed."""
    versions = {}
    for r in view("steady"):
        versions.update(r.graphbench.get("versions") or {})
    return {"runs": {name: section_runs(view(name)) for name in SECTIONS}, "versions": versions,
            "version_notes": version_notes(versions), "precision_from": precision_source(view),
            "pooled": {name: pooled_runs(view, name) for name in SECTIONS}}


def precision_source(view):
    """The section mixed precision's records come from: the seeds job's steady groups, or the
    answer's in runs saved before the seeds job carried them."""
    mixed = lambda name: any(r.flags[0] != "float32" for r in view(name))
    return "steady" if mixed("steady") and not mixed("seeds_steady") else "seeds_steady"


def version_notes(versions):
    """{package: what its recorded version changes for a backend}: CuPy 14 removed cuDNN (its
    upgrade guide), so Chainer on it convolves and normalises with its own kernels."""
    majors = {name: re.match(r"\d+", version) for name, version in versions.items()}
    return {name: "no cuDNN: CuPy 14 dropped it" for name, major in majors.items()
            if name.startswith("cupy") and major and int(major.group()) >= 14}


def pooled_runs(view, name):
    """{"runs": the sorted names of section `name`'s runs and of the repeat jobs its pooled
    figures draw from (select.repeats), "figures": which of its figures pool}; {} where no job
    repeats it."""
    repeats = view(f"{name}_repeats") if name in POOLED else ()
    return {"runs": tuple(sorted({r.run for r in (*view(name), *repeats)})),
            "figures": POOLED[name]} if repeats else {}


def section_runs(picked):
    """{backend: {run label: sorted models (or phases)}} of one section's chosen results; where a
    model's figures come from several runs, each names its part ('mnist_cnn first calls',
    'decoder eager': select.unit)."""
    found = defaultdict(lambda: defaultdict(set))
    runs = defaultdict(set)
    for r in picked:
        runs[r.info["backend"], r.info.get("model")].add(r.label)
    for r in picked:
        what, part = r.info.get("model") or r.info["phase"], part_name(unit(r)[-1])
        if part and part != what and len(runs[r.info["backend"], r.info.get("model")]) > 1:
            what += f" {part}"
        found[r.info["backend"]][r.label].add(what)
    return {b: {run: sorted(models) for run, models in runs.items()} for b, runs in found.items()}


def timed_as_a_loop(records):
    """Whether a machine's steady records were timed with one wait per block (a GPU's default):
    the kind of GPU table the answer shows."""
    return any(r.get("wait") == "block" for r in records if r["kind"] == "step_time")


def job_spread(records, gpu=False):
    """How far one eager train step moved between a machine's repeat jobs of one code: each
    float32 row's slowest job median ÷ its fastest, their median and the widest row, whether the
    machine's steps ran on a GPU, and how the host moved between the same two jobs (host_spread);
    None where no row pools jobs. Speedups are paired within each job; step times carry this."""
    rows = [r for r in _eager_train_steps(records) if r.get("pooled_runs") and r["low"]]
    return {**_spread(rows, lambda r: r["high"] / r["low"]),
            "jobs": max(len(r["pooled_runs"]) for r in rows), "gpu": gpu,
            "host": host_spread(rows)} if rows else None


def process_spread(records):
    """How far one eager train step moved between the processes of a GPU machine's runs (one run
    a row): each float32 block-timed row's slowest process median ÷ its fastest
    (records.process_spread_of), their median and the widest row; None without such rows.
    Speedups are paired within a process; step times carry this."""
    rows = [r for r in _eager_train_steps(records)
            if r.get("wait") == "block" and r.get("process_spread")]
    return {**_spread(rows, lambda r: r["process_spread"]),
            "processes": sorted({r["processes"] for r in rows})} if rows else None


def _eager_train_steps(records):
    """A machine's float32 eager train step_time records: the rows a spread is read over."""
    return [r for r in records if r["kind"] == "step_time" and r.get("variant") == "eager"
            and r.get("phase") == "train" and r.get("precision") == "float32"]


def _spread(rows, ratio):
    """Over `rows` (not empty), each one's `ratio`: their count and median, and the widest row."""
    widest = max(rows, key=ratio)
    return {"rows": len(rows), "median": statistics.median(map(ratio, rows)),
            "widest": ratio(widest), "backend": widest["backend"], "model": widest["model"]}


def host_spread(rows):
    """Over the rows whose jobs all carry run.py's host readings: the host's reference loop in
    the row's slowest job ÷ in its fastest (the median over rows), and the largest share of CPU
    time stolen around any of those runs; None where no row has readings (jobs before them)."""
    hosted = [r for r in rows if r.get("pooled_reference_ms")]
    if not hosted:
        return None

    def moved(r):
        medians, loop = r["pooled_medians"], r["pooled_reference_ms"]
        return loop[medians.index(max(medians))] / loop[medians.index(min(medians))]
    stolen = [s for r in hosted for s in r["pooled_stolen"] if s is not None]
    return {"rows": len(hosted), "median": statistics.median(map(moved, hosted)),
            "stolen": max(stolen, default=None)}


def for_views(machines):
    """[(machine, shown, records)] of the build's [(machine, view, records)]: what the views get,
    each with whether it was timed as a loop, how far its jobs' step times spread (job_spread),
    a GPU's with what its plan still lacks (plan_gaps.not_measured) and how far its processes'
    step times spread (process_spread)."""
    return [(machine, {**shown(view), "timed_as_a_loop": timed_as_a_loop(records),
                       "job_spread": job_spread(records, bool(gpu_model(machine))),
                       **({"not_measured": not_measured(records),
                           "process_spread": process_spread(records)}
                          if gpu_model(machine) else {})},
             records) for machine, view, records in machines]


def made_by(results, files):
    """The machines whose saved runs `files` are (the job that just ran)."""
    made = {Path(f).resolve() for f in files}
    return {r.machine for r in results if Path(r.file).resolve() in made}
