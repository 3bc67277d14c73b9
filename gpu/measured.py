"""Which of the GPU plan's steps have a complete run, and on what: the saved runs and studies
read back by GPU model, timing code, release and machine (framework-free)."""
import json
from pathlib import Path

GPU_RUNS = "**/*gpu[-_]*.json"  # the GPU job's runs and studies under a results folder


def run_is_for(run, gpu_model, code, machine=None):
    """Whether a saved run (its JSON) was timed on this GPU model at this timing code (None: any),
    complete, and on this machine where one is named."""
    info = run.get("machine_info", {}).get("graphbench", {})
    return (info.get("device") == "cuda" and _gpu_of(run) == gpu_model
            and code in (None, info.get("code"))
            and run.get("graphbench_run", {}).get("complete", False)
            and machine in (None, machine_of(run)))


def machine_of(run):
    """The machine a saved run names, as the report's tables do: its GPU beside the host's CPU,
    vector ISA and cores (report.build.load.machine_name); another host is another table."""
    from report.build.load import machine_name
    return machine_name(run.get("machine_info", {}))


def newest_gpu(folders):
    """The GPU model of the newest complete GPU run in `folders` (the kind the last window had);
    None without one."""
    run = _newest(folders)
    return run and _gpu_of(run)


def _gpu_of(run):
    """The GPU model a saved run names ('NVIDIA H200'); '' for a CPU's."""
    return (run.get("machine_info", {}).get("graphbench", {}).get("gpu") or "").split(",")[0]


def newest_machine(folders, gpu_model):
    """The machine of the newest complete run on this GPU model (None: no run yet): the one a
    window is taken to be where the GPU machine is not there to say (gpu/plan.py here)."""
    run = _newest(folders, gpu_model)
    return run and machine_of(run)


def _newest(folders, gpu_model=None):
    """The newest complete GPU run in `folders` (on `gpu_model`, where named), or None."""
    runs = [saved for _, saved in read_saved(folders, GPU_RUNS)
            if run_is_for(saved, gpu_model or _gpu_of(saved), None)]
    return max(runs, key=lambda run: run.get("datetime", ""), default=None)


def study_is_for(study, gpu_model, code):
    """Whether a saved study (gpu/job.py's findings/gpu_<name>.json) ran here, complete."""
    machine = study.get("machine", {})
    return (machine.get("gpu") == gpu_model and code in (None, machine.get("code"))
            and study.get("complete", False))


def release(run):
    """The versions a saved run recorded, as the report compares them (report.build.select)."""
    return sorted((run.get("machine_info", {}).get("graphbench", {}).get("versions") or {}).items())


def backends_of(run):
    """The backends a saved run timed."""
    return {b.get("extra_info", {}).get("backend") for b in run.get("benchmarks", ())} - {None}


def newest_releases(folders, gpu_model, machine=None):
    """{backend: the release of its newest complete run on this GPU model (and machine)}: the
    report shows a backend's runs of that release only, so that no table mixes two
    (report.build.select)."""
    newest = {}
    for _, saved in read_saved(folders, GPU_RUNS):
        if run_is_for(saved, gpu_model, None, machine):
            for backend in backends_of(saved):
                newest[backend] = max(newest.get(backend, ("", [])),
                                      (saved.get("datetime", ""), release(saved)))
    return {backend: found[1] for backend, found in newest.items()}


def _of_release(run, releases):
    """Whether a saved run is of each of its backends' release in `releases` (where named)."""
    mine = release(run)
    return all(releases.get(backend, mine) == mine for backend in backends_of(run))


def done_steps(folders, gpu_model, code, releases=None, machine=None):
    """Names of the plan's steps with a complete run for this GPU model and code (None: any) in
    `folders`; with `releases` ({backend: release}), only runs of their backend's release: a GPU
    machine's image upgraded takes the report's tables to the new release, the rows with it; with
    `machine`, only its runs (a study counts on any host of the GPU model, as the report reads
    it)."""
    found = set()
    for path, saved in read_saved(folders, GPU_RUNS):
        if "_gpu-" in path.name and run_is_for(saved, gpu_model, code, machine) and _of_release(
                saved, releases or {}):
            found.add(path.stem.split("_gpu-", 1)[1])
        elif path.name.startswith("gpu_") and study_is_for(saved, gpu_model, code):
            found.add(path.stem[len("gpu_"):])
    return found


def read_saved(folders, pattern):
    """(path, its JSON) of each readable file matching `pattern` under `folders`."""
    for folder in folders:
        for path in Path(folder).glob(pattern):
            try:
                yield path, json.loads(path.read_text())
            except (OSError, ValueError):
                continue
