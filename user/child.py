"""Child process for a user's model, printed as one JSON line: `steady` (eager, the A/A eager and
the variants: accuracy over a few steps, then interleaved train and infer rounds) or `cold` (one
variant from a fresh process: start-up, first call, peak memory, the retrace run over the shapes).

python -m user.child --file F --framework FW --mode steady|cold --arms A,B,... [options]"""
import argparse
import importlib
import os
import sys
import time

from suites import child

START = time.perf_counter()


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m user.child", description=__doc__)
    for name in ("--file", "--framework", "--arms"):
        parser.add_argument(name, required=True)
    parser.add_argument("--mode", choices=("steady", "cold"), required=True)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--wait", choices=("step", "block"), default="step",
                        help="steady: wait for the device after every step, or once per block")
    parser.add_argument("--block-s", type=float, default=0.0,
                        help="steady: grow the block (up to --block steps) until it lasts this long")
    parser.add_argument("--equal-blocks", action="store_true",
                        help="with --block-s: each arm's block lasts about as long as the others'")
    parser.add_argument("--cache-dir", help="cold: the compile cache (empty: cold, filled: warm)")
    parser.add_argument("--budget", type=float, default=120, help="cold: retrace run's seconds")
    for name, default in (("--rounds", 3), ("--warmup", 1), ("--block", 1), ("--seed", 0),
                          ("--accuracy-steps", 3), ("--memory-steps", 2), ("--shapes", -1)):
        parser.add_argument(name, type=int, default=default)
    args = parser.parse_args(argv)
    args.arms = [a for a in args.arms.split(",") if a]
    args.started = START  # as __main__, this module's START is not user.child's
    return args


def check(args):
    """The file, its framework and arms: a one-line ValueError for anything that cannot run."""
    from backends import BACKENDS, check_choice, load
    from backends.user import BUILDERS, load as load_user
    check_choice("framework", args.framework, BACKENDS)
    load(args.framework)  # a missing framework: BackendUnavailable, naming the tox env
    user = load_user(args.file)
    if not hasattr(user.module, BUILDERS[args.framework]):
        raise ValueError(f"{args.file}: {BUILDERS[args.framework]}: not defined")
    args.user = user


def start(args):
    """(suite backend, user adapter, device handle), configured for this process."""
    from backends import load, load_part
    backend, adapter = load(args.framework), load_part(args.framework, "user")
    return backend, adapter, backend.configure(args.threads, args.device)


def main(argv=None):
    args = parse(argv)

    def measure():  # NumPy loads in here: after suites.child set the thread variables
        return importlib.import_module(f"user.{args.mode}").measure(args, *start(args))
    return child.run("user.child", args.threads, lambda: check(args), measure)


if __name__ == "__main__":
    sys.exit(main())
