#!/usr/bin/env python3
"""Set up and run the suite: `python3 run.py bench` (the answer), `python3 run.py bench --job seeds`
(the seeds' experiments) or `python3 run.py test` (tests).

Needs Python 3.11 or 3.12 with pip (on another, it runs itself again under one it finds, or
one uv fetches into .pythons/): tox goes into .tools/, each framework into its own tox env.
"""
import argparse
import ast
import configparser
import contextlib
import glob
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import host
from catalog import BACKENDS
from report.build.compact import compact

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / ".tools"
# CPython builds uv fetches (python-build-standalone's, from GitHub) where this machine has no
# Python the pins install on, and uv itself (PyPI): pyenv would compile one, with build deps
PYTHONS = ROOT / ".pythons"
UV = "uv==0.13.9"
FETCH_RETRY_H = 24  # a failed fetch_python is not tried again for this long
VERSIONS = ROOT / "results" / "versions"  # runs on another framework release (VERSION_ENVS)


def tox_ini():
    """tox.ini as configparser reads it (no interpolation: tox's own braces stay)."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "tox.ini")
    return config


def tox_envs():
    """tox.ini's env_list, in its order (the order `tox` and `run.py bench` run them in)."""
    return tuple(e.strip() for e in tox_ini().get("tox", "env_list").split(",") if e.strip())


FRAMEWORK_ENVS = tuple(env for env in tox_envs() if env in BACKENDS)  # each backend's own env
PROFILES = ("quick", "default", "paper")
# a framework on another release (tox.ini): never run by default; bench saves its runs under
# results/versions/<env>/ with a report of their own there, so the README keeps the pins' runs
VERSION_ENVS = ("torch-release", "jax-release")
# disk each env takes once installed, in GB (a framework's own: catalog.BACKENDS; du on the 2-core
# AMD EPYC, tox.ini's pins; torch-release its default 2.13.0 CPU wheel), and a margin for pip's
# temporary files and the runs' caches
ENV_GB = {**{env: f.env_gb for env, f in BACKENDS.items()}, "torch-release": 1.1,
          "jax-release": 0.7, "report": 0.2, "browser": 0.2}
MARGIN_GB = 1.0
# --device cuda: each framework env with its CUDA wheels, in an env folder of its own (`<env>-gpu`),
# by tox's overrides of the env's settings (tox.ini pins what the CPU answer measures); torch's
# PyPI wheel already brings CUDA. Resolved on a CPU here; only torch, JAX's cuda13 plugin and CuPy
# 14 ran on a GPU so far (docs/METHOD.md, On a GPU)
GPU_OVERRIDES = {
    "tf": ("testenv:tf.deps={[testenv]deps}\ntensorflow[and-cuda]==2.21.0",),
    "jax": ('testenv:jax.deps+=jax[cuda12]==0.12.0.1; python_version >= "3.12"',
            'testenv:jax.deps+=jax[cuda12]==0.10.2; python_version < "3.12"',
            "testenv:jax.set_env+=JAX_PLATFORMS=cuda,cpu"),
    "chainer": ("testenv:chainer.deps+=cupy-cuda12x>=13,<14",
                *(f"testenv:chainer.deps+=nvidia-{lib}-cu12" for lib in
                  ("cuda-runtime", "cuda-nvrtc", "cublas", "curand", "cufft", "cusparse",
                   "cusolver"))),
    "torch": (),
}
GPU_GB = {"tf": 3.6, "jax": 3.2, "chainer": 2.6, "torch": 5.5}  # the same envs with CUDA wheels
# the Python 3 minors every framework env's pins install on, the answer's first: torch 2.15 has
# no wheel below 3.11, Chainer's NumPy 1.26 none above 3.12 (nor tensorflow-cpu 2.21 above 3.13)
SUITE_PYTHONS = (11, 12)
PYTHON = sys.version_info[:2]  # this Python's (3, minor)
# Chainer 7.8.1 imports numpy.distutils, which NumPy 1.26 lacks on Python 3.12: a stub (envs/)
CHAINER_ON_312 = "testenv:chainer.set_env+=PYTHONPATH={tox_root}/envs/chainer_py312"
# each env's minutes in the test command (a framework's own: catalog.BACKENDS; clean clone at
# 0dbf780, 2-core AMD EPYC Zen 4, install included; the release envs: about as long as their
# pins'): run-parallel starts envs in the order given, one per core, so the longest start first.
# The report env's 602 framework-free tests outlast Chainer's env: 133 s against 99 (Zen 4,
# 13ee955), 173 against 112 (Zen 3, 19accaf)
TEST_MINUTES = {**{env: f.test_minutes for env, f in BACKENDS.items()},
                "torch-release": BACKENDS["torch"].test_minutes,
                "jax-release": BACKENDS["jax"].test_minutes, "report": 2.3, "browser": 1.0}
OWN_TESTS = ("report", "browser")  # test envs that run their own test list (tox.ini), no suites


DEVICE = ["cpu"]  # the session's --device: cuda gives each framework env its GPU form


def env_dir(env):
    """The env's folder under .tox/: its own name, or `<env>-gpu` for its GPU form."""
    return f"{env}-gpu" if GPU_OVERRIDES.get(env) and DEVICE[0] == "cuda" else env


def env_args(envs):
    """tox's overrides of the envs: their GPU forms under --device cuda, and Chainer's shim where
    its env runs on Python 3.12 (tox's own Python, which has no base_python for it)."""
    shim = ("-x", CHAINER_ON_312) if "chainer" in envs and PYTHON == (3, 12) else ()
    if DEVICE[0] != "cuda":
        return shim
    return shim + tuple(arg for env in envs if GPU_OVERRIDES.get(env)
                        for arg in ("-x", f"testenv:{env}.env_dir={{work_dir}}/{env_dir(env)}",
                                    *(a for o in GPU_OVERRIDES[env] for a in ("-x", o))))


def tox():
    """Path to tox in .tools/, installing it on first use, and again where .tools/ holds another
    Python than this one: the envs without a base_python in tox.ini run on tox's own Python."""
    exe = TOOLS / ("Scripts" if os.name == "nt" else "bin") / "tox"
    if exe.exists() and (made_with := tools_python()) not in (None, PYTHON):
        print(f"run.py: {TOOLS} holds Python {'.'.join(map(str, made_with))}, not this "
              f"{'.'.join(map(str, PYTHON))}: installing tox there again", flush=True)
        shutil.rmtree(TOOLS)
    if not exe.exists():
        print(f"run.py: installing tox into {TOOLS}", flush=True)
        make_tools(exe.parent / "python")
    return str(exe)


def make_tools(python):
    """.tools/ with tox in it: a venv with its own pip, or, where this Python has no ensurepip
    (Debian's and Ubuntu's without python3-venv), one without pip that this Python's pip installs
    into (pip's --python); SystemExit with one line where neither can."""
    try:
        venv.create(TOOLS, with_pip=True)
        pip = [str(python), "-m", "pip"]
    except subprocess.CalledProcessError:
        shutil.rmtree(TOOLS, ignore_errors=True)
        venv.create(TOOLS, with_pip=False)
        pip = [sys.executable, "-m", "pip", "--python", str(python)]
    done = subprocess.run([*pip, "install", "-q", "tox>=4.20,<5"])
    if done.returncode != 0:
        shutil.rmtree(TOOLS, ignore_errors=True)
        raise SystemExit(f"run.py: could not install tox into {TOOLS} (pip exited "
                         f"{done.returncode}, its lines above): this Python needs ensurepip "
                         "(Debian, Ubuntu: the python3-venv package) or pip 22.3 or newer "
                         "(python3-pip), and PyPI or a package index in reach")


def tools_python():
    """(3, minor) of the Python .tools/ was made with (its pyvenv.cfg), None where it cannot say."""
    try:
        lines = (TOOLS / "pyvenv.cfg").read_text().splitlines()
    except OSError:
        return None
    said = {k.strip(): v.strip() for k, _, v in (line.partition("=") for line in lines)}
    try:
        return tuple(int(n) for n in said["version"].split(".")[:2])
    except (KeyError, ValueError):
        return None


STOP_S = 30  # how long a stopped child may take to save its partial run before it is killed
EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129}
PYTEST_USAGE_ERROR = 4  # pytest.ExitCode.USAGE_ERROR, which tox passes on as its own exit


class Stopped(KeyboardInterrupt):
    """A SIGTERM or SIGHUP, which stops the job as Ctrl-C does."""


def _raise_stopped(signum, frame):
    raise Stopped(signal.Signals(signum).name)


def _own_group():
    # tox stops pytest with SIGINT, then SIGTERM and SIGKILL half a second later, which cuts its
    # save of the partial run short: tox ignores the stop signals, and pytest takes them (conftest)
    os.setpgrp()
    for name in EXIT_CODES:
        signal.signal(getattr(signal, name), signal.SIG_IGN)


def _ctrl_c_heard():
    # a job started in the background (`nohup`, `&`) inherits SIGINT ignored, and so would tox and
    # pip: the set-up's stop would wait STOP_S for the SIGKILL
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def call(*args):
    print("run.py:", " ".join(args), flush=True)
    if os.name != "posix":
        return subprocess.run(args, cwd=ROOT).returncode
    child = subprocess.Popen(args, cwd=ROOT, preexec_fn=_own_group)
    try:
        return child.wait()
    except KeyboardInterrupt as stop:
        stop_child(child, getattr(signal, stop.args[0] if isinstance(stop, Stopped) else "SIGINT"))
        raise


def stopped(how):
    """How a stop is said: 'interrupted (Ctrl-C)' or 'stopped (SIGTERM)'."""
    return "interrupted (Ctrl-C)" if how == "SIGINT" else f"stopped ({how})"


class SetupStopped(KeyboardInterrupt):
    """A stop that came while tox built or checked the envs: nothing ran."""


def set_up(envs):
    """Build (or check) the envs before anything runs, as its own step that a stop ends: tox
    takes Ctrl-C and stops pip (during the runs it ignores stops so that pytest can save), and the
    next run repairs an env left half-built (SetupStopped with the env names). The envs'
    commands_pre (Chainer's source build) run here too: in the run they too would ignore a stop,
    which then waited STOP_S. pip's temporary files go to a folder of the step's own, removed
    when it ends: a stopped pip left its unpacked wheels in the system's (2.5 GB for torch's env)."""
    print("run.py: setting up", ", ".join(envs), flush=True)
    steps = [(envs, [tox(), *env_args(envs), *parallel(envs), "--notest"])]
    steps += [([env], [tox(), *env_args([env]), "exec", "-e", env, "--", *command])
              for env in envs for command in commands_pre(env)]
    with tempfile.TemporaryDirectory(prefix="graphbench-setup.",
                                     ignore_cleanup_errors=True) as scratch:
        env = {**os.environ, "TMPDIR": scratch}
        for names, argv in steps:
            if code := _set_up_step(names, argv, env):
                return code
    return 0


def commands_pre(env):
    """tox.ini's commands_pre of `env`, each an argv (a source build: `pip install ...`)."""
    lines = tox_ini().get(f"testenv:{env}", "commands_pre", fallback="").splitlines()
    return [shlex.split(line) for line in lines
            if line.strip() and not line.lstrip().startswith("#")]


def _set_up_step(envs, argv, env):
    """Run one set-up command (tox with TMPDIR `env`), hearing Ctrl-C; SetupStopped on a stop."""
    if os.name != "posix":
        return subprocess.run(argv, cwd=ROOT, env=env).returncode
    child = subprocess.Popen(argv, cwd=ROOT, start_new_session=True, env=env,
                             preexec_fn=_ctrl_c_heard)
    try:
        return child.wait()
    except KeyboardInterrupt as stop:
        stop_child(child, signal.SIGINT)  # tox ends pip on Ctrl-C, on SIGTERM it would die
        with contextlib.suppress(ProcessLookupError):  # a pip that outlived tox
            os.killpg(child.pid, signal.SIGKILL)
        raise SetupStopped(stop.args[0] if isinstance(stop, Stopped) else "SIGINT",
                           ",".join(envs)) from None


def stop_child(child, how):
    """Pass the stop to the child's process group and wait while it saves; kill it if it hangs."""
    previous = {name: signal.signal(getattr(signal, name), signal.SIG_IGN) for name in EXIT_CODES}
    try:
        os.killpg(child.pid, how)
        child.wait(STOP_S)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    except ProcessLookupError:
        child.wait()
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[0].split()),
        usage="%(prog)s {bench,test} [options] [-- PYTEST_ARGS]")
    parser.add_argument("job", choices=("bench", "test"),
                        help="bench: time the suites in each env, save the runs under results/ "
                             "and draw the report (the default profile's: README.md, RESULTS.md; "
                             "with --user: your model's own); test: each env's tests")
    parser.add_argument("--profile", choices=PROFILES,
                        help="the suites' profile (bench: default; test: quick)")
    parser.add_argument("--envs", help="comma list of envs: framework envs for bench (default "
                                       f"{','.join(FRAMEWORK_ENVS)}); test also takes `report` and "
                                       "`browser` (the results page in Chromium); "
                                       f"{', '.join(VERSION_ENVS)}: torch or JAX on another "
                                       "release")
    parser.add_argument("--job", dest="job_name", metavar="JOB",
                        help="bench: answer (the README's answer, the default) or seeds (the "
                             "seeds' experiments): suites/profiles.py JOBS")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: the framework envs with their CUDA wheels (envs of their own), "
                             "the suites on the GPU (pytest's --device cuda)")
    parser.add_argument("--user", metavar="FILE", help="bench: your own model file instead of the "
                                                       "suites (README: Your own model)")
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    args, pytest_args = parser.parse_args(argv[:split]), argv[split + 1:]
    valid = FRAMEWORK_ENVS + VERSION_ENVS + (OWN_TESTS if args.job == "test" else ())
    envs = (tuple(e for e in valid if e not in VERSION_ENVS) if args.envs is None
            else tuple(e for e in args.envs.split(",") if e))
    if not envs:
        parser.error(f"--envs {args.envs!r} names no env: choose from {', '.join(valid)}")
    for n, env in enumerate(envs):
        if env not in valid:
            parser.error(f"unknown env {env!r}: choose from {', '.join(valid)}")
        if env in envs[:n]:  # bench would time it twice as one job; tox would run it once
            parser.error(f"--envs names {env!r} twice: name each env once")
    if args.user and args.job != "bench":
        parser.error("--user goes with bench: python3 run.py bench --user FILE")
    DEVICE[:] = [args.device]
    if "--device" in pytest_args:  # run.py must know: the GPU envs differ from the CPU ones
        parser.error("--device goes before `--`: python3 run.py bench --device cuda")
    if args.device == "cuda":
        if bad := [e for e in envs if e not in GPU_OVERRIDES and e not in OWN_TESTS]:
            parser.error(f"--device cuda: env {bad[0]!r} has no GPU form; choose from "
                         f"{', '.join(GPU_OVERRIDES)}")
        pytest_args = ["--device", "cuda", *pytest_args]
    if (status := suite_python(argv)) is not None:
        return status
    if problem := (job_problem(args) or (args.device == "cuda" and no_gpu())
                   or (args.job == "bench" and results_problem())):
        print(f"run.py: {problem}", file=sys.stderr)
        return 2
    jax_python(envs)
    if not args.user and (short := disk_short((*envs, "report"), args.device)):
        print(f"run.py: {short}", file=sys.stderr)
        return 1
    started = time.time()
    previous = {name: signal.signal(getattr(signal, name), _raise_stopped)
                for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)}
    try:
        if args.user:
            return bench_user(parser, args.user, args.envs and envs, args.profile or "default",
                              pytest_args, args.device)
        if args.job == "test":
            return test(parser, envs, args.profile, pytest_args)
        return bench(envs, args.profile or "default", pytest_args, args.bench_job)
    except SetupStopped as stop:
        how, envs = stop.args
        ran = saved_since(started)  # the envs' before it
        with contextlib.suppress(OSError):
            print(f"run.py: {stopped(how)} while setting up {envs}: nothing ran"
                  f"{' in it; ' + kept(ran) if ran else ''}; the next run finishes or repairs "
                  f"the env (`.tools/bin/tox -r -e {envs}` rebuilds it){go_on(stop, argv)}",
                  file=sys.stderr)
        return EXIT_CODES[how]
    except KeyboardInterrupt as stop:
        how = stop.args[0] if isinstance(stop, Stopped) else "SIGINT"
        with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone
            said = getattr(stop, "said", None) or kept(saved_since(started))
            print(f"run.py: {stopped(how)}; {said}{go_on(stop, argv)}", file=sys.stderr)
        return EXIT_CODES[how]
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def go_on(stop, argv):
    """What runs the rest of a stopped bench job, as '; ...', or '': the command of the envs it
    left (`argv` with their --envs: each env's runs are its own, so the report draws on these
    and the runs kept alike), else the report it stopped."""
    if left := getattr(stop, "left", None):
        return f"; to go on, `{again(argv, left)}` runs the envs not finished, then the report"
    if draw := getattr(stop, "draw", None):
        return f"; `.tools/bin/tox -e report -- {shlex.join(draw)}` draws it"
    return ""


def again(argv, envs):
    """`python3 run.py` with `argv`, its --envs (or an abbreviation argparse took) now `envs`."""
    split = argv.index("--") if "--" in argv else len(argv)
    head, skip = [], False
    for arg in argv[:split]:
        name = arg.split("=", 1)[0]
        if skip or (len(name) > 2 and "--envs".startswith(name)):
            skip = not skip and "=" not in arg
            continue
        head.append(arg)
    return shlex.join(["python3", "run.py", *head, "--envs", ",".join(envs), *argv[split:]])


def results_problem():
    """Why the runs could not be saved under results/, in one line, or '' (pytest would stop at
    its first save with an internal error)."""
    folder = ROOT / "results"
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a folder: move it away (the runs are saved there)"
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} is not writable for this user: the runs are saved there"
    return ""


WSL_LIB = "/usr/lib/wsl/lib"  # where WSL 2 mounts the Windows GPU driver's libraries and tools


def no_gpu():
    """Why --device cuda cannot run here, in one line, or '': checked before the CUDA wheels'
    gigabytes are installed, as the suites would find no GPU only after."""
    if glob.glob("/dev/nvidia[0-9]*"):  # the driver's device
        return ""
    # WSL's /dev/dxg is any vendor's GPU: its NVIDIA driver puts nvidia-smi in WSL_LIB
    smi = "nvidia-smi" if shutil.which("nvidia-smi") or not glob.glob("/dev/dxg") else \
        os.path.join(WSL_LIB, "nvidia-smi")
    try:
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        why = getattr(error, "strerror", None) or error
        return (f"--device cuda: no NVIDIA GPU here (nvidia-smi: {why}); without --device the "
                "suites run on the CPU")
    if listed.returncode != 0 or "GPU" not in listed.stdout:
        said = (listed.stderr or listed.stdout).strip().splitlines()
        return (f"--device cuda: no NVIDIA GPU here (nvidia-smi -L exited {listed.returncode}"
                f"{': ' + said[0][:100] if said else ''}); without --device the suites run on "
                "the CPU")
    return ""


def job_problem(args):
    """What is wrong with --job, in one line, or ''; sets args.bench_job (None for quick, whose
    saved run is one job of its own)."""
    args.bench_job = None
    if args.job_name is None:
        args.bench_job = None if args.profile == "quick" or args.job != "bench" else "answer"
        return ""
    if args.job != "bench" or args.user:
        return f"--job goes with bench on the suites: python3 run.py bench --job {args.job_name}"
    if args.job_name not in (jobs := job_names()):
        return f"unknown job {args.job_name!r}: choose one of {', '.join(jobs)}"
    if args.profile == "quick":
        return ("--profile quick is one job of its own (its headline suites in about 10 minutes): "
                "give --job with --profile default or paper")
    args.bench_job = args.job_name
    return ""


def job_names():
    """suites/profiles.py's JOBS, its names, read without importing it: its models import NumPy,
    which the Python that runs run.py (a fresh machine's, with pip only) need not have."""
    tree = ast.parse((ROOT / "suites" / "profiles.py").read_text())
    return next(tuple(ast.literal_eval(key) for key in node.value.keys) for node in tree.body
                if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets]
                == ["JOBS"])


def kept(new):
    """What a stopped job kept, in a few words: each run it saved, and whether it finished."""
    if not new:
        return "no run was saved"
    runs = []
    for path in new:
        status = run_status(path)
        runs.append(f"{path.relative_to(ROOT)} (complete)" if status.get("complete", True) else
                    f"{path.relative_to(ROOT)} (unfinished, {status.get('cases_run')} of "
                    f"{status.get('cases')} cases: the report leaves it out)")
    return f"kept {', '.join(runs)}; the README was not redrawn"


def run_status(path):
    """A saved run's graphbench_run (conftest.run_status), {} where it has none."""
    try:
        return json.loads(path.read_text()).get("graphbench_run") or {}
    except (OSError, ValueError):
        return {}


def shared(new):
    """A warning line per new run that another graphbench job ran beside (suites/jobs.py)."""
    for path in new:
        if jobs := run_status(path).get("beside"):
            print(f"run.py: warning: {path.relative_to(ROOT)}: another graphbench job ran beside "
                  f"it (pid {', '.join(str(job['pid']) for job in jobs)}): its times are "
                  "shared-core times", file=sys.stderr)


def jax_python(envs):
    """Point tox's jax env at a Python 3.12 (JAX 0.12 needs it: tox.ini), or say in one line that
    there is none and the env falls back to Python 3.11 with JAX 0.10.2."""
    if "jax" not in envs or os.environ.get("GRAPHBENCH_JAX_PYTHON"):
        return
    if found := python312() or fetch_python(12):
        os.environ["GRAPHBENCH_JAX_PYTHON"] = found
    else:
        print("run.py: no Python 3.12 found or fetched: the jax env runs JAX 0.10.2 on Python "
              "3.11 (JAX 0.12 needs 3.12)", flush=True)


def python312():
    """The path of a Python 3.12 that runs, or None (python_of)."""
    return python_of(12)


def python_of(minor):
    """The path of a Python 3.`minor` that runs, or None: `python3.<minor>` on the PATH, else one
    under pyenv's versions (pyenv's shim fails for a version that is installed but not selected),
    else one fetched into PYTHONS."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    name = f"python3.{minor}"
    for exe in [shutil.which(name),
                *sorted(glob.glob(f"{root}/versions/3.{minor}.*/bin/{name}"), reverse=True),
                *sorted(glob.glob(f"{PYTHONS}/cpython-3.{minor}.*/bin/{name}"), reverse=True)]:
        try:
            if exe and subprocess.run([exe, "-c", "import sys; assert sys.version_info[:2] == "
                                       f"(3, {minor})"], capture_output=True,
                                      timeout=60).returncode == 0:
                return exe
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def suite_python(argv):
    """Where this Python is not one the pins install on, run.py again under one that is (the
    answer's first), or an exit status after one line naming what to install; None on 3.11, 3.12."""
    if PYTHON[0] == 3 and PYTHON[1] in SUITE_PYTHONS:
        return None
    here, wanted = ".".join(map(str, PYTHON)), " or ".join(f"3.{m}" for m in SUITE_PYTHONS)
    said = f"run.py: Python {here} here, and the pinned frameworks install on {wanted} only"
    if exe := next(filter(None, map(python_of, SUITE_PYTHONS)), None):
        print(f"{said}: running under {exe}", flush=True)
    else:
        print(f"{said}; none on the PATH or under pyenv", flush=True)
        if exe := fetch_python(SUITE_PYTHONS[0]):
            print(f"run.py: running under {exe}", flush=True)
    if exe:
        os.execv(exe, [exe, str(Path(__file__).resolve()), *argv])
    print(f"{said} (torch 2.15 needs 3.11 or newer, Chainer's NumPy 1.26 3.12 or older), and "
          f"none was found or could be fetched (uv's lines above): install one (pyenv, or your "
          "system's python3.11 package) and run run.py with it", file=sys.stderr)
    return 2


def fetch_python(minor):
    """The path of a CPython 3.`minor` that uv fetched into PYTHONS (uv installed there first by
    this Python's pip), or None after uv's or pip's lines: offline, or no pip. A failed fetch is
    not tried again for FETCH_RETRY_H hours (offline, pip's retries took 8 s to minutes a call)."""
    failed = PYTHONS / f"fetch-failed-3.{minor}"
    if failed.exists() and (age_s := time.time() - failed.stat().st_mtime) < FETCH_RETRY_H * 3600:
        print(f"run.py: not fetching CPython 3.{minor}: the last try failed {age_s / 3600:.1f} h "
              f"ago (offline?); delete {failed} to try again", flush=True)
        return None
    found = _fetch_with_uv(minor)
    if found:
        failed.unlink(missing_ok=True)
    else:
        PYTHONS.mkdir(exist_ok=True)
        failed.touch()
    return found


def _fetch_with_uv(minor):
    """fetch_python's one try: uv by pip into PYTHONS, then the Python by uv; None if either
    fails."""
    uv = PYTHONS / "uv" / ("Scripts" if os.name == "nt" else "bin") / "uv"
    if not uv.exists():
        print(f"run.py: installing {UV} into {uv.parent.parent}", flush=True)
        if subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target",
                           str(uv.parent.parent), UV]).returncode != 0:
            shutil.rmtree(uv.parent.parent, ignore_errors=True)
            return None
    print(f"run.py: fetching CPython 3.{minor} into {PYTHONS} with uv (python-build-standalone's "
          "build)", flush=True)
    done = subprocess.run([str(uv), "python", "install", f"3.{minor}", "--install-dir",
                           str(PYTHONS), "--no-bin"])  # --no-bin: nothing linked into ~/.local/bin
    return python_of(minor) if done.returncode == 0 else None


def free_gb():
    return shutil.disk_usage(ROOT).free / 1e9


def disk_short(envs, device="cpu"):
    """What is missing, in one line, when the envs tox has yet to create need more disk than is
    free (pip would stop half-way through an install with `No space left on device`); else ''."""
    gpu = device == "cuda"
    new = [env for env in dict.fromkeys(envs)
           if not (ROOT / ".tox" / (env_dir(env) if gpu else env)).exists()]
    sizes_gb = {env: GPU_GB.get(env, ENV_GB[env]) if gpu else ENV_GB[env] for env in new}
    need, free = sum(sizes_gb.values()) + MARGIN_GB, free_gb()
    if not new or free >= need:
        return ""
    sizes = ", ".join(f"{env} {size:g}" for env, size in sizes_gb.items())
    return (f"{free:.1f} GB free on the disk of {ROOT}; installing the envs {sizes} GB needs about "
            f"{need:.1f}: free some space, or name fewer envs with --envs")


def test(parser, envs, profile, pytest_args):
    """The tests in the given envs; a profile or pytest arguments reach the framework envs."""
    frameworks, own = [e for e in envs if e not in OWN_TESTS], [e for e in envs if e in OWN_TESTS]
    if pytest_args and own:
        parser.error(f"pytest arguments reach the framework envs only (the {own[0]} env runs its "
                     "own test list): add --envs " + ",".join(frameworks or FRAMEWORK_ENVS))
    if profile and not frameworks:
        parser.error("--profile sets the suites' profile, which the report env does not run")
    if setup := set_up(envs):
        return setup
    if not (profile or pytest_args):
        return call(tox(), *env_args(envs), *parallel(envs))
    failed = call(tox(), *env_args(frameworks), *parallel(frameworks), "--", "tests",
                  "suites", "--benchmark-disable", "--profile", profile or "quick", "-m",
                  "not framework_free", *pytest_args)  # those run in the report env
    return call(tox(), *parallel(own)) or failed if own else failed


def parallel(envs):
    """tox's arguments to run several envs side by side, one per core, the longest first (else
    the torch env, started third, ends alone minutes after the rest): most of a test env's time
    is single-threaded (imports, tracing, compiling), so two envs share two cores well; a failed
    env's output is printed whole when it ends, a passing env's summed up in one line."""
    if len(envs) < 2:
        return ("-e", *envs)
    longest_first = sorted(envs, key=lambda env: -TEST_MINUTES[env])
    return ("run-parallel", "-p", "auto", "-e", ",".join(longest_first))


def bench(envs, profile, pytest_args, job="answer"):
    """The job's suites in each framework env, saved under the profile's name (and the job's, but
    for the answer), then the report, which ends by printing the answer for the runs just made; a
    line that updates says where each env is (suites/progress.py)."""
    failed, empty, new, refused, accepted = [], [], set(), "", False
    name = profile if job in (None, "answer") else f"{profile}-{job}"
    selection, done = ("--job", job) if job else (), []
    try:
        for n, env in enumerate(envs, 1):
            os.environ["GRAPHBENCH_PROGRESS"] = f"{env}, env {n} of {len(envs)}"
            had = saved_runs()
            if set_up([env]):
                empty.append(env)
                continue
            storage = [f"--benchmark-storage={VERSIONS / env}"] if env in VERSION_ENVS else []
            before = host.reading()
            code = call(tox(), *env_args([env]), "-e", env, "--", "suites", "-v", "-p",
                        "suites.progress", "--profile", profile, *selection,
                        f"--benchmark-save={name}", *storage, *pytest_args)
            mine = saved_by(saved_runs() - had, env)
            # half the bytes (results/ travels with every GPU call, 64 MiB at most), and the
            # host's speed
            compact(mine, {"graphbench_host": host.between(before, host.reading())})
            new |= mine
            if code:
                (failed if mine else empty).append(env)
            if not (mine or accepted) and (refused := refused_by_each(code, env, envs[n:])):
                break
            accepted |= code != PYTEST_USAGE_ERROR
            done += [env] if code == 0 else []
    except KeyboardInterrupt as stop:  # what is left to run, for main's line (go_on)
        stop.left = [env for env in envs if env not in done]
        raise
    finally:
        os.environ.pop("GRAPHBENCH_PROGRESS", None)
    new, version_failed = sorted(new), False
    for env in VERSION_ENVS:  # its runs' own report; never the README
        if mine := [p for p in new if p.is_relative_to(VERSIONS / env)]:
            version_failed |= bool(call(tox(), "-e", "report", "--",
                                        *report_command(profile, mine, VERSIONS / env)))
    if all(env in VERSION_ENVS for env in envs):
        return 1 if failed or empty or version_failed else 0
    report = report_command(profile, [p for p in new if not p.is_relative_to(VERSIONS)])
    if failed or empty:  # the report changes only when the whole job succeeded
        shared(new)
        said = [f"benchmark runs failed in: {', '.join(failed)} (their partial runs are kept)"
                ] if failed else []
        said += [f"nothing ran or was saved in: {', '.join(empty)} (the error above)"] if empty else []
        said += [refused] if refused else []
        how = (f"`.tools/bin/tox -e report -- {' '.join(report)}` draws it" if new
               else "no new run to draw")
        print(f"run.py: {'; '.join(said)}; README not redrawn: {how}", file=sys.stderr)
        return 1
    try:
        drawn = call(tox(), "-e", "report", "--", *report)
    except KeyboardInterrupt as stop:
        stop.draw = report
        raise
    shared(new)  # last, below the report's answer
    return 1 if drawn or version_failed else 0


def refused_by_each(code, env, rest):
    """The line for the envs `rest`, not run, where pytest in `env` refused the arguments (exit
    `code`), else '': on the CPU a usage error is the arguments' (pytest's, conftest's options),
    which reach every env alike, and each later env's set-up would be spent on the same error; on
    a GPU it can be one framework's (its CUDA build), and the others go on."""
    if code != PYTEST_USAGE_ERROR or DEVICE[0] != "cpu" or not rest:
        return ""
    return (f"{', '.join(rest)} not run: pytest refused the arguments in {env}, as it would "
            "in each")


def saved_by(paths, env):
    """The runs among `paths` that `env` saved: a job beside this one saves into the same
    folders, and its runs are not this job's answer (a run that names no tox env counts)."""
    def tox_env(path):
        try:
            return json.loads(Path(path).read_text())["machine_info"]["graphbench"]["tox_env"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
    return {path for path in paths if tox_env(path) in (env, None)}


def saved_since(started):
    """The saved runs written since `started` (time.time()), sorted."""
    return sorted(p for p in saved_runs() if p.stat().st_mtime >= started)


def saved_runs():
    """The saved suite runs under results/ (machine folder / NNNN_profile.json), and under
    results/versions/<env>/ those of the VERSION_ENVS."""
    return set((ROOT / "results").glob("*/[0-9][0-9][0-9][0-9]_*.json")) | set(
        VERSIONS.glob("*/*/[0-9][0-9][0-9][0-9]_*.json"))


def report_command(profile, new, results=None):
    """The report of a main job: the README for `default`, else a report file of the profile's
    own in the machine's folder; either way the answer for the `new` runs printed at the end.
    `results`: a folder of another release's runs (VERSIONS), whose report is a file there."""
    answer = [arg for path in new for arg in ("--answer-for", str(path.relative_to(ROOT)))]
    if results:
        folder = new[0].parent.relative_to(ROOT)
        return ("python", "-m", "report", "--results", str(results.relative_to(ROOT)),
                "--profile", profile, "--report", str(folder / f"report-{profile}.md"),
                "--charts", str(folder / f"charts-{profile}"), *answer)
    if profile == "default" or not new:
        return ("python", "-m", "report", "--readme", "README.md", "--charts", "docs/charts",
                *answer)
    folder = new[0].parent.relative_to(ROOT)
    return ("python", "-m", "report", "--profile", profile, "--report",
            str(folder / f"report-{profile}.md"), "--charts", str(folder / f"charts-{profile}"),
            *answer)


def bench_user(parser, path, envs, profile, pytest_args, device="cpu"):
    """The user suite on FILE in the env of each framework it defines; its own report, no README."""
    from backends.user import UserFileError, frameworks_in
    try:
        found = frameworks_in(path)
    except UserFileError as error:
        parser.error(str(error))
    chosen = [fw for fw in found if not envs or fw in envs]
    if not chosen:
        parser.error(f"--envs {','.join(envs)}: {path} defines a model for {', '.join(found)} only")
    if short := disk_short(chosen, device):
        print(f"run.py: {short}", file=sys.stderr)
        return 1
    import tempfile
    started = time.time()
    handle, written = tempfile.mkstemp(prefix="graphbench-user-causes-")
    os.close(handle)
    os.environ["GRAPHBENCH_USER_CAUSES"] = written  # each failure's one line (user/test_user.py)
    failed, refused, name, done = [], "", Path(path).stem, []
    try:
        for n, fw in enumerate(chosen, 1):
            code = call(tox(), *env_args([fw]), "-e", fw, "--", "user", "-v", "--user",
                        str(Path(path).resolve()), "--profile", profile, *pytest_args)
            failed += [fw] if code else []
            done += [] if code else [fw]
            # a usage error with a cause written is the file's, for this framework
            if (n == 1 and not Path(written).read_text().strip()
                    and (refused := refused_by_each(code, fw, chosen[n:]))):
                break
    except KeyboardInterrupt as stop:  # main's line: the report kept, the frameworks left
        stop.left = [fw for fw in chosen if fw not in done]
        reports = [str(r.relative_to(ROOT)) for r in user_reports(name, started)]
        stop.said = (f"kept {', '.join(reports)} (measured: {', '.join(done) or 'none'})"
                     if reports else "no user report was saved")
        raise
    finally:
        os.environ.pop("GRAPHBENCH_USER_CAUSES")
        causes = dict.fromkeys(Path(written).read_text().splitlines())
        os.unlink(written)
    for report in user_reports(name, started):
        print(user_answer(report.read_text()), flush=True)
        print(f"run.py: the full report: {report.relative_to(ROOT)}", flush=True)
    if failed:
        print(f"run.py: the user run failed in: {', '.join(failed)} (reports saved so far are "
              f"kept){'; ' + refused if refused else ''}", file=sys.stderr)
    for cause in causes:  # last: what to fix, not tox's and pytest's banners above it
        print(f"run.py: {cause}", file=sys.stderr)
    return 1 if failed else 0


def user_reports(name, started):
    """The user reports of model `name` saved since `started` (this run's, not an earlier one's)."""
    return [report for report in sorted((ROOT / "results" / "user").glob(f"*/user-{name}.md"))
            if report.stat().st_mtime >= started]


def user_answer(report):
    """The answer at the head of a user report: its recommendation paragraphs, no tables."""
    head = report.split("\nMachine `", 1)[0].split("\n### ", 1)[0]
    return head.strip() + "\n"


if __name__ == "__main__":
    sys.exit(main())
