"""PyTorch micro workloads: each a Python function run eagerly or through torch.compile."""
import numpy as np
import torch
import torch._dynamo
import torch._dynamo.testing
from torch import nn

from backends.micro import FIZZBUZZ_N, add_chain, registry

NAME = "torch"
UNSUPPORTED = {}
# Measured (torch 2.13): dynamo captures no graph at all for these, so `graph` runs eagerly
COMPILES_NOTHING = {
    "sum_even": "a Python loop over tensor elements with a data-dependent `continue`",
    "square_naive": "a Python loop writing elements under a data-dependent branch",
}


def build(workload, variant):
    """(step callable returning a NumPy value, compile-count callable) for one workload/variant."""
    torch._dynamo.reset()  # compiled entries live on shared code objects: start each clean
    fn, args = _WORKLOADS[workload]()
    if variant == "graph":
        counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")
        fn = torch.compile(fn, backend=counter)
        return (lambda: _host(fn(*args))), (lambda: counter.frame_count)
    return (lambda: _host(fn(*args))), (lambda: 0)


def graph_breaks(workload):
    """Dynamo's own count of graph breaks for one workload (torch._dynamo.explain)."""
    torch._dynamo.reset()
    fn, args = _WORKLOADS[workload]()
    return torch._dynamo.explain(fn)(*args).graph_break_count


def _host(value):
    return value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)


def _mlp():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 100), nn.ReLU(), nn.Linear(100, 10))
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


def _mlp_data(steps, seed=0):
    rng = np.random.default_rng(seed)
    return (torch.from_numpy(rng.random((steps, 32, 784), dtype=np.float32)),
            torch.from_numpy(rng.integers(0, 10, (steps, 32))))


def _train_one_step(model, optimizer, x, y):
    optimizer.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()  # a graph break under torch.compile: counted, not hidden
    optimizer.step()
    return loss.detach()


def _conv():
    torch.manual_seed(0)
    layer = nn.Conv2d(100, 100, 3).requires_grad_(False)  # forward only, as TF's untaped call
    image = torch.from_numpy(np.random.default_rng(0).random((1, 100, 200, 200), dtype=np.float32))
    return (lambda x: layer(x).detach()), (image,)


def _lstm_cell():
    torch.manual_seed(0)
    cell = nn.LSTMCell(10, 10).requires_grad_(False)
    x = torch.from_numpy(np.random.default_rng(0).random((10, 10), dtype=np.float32))
    return (lambda x, h, c: cell(x, (h, c))[0].detach()), (x, torch.zeros(10, 10), torch.zeros(10, 10))


def _mlp_step():
    model, optimizer = _mlp()
    x, y = _mlp_data(1)
    return (lambda x, y: _train_one_step(model, optimizer, x, y)), (x[0], y[0])


def _dispatch():
    return add_chain, (torch.tensor(0.0),)


def _square_if_positive():
    def square_if_positive(x):
        if x > 0:  # data-dependent: dynamo breaks the graph here
            x = x * x
        else:
            x = torch.zeros_like(x)
        return x
    return square_if_positive, (torch.tensor(7),)


def _sum_even():
    def sum_even(items):
        s = torch.zeros((), dtype=items.dtype)
        for c in items:
            if c % 2 > 0:
                continue
            s = s + c
        return s
    return sum_even, (torch.arange(100),)


def _fizzbuzz():
    def fizzbuzz(n):
        counts = torch.zeros(3, dtype=torch.int64)
        for i in range(1, int(n) + 1):
            if i % 15 == 0:
                counts[2] += 1
            elif i % 3 == 0:
                counts[0] += 1
            elif i % 5 == 0:
                counts[1] += 1
        return counts
    return fizzbuzz, (torch.tensor(FIZZBUZZ_N),)


def _train_loop():
    model, optimizer = _mlp()
    xs, ys = _mlp_data(20)

    def train(xs, ys):
        for step in range(20):
            loss = _train_one_step(model, optimizer, xs[step], ys[step])
        return loss
    return train, (xs, ys)


def _values():
    return torch.from_numpy(np.random.default_rng(0).normal(size=100).astype(np.float32))


def _square_naive():
    def square_if_positive_naive(x):
        out = torch.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = x[i] ** 2 if x[i] > 0 else x[i]
        return out
    return square_if_positive_naive, (_values(),)


def _square_vectorized():
    return (lambda x: torch.where(x > 0, x * x, x)), (_values(),)


def _matmul10():
    return (lambda x: x @ x), (torch.from_numpy(
        np.random.default_rng(0).random((10, 10), dtype=np.float32)),)


_WORKLOADS = registry(globals())


def pitfall(name, fixed):
    """(run: the call sequence -> list of results, compiles) for one tracing pitfall or its fix."""
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("inductor")
    x = torch.ones(4, 4)
    if name == "python_numbers":  # dynamo specialises on Python scalars, then makes them dynamic
        f = torch.compile(lambda x, n: x * n, backend=counter)
        args = [(x, torch.tensor(n) if fixed else n) for n in (1.0, 1.0, 2.0, 2.0)]
        return (lambda: [_host(f(*a)) for a in args]), lambda: counter.frame_count
    if name == "function_in_loop":  # torch.compile anew per call: the cache is on the code object
        def double(x):
            return x * 2
        once = torch.compile(double, backend=counter)

        def run():
            return [_host((once if fixed else torch.compile(double, backend=counter))(x))
                    for _ in range(4)]
        return run, lambda: counter.frame_count
    if name == "changing_shapes":  # the default recompiles once, then goes dynamic
        f = torch.compile(lambda x: (x * x).sum(), backend=counter, dynamic=True if fixed else None)
        shapes = [torch.ones(s, s) for s in (8, 16, 8, 32)]
        return (lambda: [_host(f(a)) for a in shapes]), lambda: counter.frame_count
    raise ValueError(f"unknown pitfall {name!r}")
