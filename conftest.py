"""Suite options (--profile, --device, --threads, --backend/--model/--variant), cases and metadata."""
import contextlib
import dataclasses
import functools
import importlib.metadata
import importlib.util
import itertools
import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from backends import (BACKENDS, PRECISIONS, VARIANTS, BackendUnavailable, check_choice, load,
                      unsupported_reason)
from catalog import WAITS
from suites import cpu, jobs, progress
from suites.profiles import JOBS, PARITY_ONLY, PROFILES

# recorded with each run where installed: the GPU machine's CuPy is cupy-cuda13x and its JAX runs
# through the CUDA plugin (the first GPU runs, 0086-0088, recorded neither)
DISTRIBUTIONS = (*(d for f in BACKENDS.values() for d in (*f.versions, *f.records)),
                 "numpy", "cupy-cuda12x", "cupy-cuda13x", "jax-cuda12-plugin", "jax-cuda13-plugin")
_loaded = {}
_unavailable = {}  # backend -> why its framework cannot be imported
_run = {"cases": 0, "cases_run": 0, "interrupted": False, "stopped": None, "finishing": False}
STOPS = {"SIGINT": "interrupted (Ctrl-C)", "SIGTERM": "stopped (SIGTERM)",
         "SIGHUP": "stopped (SIGHUP: the terminal closed)"}
_file_seconds = {}  # test file -> seconds its tests took
_skips = {}  # skip reason -> how many tests gave it


def pytest_addoption(parser):
    group = parser.getgroup("graphbench")
    group.addoption("--profile", default="quick", help=f"one of {', '.join(PROFILES)}")
    group.addoption("--job", default="", help=f"one of {', '.join(JOBS)}: what a saved run of the "
                                              "profile times (none: every suite)")
    group.addoption("--group-budget-s", type=float, default=None,
                    help="steady: each comparison group's time share in seconds, the focus "
                         "groups' too (default: the profile's and job's)")
    group.addoption("--device", default="cpu", help="cpu or cuda (CUDA for TF/PyTorch, CuPy for Chainer)")
    group.addoption("--wait", default=None,
                    help="step or block: wait for the device after every timed step, or once per "
                         "timed block as a training loop does (default: block on cuda, step on "
                         "cpu; docs/METHOD.md, The step a GPU user runs)")
    group.addoption("--threads", type=int, default=os.cpu_count(), help="intra-op threads, all frameworks")
    group.addoption("--backend", default=",".join(BACKENDS), help="comma list of backends to run")
    group.addoption("--model", default="mnist_cnn,vgg,resnet,decoder",
                    help="comma list of models to run (decoder: parity tests only, so far)")
    group.addoption("--variant", default=",".join(VARIANTS), help="comma list of variants to run")
    group.addoption("--precision", default=",".join(PRECISIONS),
                    help="comma list of precisions for the steady and construction suites")


def _choices(config, option, valid):
    values = [v for v in config.getoption(option).split(",") if v]
    for value in values:
        check_choice(option, value, valid)
    return values


def pytest_configure(config):
    for backend in BACKENDS:
        config.addinivalue_line("markers", f"{backend}: cases of the {backend} backend")
    config.addinivalue_line("markers", "models(*names): run this test only for these models")
    config.addinivalue_line("markers", "known_wrong: run this test only for KNOWN_WRONG cases")
    config.addinivalue_line("markers", "precisions: run the cases at every --precision "
                                       "(unmarked tests run float32 only)")
    config.addinivalue_line("markers", "suite_models(name): take the cases' models from the "
                                       "profile's `name` plan (e.g. retrace)")
    try:
        check_choice("profile", config.getoption("profile"), PROFILES)
        check_choice("device", config.getoption("device"), ("cpu", "cuda"))
        if config.getoption("wait") is not None:
            check_choice("wait", config.getoption("wait"), WAITS)
        check_run_options(config)
        profile = PROFILES[config.getoption("profile")]
        if job := config.getoption("job"):
            check_choice("job", job, JOBS)
            profile = JOBS[job].apply(profile)
        profile = with_group_budget(profile, config.getoption("group_budget_s")).on_device(
            config.getoption("device"), busy=os.environ.get("GRAPHBENCH_BUSY_POINTS") == "1")
        config.graphbench = {
            "profile": profile, "device": config.getoption("device"),
            "threads": config.getoption("threads"),
            "wait": config.getoption("wait") or default_wait(config.getoption("device")),
            "backends": _choices(config, "backend", BACKENDS),
            "models": _choices(config, "model", {**profile.models, **PARITY_ONLY}),
            "variants": _choices(config, "variant", VARIANTS),
            "precisions": _choices(config, "precision", PRECISIONS),
        }
        if saving(config):
            check_workload(config.graphbench)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    take_stop_signals()
    # NumPy's BLAS threads (Chainer's CPU path) are read once, when NumPy loads: the conftest
    # imports nothing that loads NumPy before this point
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(config.graphbench["threads"])
    if config.graphbench["device"] == "cuda":
        for name in config.graphbench["backends"]:  # fail before any case, in one line
            if importlib.util.find_spec(BACKENDS[name].package):
                try:
                    backend_module(config, name)
                except RuntimeError as error:
                    raise pytest.UsageError(str(error)) from None


def default_wait(device):
    """A GPU's steps are timed as a training loop runs them (queued, waited on once per block); a
    CPU's as before (each step waited on: CPU frameworks run most of a step before returning)."""
    return "block" if device == "cuda" else "step"


def with_group_budget(profile, budget_s):
    """The profile with every adaptive group's time share set to budget_s (None: as it is)."""
    if budget_s is None:
        return profile
    if budget_s <= 0:
        raise ValueError(f"--group-budget-s {budget_s:g}: a time share must be above 0 seconds")
    if not profile.adaptive:
        raise ValueError(f"--group-budget-s: profile {profile.name!r} adds no processes to a "
                         "group (its counts are fixed); use --profile default or paper")
    adaptive = dataclasses.replace(profile.adaptive, budget_s=budget_s, focus=tuple(
        (key, budget_s, most) for key, _, most in profile.adaptive.focus))
    return dataclasses.replace(profile, adaptive=adaptive)


def take_stop_signals():
    """SIGTERM and SIGHUP stop a session as Ctrl-C does, so its partial run is saved; SIGINT too
    where it came in ignored (run.py starts tox so)."""
    for name in STOPS:
        if hasattr(signal, name):
            _run.setdefault("handlers", {})[name] = signal.signal(getattr(signal, name), _stop)


def _stop(signum, frame):
    # once stopping (or saving), a second signal (run.py passes on the one it got) would cut the
    # save of the run short
    if _run["finishing"] or _run["stopped"]:
        return
    _run["stopped"] = signal.Signals(signum).name
    raise KeyboardInterrupt


def backend_module(config, name):
    """Load and configure a backend once per session; returns (module, device handle)."""
    if name not in _loaded:
        try:
            module = load(name)
        except BackendUnavailable as error:
            _unavailable[name] = str(error)
            raise
        env = config.graphbench
        device = module.configure(env["threads"], env["device"])
        module.prime()  # one-time process start-up stays out of the first timed case
        _loaded[name] = (module, device)
    return _loaded[name]


def pytest_generate_tests(metafunc):
    if "backend_name" in metafunc.fixturenames:
        names = metafunc.config.graphbench["backends"]
        metafunc.parametrize("backend_name", [pytest.param(n, marks=getattr(pytest.mark, n))
                                              for n in names])
    if "case_id" not in metafunc.fixturenames:
        return
    from suites.cases import KNOWN_WRONG, skip_reason  # after pytest_configure set BLAS threads
    env = metafunc.config.graphbench
    only = metafunc.definition.get_closest_marker("models")
    wrong_only = metafunc.definition.get_closest_marker("known_wrong")
    suite = metafunc.definition.get_closest_marker("suite_models")
    suite = suite.args[0] if suite else "models"
    precisions = (env["precisions"] if metafunc.definition.get_closest_marker("precisions")
                  else ("float32",))
    labels = [label for label, (model, _, _) in env["profile"].suite_models(suite).items()
              if model in env["models"] and (not only or model in only.args)]
    params = []
    for backend, model, variant, precision in itertools.product(
            env["backends"], labels, env["variants"], precisions):
        if wrong_only and not any(k.covers(backend, model, variant) for k in KNOWN_WRONG):
            continue
        marks = [getattr(pytest.mark, backend)]
        if reason := skip_reason(backend, variant, precision, env, model):
            marks.append(pytest.mark.skip(reason=reason))
        tail = "" if precision == "float32" else f"-{precision}"
        params.append(pytest.param((backend, model, variant, suite, precision), marks=marks,
                                   id=f"{backend}-{model}-{variant}{tail}"))
    metafunc.parametrize("case_id", params)


def pytest_collection_modifyitems(config, items):
    """A saved run of a profile that times some suites only: the others are visible skips."""
    if config.getoption("benchmark_disable", False):
        return
    profile = config.graphbench["profile"]
    for item in items:
        suite = item.module.__name__.rpartition(".")[2].removeprefix("test_")
        if item.module.__name__.startswith("suites.") and (reason := profile.bench_skip(suite)):
            item.add_marker(pytest.mark.skip(reason=reason))
        elif suite == "steady" and profile.adaptive and hasattr(item, "callspec"):
            # the progress line's time left: a group takes about its share, paid by its first case
            backend, label, *_ = item.callspec.params["case_id"]
            key = (backend, label, item.callspec.params["phase"])
            item.stash[progress.GROUP] = (("steady", *key), profile.adaptive.limits(key)[0])


@pytest.fixture
def env(request):
    """The session's profile, device and thread settings."""
    return request.config.graphbench


@pytest.fixture
def backend(request, backend_name):
    """(backend module, device handle) for `backend_name`; a missing framework is a visible skip."""
    try:
        return backend_module(request.config, backend_name)
    except BackendUnavailable as error:
        pytest.skip(str(error))


@pytest.fixture
def case(request, case_id, env):
    """The Case for this test's (backend, model, variant); a missing framework is a visible skip."""
    backend, label, variant, suite, precision = case_id
    try:
        module, device = backend_module(request.config, backend)
    except BackendUnavailable as error:
        pytest.skip(str(error))
    model, config, batch = env["profile"].suite_models(suite)[label]
    import models
    from suites.cases import Case
    return Case(module, device, label, variant, models.build(model, **config), batch,
                precision=precision)


def pytest_benchmark_update_machine_info(config, machine_info):
    versions = {}
    for dist in DISTRIBUTIONS:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    env = config.graphbench
    machine_info["graphbench"] = {
        "profile": env["profile"].name, "job": env["profile"].job and env["profile"].job.name,
        "device": env["device"], "threads": env["threads"], "wait": env["wait"],
        "versions": versions, "tox_env": os.environ.get("TOX_ENV_NAME"),
        "changed_files": changed_files(), "code": timing_code(),
        "cpu": cpu.describe(),  # a finding or figure holds for this CPU and vector ISA
        "gpu": gpu_name() if env["device"] == "cuda" else None,
    }


def gpu_name():
    """The GPU a --device cuda run timed, as nvidia-smi names it (with its driver and memory);
    None where nvidia-smi cannot say."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.splitlines()[0].strip() if out.returncode == 0 and out.stdout else None


TIMING_CODE = ("backends", "models", "suites", "catalog.py", "conftest.py", "stats.py", "tox.ini")


def timing_code():
    """The git hash of what times and computes the figures (TIMING_CODE at HEAD): two jobs with
    the same hash ran the same measurement code, whatever else the commits changed (the report
    pools their ratios); GRAPHBENCH_CODE where the tree was copied to a machine whose git does
    not hold its commit (gpu/run.sh); None outside a git checkout."""
    if copied := os.environ.get("GRAPHBENCH_CODE"):
        return copied
    try:
        out = subprocess.run(["git", "ls-tree", "HEAD", *TIMING_CODE], capture_output=True,
                             text=True, timeout=30, cwd=os.path.dirname(os.path.abspath(__file__)))
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0 or not out.stdout:
        return None
    import hashlib
    return hashlib.sha1(out.stdout.encode()).hexdigest()[:12]


def pytest_benchmark_update_commit_info(config, commit_info):
    # a tree copied to another machine (gpu/run.sh) carries its commit in GRAPHBENCH_COMMIT: the
    # git there may hold an older one, which would name the wrong commit and call the tree dirty
    if copied := os.environ.get("GRAPHBENCH_COMMIT"):
        commit_info.update(id=copied, dirty=False, copied_tree=True)


def changed_files():
    """Tracked files that differ from the commit (commit_info's `dirty` does not say which); none
    in a tree copied from its commit (GRAPHBENCH_COMMIT)."""
    if os.environ.get("GRAPHBENCH_COMMIT"):
        return []
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                             capture_output=True, text=True, timeout=30,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
    except (OSError, subprocess.SubprocessError):
        return None
    return [line[3:] for line in out.stdout.splitlines()] if out.returncode == 0 else None


def pytest_benchmark_update_json(config, benchmarks, output_json):
    profile = config.graphbench["profile"]
    output_json["graphbench_profile"] = {
        "name": profile.name, "models": {m: {"config": c, "batch": b}
                                        for m, (c, b) in profile.models.items()},
        "steady_rounds": profile.steady_rounds, "warmup_rounds": profile.warmup_rounds,
        "cold_rounds": profile.cold_rounds, "warm_rounds": profile.warm_rounds,
        "notes": profile.notes, "construction_models": list(profile.construction_models),
        "retrace": dataclasses.asdict(profile.retrace) if profile.retrace else None,
        "precision_models": list(profile.precision_models),
        "determinism_models": list(profile.determinism_models),
        "determinism_steps": profile.determinism_steps,
        "memory": dataclasses.asdict(profile.memory) if profile.memory else None,
        "pipeline": dataclasses.asdict(profile.pipeline) if profile.pipeline else None,
        "scale": dataclasses.asdict(profile.scale) if profile.scale else None,
        "lengths": dataclasses.asdict(profile.lengths) if profile.lengths else None,
        "skips": [dataclasses.asdict(rule) for rule in profile.skips],
        "precision_phases": list(profile.precision_phases),
        "bench_suites": profile.bench_suites and list(profile.bench_suites),
        "job": profile.job and dataclasses.asdict(profile.job),
        "adaptive": profile.adaptive and dataclasses.asdict(profile.adaptive),
    }
    output_json["graphbench_run"] = run_status()


def check_run_options(config):
    """Options that would waste a run: a thread count below 1, saving benchmarks that never run."""
    if len(set(profiles := given_profiles(config.invocation_params.args))) > 1:
        raise ValueError(f"--profile given twice ({' and '.join(profiles)}): a run has one profile "
                         "and is saved and reported under it; give one")
    threads = config.getoption("threads")
    if threads is None or threads < 1:  # None: os.cpu_count() could not tell
        raise ValueError(f"--threads {threads}: the thread count must be 1 or more")
    save = saving(config)
    off = [o for o in ("disable", "skip") if config.getoption(f"benchmark_{o}", None)]
    if save and off:
        raise ValueError(f"--benchmark-{off[0]} with --benchmark-save/--benchmark-autosave: "
                         "benchmarks that do not run measure nothing, so nothing would be saved")


def saving(config):
    return config.getoption("benchmark_save", None) or config.getoption("benchmark_autosave", None)


def check_workload(env):
    """A run to save must time some case: a selection that leaves none names what would run."""
    for option, valid in (("backend", BACKENDS), ("model", env["profile"].models),
                          ("variant", VARIANTS)):
        if not env[f"{option}s"]:
            raise ValueError(f"--{option} names none: choose from {', '.join(valid)}")
    why = {(b, v): unsupported_reason(b, v, env["device"]) or env["profile"].variant_skip(b, v)
           for b in env["backends"] for v in VARIANTS}
    if any(not why[b, v] for b in env["backends"] for v in env["variants"]):
        return
    backend, variant = env["backends"][0], env["variants"][0]
    runs = [v for v in VARIANTS if any(not why[b, v] for b in env["backends"])]
    raise ValueError(f"--variant {','.join(env['variants'])} leaves no case to run on "
                     f"{','.join(env['backends'])} ({backend}/{variant}: {why[backend, variant]}): "
                     f"choose --variant from {', '.join(runs) or 'none: --device cuda'}")


def given_profiles(args):
    """Every --profile value on the command line (pytest keeps only the last)."""
    found = []
    for arg, after in zip(args, [*args[1:], None]):
        if arg == "--profile" and after is not None:
            found.append(after)
        elif arg.startswith("--profile="):
            found.append(arg.split("=", 1)[1])
    return found


def pytest_sessionstart(session):
    """A results folder that cannot be written fails now, not after the last case; the run is saved
    through save_run."""
    bench = getattr(session.config, "_benchmarksession", None)
    if not bench or not (bench.save or bench.autosave) or not hasattr(bench.storage, "get"):
        return
    folder = bench.storage.get("probe").parent
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        raise pytest.UsageError(f"--benchmark-save: cannot write to the results folder {folder} "
                                f"({error.strerror or error}); nothing was run") from None
    bench.storage.save = functools.partial(save_run, bench.storage)
    _run["job"] = jobs.Job(bench.storage.path / ".jobs", {
        "tox_env": os.environ.get("TOX_ENV_NAME"), "profile": session.config.graphbench[
            "profile"].name})
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    try:
        killed = _run["job"].start()
    except OSError as error:  # results/.jobs: the folder beside the runs, for two jobs at once
        raise pytest.UsageError(f"--benchmark-save: cannot write the job marker folder "
                                f"{_run['job'].folder} ({error.strerror or error}); nothing was "
                                "run") from None
    for killed in killed:
        if reporter:
            reporter.write_line(f"WARNING: {jobs.killed_line(killed)}", yellow=True)


def save_run(storage, output_json, save):
    """pytest-benchmark's FileStorage.save, but never a truncated run file or a lost run: written
    through a temporary file and a rename; when that fails, kept in the temp folder, named."""
    from pytest_benchmark.utils import safe_dumps
    target = storage.get(f"{next_number(storage.path)}_{save}.json")
    data = safe_dumps(output_json, ensure_ascii=True, indent=4).encode()
    try:
        write_file(target, data)
    except OSError as error:
        _run["unsaved"] = (f"--benchmark-save: the run could not be saved as {target} "
                           f"({error.strerror or error}); {keep(data, target)}")
        return
    storage.logger.info(f"Saved benchmark data in: {target}")


def next_number(results):
    """The next run number over every folder of `results`: pytest-benchmark numbers the runs of one
    Python version's folder, and a run's number is its name in the report (the jax env runs on
    Python 3.12 beside the others' 3.11)."""
    saved = [int(p.name[:4]) for p in Path(results).glob("*/[0-9][0-9][0-9][0-9]_*.json")]
    return f"{max(saved, default=0) + 1:04d}"


def write_file(path, data):
    """`data` at `path` through a temporary file beside it and a rename."""
    fd, staged = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(staged, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise


def keep(data, target):
    """Where the measurements of a run that could not be saved went, in a few words."""
    fd, kept = tempfile.mkstemp(prefix=f"graphbench-{target.stem}-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(kept)
        return f"nor kept in {os.path.dirname(kept)} ({error.strerror or error}): it is lost"
    return f"its measurements are in {kept}: move that file to {target} once there is room"


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    """A test module whose dependency this Python lacks is one line naming the fix, not a traceback."""
    report = yield
    missing = report.failed and re.search(r"ModuleNotFoundError: (No module named '[^']+')",
                                          str(report.longrepr))
    if missing:
        report.longrepr = (f"{collector.path.name}: {missing.group(1)} in this Python: run the "
                           "suites with `python3 run.py bench` or `.tools/bin/tox -e <env>`")
    return report


def pytest_collection_finish(session):
    _run["cases"] = len(session.items)


def pytest_runtest_logfinish():
    _run["cases_run"] += 1
    if job := _run.get("job"):
        job.beat(_run["cases_run"], _run["cases"])


def pytest_runtest_logreport(report):
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2].removeprefix("Skipped: ")
        _skips[reason] = _skips.get(reason, 0) + 1
    path = report.nodeid.split("::")[0]
    _file_seconds[path] = _file_seconds.get(path, 0) + report.duration


def pytest_terminal_summary(terminalreporter):
    """Wall time per test file (setup, call and teardown): where a long run spends its time."""
    if _file_seconds:
        terminalreporter.write_sep("-", "time per file")
        for path, seconds in sorted(_file_seconds.items(), key=lambda kv: -kv[1]):
            terminalreporter.write_line(f"{seconds / 60:7.1f} min  {path}")


def pytest_keyboard_interrupt():
    _run["interrupted"] = _run["finishing"] = True


def run_status():
    """Whether the saved run finished: an interrupted one must not pass for a whole run."""
    status = {"complete": not _run["interrupted"] and _run["cases_run"] == _run["cases"],
              "cases_run": _run["cases_run"], "cases": _run["cases"]}
    if not status["complete"]:
        status["reason"] = (STOPS[_run["stopped"] or "SIGINT"] if _run["interrupted"]
                            else "stopped early")
    if job := _run.get("job"):  # what else ran on the machine meanwhile
        _run["beside"] = status["beside"] = job.beside()
        status["load"] = {"start": job.data["load_start"], "end": jobs.load(),
                          "cpus": os.cpu_count()}
    return status


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    """A benchmark session that measured nothing, or whose run was asked for and not saved,
    fails, with one line on why."""
    _run["finishing"] = True
    benchmarks = any("benchmark" in getattr(item, "fixturenames", ()) for item in session.items)
    if benchmarks and _unavailable and not _loaded:
        fixes = " or ".join(f"`.tools/bin/{BACKENDS[name].fix}`" for name in _unavailable)
        _run["error"] = (
            f"measured nothing: no framework is importable in this Python "
            f"({', '.join(BACKENDS[name].package for name in _unavailable)}); run the suites with "
            f"`python3 run.py bench`, or {fixes}")
    else:
        _run["error"] = _run.get("unsaved") or nothing_saved(session.config)
    if _run["error"] and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def nothing_saved(config):
    """Why a run asked to be saved saved no benchmark (every one skipped), or None."""
    bench = getattr(config, "_benchmarksession", None)
    if not bench or not (bench.save or bench.autosave) or bench.benchmarks:
        return None
    why = max(_skips, key=_skips.get, default=None)
    return ("--benchmark-save: nothing was saved: no benchmark ran"
            + (f" ({sum(_skips.values())} skipped, e.g. {why})" if why else ""))


def pytest_unconfigure(config):
    for name, handler in _run.pop("handlers", {}).items():
        signal.signal(getattr(signal, name), handler)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if job := _run.pop("job", None):
        job.finish()
        if _run.get("beside") and reporter:
            line = jobs.beside_line(_run["beside"], job.data["load_start"], jobs.load())
            reporter.write_line(f"WARNING: {line}", yellow=True)
    if _run.get("error") and reporter:  # last, below the skip reasons
        reporter.write_line(f"ERROR: {_run['error']}", red=True)
