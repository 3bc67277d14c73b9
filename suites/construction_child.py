"""Child process: one construction round in a fresh interpreter, printed as one JSON line.

python -m suites.construction_child --backend B --model M --config JSON --batch N --variant V
    --precision P --cache-dir DIR --device D --threads T --spawned-at SECONDS

`--spawned-at` is the parent's time.time() just before it started this process: `startup_s`
runs from it to the framework imported and configured (what every fresh process pays).
`--cache-dir` is the compile cache the process uses (empty: cold; populated: warm); it is set in
the environment before the framework loads. Everything but the JSON line goes to stderr."""
import json
import math
import os
import sys
import time

from suites import child


def parse(argv):
    parser = child.parser("construction_child", __doc__)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--cache-dir", default=None,
                        help="the on-disk compile cache (default: the inherited environment's)")
    parser.add_argument("--spawned-at", type=float, required=True,
                        help="the parent's time.time() just before it started this process")
    return parser.parse_args(argv)


def check(args):
    """Raise a one-line error for a backend, model, variant, precision or device not runnable."""
    from backends import (BACKENDS, PRECISIONS, VARIANTS, check_choice, load, precision_skip,
                          unsupported_reason)
    import models  # NumPy loads here: after the thread variables are set
    check_choice("backend", args.backend, BACKENDS)
    check_choice("model", args.model, models.MODELS)
    check_choice("device", args.device, ("cpu", "cuda"))
    check_choice("variant", args.variant, VARIANTS)
    check_choice("precision", args.precision, PRECISIONS)
    if reason := (unsupported_reason(args.backend, args.variant, args.device)
                  or precision_skip(args.backend, args.precision, args.device, args.variant)):
        raise ValueError(f"{args.backend}/{args.variant}@{args.precision} is not supported: "
                         f"{reason}")
    load(args.backend)  # a missing framework: BackendUnavailable, naming the tox env


def cache_environment(cache_dir):
    """Point the compilers' on-disk caches at `cache_dir` before any framework loads (inductor
    reads TORCHINDUCTOR_CACHE_DIR; the same paths as backends.torch.steady.compile_cache)."""
    if cache_dir is not None:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir)
        os.environ["TRITON_CACHE_DIR"] = os.path.join(str(cache_dir), "triton")


def cache_files(cache_dir):
    """Files in the on-disk compile cache `cache_dir` (None: not ours to count)."""
    if cache_dir is None or not os.path.isdir(cache_dir):
        return None if cache_dir is None else 0
    return sum(len(files) for _, _, files in os.walk(cache_dir))


def cold_fault(children):
    """Why a cold round was not cold, or None: its cache held files before it started, or it hit
    a cache while its own stayed empty (a cache elsewhere). A hit on what the round itself wrote
    (JAX's op-by-op eager decoder hits once) is every cold run's."""
    for n, c in enumerate(children, start=1):
        if c.get("cache_files_before"):
            return f"cold round {n}'s compile cache held {c['cache_files_before']} files at start"
        if c["cache_hits"] and not c.get("cache_files_after"):
            return (f"cold round {n} hit a compile cache ({c['cache_hits']} hits) other than its "
                    "own empty one")
    return None


def measure(args):
    """Start the framework (timed from the spawn), build the runner outside the clock, then time
    the first train step (trace + compile + run) and the second."""
    import models
    files_before = cache_files(args.cache_dir)
    backend, device, spec = child.start(args.backend, args.threads, args.device, args.model,
                                        json.loads(args.config))
    startup_s = time.time() - args.spawned_at
    with backend.compile_cache(args.cache_dir):
        runner = backend.Runner(spec, models.init_params(spec), args.variant, device,
                                precision=args.precision)
        x, y = runner.to_device(*models.synthetic_batch(spec, args.batch))
        before = backend.cache_hits()
        start = time.perf_counter()
        loss = runner.train_step(x, y)  # returns a host float: waits for the device
        first_call_s = time.perf_counter() - start
        hits = None if before is None else backend.cache_hits() - before
        traces = runner.traces()
        # jax: the first call split into trace, lower and compile (JAX's own duration events)
        phases = backend.compile_phases(runner) if hasattr(backend, "compile_phases") else None
        start = time.perf_counter()
        second_loss = runner.train_step(x, y)
        second_call_s = time.perf_counter() - start
    return {"startup_s": startup_s, "first_call_s": first_call_s, "second_call_s": second_call_s,
            "cache_hits": hits, "cache_files_before": files_before,
            "cache_files_after": cache_files(args.cache_dir), "loss": loss, "second_loss": second_loss, "traces": traces,
            "second_traces": runner.traces(), "framework_version": backend.version(),
            **({"phases_s": phases} if phases else {})}


def main(argv=None):
    """One round; the JSON line goes to the real stdout, everything else to stderr."""
    args = parse(argv)
    cache_environment(args.cache_dir)

    def result():
        out = measure(args)
        out["loss_finite"] = math.isfinite(out["loss"])
        return out
    return child.run("construction_child", args.threads, lambda: check(args), result)


if __name__ == "__main__":
    sys.exit(main())
