"""Steady child: every arm built with the same seeded weights, checked against eager over a few
training steps, then train and infer steps timed in interleaved rounds (suites.paired)."""
import time
import traceback

import numpy as np

from backends.user import first_non_finite, one_line
from suites.paired import AA, arm_block, arm_spec
from suites.paired_child import _rounds as timed_rounds  # the suites' block rule and rounds


def _accuracy(runner, user, shape, steps, first):
    """Initial inference outputs and the losses of `steps` training steps on seeded batches; the
    first inference and train calls' times go into `first`."""
    xs, _ = runner.to_device(*user.batch(shape, 0))
    t = time.perf_counter()
    outputs = runner.infer_step(xs)
    first["infer_s"] = time.perf_counter() - t
    losses = []
    for i in range(steps):
        batch = runner.to_device(*user.batch(shape, 1 + i))
        t = time.perf_counter()
        losses.append(runner.train_step(*batch))
        first.setdefault("train_s", time.perf_counter() - t)
    return outputs, losses


def _compare(outputs, losses, ref_outputs, ref_losses, rtol, atol):
    """Largest differences from eager and whether they pass allclose(rtol, atol)."""
    out_diff = float(np.max(np.abs(outputs - ref_outputs))) if outputs.shape == ref_outputs.shape \
        else float("inf")
    loss_diff = [abs(a - b) for a, b in zip(losses, ref_losses)]
    ok = (outputs.shape == ref_outputs.shape
          and bool(np.allclose(outputs, ref_outputs, rtol=rtol, atol=atol))
          and bool(np.allclose(losses, ref_losses, rtol=rtol, atol=atol)))
    return {"outputs_max_abs_diff": out_diff, "loss_max_abs_diff": max(loss_diff),
            "losses": losses, "match": ok}


def measure(args, backend, adapter, device):
    """Accuracy of each arm against eager, then paired train and infer times, in the compile
    cache the cold children filled (their compiles are not what this child measures)."""
    with backend.compile_cache(args.cache_dir):
        return _measure(args, backend, adapter, device)


def _measure(args, backend, adapter, device):
    startup = time.perf_counter() - args.started
    user, shape = args.user, args.user.shape()
    example = user.batch(shape, 0)
    runners, failed, checks, first = {}, {}, {}, {}
    for arm in args.arms:  # every runner before any first call (torch: dynamo's shared cache)
        try:
            runners[arm] = adapter.Runner(user, arm_spec(arm)[0], device, example=example)
        except Exception as error:
            if arm in ("eager", AA):
                raise
            traceback.print_exc()
            failed[arm] = f"building: {one_line(error)}"
    rtol, atol = user.tolerance()
    reference = None
    for arm, runner in list(runners.items()):
        try:
            outputs, losses = _accuracy(runner, user, shape, args.accuracy_steps,
                                        first.setdefault(arm, {}))
        except Exception as error:
            if arm == "eager":
                raise
            traceback.print_exc()
            failed[arm] = f"first call: {one_line(error)}"
            del runners[arm]
            continue
        reference = reference or (outputs, losses)
        checks[arm] = _compare(outputs, losses, *reference, rtol, atol)
    times, last, blocks = {}, {}, {}
    for phase in ("train", "infer"):
        steps, finish = {}, {}
        for arm, r in runners.items():
            steps[arm], finish[arm] = _step(r, phase, r.to_device(*example), last, arm, args.wait)
        finish = {arm: f for arm, f in finish.items() if f}
        _, times[phase], settings, rule, _ = timed_rounds(args, steps, None, finish)
        blocks[phase] = settings["block"]
    calibration = args.block if args.block_s > 0 and args.block > 1 else 0  # at most
    trained = {arm: args.accuracy_steps + calibration + (args.warmup + args.rounds) * arm_block(
        blocks["train"], arm) for arm in runners}  # at most: "by train step N" holds
    non_finite = {arm: why for arm in runners if (why := _non_finite(
        checks[arm]["losses"], last[("train", arm)], last[("infer", arm)], trained[arm]))}
    return {"times": times, "settings": {**settings, "block": blocks, "block_rule": rule,
                                         "warmup_rounds": args.warmup, "wait": args.wait},
            "accuracy": checks, "tolerance": {"rtol": rtol, "atol": atol},
            "accuracy_steps": args.accuracy_steps, "failed": failed, "shape": list(shape),
            "non_finite": non_finite,
            "traces": {arm: r.traces() for arm, r in runners.items()},
            "first_calls": first, "startup_s": startup,
            "framework_version": backend.version()}


def _step(runner, phase, batch, last, arm, wait="step"):
    """(One timed step of the arm, what ends its block or None): its loss (or outputs) kept in
    `last`, checked after the clock; `wait` block: the steps queued, the block's end waits for
    the device and reads the last (suites.paired_child, as a training loop on a GPU)."""
    xs, target = batch
    dispatch = ((lambda: runner.dispatch_train(xs, target)) if phase == "train"
                else lambda: runner.dispatch_infer(xs))
    keep = lambda value: last.__setitem__((phase, arm), value)
    if wait == "block":
        pending = {}
        return (lambda: pending.__setitem__("out", dispatch()),
                lambda: keep(runner.wait(pending["out"])))
    return lambda: keep(runner.wait(dispatch())), None


def _non_finite(losses, last_loss, last_outputs, trained):
    """Where an arm's train losses (the accuracy steps', then the last timed one), or its last
    inference outputs, stopped being finite; None if they never did."""
    why = first_non_finite({**dict(enumerate(losses, 1)), trained: last_loss})
    if why or np.isfinite(last_outputs).all():
        return why
    return f"inference outputs not finite after {trained} train steps"
