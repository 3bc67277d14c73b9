"""A child process of the suite: its shared flags, its command line and its JSON result on the
parent's side; in the child, thread variables before NumPy loads, every stray print on stderr, one
JSON line on the real stdout, one-line errors."""
import argparse
import contextlib
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

from backends import BackendUnavailable

ROOT = Path(__file__).resolve().parents[1]  # children run as `-m suites.<module>` from here
TIMEOUT_S = 1800  # a group's cold compiles of the default ResNet take minutes


def parser(module, description, model=True, device=True, warm_prime=False):
    """A child's parser with the flags children share: --backend, --threads; with `model`
    --model, --config (JSON), --batch; with `device` --device; with `warm_prime` --warm-prime."""
    found = argparse.ArgumentParser(prog=f"python -m suites.{module}", description=description)
    found.add_argument("--backend", required=True)
    found.add_argument("--threads", type=int, default=os.cpu_count())
    if model:
        found.add_argument("--model", required=True)
        found.add_argument("--config", default="{}", help="the model's spec config as JSON")
        found.add_argument("--batch", type=int, required=True)
    if device:
        found.add_argument("--device", default="cpu")
    if warm_prime:
        found.add_argument("--warm-prime", action="store_true",
                           help="pay the start-up on the session's compile cache (what follows "
                                "is then not cold)")
    return found


def add_rounds(parser, rounds, warmup, block=True):
    """--rounds, --warmup, --seed (the order's) and, with `block`, --block of a child that times
    interleaved rounds."""
    for name, default in (("--rounds", rounds), ("--warmup", warmup), ("--seed", 0),
                          *((("--block", 1),) if block else ())):
        parser.add_argument(name, type=int, default=default)


def command(module, **flags):
    """The argv of `python -m suites.<module>`: `name=value` gives `--name value` (underscores as
    dashes, lists comma-joined, a dict as JSON), True `--name` alone, None and False nothing."""
    argv = [sys.executable, "-m", f"suites.{module}"]
    for name, value in flags.items():
        if value is None or value is False:
            continue
        argv.append("--" + name.replace("_", "-"))
        if isinstance(value, dict):
            argv.append(json.dumps(value))
        elif isinstance(value, (list, tuple)):
            argv.append(",".join(str(v) for v in value))
        elif value is not True:
            argv.append(str(value))
    return argv


def result(argv, timeout=TIMEOUT_S, name="paired child"):
    """The child's JSON result (it inherits this environment); RuntimeError with its last line."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{name} passed its {timeout} s limit") from None
    last = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
    if done.returncode != 0:
        raise RuntimeError(f"{name} exited {done.returncode}: {last}")
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise RuntimeError(f"{name} printed no JSON result: {last}") from None


def run(name, threads, check, measure):
    """check() refuses bad arguments (exit 2, one line), measure() returns the JSON-ready result
    (exit 1 with the traceback and a last line if it raises)."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)  # read once, when NumPy / the framework loads
    sys.stdout.flush()
    real_stdout = os.dup(1)
    os.dup2(2, 1)  # C-level and Python writes to stdout land on stderr until the result
    with contextlib.redirect_stdout(sys.stderr):
        try:
            check()
        except (ValueError, BackendUnavailable) as error:
            print(f"{name}: {error}", file=sys.stderr)
            return 2
        try:
            out = measure()
        except Exception as error:  # one last line the parent shows, the traceback above it
            traceback.print_exc()
            print(f"{name}: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
    os.write(real_stdout, (json.dumps(out) + "\n").encode())
    return 0


def start(backend_name, threads, device, model, config, cold=None):
    """The backend loaded, configured and (unless `cold` is None) started up, `backend.prime(cold)`,
    and the model's spec: (module, device, spec)."""
    import models
    from backends import load
    backend = load(backend_name)
    handle = backend.configure(threads, device)
    if cold is not None:
        backend.prime(cold=cold)
    return backend, handle, models.build(model, **config)
