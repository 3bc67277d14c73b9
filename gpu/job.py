"""The GPU job: the plan's steps this GPU model still lacks at this timing code, in priority order,
until a deadline; each step's run is packed into $OUT as soon as it ends, so a cut call keeps what
finished. Run from the repository root on the GPU machine:

  GRAPHBENCH_COMMIT=... GRAPHBENCH_CODE=... OUT=folder python3 gpu/job.py --seconds 500

(both from `python3 gpu/provenance.py` here). DEVICE=cpu is the dry run of the same steps on a CPU,
with each backend's Python from GPU_JOB_PYTHON_<BACKEND> (a tox env's); its cost ledger
(findings/costs_*.json in GPU_JOB_STORE), copied to results/findings/dry-run/, sizes the steps no
GPU ran yet (gpu.plan.dry_estimates). Back here: `python3 gpu/take_back.py FOLDER` puts the runs
and studies where the report reads them."""
import argparse
import contextlib
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from gpu.measured import newest_machine  # noqa: E402
from gpu.plan import (BACKENDS, GPU_ARGS, GRACE_S, JOB_START_S, NO_ISA_PROBES,  # noqa: E402
                      PLAN, UNSURE, UNSURE_MARGIN, WHOLE_CALL_S, missing, whole_of)

STORE = Path(os.environ.get("GPU_JOB_STORE", "/tmp/gpu-results"))  # kept while the machine is
RUNS = STORE / "Linux-CPython-3.12-64bit"  # pytest-benchmark's folder there
STUDIES = STORE / "findings"


def log(*words):
    print(f"== {time.strftime('%H:%M:%S')}", *words, flush=True)


class NoGPU(Exception):
    """Why this machine cannot run the GPU job, in one line."""


def gpu_model(device):
    """The GPU's model as nvidia-smi names it ('NVIDIA H100 80GB HBM3'); a dry run's 'cpu'."""
    if device == "cpu":
        return "cpu"
    if device != "cuda":
        raise NoGPU(f"DEVICE={device}: choose cuda (the default) or cpu (the dry run)")
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        raise NoGPU(f"no NVIDIA GPU here (nvidia-smi: {error}); DEVICE=cpu runs the dry run "
                    "on this CPU") from None
    if out.returncode != 0 or not out.stdout.strip():
        raise NoGPU(f"no NVIDIA GPU here (nvidia-smi exited {out.returncode}: "
                    f"{(out.stderr or out.stdout).strip()[:120]}); DEVICE=cpu runs the dry run")
    return out.stdout.splitlines()[0].strip()


def cpu_name():
    """This machine's CPU as /proc/cpuinfo names it, with its family and model ('AMD EPYC family
    26 model 2'): a dry run's costs hold for one CPU."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or platform.machine()
    field = dict(re.findall(r"^(model name|cpu family|model)\s*:\s*(.*)$", info, re.M)[:3])
    return (f"{field.get('model name', platform.machine())} family {field.get('cpu family', '?')} "
            f"model {field.get('model', '?')}")


def environment(device):
    """The children's environment: caches as the tox envs set them, Chainer from its wheel."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0",
           "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
           "TORCHINDUCTOR_CACHE_DIR": str(STORE / "inductor-cache"),
           "JAX_COMPILATION_CACHE_DIR": str(STORE / "jax-cache"),
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
           "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1"}
    if device == "cpu":  # the dry run takes the GPU's busy points too (Profile.on_device)
        env["GRAPHBENCH_BUSY_POINTS"] = "1"
    wheels = sorted(ROOT.glob(".whl/chainer-*.whl"))
    if device == "cuda" and not wheels and importlib.util.find_spec("chainer") is None:
        raise NoGPU("no Chainer here and no .whl/chainer-7.8.1-py3-none-any.whl to install "
                    "(python3 gpu/provenance.py builds it: carry .whl)")
    if device == "cuda" and wheels:  # the GPU machine's Python has no Chainer: its wheel travels
        target = STORE / "chainer"
        if not target.exists():
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index",
                            "--no-deps", "--no-compile", "--target", str(target), str(wheels[0])],
                           check=True)
        # Chainer 7.8.1 imports two names NumPy 2 and Python 3.12 dropped: gpu/chainer_py312
        env["PYTHONPATH"] = os.pathsep.join([str(target), str(ROOT / "gpu" / "chainer_py312")])
    return env


# what a run records of its Python's packages (conftest's pytest_benchmark_update_machine_info)
VERSIONS = """import importlib.metadata as m, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = m.version(name)
    except m.PackageNotFoundError:
        pass
print(json.dumps(found))"""


def releases(env):
    """{backend: the versions its runs will record}: this machine's release, which decides before
    its first run what it has measured (gpu.plan.missing); a Python that cannot say leaves its
    backends to their newest run's release."""
    from conftest import DISTRIBUTIONS
    found, by_python = {}, {}
    for backend in BACKENDS:
        py = python_for(backend)
        if py not in by_python:
            try:
                said = subprocess.run([py, "-c", VERSIONS, *DISTRIBUTIONS], env=env, cwd=ROOT,
                                      capture_output=True, text=True, timeout=60, check=True)
                by_python[py] = sorted(json.loads(said.stdout).items())
            except (OSError, subprocess.SubprocessError, ValueError):
                by_python[py] = None
        if by_python[py] is not None:
            found[backend] = by_python[py]
    return found


# what a run records of its machine (pytest-benchmark's machine_info, the suites' CPU flags)
MACHINE = "import json, user.save as s; print(json.dumps(s.machine_info()))"


def this_machine(env, model):
    """This machine as its runs will name it (the GPU beside the host's CPU, vector ISA and cores),
    asked of torch's Python before the first run: a window on another host than the last starts
    its plan over, as the report gives it a table of its own; None where that Python cannot say
    (the newest run's machine stands for it)."""
    from report.build.load import machine_name
    try:
        said = subprocess.run([python_for("torch"), "-c", MACHINE], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=60, check=True)
        info = json.loads(said.stdout)
        info["graphbench"]["gpu"] = None if model == "cpu" else model
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return None
    return machine_name(info)


def number_on(runs):
    """Copy the highest-numbered run of results/ (waits/ too) into `runs`, the store's folder that
    conftest.next_number reads: a run's number is its name in the report, and a store holding
    only the GPU's runs numbered window 4's first run 0100 beside a CPU run and a wait run."""
    runs.mkdir(parents=True, exist_ok=True)
    saved = sorted(ROOT.glob("results/**/[0-9][0-9][0-9][0-9]_*.json"), key=lambda p: p.name)
    if saved and not (runs / saved[-1].name).exists():
        shutil.copy(saved[-1], runs)


def python_for(backend):
    """The Python that runs `backend` (the GPU machine's one; a dry run's tox env)."""
    return os.environ.get(f"GPU_JOB_PYTHON_{backend.upper()}", sys.executable)


def command(step, device, env=None):
    """The argv of one step (`env`: its processes' environment)."""
    py = python_for(step.backend)
    if step.kind == "study":
        return [py, *step.args, "--device", device]
    args = [a if a != "cuda" else device for a in GPU_ARGS]
    saving = (f"--benchmark-storage={STORE}", f"--benchmark-save={step.save}")
    return [py, "-m", "pytest", *args, *(saving if step.kind == "run" else ()),
            *phases_plugin(py, env), *step.args]


_LOADS_PHASES = {}  # Python -> whether it imports gpu/phases.py from this tree


def phases_plugin(py, env=None):
    """("-p", "gpu.phases") where `py` imports that plugin from this tree, else () and a line:
    a plugin pytest cannot load would fail every step of a window, and no phase is worth one."""
    if py not in _LOADS_PHASES:
        done = subprocess.run([py, "-c", "import gpu.phases"], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        _LOADS_PHASES[py] = done.returncode == 0
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["no output"])[-1]
            log(f"{py} cannot load gpu/phases.py ({why}): its steps run without their phases")
    return ("-p", "gpu.phases") if _LOADS_PHASES[py] else ()


def phases_file(step):
    """Where a pytest step's phases go (gpu/phases.py, through $GRAPHBENCH_PHASES)."""
    return STORE / "phases" / f"{step.name}.json"


# a backend whose prime is profiled in its first step of a call (gpu/phases.py): none since
# window 7, whose two torch profiles found inductor's ISA probes in torch's 59-63 s (NO_ISA_PROBES
# now skips them in every torch step); name one here to profile its prime again
PROFILED = set()
_profiled = set()


def prime_profile(step):
    """Where `step`'s prime profile goes ($GRAPHBENCH_PROFILE), in its backend's first pytest step
    of this call (PROFILED), else None."""
    if step.kind == "study" or step.backend not in PROFILED or step.backend in _profiled:
        return None
    _profiled.add(step.backend)
    return STORE / "profiles" / f"{step.name}.json"


def step_environment(step, device, profile):
    """What the job sets for `step` beyond the call's environment: the plan's (`step.env`), and
    on a GPU NO_ISA_PROBES for a torch step whose prime is not profiled."""
    return {**dict(step.env), **(NO_ISA_PROBES if device == "cuda" and step.backend == "torch"
                                 and profile is None else {})}


def read_profile(step, path):
    """{'<backend>_prime_profile': what gpu/phases.py wrote} for the step's cost, or {}."""
    try:
        return {f"{step.backend}_prime_profile": json.loads(path.read_text())} if path else {}
    except (OSError, ValueError):
        return {}


def phase_times(path, began, ended):
    """Where a pytest step's seconds went, from its phases (gpu/phases.py) and its start and end
    (`began`, `ended`: time.time()): `before_session_s` from its start to its pytest session's,
    of which `to_pytest_s` (the interpreter, pytest and its plugins) and `configure_s` (the
    conftest's configure: on a GPU each backend loaded and primed); `session_s`; `after_s`
    from the session's end to the process's, of which `exit_s` after pytest unconfigured
    (the interpreter's own exit); within configure each backend's `<backend>_import_s`,
    `_configure_s` and `_prime_s`; {} where pytest wrote none, a phase cut short is left out."""
    try:
        at = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    spans = {"before_session_s": (began, at.get("session_began")),
             "to_pytest_s": (began, at.get("plugin_loaded")),
             "configure_s": (at.get("configure_began"), at.get("configure_ended")),
             "session_s": (at.get("session_began"), at.get("session_ended")),
             "after_s": (at.get("session_ended"), ended),
             "exit_s": (at.get("unconfigure_ended"), ended),
             **{f"{mark[:-len('_began')]}_s": (at[mark], at.get(mark.replace("_began", "_ended")))
                for mark in at if re.fullmatch(r"\w+_(import|configure|prime)_began", mark)}}
    return {name: round(end - start, 1) for name, (start, end) in spans.items()
            if isinstance(start, float) and isinstance(end, float)}


def run_step(step, device, env, seconds, machine):
    """Run one step within `seconds`; a study's or check's output is saved with the machine."""
    return finish_step(start_step(step, device, env, seconds), machine)


def run_side_by_side(steps, device, env, seconds, machine):
    """Run `steps` (checks: no clock in them) at once, each within its limit and `seconds`: the
    GPU machine's cores compile them side by side; each one's cost, its own end's (a thread
    waits for each), says how many ran so."""
    started = [start_step(step, device, env, min(step.limit_s, seconds)) for step in steps]
    with ThreadPoolExecutor(len(started)) as waiting:
        return [{**cost, "side_by_side": len(steps)}
                for cost in waiting.map(lambda one: finish_step(one, machine), started)]


def start_step(step, device, env, seconds):
    """Start one step's process (a study's or check's output to a file: a pipe left unread while
    another step is waited on would stop it); what finish_step needs."""
    argv = command(step, device, env)
    phases = phases_file(step)
    profile = prime_profile(step)
    for stale in filter(None, (phases, profile)):  # an earlier call's, in a store kept warm
        stale.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    own = step_environment(step, device, profile)
    log(f"{step.name} ({step.what}; at most {seconds:.0f} s):",
        *(f"{k}={v}" for k, v in own.items()), " ".join(argv[1:]))
    output = None if step.kind == "run" else STORE / "output" / f"{step.name}.txt"
    if output:
        output.parent.mkdir(parents=True, exist_ok=True)
    with open(output, "w") if output else contextlib.nullcontext() as sink:
        began = time.time()
        child = subprocess.Popen(
            argv, env={**env, **own, "GRAPHBENCH_PHASES": str(phases),
                       **({"GRAPHBENCH_PROFILE": str(profile)} if profile else {})}, cwd=ROOT,
            text=True, stdout=sink)
    return {"step": step, "child": child, "began": began, "seconds": seconds, "phases": phases,
            "profile": profile, "own": own, "output": output}


def finish_step(started, machine):
    """Wait for a started step until its limit, then stop it as pytest saves; what it cost."""
    step, child, began, seconds = (started[k] for k in ("step", "child", "began", "seconds"))
    try:
        child.wait(timeout=max(0.0, began + seconds - time.time()))
        code = child.returncode
    except subprocess.TimeoutExpired:
        # SIGTERM, as conftest takes it: pytest saves the partial run (marked incomplete);
        # subprocess.run's timeout would SIGKILL it, and the first window lost two steps so
        child.terminate()
        try:
            child.wait(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        code = f"stopped at its limit ({seconds:.0f} s)"
    took = time.time() - began
    done = started["output"].read_text() if started["output"] else None
    log(f"{step.name}: exit {code} in {took:.0f} s")
    if done is not None:
        print(done, end="", flush=True)
        lines = [json.loads(x) for x in done.splitlines() if x.startswith("{")]
        # a check's failures are its finding (pytest exits 1): it ran
        complete = code == 0 and bool(lines) if step.kind == "study" else code in (0, 1)
        STUDIES.mkdir(parents=True, exist_ok=True)
        (STUDIES / f"gpu_{step.name}.json").write_text(json.dumps(
            {"machine": machine, "what": step.what, "complete": complete, "exit": code,
             "seconds": round(took, 1), "results": lines, "backend": step.backend,
             "label": step.label,
             **(pytest_outcome(done) if step.kind == "check" else {}),
             "output": done.splitlines()[-40:]}, indent=1))
    own, phases = started["own"], started["phases"]
    return {"step": step.name, "exit": code, "seconds": round(took, 1),
            **({"env": own} if own else {}), **phase_times(phases, began, began + took),
            **read_profile(step, started["profile"])}


def pytest_outcome(output):
    """{"counts": {outcome: tests}, "failures": [test ids]} of a pytest session's output (its
    last summary line, and the FAILED/ERROR lines -rf prints)."""
    lines = output.splitlines()
    summary = next((x for x in reversed(lines) if re.search(r"\d+ (passed|failed|error)", x)), "")
    counts = {word.rstrip("s"): int(n) for n, word in
              re.findall(r"(\d+) (passed|failed|skipped|deselected|errors?)", summary)}
    failures = [x.split(" ", 1)[1].split(" - ")[0] for x in lines
                if x.startswith(("FAILED ", "ERROR "))]
    return {"counts": counts, "failures": failures}


def pack(out, before, costs, ledger):
    """Every run and study this job saved, and `ledger` (what each step cost, which take_back
    puts beside the GPU's studies and gpu.plan sizes later windows' steps from), in
    $OUT/runs.tar (written whole, then renamed; gzip-compressed, which tarfile reads as it is:
    a file that comes back from the GPU machine may hold 16 MiB at most)."""
    STUDIES.mkdir(parents=True, exist_ok=True)
    (STUDIES / ledger["file"]).write_text(json.dumps(
        {"machine": ledger["machine"], "steps": costs}, indent=1))
    staged = out / "runs.tar.tmp"
    with tarfile.open(staged, "w:gz") as tar:
        for path in sorted(STORE.glob("*/*.json")):  # runs and studies, not the compile caches
            if (path.parent == STUDIES or path.parent.name.startswith("Linux-")) \
                    and path.name not in before:
                tar.add(path, arcname=str(path.relative_to(STORE)))
    os.replace(staged, out / "runs.tar")
    (out / "steps.json").write_text(json.dumps(costs, indent=1))


def _cost(step):
    """The seconds a step is expected to take (its limit where the plan has no cost)."""
    return step.expect_s or step.limit_s


def _pairs(first_calls, step):
    """Whether `step` is the steady step whose run `first_calls`' break-even reads."""
    whole = whole_of(first_calls)
    return whole is not None and whole.name == step.name


def longer_than_a_call(step):
    """Whether `step` is expected to outlast any call of a window: no job runs it."""
    return _cost(step) > WHOLE_CALL_S


def needs(steps, n):
    """(seconds, pair): what steps[n] is expected to take with the step it pairs with, or None.
    First calls whose model's steps run again right after them (plan.missing) show only if both
    fit: the pair's cost, unless the pair outlasts a whole call (torch's: the steps come first
    in the window's next call)."""
    step = steps[n]
    pair = next((s for s in steps[n + 1:n + 2] if _pairs(step, s)), None)
    if pair and _cost(step) + _cost(pair) > WHOLE_CALL_S:
        pair = None
    return _cost(step) + (_cost(pair) if pair else 0), pair


def with_margin(step, expect):
    """The seconds a call must hold to start `step`, expected to take `expect`: more where that
    rests on no cost of this GPU's own (plan.UNSURE), unless it would then fit no call."""
    more = expect * UNSURE_MARGIN
    return more if step.sized_by.startswith(UNSURE) and more <= WHOLE_CALL_S else expect


def chosen(steps, left):
    """Each of `steps` with why it is left for the next window, or None where it runs now;
    `left(step)`: the seconds the call has left for `step` when it comes up."""
    skipped = set()
    for n, step in enumerate(steps):
        expect, pair = needs(steps, n)
        before = steps[n - 1] if n else None
        if before and before.name in skipped and _pairs(before, step):
            # steps run again at this code for their first calls' break-even: not without them
            why = f"waits for {before.name}, whose break-even needs it at the same code"
        elif longer_than_a_call(step):
            why = (f"expects {_cost(step)} s, more than a call holds ({WHOLE_CALL_S} s): no "
                   "window runs it until gpu/plan.py splits it")
        elif (need := with_margin(step, expect)) + GRACE_S > (have := left(step)):
            why = (f"expects {expect} s{f' with {pair.name}' if pair else ''}"
                   f"{f' (sized elsewhere: {UNSURE_MARGIN}× that)' if need > expect else ''} and "
                   f"{GRACE_S} s to save; {have:.0f} s left")
        else:
            why = None
        if why:
            skipped.add(step.name)
        yield step, why


# steps of these kinds hold no clock (a check's answer is its verdict, not its time): the job
# runs consecutive ones at once, on the GPU machine's 16 cores (parity's compiles); no timed step
# runs beside them
SIDE_BY_SIDE = ("check",)


def preview(steps, calls):
    """[[names of the steps a call would run] per call of `calls` seconds]: the job's choices
    where every step takes what it is expected to (plan.main prints them before a window)."""
    found = []
    for seconds in calls:
        ran, left, together = [], [seconds - JOB_START_S], [0]  # the side-by-side group's time
        for step, why in chosen(steps, lambda s: left[0] + together[0] * _beside(s)):
            if why is None:
                ran.append(step)
                longer, together[0] = added(step, together[0])
                left[0] -= longer
        # plan.missing: a model's steps come first once its first calls ran
        rest = [s for s in steps if s not in ran]
        first = [s for s in rest if any(_pairs(r, s) for r in ran)]
        steps = first + [s for s in rest if s not in first]
        found.append([s.name for s in ran])
    return found


def _beside(step):
    """Whether `step` runs side by side with the checks before it (SIDE_BY_SIDE)."""
    return step.kind in SIDE_BY_SIDE


def added(step, together):
    """(seconds `step` adds to a call's time, the side-by-side group's seconds after it), where
    `together` is that group's before it: a check adds what it outlasts the group by."""
    if not _beside(step):
        return _cost(step), 0
    longer = max(0, _cost(step) - together)
    return longer, together + longer


def main(argv=None):
    """Run the missing steps until the deadline; 0 when every step that ran exited 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, required=True, help="the job's deadline")
    parser.add_argument("--only", default="", help="comma list of step names (default: all)")
    args = parser.parse_args(argv)
    deadline = time.time() + args.seconds
    device = os.environ.get("DEVICE", "cuda")
    code, commit = os.environ.get("GRAPHBENCH_CODE"), os.environ.get("GRAPHBENCH_COMMIT")
    if not code or not commit:
        print("gpu/job.py: set GRAPHBENCH_COMMIT and GRAPHBENCH_CODE (python3 gpu/provenance.py "
              "prints both)", file=sys.stderr)
        return 2
    if unknown := set(filter(None, args.only.split(","))) - {s.name for s in PLAN}:
        print(f"gpu/job.py: --only {','.join(sorted(unknown))}: no such step; choose from "
              f"{', '.join(s.name for s in PLAN)}", file=sys.stderr)
        return 2
    try:
        model = gpu_model(device)
        env = environment(device)
    except (NoGPU, subprocess.CalledProcessError) as error:
        print(f"gpu/job.py: {error}", file=sys.stderr)
        return 2
    out = Path(os.environ.get("OUT", "/tmp/gpu-out"))
    out.mkdir(parents=True, exist_ok=True)
    number_on(RUNS)
    before = {p.name for p in STORE.glob("*/*.json")}
    machine = {"gpu": model, "code": code, "commit": commit, "device": device, "cpu": cpu_name()}
    host, last = this_machine(env, model), newest_machine([ROOT / "results", STORE], model)
    if host and last and host != last:
        log(f"this host is not the one of {model}'s runs so far: {host}, not {last}; the report "
            "gives it its own table, and its plan starts over")
    steps = missing([ROOT / "results", STORE], model, code, releases(env), host or last)
    if args.only:
        steps = [s for s in steps if s.name in args.only.split(",")]
    if device == "cuda":
        subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                        "--format=csv,noheader"])
        subprocess.run([sys.executable, "-c", "import sys, torch, jax, cupy, numpy; print(sys."
                        "version.split()[0], 'torch', torch.__version__, 'jax', jax.__version__, "
                        "'cupy', cupy.__version__, 'numpy', numpy.__version__, jax.devices())"])
    log(f"{host or model}, code {code}: {len(steps)} steps to run (expected seconds; `python3 "
        "gpu/plan.py` says where each figure comes from):",
        ", ".join(f"{s.name} ({s.expect_s})" for s in steps))
    costs, together = [], []  # checks chosen, which run at once when a timed step comes up
    ledger = {"file": f"costs_{time.strftime('%Y%m%dT%H%M%S')}.json", "machine": machine}

    def left(step):
        """The seconds `step` has: less the waiting checks' time, unless it runs beside them."""
        waiting = 0 if _beside(step) else max(map(_cost, together), default=0)
        return deadline - time.time() - waiting

    def run(steps):
        seconds = deadline - time.time() - GRACE_S
        costs.extend(run_side_by_side(steps, device, env, seconds, machine) if len(steps) > 1
                     else [run_step(steps[0], device, env, min(steps[0].limit_s, seconds),
                                    machine)])
        pack(out, before, costs, ledger)

    for step, why in chosen(steps, left):
        if why:  # a later, shorter step may fit
            log(f"{step.name}: left for the next window ({why})")
        elif _beside(step):
            together.append(step)
        else:
            if together:
                run(together)
                together = []
            run([step])
    if together:
        run(together)
    return 1 if any(cost["exit"] != 0 for cost in costs) else 0


if __name__ == "__main__":
    sys.exit(main())
