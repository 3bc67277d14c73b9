"""Chainer micro workloads: define-by-run, and @static_graph where the computation is static."""
import contextlib
import io

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import static_graph

from backends.micro import FIZZBUZZ_N, add_chain, registry

NAME = "chainer"
_CONTROL = ("@static_graph replays the first call's computation: data-dependent control flow "
            "and Python loops over values cannot be captured")
COMPILES_NOTHING = {}
UNSUPPORTED = {  # (workload, variant) -> reason
    **{(w, "graph"): _CONTROL for w in ("square_if_positive", "sum_even", "fizzbuzz",
                                        "square_naive")},
    ("train_loop", "graph"): "@static_graph caches a chain's forward; the optimizer update and "
                             "the loop around it stay Python",
}


class _Static(chainer.Chain):
    """Wraps a function of arrays (and its links) as a chain whose forward can be static."""

    def __init__(self, fn, links, static):
        super().__init__()
        self.fn, self.static = fn, static
        with self.init_scope():
            for i, link in enumerate(links):
                setattr(self, f"l{i}", link)

    def forward(self, *args):
        return self.fn(*args)

    @static_graph
    def static_forward(self, *args):
        return self.fn(*args)

    def __call__(self, *args):
        return self.static_forward(*args) if self.static else self.forward(*args)


def build(workload, variant):
    """(step callable returning a NumPy value, schedule-count callable) for one workload/variant."""
    fn, links, args, train = _WORKLOADS[workload]()
    chain = _Static(fn, links, variant == "graph")
    quiet = lambda: contextlib.redirect_stdout(io.StringIO())

    def step():
        with quiet():
            if train:
                return np.asarray(train(chain, *args))
            with chainer.using_config("train", False), chainer.no_backprop_mode():
                out = chain(*args)
                if chain.static:
                    chain.schedule_manager.end_forward()
            return np.asarray(out.array if isinstance(out, chainer.Variable) else out)

    def schedules():
        manager = getattr(chain, "schedule_manager", None)
        return sum(len(v) for v in manager.schedules.values()) if manager else 0
    return step, schedules


def _rng():
    return np.random.default_rng(0)


def _conv():
    layer = L.Convolution2D(100, 100, 3, initialW=_rng().normal(0, 0.03, (100, 100, 3, 3)).astype(np.float32))
    return (lambda x: layer(x)), [layer], (_rng().random((1, 100, 200, 200), dtype=np.float32),), None


def _lstm_cell():
    rng = _rng()
    upward = L.Linear(10, 40, initialW=rng.normal(0, 0.3, (40, 10)).astype(np.float32))
    lateral = L.Linear(10, 40, nobias=True,  # L.LSTM's own parts, stateless
                       initialW=rng.normal(0, 0.3, (40, 10)).astype(np.float32))
    x = _rng().random((10, 10), dtype=np.float32)
    zeros = np.zeros((10, 10), np.float32)

    def cell(x, h, c):
        return F.lstm(c, upward(x) + lateral(h))[1]
    return cell, [upward, lateral], (x, zeros, zeros), None


def _mlp_links():
    rng = _rng()
    return [L.Linear(784, 100, initialW=rng.normal(0, 0.05, (100, 784)).astype(np.float32)),
            L.Linear(100, 10, initialW=rng.normal(0, 0.1, (10, 100)).astype(np.float32))]


def _mlp_data(steps):
    rng = _rng()
    return rng.random((steps, 32, 784), dtype=np.float32), rng.integers(0, 10, (steps, 32)).astype(np.int32)


def _mlp_trainer(steps):
    """The MLP, its data, and a function running `steps` SGD updates through a chain."""
    l1, l2 = _mlp_links()
    xs, ys = _mlp_data(steps)
    state = {}

    def train(chain, xs, ys):
        if "opt" not in state:
            state["opt"] = chainer.optimizers.SGD(lr=0.1)
            state["opt"].setup(chain)
        for step in range(steps):
            chain.cleargrads()
            loss = F.softmax_cross_entropy(chain(xs[step]), ys[step])
            loss.backward()
            state["opt"].update()
        return loss.array
    return (lambda x: l2(F.relu(l1(x)))), [l1, l2], (xs, ys), train


def _mlp_step():
    return _mlp_trainer(1)


def _dispatch():
    return add_chain, [], (chainer.Variable(np.zeros((), np.float32)),), None


def _eager_only(fn, args):
    return fn, [], args, None


def _square_if_positive():
    def square_if_positive(x):
        return x * x if float(x) > 0 else np.zeros_like(x)
    return _eager_only(square_if_positive, (np.array(7, np.int32),))


def _sum_even():
    def sum_even(items):
        s = np.zeros((), items.dtype)
        for c in items:
            if c % 2 > 0:
                continue
            s = s + c
        return s
    return _eager_only(sum_even, (np.arange(100),))


def _fizzbuzz():
    def fizzbuzz(n):
        counts = np.zeros(3, np.int64)
        for i in range(1, int(n) + 1):
            if i % 15 == 0:
                counts[2] += 1
            elif i % 3 == 0:
                counts[0] += 1
            elif i % 5 == 0:
                counts[1] += 1
        return counts
    return _eager_only(fizzbuzz, (np.array(FIZZBUZZ_N),))


def _train_loop():
    return _mlp_trainer(20)


def _values():
    return np.random.default_rng(0).normal(size=100).astype(np.float32)


def _square_naive():
    def square_if_positive_naive(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = x[i] ** 2 if x[i] > 0 else x[i]
        return out
    return _eager_only(square_if_positive_naive, (_values(),))


def _square_vectorized():
    return (lambda x: F.where(x.array > 0, x * x, x)), [], (chainer.Variable(_values()),), None


def _matmul10():
    x = chainer.Variable(_rng().random((10, 10), dtype=np.float32))
    return (lambda x: F.matmul(x, x)), [], (x,), None


_WORKLOADS = registry(globals())


def pitfall(name, fixed):
    """(run: the call sequence -> list of results, schedules) for one pitfall or its fix."""
    x = np.ones((4, 4), np.float32)
    if name == "python_numbers":  # Python values are baked into the first call's schedule
        chain = _Static(lambda x, n: x * n, [], static=True)
        args = [(x, np.full((), n, np.float32) if fixed else n) for n in (1.0, 1.0, 2.0, 2.0)]
    elif name == "function_in_loop":  # a new static chain per call builds a new schedule
        chains = [_Static(lambda x: x * 2, [], static=True)] * 4 if fixed else \
            [_Static(lambda x: x * 2, [], static=True) for _ in range(4)]
        args = None
    elif name == "changing_shapes":  # one schedule per distinct shape, no way around it
        chain = _Static(lambda x: F.sum(x * x), [], static=True)
        args = [(np.ones((s, s), np.float32),) for s in (8, 16, 8, 32)]
    else:
        raise ValueError(f"unknown pitfall {name!r}")
    used = chains if args is None else [chain] * len(args)

    def run():
        out = []
        with contextlib.redirect_stdout(io.StringIO()), chainer.no_backprop_mode():
            for i, c in enumerate(used):
                y = c(x) if args is None else c(*args[i])
                c.schedule_manager.end_forward()
                out.append(np.asarray(y.array))
        return out

    def schedules():
        return sum(sum(len(v) for v in c.schedule_manager.schedules.values())
                   for c in set(used) if hasattr(c, "schedule_manager"))
    return run, schedules
