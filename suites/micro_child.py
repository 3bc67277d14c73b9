"""Child process: a micro workload's arms (eager, a second eager: the A/A control, graph) timed in
interleaved rounds, printed as one JSON line.

python -m suites.micro_child --backend B --workload W[,W2...] --arms eager,eager_aa,graph
    --rounds R --warmup W --block K [--block-s T] --seed S --threads T --cache-dir DIR

Each arm is built by the backend's micro module (`build(workload, variant)`); its first and second
calls are timed once, under the compile cache in DIR/<workload> (DIR empty: the first call is
cold; --cache-dir "": the session's cache, for the test command's untimed run). With --block-s, the block is the fewest calls, at most K, that last T seconds for the
fastest arm (measured after the second calls); without it, K calls. Several workloads run one
after another in this process (the test command's one child per backend); the suite's timed
runs give each workload its own children. The line: {"workloads": {W: {"times": {arm: [s per
call, one per round]}, "first_call_s", "second_call_s", "traces" (each {arm: ...}),
"graph_breaks", "compile_cache_hits", "settings"}}, "framework_version"}. Everything else goes
to stderr."""
import os
import sys
import time

from suites import child
from suites.paired import AA, block_for, interleave


def parse(argv):
    parser = child.parser("micro_child", __doc__, model=False, device=False, warm_prime=True)
    for name in ("--workload", "--arms", "--cache-dir"):
        parser.add_argument(name, required=True)
    child.add_rounds(parser, rounds=10, warmup=3)
    parser.add_argument("--block-s", type=float, default=0.0,
                        help="grow the block (up to --block calls) until it lasts this long")
    args = parser.parse_args(argv)
    args.workloads = [w for w in args.workload.split(",") if w]
    args.arms = [a for a in args.arms.split(",") if a]
    return args


def variant(arm):
    """The micro variant an arm builds (the A/A arm is another eager)."""
    return "eager" if arm == AA else arm


def check(args, loaded):
    """Raise a one-line error for a backend, workload, arm or setting not runnable here; on
    success `loaded` holds the configured backend and its micro module."""
    from backends import BACKENDS, check_choice, load
    from backends.micro import VARIANTS, WORKLOADS
    check_choice("backend", args.backend, BACKENDS)
    for workload in args.workloads:
        check_choice("workload", workload, WORKLOADS)
    for arm in args.arms:
        check_choice("arm", arm, (*VARIANTS, AA))
    for option, given in (("--workload", args.workloads), ("--arms", args.arms)):
        if not given or len(set(given)) != len(given):
            raise ValueError(f"{option} needs distinct names, got {','.join(given) or 'none'}")
    if min(args.rounds, args.block) < 1 or args.warmup < 0 or args.block_s < 0:
        raise ValueError("--rounds and --block must be at least 1, --warmup and --block-s "
                         "at least 0")
    backend = load(args.backend)  # a missing framework: BackendUnavailable, naming the tox env
    backend.configure(args.threads, "cpu")  # thread pools before any op (micro is CPU only)
    from backends.micro import load_micro
    micro = load_micro(args.backend)
    for workload in args.workloads:
        for arm in args.arms:
            if reason := micro.UNSUPPORTED.get((workload, variant(arm))):
                raise ValueError(f"{args.backend}/{workload}/{arm} is not supported: {reason}")
    loaded.update(backend=backend, micro=micro)


def measure(args, workload, backend, micro):
    """One workload: build every arm, time its first and second calls, size the block, warm up,
    then time interleaved rounds."""
    hits = backend.cache_hits()
    # every arm is built before any first call: a torch build resets dynamo, which would drop
    # the compiled code of arms built before it
    built = {arm: micro.build(workload, variant(arm)) for arm in args.arms}
    steps = {arm: step for arm, (step, _) in built.items()}
    first, second = {}, {}
    for arm, step in steps.items():
        for calls in (first, second):  # first (trace / compile) and second call
            start = time.perf_counter()
            step()
            calls[arm] = time.perf_counter() - start
    block, per_call, rule = args.block, None, f"{args.block} calls"
    if args.block_s > 0 and args.block > 1:
        block, per_call = block_for(steps, args.block, args.block_s)
        rule = f"the fewest calls, at most {args.block}, that last {args.block_s} s for the fastest arm"
    interleave(steps, args.warmup, block, args.seed)
    times, settings = interleave(steps, args.rounds, block, args.seed)
    traces = {arm: count() for arm, (_, count) in built.items()}
    breaks = (micro.graph_breaks(workload)  # after the timing: it resets dynamo
              if "graph" in args.arms and hasattr(micro, "graph_breaks") else None)
    return {"times": times, "first_call_s": first, "second_call_s": second, "traces": traces,
            "graph_breaks": breaks,
            "compile_cache_hits": None if hits is None else backend.cache_hits() - hits,
            "settings": {**settings, "warmup_rounds": args.warmup, "block_rule": rule,
                         "calibration_s_per_call": per_call}}


def main(argv=None):
    """Run each workload's arms under its own compile cache dir; the JSON line goes to the real
    stdout, everything else to stderr."""
    args, loaded = parse(argv), {}

    def result():
        backend, found = loaded["backend"], {}
        backend.prime(cold=not args.warm_prime)  # the start-up stays out of the first calls
        for workload in args.workloads:
            cache_dir = args.cache_dir and os.path.join(args.cache_dir, workload)
            if cache_dir:  # "": the session's cache (the test command's smoke run: nothing saved)
                os.makedirs(cache_dir, exist_ok=True)
            try:
                with backend.compile_cache(cache_dir or None):
                    found[workload] = measure(args, workload, backend, loaded["micro"])
            except Exception as error:  # the parent's one line names the workload
                raise RuntimeError(f"{workload}: {type(error).__name__}: {error}") from error
        return {"workloads": found, "framework_version": backend.version()}
    return child.run("micro_child", args.threads, lambda: check(args, loaded), result)


if __name__ == "__main__":
    sys.exit(main())
