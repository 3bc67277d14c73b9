"""What the harness adds around a sub-millisecond step: the MNIST CNN train step of one backend,
timed in interleaved rounds (one process), each way of waiting for the device an arm:

  step      the steady suite's `--wait step` (every output waited on, the loss read each step)
  loss      (jax) the step dispatched, then only the loss waited on (`block_until_ready`)
  bare      (jax) the jitted function called directly, the loss waited on: no runner bookkeeping
  block     the steady suite's `--wait block`: a block's steps back to back, one wait at its end

python3 gpu/step_cost.py --backend jax --variants graph,eager --device cuda [--rounds 20]
[--block 64] prints one JSON line per variant: each arm's median ms per step and the step arm's
time over each other arm's (95% interval over the rounds). docs/METHOD.md, The step a GPU user
runs."""
import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _arms(backend, runner, x, y):
    """{arm: (step, finish or None)}; `step` runs one train step (waiting or not)."""
    pending = {}
    arms = {"step": (lambda: runner.train_step(x, y), None),
            "block": (lambda: pending.__setitem__("block", runner.dispatch_train(x, y)),
                      lambda: runner.wait(pending["block"]))}
    if backend.NAME == "jax":
        arms["loss"] = (lambda: runner.dispatch_train(x, y).block_until_ready(), None)

        def bare():
            runner.params, runner.stats, loss = runner._train(runner.params, runner.stats, x, y)
            loss.block_until_ready()
        arms["bare"] = (bare, None)
    return arms


def _study(backend, device, spec, variant, args):
    """One variant's arms: first calls, warm-up, interleaved rounds; the JSON-ready result."""
    import numpy as np
    import models
    import stats
    from suites.paired import interleave
    batch = models.synthetic_batch(spec, 32)
    steps, finish = {}, {}
    for name in ("step", "block", *(("loss", "bare") if backend.NAME == "jax" else ())):
        runner = backend.Runner(spec, models.init_params(spec), variant, device)  # one per arm
        steps[name], done = _arms(backend, runner, *runner.to_device(*batch))[name]
        if done:
            finish[name] = done
    for name, run in steps.items():  # first calls, then warm-up rounds
        run()
        finish.get(name, lambda: None)()
    began = time.perf_counter()
    steps["step"]()
    block = max(2, min(args.block, math.ceil(0.05 / (time.perf_counter() - began))))  # >= 50 ms
    interleave(steps, 2, block, seed=1, finish=finish)
    times, _ = interleave(steps, args.rounds, block, seed=2, finish=finish)
    return {"backend": backend.NAME, "variant": variant, "device": args.device,
            "version": backend.version(), "block": block, "rounds": args.rounds,
            "ms": {k: round(float(np.median(v)) * 1e3, 4) for k, v in times.items()},
            "step_over": {k: stats.ratio([times["step"]], [v]).as_info("ratio", "low", "high")
                          for k, v in times.items() if k != "step"}}


def main(argv=None):
    """Build one runner per arm, pay the first calls, time the rounds, print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--variants", default="graph")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--block", type=int, default=64, help="the most steps in a block of 50 ms")
    args = parser.parse_args(argv)
    from suites import child
    backend, device, spec = child.start(args.backend, 16, args.device, "mnist_cnn", {})
    from catalog import unsupported_reason
    for variant in args.variants.split(","):
        if reason := unsupported_reason(args.backend, variant, args.device):
            print(json.dumps({"backend": args.backend, "variant": variant, "skipped": reason}))
            continue
        print(json.dumps(_study(backend, device, spec, variant, args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
