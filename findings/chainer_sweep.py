"""Where Chainer @static_graph training departs from define-by-run: BN, steps, parts, batches.

Writes results/findings/chainer_static_graph_bn.json and prints a summary.
Usage: python findings/chainer_sweep.py [--steps 10] [--out PATH]
"""
import argparse
import contextlib
import datetime
import io
import json
import os
import subprocess
import sys

import chainer
import numpy as np
from chainer.functions.normalization import batch_normalization as bn_function

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chainer_static_graph_bn as repro  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "results", "findings", "chainer_static_graph_bn.json")
BATCHES = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32)
PARTS = ("loss", "grads", "stats", "params")


def first(rows, key, tol=repro.TOL):
    """The first step (from 1) whose `key` difference exceeds tol, or None."""
    return next((i for i, r in enumerate(rows, 1) if r[key] > tol), None)


def trajectory(bn, same, batch, steps, dtype=np.float32):
    """@static_graph against define-by-run (same dtype) and a float64 oracle, per step."""
    data = repro.batches(steps, batch, same)
    static, ref = repro.train(True, data, bn, dtype), repro.train(False, data, bn, dtype)
    oracle = repro.train(False, data, bn, np.float64)
    rows = repro.compare(static, ref)
    return {"bn": bn, "data": "same batch" if same else "fresh batch per step", "batch": batch,
            "dtype": np.dtype(dtype).name,
            "first_difference": {k: first(rows, k, 0) for k in PARTS},
            "first_over_tolerance": {k: first(rows, k) for k in PARTS},
            "vs_define_by_run": rows, "vs_float64": repro.compare(static, oracle),
            "define_by_run_vs_float64": repro.compare(ref, oracle),
            "finite": bool(all(np.isfinite(s["loss"]) for s in static))}


def load(model, params):
    """Copy a snapshot's parameters into a model."""
    for name, p in model.namedparams():
        p.array[...] = params[name]


def attribution(batch, steps):
    """Per step, on @static_graph's own weights: forward loss, each gradient, the SGD update."""
    data = repro.batches(steps, batch)
    model = repro.make(True)
    start = {name: p.array.astype(np.float64) for name, p in model.namedparams()}
    static = repro.fit(model, data)
    rows = []
    for i, ((x, y), s) in enumerate(zip(data, static)):
        before = start if i == 0 else static[i - 1]["params"]
        check = repro.make(False)
        load(check, before)
        ref = repro.fit(check, [(x, y)])[0]
        sgd = {n: before[n].astype(np.float32) - repro.LR * s["grads"][n].astype(np.float32)
               for n in before}  # Chainer's SGD step in float32
        rows.append({"step": i + 1, "loss": repro.rel(s["loss"], ref["loss"]),
                     "grads": {n: repro.rel(s["grads"][n], g) for n, g in ref["grads"].items()},
                     "update": max(repro.rel(s["params"][n], sgd[n]) for n in before)})
    return rows


def running_stats(batch, steps):
    """lr 0, one batch: @static_graph's stats after n steps vs define-by-run's after n and n+1."""
    data = repro.batches(steps + 1, batch, same=True)
    static = repro.fit(repro.make(True), data[:steps], lr=0.0)
    ref = repro.fit(repro.make(False), data, lr=0.0)
    def diff(s, r):
        return max(repro.rel(s["stats"][k], r["stats"][k]) for k in s["stats"])
    return [{"step": n, "vs_same_step": diff(s, ref[n - 1]), "vs_next_step": diff(s, ref[n])}
            for n, s in enumerate(static, 1)]


@contextlib.contextmanager
def bn_forward_wrapped(wrap):
    """For the block, BatchNormalization.forward is wrap(the original forward)."""
    original = bn_function.BatchNormalization.forward
    bn_function.BatchNormalization.forward = wrap(original)
    try:
        yield
    finally:
        bn_function.BatchNormalization.forward = original


def in_place(original):
    """A forward that refreshes its saved mean/inv_std in place instead of rebinding them."""
    def forward(self, inputs):
        old = getattr(self, "mean", None), getattr(self, "inv_std", None)
        out = original(self, inputs)
        if old[0] is not None:
            old[0][...], old[1][...] = self.mean, self.inv_std
            self.mean, self.inv_std = old
        return out
    return forward


def in_place_bn_statistics():
    """The candidate fix, as a patch: the backward node then sees the current batch statistics."""
    return bn_forward_wrapped(in_place)


def bn_forward_calls(steps=3):
    """BatchNormalization.forward calls per training step (define-by-run: one per step)."""
    calls, out = [0], {}

    def counting(original):
        def forward(self, inputs):
            calls[0] += 1
            return original(self, inputs)
        return forward
    with bn_forward_wrapped(counting):
        for static in (True, False):
            model, counts = repro.make(static), []
            for x, y in repro.batches(steps, 4):
                calls[0] = 0
                repro.fit(model, [(x, y)])
                counts.append(calls[0])
            out["static_graph" if static else "define_by_run"] = counts
    return out


def suite_resnet(steps=12):
    """The parity test's quick-profile ResNet: losses eager, graph and patched graph."""
    try:
        sys.path.insert(0, ROOT)
        import models
        from backends.chainer import steady as backend
        from suites.cases import Case
    except ImportError as error:
        return {"skipped": f"not run from the graphbench checkout ({error})"}
    spec = models.build("resnet", stages=(1, 1, 1, 1), width=1 / 16, side=64)

    def losses(variant):
        with np.errstate(all="ignore"):
            return Case(backend, "@numpy", "resnet", variant, spec, 4).train_losses(steps)
    eager, graph = losses("eager"), losses("graph")
    with in_place_bn_statistics():
        patched = losses("graph")
    return {"model": "resnet stages (1,1,1,1) width 1/16 side 64, batch 4, same batch, lr 0.01",
            "eager": eager, "graph": [v if np.isfinite(v) else None for v in graph],
            "graph_patched": patched,
            "first_nan_step": next((i for i, v in enumerate(graph, 1) if not np.isfinite(v)), None),
            "patched_equals_eager_bitwise": patched == eager}


def emulated_avx2():
    """The reproducer with NumPy's AVX-512 dispatch off and OpenBLAS on its Haswell kernels."""
    from numpy.core._multiarray_umath import __cpu_features__ as features
    off = " ".join(k for k, on in features.items() if on and k.startswith("AVX512"))
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": off, "OPENBLAS_CORETYPE": "Haswell",
           "OPENBLAS_VERBOSE": "2"}
    run = subprocess.run([sys.executable, repro.__file__], env=env, capture_output=True,
                         text=True, timeout=120)
    lines = (run.stdout + run.stderr).splitlines()
    core = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("Core:")), None)
    return {"numpy_disabled_features": off, "openblas_core": core, "exit_code": run.returncode,
            "verdict": [line for line in lines if "under @static" in line]}


def eval_logits(batch, steps, patched):
    """Max relative difference of eval-mode (train=False) logits after training, static vs DbR."""
    data = repro.batches(steps + 1, batch)
    logits = []
    with in_place_bn_statistics() if patched else contextlib.nullcontext():
        for static in (True, False):
            model = repro.make(static)
            repro.fit(model, data[:steps])
            with chainer.using_config("train", False), chainer.no_backprop_mode(), \
                    contextlib.redirect_stdout(io.StringIO()):
                logits.append(model(data[-1][0].astype(np.float32)).array)
    return repro.rel(*logits)


def loss_departure(same, batch, steps):
    """Over a long run: the first step whose loss departs by more than each tolerance; the max."""
    data = repro.batches(steps, batch, same)
    static, ref = repro.train(True, data), repro.train(False, data)
    rows = repro.compare(static, ref)
    return {"data": "same batch" if same else "fresh batch per step", "batch": batch,
            "steps": steps, "first_step_over": {str(t): first(rows, "loss", t)
                                                for t in (0, 1e-4, 1e-3, 1e-2)},
            "max_loss_difference": max(r["loss"] for r in rows),
            "finite": bool(all(np.isfinite(s["loss"]) for s in static))}


def environment():
    """Versions, CPU model, vector ISA flags and the date (UTC)."""
    model, flags = repro.cpu()
    return {"versions": repro.versions()[0], "chainer": chainer.__version__,
            "numpy": np.__version__, "python": sys.version.split()[0], "cpu_model": model,
            "vector_isa_flags": flags,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}


def sweep(steps):
    """Every measurement, as one JSON-ready dict."""
    out = {"environment": environment(),
           "setup": {"network": "conv3x3 (3->8, no bias) -> BatchNormalization(8, decay 0.9) -> "
                                "ReLU -> linear(512->10); softmax cross-entropy; SGD",
                     "lr": repro.LR, "input": [3, repro.SIDE, repro.SIDE], "steps": steps,
                     "tolerance": repro.TOL,
                     "metric": "max |a-b| / max |b| per tensor, max over tensors"}}
    out["trajectories"] = [trajectory(bn, same, 4, steps) for bn in (True, False)
                           for same in (False, True)]
    out["float64_static"] = trajectory(True, False, 4, steps, np.float64)
    out["attribution"] = attribution(4, steps)
    out["running_stats_lr0"] = running_stats(4, 5)
    with in_place_bn_statistics():
        patched = [trajectory(True, same, 4, steps) for same in (False, True)]
    out["patched_in_place_mean_inv_std"] = [
        {"data": t["data"], "first_difference": t["first_difference"],
         "max": {k: max(r[k] for r in t["vs_define_by_run"]) for k in PARTS}} for t in patched]
    out["eval_logits_after_5_steps"] = {"unpatched": eval_logits(4, 5, False),
                                        "patched": eval_logits(4, 5, True)}
    out["bn_forward_calls_per_step"] = bn_forward_calls()
    out["suite_resnet"] = suite_resnet()
    out["emulated_avx2"] = emulated_avx2()
    out["batches"] = []
    for batch in BATCHES:
        for same in (False, True):
            t = trajectory(True, same, batch, 5)
            out["batches"].append({
                "batch": batch, "data": t["data"], "first_difference": t["first_difference"],
                "first_over_tolerance": t["first_over_tolerance"],
                "grads_step2": t["vs_define_by_run"][1]["grads"],
                "max_loss": max(r["loss"] for r in t["vs_define_by_run"]),
                "max_stats": max(r["stats"] for r in t["vs_define_by_run"])})
    out["long_run_loss"] = [loss_departure(same, 4, 40) for same in (False, True)]
    return out


def summary(out):
    """The human-readable lines: where the drift holds and what departs first."""
    env = out["environment"]
    lines = [env["versions"], f"cpu: {env['cpu_model']}; ISA: {' '.join(env['vector_isa_flags'])}",
             "first step differing at all from define-by-run (a correct replay is bitwise equal), "
             "batch 4:"]
    for t in out["trajectories"] + [out["float64_static"]]:
        lines.append(f"  BN={t['bn']!s:5} {t['dtype']} {t['data']:20} " + ", ".join(
            f"{k} {t['first_difference'][k]}" for k in PARTS)
            + f"; step-2 grads {t['vs_define_by_run'][1]['grads']:.1e}, loss at the end "
              f"{t['vs_define_by_run'][-1]['loss']:.1e} "
              f"(float64 oracle {t['vs_float64'][-1]['loss']:.1e})")
    lines.append("on @static_graph's own weights (fresh batches): step, loss, gradients, update")
    for r in out["attribution"][:4]:
        lines.append(f"  {r['step']}  loss {r['loss']:.0e}  " + "  ".join(
            f"{n} {e:.1e}" for n, e in r["grads"].items()) + f"  update {r['update']:.0e}")
    rs = out["running_stats_lr0"]
    lines.append("running stats, lr 0: static after n vs define-by-run after n: "
                 + ", ".join(f"{r['vs_same_step']:.1e}" for r in rs) + "; after n+1: "
                 + ", ".join(f"{r['vs_next_step']:.0e}" for r in rs))
    for t in out["patched_in_place_mean_inv_std"]:
        lines.append(f"patched (mean/inv_std refreshed in place), {t['data']}: max grads "
                     f"{t['max']['grads']:.0e}, loss {t['max']['loss']:.0e}, "
                     f"stats {t['max']['stats']:.1e}")
    ev = out["eval_logits_after_5_steps"]
    lines.append(f"eval-mode logits after 5 steps: {ev['unpatched']:.1e} "
                 f"(patched {ev['patched']:.1e})")
    calls = out["bn_forward_calls_per_step"]
    lines.append(f"BN forward calls per step: static {calls['static_graph']}, "
                 f"define-by-run {calls['define_by_run']}")
    res = out["suite_resnet"]
    if "skipped" not in res:
        lines.append(f"suite ResNet: first NaN at step {res['first_nan_step']}; patched equals "
                     f"eager bitwise: {res['patched_equals_eager_bitwise']}")
        lines.append("  eager " + " ".join(f"{v:.4f}" for v in res["eager"]))
        graph = ("nan" if v is None else f"{v:.4f}" for v in res["graph"])
        lines.append("  graph " + " ".join(graph))
    avx2 = out["emulated_avx2"]
    lines.append(f"NumPy without AVX-512, OpenBLAS core {avx2['openblas_core']}: exit "
                 f"{avx2['exit_code']}; " + "; ".join(avx2["verdict"]))
    lines.append("first differing step, and the difference: batch, data, grads, stats, loss, "
                 "step-2 grads, max loss (5 steps)")
    for b in out["batches"]:
        f = b["first_difference"]
        lines.append(f"{b['batch']:>5}  {b['data']:20}  {f['grads']!s:>5}  {f['stats']!s:>5}  "
                     f"{f['loss']!s:>4}  {b['grads_step2']:8.1e}  {b['max_loss']:.1e}")
    for d in out["long_run_loss"]:
        lines.append(f"{d['steps']} steps, {d['data']}: loss first differs by more than "
                     + ", ".join(f"{t} at step {s}" for t, s in d["first_step_over"].items())
            + f"; max {d['max_loss_difference']:.1e}, finite {d['finite']}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    out = sweep(args.steps)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, allow_nan=False)
    print("\n".join(summary(out)))
    print(f"wrote {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
