"""Chainer @static_graph vs define-by-run: SGD training through BatchNormalization, float64 oracle.

Standalone: needs only chainer and NumPy. Exit 1 while @static_graph training departs from
define-by-run (gradients or BatchNormalization running statistics), 0 when it matches.
Usage: python chainer_static_graph_bn.py [--steps 5] [--batch 4] [--no-bn] [--same-batch]
"""
import argparse
import contextlib
import io
import platform
import sys

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import static_graph

TOL = 1e-4  # max relative difference; a correct @static_graph matches define-by-run bitwise
LR = 0.1
CHANNELS, SIDE, CLASSES = 8, 8, 10


def weights(seed=0):
    """Seeded float64 weights: a 3x3 conv (no bias, as before a BN) and a linear layer."""
    rng = np.random.default_rng(seed)
    return {"conv": rng.standard_normal((CHANNELS, 3, 3, 3)) * 0.3,
            "fc_W": rng.standard_normal((CLASSES, CHANNELS * SIDE * SIDE)) * 0.05,
            "fc_b": np.zeros(CLASSES)}


class Net(chainer.Chain):
    """conv -> BatchNormalization -> ReLU -> linear (define-by-run); bn=False drops the BN."""

    def __init__(self, w, bn=True, dtype=np.float32):
        super().__init__()
        with chainer.using_config("dtype", dtype), self.init_scope():
            self.conv = L.Convolution2D(3, CHANNELS, 3, pad=1, nobias=True,
                                        initialW=w["conv"].astype(dtype))
            if bn:
                self.bn = L.BatchNormalization(CHANNELS, decay=0.9)
            self.fc = L.Linear(CHANNELS * SIDE * SIDE, CLASSES, initialW=w["fc_W"].astype(dtype),
                               initial_bias=w["fc_b"].astype(dtype))

    def body(self, x):
        h = self.conv(x)
        if hasattr(self, "bn"):
            h = self.bn(h)
        return self.fc(F.relu(h))

    def forward(self, x):
        return self.body(x)


class StaticNet(Net):
    """The same chain with its forward cached by @static_graph."""

    @static_graph
    def forward(self, x):
        return self.body(x)


def batches(steps, batch, same=False, seed=1):
    """Seeded synthetic (x, y) batches: a fresh one per step, or one batch repeated."""
    rng = np.random.default_rng(seed)
    data = [(rng.standard_normal((batch, 3, SIDE, SIDE)), rng.integers(0, CLASSES, batch))
            for _ in range(1 if same else steps)]
    return [data[0 if same else i] for i in range(steps)]


def snapshot(model):
    """{name: float64 copy} of the parameters, and of the BN running mean/var if present."""
    state = {name: p.array.astype(np.float64) for name, p in model.namedparams()}
    if hasattr(model, "bn"):
        state["/bn/avg_mean"] = model.bn.avg_mean.astype(np.float64)
        state["/bn/avg_var"] = model.bn.avg_var.astype(np.float64)
    return state


def make(static, bn=True, dtype=np.float32, w=None):
    """A fresh define-by-run or @static_graph net with the seeded weights."""
    return (StaticNet if static else Net)(weights() if w is None else w, bn, dtype)


def fit(model, data, dtype=np.float32, lr=LR):
    """Per SGD step: loss, gradients, BN running stats (after backward), parameters (after SGD)."""
    optimizer = chainer.optimizers.SGD(lr=lr)
    optimizer.setup(model)
    steps = []
    for x, y in data:
        with contextlib.redirect_stdout(io.StringIO()):  # @static_graph prints its schedules
            model.cleargrads()
            loss = F.softmax_cross_entropy(model(x.astype(dtype)), y.astype(np.int32))
            loss.backward()
        state = snapshot(model)
        stats = {k: v for k, v in state.items() if k.startswith("/bn/avg")}
        grads = {name: p.grad.astype(np.float64) for name, p in model.namedparams()}
        optimizer.update()
        params = {k: v for k, v in snapshot(model).items() if k not in stats}
        steps.append({"loss": float(loss.array), "grads": grads, "stats": stats, "params": params})
    return steps


def train(static, data, bn=True, dtype=np.float32):
    """fit() a fresh net: define-by-run or @static_graph."""
    return fit(make(static, bn, dtype), data, dtype)


def rel(a, b):
    """Max relative difference of a against reference b (max |a - b| over max |b|)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-30))


def compare(run, ref):
    """Per step: max relative difference of loss, gradients, running stats and parameters."""
    out = []
    for a, b in zip(run, ref):
        row = {"loss": rel(a["loss"], b["loss"])}
        for key in ("grads", "stats", "params"):
            row[key] = max((rel(a[key][n], b[key][n]) for n in b[key]), default=0.0)
        out.append(row)
    return out


def cpu():
    """CPU model and its vector ISA flags (from /proc/cpuinfo where there is one)."""
    model, flags = platform.processor() or platform.machine(), []
    try:
        with open("/proc/cpuinfo") as f:
            info = dict((k.strip(), v) for k, v in (line.split(":", 1) for line in
                        f.read().split("\n\n")[0].splitlines() if ":" in line))
        model = info.get("model name", model).strip()
        flags = sorted(f for f in info.get("flags", "").split()
                       if f.startswith(("avx", "amx", "sse4", "fma", "asimd", "sve")))
    except OSError:
        pass
    return model, flags


def versions():
    """One line per component: chainer, numpy, python, CPU and vector ISA."""
    model, flags = cpu()
    return [f"chainer {chainer.__version__}, numpy {np.__version__}, "
            f"python {platform.python_version()}, {platform.system()} {platform.machine()}",
            f"cpu: {model}", f"vector ISA: {' '.join(flags) or 'unknown'}"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--no-bn", action="store_true", help="drop the BatchNormalization")
    parser.add_argument("--same-batch", action="store_true", help="repeat one batch every step")
    args = parser.parse_args()
    print("\n".join(versions()))
    data = batches(args.steps, args.batch, args.same_batch)
    bn = not args.no_bn
    ref, static = train(False, data, bn), train(True, data, bn)
    oracle = train(False, data, bn, np.float64)
    print(f"conv3x3 -> {'BatchNormalization -> ' if bn else ''}ReLU -> linear, batch {args.batch}, "
          f"SGD lr {LR}, {'one batch repeated' if args.same_batch else 'a fresh batch per step'}")
    print("max relative difference against float32 define-by-run [float64 define-by-run]:")
    print("step  loss               gradients          BN running stats   parameters")
    table = compare(static, ref)
    for i, (d, o, e) in enumerate(zip(table, compare(static, oracle), compare(ref, oracle)), 1):
        print(f"{i:>4}  " + "  ".join(f"{d[k]:.1e} [{o[k]:.1e}]" for k in
                                       ("loss", "grads", "stats", "params"))
              + f"   (define-by-run vs float64: {max(e.values()):.0e})")
    firsts = {part: next((i for i, r in enumerate(table, 1) if r[key] > TOL), None)
              for part, key in (("gradients", "grads"), ("BN running statistics", "stats"))}
    for part, step in firsts.items():
        print(f"{part}: {'right' if step is None else 'WRONG'} under @static_graph "
              f"(tolerance {TOL:g})" + ("" if step is None else f", first at step {step}"))
    if any(step is not None for step in firsts.values()):
        print("BUG PRESENT: @static_graph training departs from define-by-run")
        print("(the replayed BatchNormalizationGrad keeps step 1's mean/inv_std; the first call "
              "updates avg_mean/avg_var twice)")
        return 1
    print("OK: @static_graph matches define-by-run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
