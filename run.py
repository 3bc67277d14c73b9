#!/usr/bin/env python3
"""Set up and run the suite: `python3 run.py bench` (main job) or `python3 run.py test` (tests).

Needs only Python 3.10+ with pip: tox goes into .tools/, each framework into its own tox env.
"""
import argparse
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / ".tools"
FRAMEWORK_ENVS = ("tf", "chainer", "torch")
PROFILES = ("quick", "default", "paper")


def tox():
    """Path to tox in .tools/, installing it on first use."""
    exe = TOOLS / ("Scripts" if os.name == "nt" else "bin") / "tox"
    if not exe.exists():
        print(f"run.py: installing tox into {TOOLS}", flush=True)
        venv.create(TOOLS, with_pip=True)
        subprocess.run([str(exe.parent / "python"), "-m", "pip", "install", "-q", "tox>=4.20,<5"],
                       check=True)
    return str(exe)


def call(*args):
    print("run.py:", " ".join(args), flush=True)
    return subprocess.run(args, cwd=ROOT).returncode


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job", choices=("bench", "test"))
    parser.add_argument("--profile", default="default", choices=PROFILES, help="bench only")
    parser.add_argument("--envs", default=",".join(FRAMEWORK_ENVS),
                        help="comma list of framework envs (bench only)")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest, after --")
    args = parser.parse_args(argv)
    if args.job == "test":
        return call(tox(), "-e", ",".join(FRAMEWORK_ENVS + ("report",)))
    envs = [e for e in args.envs.split(",") if e]
    for env in envs:
        if env not in FRAMEWORK_ENVS:
            parser.error(f"unknown env {env!r}: choose from {', '.join(FRAMEWORK_ENVS)}")
    failed = [env for env in envs if call(
        tox(), "-e", env, "--", "suites", "-v", "--profile", args.profile,
        f"--benchmark-save={args.profile}", *args.pytest_args)]
    report = call(tox(), "-e", "report", "--", "python", "-m", "report", "--readme", "README.md",
                  "--charts", "docs/charts")
    if failed:
        print(f"run.py: benchmark runs failed in: {', '.join(failed)} (their results are kept)")
    return 1 if failed or report else 0


if __name__ == "__main__":
    sys.exit(main())
