"""JAX micro workloads: each a Python function run op by op or through jax.jit."""
import numpy as np
import jax
import jax.numpy as jnp

from backends.micro import FIZZBUZZ_N, add_chain, registry

NAME = "jax"
_CONTROL = ("jax.jit has no AutoGraph: a Python `if` or loop bound on a traced value raises "
            "(TracerBoolConversionError, ConcretizationTypeError); the fix is lax.cond, "
            "lax.fori_loop or jnp.where")
COMPILES_NOTHING = {}
UNSUPPORTED = {(w, "graph"): _CONTROL for w in ("square_if_positive", "sum_even", "fizzbuzz",
                                                "square_naive")}


def _traced(fn, count):
    def counted(*args):
        count[0] += 1  # Python runs once per trace
        return fn(*args)
    return counted


def build(workload, variant):
    """(step callable returning a NumPy value, trace-count callable) for one workload/variant."""
    fn, args = _WORKLOADS[workload]()
    count = [0]
    wrapped = jax.jit(_traced(fn, count)) if variant == "graph" else fn
    if isinstance(args, dict):  # a train step: the state threads through the calls
        state = args

        def step():
            state["params"], loss = wrapped(state["params"], *state["batch"])
            return np.asarray(loss)
        return step, lambda: count[0]
    return (lambda: np.asarray(wrapped(*args))), lambda: count[0]


def _rng():
    return np.random.default_rng(0)


def _conv():
    w = jnp.asarray(_rng().normal(0, 0.03, (3, 3, 100, 100)).astype(np.float32))
    image = jnp.asarray(_rng().random((1, 200, 200, 100), dtype=np.float32))
    return (lambda x: jax.lax.conv_general_dilated(
        x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))), (image,)


def _lstm_cell():
    rng = _rng()
    w, u = (jnp.asarray(rng.normal(0, 0.3, shape).astype(np.float32)) for shape in ((10, 40),
                                                                                   (10, 40)))
    x = jnp.asarray(_rng().random((10, 10), dtype=np.float32))
    zeros = jnp.zeros((10, 10))

    def cell(x, h, c):
        i, f, g, o = jnp.split(x @ w + h @ u, 4, axis=1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return jax.nn.sigmoid(o) * jnp.tanh(c)
    return cell, (x, zeros, zeros)


def _mlp_params():
    rng = _rng()
    return {"w1": jnp.asarray(rng.normal(0, 0.05, (784, 100)).astype(np.float32)),
            "b1": jnp.zeros(100),
            "w2": jnp.asarray(rng.normal(0, 0.1, (100, 10)).astype(np.float32)),
            "b2": jnp.zeros(10)}


def _mlp_data(steps):
    rng = _rng()
    return (jnp.asarray(rng.random((steps, 32, 784), dtype=np.float32)),
            jnp.asarray(rng.integers(0, 10, (steps, 32)).astype(np.int32)))


def _loss(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    log_probs = jax.nn.log_softmax(h @ params["w2"] + params["b2"])
    return -jnp.take_along_axis(log_probs, y[:, None], axis=1).mean()


def _sgd_step(params, x, y):
    loss, grads = jax.value_and_grad(_loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss


def _mlp_step():
    xs, ys = _mlp_data(1)
    return _sgd_step, {"params": _mlp_params(), "batch": (xs[0], ys[0])}


def _train_loop():
    def train(params, xs, ys):
        for step in range(20):  # a Python loop: jit unrolls it into one program of 20 steps
            params, loss = _sgd_step(params, xs[step], ys[step])
        return params, loss
    return train, {"params": _mlp_params(), "batch": _mlp_data(20)}


def _dispatch():
    return add_chain, (jnp.zeros(()),)


def _square_if_positive():
    def square_if_positive(x):
        return x * x if x > 0 else jnp.zeros_like(x)
    return square_if_positive, (jnp.asarray(7),)


def _sum_even():
    def sum_even(items):
        s = jnp.zeros((), items.dtype)
        for c in items:
            if c % 2 > 0:
                continue
            s = s + c
        return s
    return sum_even, (jnp.arange(100),)


def _fizzbuzz():
    def fizzbuzz(n):
        counts = jnp.zeros(3, jnp.int32)
        for i in range(1, int(n) + 1):
            if i % 15 == 0:
                counts = counts + jnp.array([0, 0, 1])
            elif i % 3 == 0:
                counts = counts + jnp.array([1, 0, 0])
            elif i % 5 == 0:
                counts = counts + jnp.array([0, 1, 0])
        return counts
    return fizzbuzz, (jnp.asarray(FIZZBUZZ_N),)


def _values():
    return jnp.asarray(np.random.default_rng(0).normal(size=100).astype(np.float32))


def _square_naive():
    def square_if_positive_naive(x):
        out = x
        for i in range(x.shape[0]):
            if x[i] > 0:
                out = out.at[i].set(x[i] ** 2)
        return out
    return square_if_positive_naive, (_values(),)


def _square_vectorized():
    return (lambda x: jnp.where(x > 0, x * x, x)), (_values(),)


def _matmul10():
    x = jnp.asarray(_rng().random((10, 10), dtype=np.float32))
    return (lambda x: x @ x), (x,)


_WORKLOADS = registry(globals())


def pitfall(name, fixed):
    """(run: the call sequence -> list of results, traces) for one tracing pitfall or its fix."""
    x, count = jnp.ones((4, 4)), [0]
    if name == "python_numbers":  # jit traces a Python float as a weakly typed array argument
        f = jax.jit(_traced(lambda x, n: x * n, count))
        calls = [(f, (x, jnp.float32(n) if fixed else n)) for n in (1.0, 1.0, 2.0, 2.0)]
    elif name == "function_in_loop":  # jit caches on the function object: a new lambda retraces
        once = jax.jit(_traced(lambda x: x * 2, count))
        calls = [(once if fixed else jax.jit(_traced(lambda x: x * 2, count)), (x,))
                 for _ in range(4)]
    elif name == "changing_shapes":  # a trace per distinct shape; jit has no polymorphic mode
        f = jax.jit(_traced(lambda x: (x * x).sum(), count))
        calls = [(f, (jnp.ones((s, s)),)) for s in (8, 16, 8, 32)]
    else:
        raise ValueError(f"unknown pitfall {name!r}")
    return (lambda: [np.asarray(f(*a)) for f, a in calls]), lambda: count[0]
