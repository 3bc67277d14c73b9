"""What a child process of the suite does around its work: thread variables before NumPy loads,
every stray print on stderr, one JSON line on the real stdout, one-line errors."""
import contextlib
import json
import os
import sys
import traceback

from backends import BackendUnavailable


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


def add_warm_prime(parser):
    """The `--warm-prime` option of a child that primes its backend (backend.prime)."""
    parser.add_argument("--warm-prime", action="store_true",
                        help="pay the start-up on the session's compile cache (what follows is "
                             "then not cold)")


def start(backend_name, threads, device, model, config, prime=True):
    """The backend loaded, configured and (with `prime`) started up, and the model's spec:
    (module, device, spec)."""
    import models
    from backends import load
    backend = load(backend_name)
    handle = backend.configure(threads, device)
    if prime:
        backend.prime()
    return backend, handle, models.build(model, **config)
