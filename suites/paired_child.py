"""Child process: one comparison group's arms timed in interleaved rounds, printed as one JSON line.

python -m suites.paired_child --backend B --model M --config JSON --batch N --phase train|infer
    --arms eager,eager_aa,graph,eager@bfloat16,graph@bfloat16,graph+det --rounds R --warmup W
    --block K [--block-s T [--equal-blocks]] --seed S --device D --threads T [--wait step|block]

With --block-s, the block is the fewest steps, at most K, that last T seconds for the fastest arm;
with --equal-blocks too, each arm's own steps, at most K, that last T seconds or the slowest arm's
step, whichever is longer.

Everything but the JSON line goes to stderr (Chainer's @static_graph prints on stdout)."""
import contextlib
import json
import math
import sys
import time

from suites import child
from suites.logs import count_log_signals
from suites.paired import WAITS, arm_spec, block_for, interleave


def parse(argv):
    parser = child.parser("paired_child", __doc__)
    parser.add_argument("--arms", required=True)
    parser.add_argument("--phase", choices=("train", "infer"), required=True)
    child.add_rounds(parser, rounds=10, warmup=3)
    parser.add_argument("--block-s", type=float, default=0.0,
                        help="grow the block (up to --block steps) until it lasts this long")
    parser.add_argument("--equal-blocks", action="store_true",
                        help="with --block-s: each arm's block lasts about as long as the others'")
    parser.add_argument("--wait", choices=WAITS, default="step",
                        help="step: wait for the device after every step; block: once per block")
    args = parser.parse_args(argv)
    args.arms = [a for a in args.arms.split(",") if a]
    return args


def check(args):
    """Raise a one-line error for a backend, model, arm, precision or device not runnable here."""
    from backends import (BACKENDS, PRECISIONS, VARIANTS, check_choice, determinism_skip, load,
                          precision_skip, unsupported_reason)
    import models  # NumPy loads here: after the thread variables are set
    check_choice("backend", args.backend, BACKENDS)
    check_choice("model", args.model, models.MODELS)
    check_choice("device", args.device, ("cpu", "cuda"))
    for arm in args.arms:
        variant, precision, deterministic = arm_spec(arm)
        check_choice("arm", variant, VARIANTS)
        check_choice("precision", precision, PRECISIONS)
        if reason := (unsupported_reason(args.backend, variant, args.device)
                      or precision_skip(args.backend, precision, args.device, variant)
                      or deterministic and determinism_skip(args.backend, variant, args.device)):
            raise ValueError(f"{args.backend}/{arm} is not supported: {reason}")
    load(args.backend)  # a missing framework: BackendUnavailable, naming the tox env


def measure(args):
    """Build every arm's runner, pay each first call, warm up, then time interleaved rounds."""
    import models
    # no prime(): nothing is timed before the first calls, which pay the start-up (torch's
    # prime compiles in an empty cache, about 10 s per child)
    backend, device, spec = child.start(args.backend, args.threads, args.device, args.model,
                                        json.loads(args.config))
    batch = models.synthetic_batch(spec, args.batch)
    # every runner is built before any first call: a torch Runner resets dynamo, which would
    # drop the compiled code of runners built before it
    runners, contexts = {}, {}
    for arm in args.arms:
        variant, precision, deterministic = arm_spec(arm)
        runners[arm] = backend.Runner(spec, models.init_params(spec), variant, device,
                                      precision=precision)
        if deterministic:  # a process-wide switch: on around this arm's first call and blocks
            contexts[arm] = lambda: backend.deterministic(True)
    last, pending = {}, {}

    def read(arm, value):
        last[arm] = value if args.phase == "train" else float(abs(value).max())

    def step(arm, runner, x, y):
        dispatch = ((lambda: runner.dispatch_train(x, y)) if args.phase == "train"
                    else lambda: runner.dispatch_infer(x))
        if args.wait == "block":
            return lambda: pending.__setitem__(arm, dispatch())
        return lambda: read(arm, runner.wait(dispatch()))

    steps = {arm: step(arm, r, *r.to_device(*batch)) for arm, r in runners.items()}
    finish = ({arm: (lambda arm=arm, r=r: read(arm, r.wait(pending[arm])))
               for arm, r in runners.items()} if args.wait == "block" else {})
    signals = {}  # what the backend logs or counts (a fallback, a recompile): per arm, then timed
    start = time.perf_counter()
    for arm, run in steps.items():
        with contexts.get(arm, contextlib.nullcontext)(), \
                count_log_signals(backend.LOG_SIGNALS) as signals[arm]:
            run()  # trace / compile / schedule build
            if arm in finish:
                finish[arm]()
    first_calls_s = time.perf_counter() - start  # the child's cost, for the profile's budget
    with count_log_signals(backend.LOG_SIGNALS) as timed:  # no cost in a step unless it logs
        rounds_s, times, settings, rule, per_step = _rounds(args, steps, contexts, finish)
    return {"times": times, "rounds_s": rounds_s,
            "settings": {**settings, "warmup_rounds": args.warmup, "block_rule": rule,
                         "wait": args.wait,
                         "calibration_s_per_step": per_step},
            "loss": last, "traces": {arm: r.traces() for arm, r in runners.items()},
            "first_calls_s": first_calls_s, "compile_cache_hits": backend.cache_hits(),
            "log_signals": {"first_call": signals, "timed": timed},
            "framework_version": backend.version()}


def _rounds(args, steps, contexts, finish):
    """The block (calibrated with --block-s), the warm-up, then the timed interleaved rounds:
    (their seconds, for the parent's allocation; times, settings, the block's rule, calibration
    seconds per step)."""
    block, per_step, rule = args.block, None, f"{args.block} steps"
    if args.block_s > 0 and args.block > 1:
        block, per_step = block_for(steps, args.block, args.block_s, contexts, args.equal_blocks,
                                    finish)
        rule = (f"each arm's fewest steps, at most {args.block}, that last {args.block_s} s or the "
                "slowest arm's step" if args.equal_blocks else f"the fewest steps, at most "
                f"{args.block}, that last {args.block_s} s for the fastest arm")
    interleave(steps, args.warmup, block, args.seed, contexts=contexts, finish=finish)
    began = time.perf_counter()
    times, settings = interleave(steps, args.rounds, block, args.seed, contexts=contexts,
                                 finish=finish)
    return time.perf_counter() - began, times, settings, rule, per_step


def main(argv=None):
    """Run one group; the JSON line goes to the real stdout, everything else to stderr."""
    args = parse(argv)

    def result():
        out = measure(args)
        out["loss_finite"] = all(math.isfinite(v) for v in out["loss"].values())
        return out
    return child.run("paired_child", args.threads, lambda: check(args), result)


if __name__ == "__main__":
    sys.exit(main())
