"""What moves article 004's @static_graph speedup (issue 35 item 6): one process times, in
interleaved rounds, eager and @static_graph train steps of the MNIST CNN built two ways, the
project's Runner and a chain written by hand (links called directly, the loss outside, SGD 0.01,
the same weights), each with and without the Runner's per-step context managers.

Usage: python findings/chainer_004_probe.py [--rounds 15] [--steps 20] [--batch 32] [--seed 0]
                                          [--copies 0] [--suite-gc]
Prints one JSON line: each arm's median step, eager ÷ static for each build, and where each static
schedule's arrays lie (the share 64-byte aligned: a static schedule reuses its buffers for the life
of the process, eager allocates afresh each step). `--copies K` adds K more hand-written static
chains (`hand_graph#1` …), each with its own schedule and buffers: if they differ within one process
as much as processes differ, what moves the static arm belongs to a schedule, not to the process. Run it in fresh processes under different
settings (e.g. MALLOC_MMAP_THRESHOLD_, see docs/METHOD.md) to compare.
"""
import argparse
import contextlib
import gc
import io
import json
import os
import random
import statistics
import sys
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import static_graph

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import models  # noqa: E402
from backends.chainer import steady as backend  # noqa: E402
from models import spec as S  # noqa: E402


class Hand(chainer.Chain):
    """Seed 004's CNN written the usual way: three convs, ReLU, pool, linear."""

    def __init__(self, params):
        super().__init__()
        with self.init_scope():
            for name in ("c1", "c2", "c3"):
                setattr(self, name, L.Convolution2D(None, 8, 3, 1, 1,
                                                    initialW=params[f"{name}.W"],
                                                    initial_bias=params[f"{name}.b"]))
            self.l1 = L.Linear(None, 10, initialW=params["l1.W"], initial_bias=params["l1.b"])

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.c3(self.c2(self.c1(x)))), 2, 2, cover_all=False)
        return self.l1(h)


class HandStatic(Hand):
    @static_graph
    def forward(self, x):
        return super().forward(x)


def hand_step(chain, x, y, wrapped):
    """One SGD step of a hand-written chain; `wrapped`: inside the Runner's context managers."""
    optimizer = chainer.optimizers.SGD(lr=S.LEARNING_RATE)
    optimizer.setup(chain)
    quiet = isinstance(chain, HandStatic)

    def step():
        contexts = (contextlib.redirect_stdout(io.StringIO()) if quiet and wrapped
                    else contextlib.nullcontext(),
                    chainer.using_config("dtype", np.float32) if wrapped
                    else contextlib.nullcontext())
        with contexts[0], contexts[1]:
            chain.cleargrads()
            loss = F.softmax_cross_entropy(chain(x), y)
            loss.backward()
            optimizer.update()
        return float(loss.array)
    return step


def arms(batch, copies=0):
    """({arm: step}, {build: its static chain})."""
    spec = models.build("mnist_cnn")
    x, y = models.synthetic_batch(spec, batch)
    found, static = {}, {}
    for variant in ("eager", "graph"):
        runner = backend.Runner(spec, models.init_params(spec), variant)
        found[f"runner_{variant}"] = lambda r=runner: r.train_step(x, y)
        static["runner"] = runner.model
        for wrapped in (False, True):
            chain = (HandStatic if variant == "graph" else Hand)(models.init_params(spec))
            found[f"hand{'_ctx' * wrapped}_{variant}"] = hand_step(chain, x, y, wrapped)
            static[f"hand{'_ctx' * wrapped}"] = chain
    for copy in range(1, copies + 1):
        chain = HandStatic(models.init_params(spec))
        found[f"hand_graph#{copy}"] = hand_step(chain, x, y, False)
        static[f"hand#{copy}"] = chain
    return found, static


def schedule_alignment(chains):
    """Per static chain ({build: chain}): its schedules' arrays, the share whose data starts on a
    64-byte line, and the offsets within a 4 KiB page of those of a page or more."""
    found = {}
    for build, chain in chains.items():
        schedules = chain.schedule_manager.schedules.values()
        arrays = list({id(a): a for listed in schedules for schedule in listed
                       for a in schedule.unique_arrays if isinstance(a, np.ndarray)}.values())
        found[build] = {"aligned64": round(sum(a.ctypes.data % 64 == 0 for a in arrays)
                                           / max(1, len(arrays)), 3), "arrays": len(arrays),
                        "page_offsets": sorted({a.ctypes.data % 4096 for a in arrays
                                                if a.nbytes >= 4096})}
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--copies", type=int, default=0)
    parser.add_argument("--suite-gc", action="store_true",
                        help="as the suite's paired child: gc.collect() before each block, "
                             "gc.disable() during it")
    args = parser.parse_args(argv)
    found, static = arms(args.batch, args.copies)
    for step in found.values():  # first calls: schedules built, buffers allocated
        for _ in range(3):
            step()
    times, order, rng = {k: [] for k in found}, list(found), random.Random(args.seed)
    gc.collect()
    gc.freeze()
    for _ in range(args.rounds):
        rng.shuffle(order)
        for name in order:
            if args.suite_gc:
                gc.collect()
                gc.disable()
            start = time.perf_counter()
            for _ in range(args.steps):
                found[name]()
            times[name].append((time.perf_counter() - start) / args.steps)
            gc.enable()
    median = {k: statistics.median(v) for k, v in times.items()}
    ratios = {build: median[f"{build}_eager"] / median[f"{build}_graph"]
              for build in ("runner", "hand", "hand_ctx")}
    ratios.update({f"hand#{c}": median["hand_eager"] / median[f"hand_graph#{c}"]
                   for c in range(1, args.copies + 1)})
    print(json.dumps({"median_ms": {k: round(v * 1e3, 3) for k, v in median.items()},
                      "speedup": {k: round(v, 3) for k, v in ratios.items()},
                      "schedules": schedule_alignment(static),
                      "steps": args.steps, "suite_gc": args.suite_gc,
                      "malloc": {k: v for k, v in os.environ.items() if k.startswith("MALLOC")}}))


if __name__ == "__main__":
    sys.exit(main())
