"""TensorFlow micro workloads: each a Python function run eagerly or as a tf.function."""
import numpy as np
import tensorflow as tf
import keras

from backends.micro import FIZZBUZZ_N, add_chain, registry

NAME = "tf"
COMPILES_NOTHING = {}
UNSUPPORTED = {}


def _mlp(seed=0):
    """A 784-100-10 Keras MLP with seeded weights, built eagerly, and its SGD optimizer."""
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.layers.Dense(100, activation="relu"), keras.layers.Dense(10)])
    model.build((None, 784))
    optimizer = keras.optimizers.SGD(learning_rate=0.1)
    optimizer.build(model.trainable_variables)
    return model, optimizer


def _mlp_data(steps, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.random((steps, 32, 784), dtype=np.float32)
    y = rng.integers(0, 10, (steps, 32)).astype(np.int32)
    return tf.constant(x), tf.constant(y)


def _train_one_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, model(x)))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables))
    return loss


def build(workload, variant):
    """(step callable returning a NumPy value, trace-count callable) for one workload/variant."""
    fn, args = _WORKLOADS[workload]()
    wrapped = tf.function(fn) if variant == "graph" else fn
    traces = (lambda: wrapped.experimental_get_tracing_count()) if variant == "graph" else (lambda: 0)
    return (lambda: _host(wrapped(*args))), traces


def _host(value):
    return np.asarray(value)


def _conv():
    keras.utils.set_random_seed(0)
    layer = keras.layers.Conv2D(100, 3)
    image = tf.constant(np.random.default_rng(0).random((1, 200, 200, 100), dtype=np.float32))
    layer(image)
    return (lambda x: layer(x)), (image,)


def _lstm_cell():
    keras.utils.set_random_seed(0)
    cell = keras.layers.LSTMCell(10)
    x = tf.constant(np.random.default_rng(0).random((10, 10), dtype=np.float32))
    state = [tf.zeros((10, 10)), tf.zeros((10, 10))]
    cell(x, state)
    return (lambda x, h, c: cell(x, [h, c])[0]), (x, *state)


def _mlp_step():
    model, optimizer = _mlp()
    x, y = _mlp_data(1)
    return (lambda x, y: _train_one_step(model, optimizer, x, y)), (x[0], y[0])


def _dispatch():
    return add_chain, (tf.constant(0.0),)


def _square_if_positive():
    def square_if_positive(x):
        if x > 0:
            x = x * x
        else:
            x = 0
        return x
    return square_if_positive, (tf.constant(7),)


def _sum_even():
    def sum_even(items):
        s = 0
        for c in items:
            if c % 2 > 0:
                continue
            s += c
        return s
    return sum_even, (tf.range(100),)


def _fizzbuzz():
    def fizzbuzz(n):
        counts = tf.zeros(3, tf.int32)
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                counts += tf.constant([0, 0, 1])
            elif i % 3 == 0:
                counts += tf.constant([1, 0, 0])
            elif i % 5 == 0:
                counts += tf.constant([0, 1, 0])
        return counts
    return fizzbuzz, (tf.constant(FIZZBUZZ_N),)


def _train_loop():
    model, optimizer = _mlp()
    xs, ys = _mlp_data(20)

    def train(xs, ys):
        loss = tf.constant(0.0)
        for step in tf.range(20):
            loss = _train_one_step(model, optimizer, xs[step], ys[step])
        return loss
    return train, (xs, ys)


def _values():
    return tf.constant(np.random.default_rng(0).normal(size=100).astype(np.float32))


def _square_naive():
    def square_if_positive_naive(x):
        result = tf.TensorArray(tf.float32, size=100)
        for i in tf.range(100):
            if x[i] > 0:
                result = result.write(i, x[i] ** 2)
            else:
                result = result.write(i, x[i])
        return result.stack()
    return square_if_positive_naive, (_values(),)


def _square_vectorized():
    return (lambda x: tf.where(x > 0, x * x, x)), (_values(),)


def _matmul10():
    return (lambda x: tf.matmul(x, x)), (tf.constant(
        np.random.default_rng(0).random((10, 10), dtype=np.float32)),)


_WORKLOADS = registry(globals())


def pitfall(name, fixed):
    """(run: the call sequence -> list of results, traces) for one tracing pitfall or its fix."""
    x = tf.ones((4, 4))
    if name == "python_numbers":  # a Python number is part of the trace key: one trace per value
        f = tf.function(lambda x, n: x * n)
        args = [(x, tf.constant(n) if fixed else n) for n in (1.0, 1.0, 2.0, 2.0)]
        return (lambda: [_host(f(*a)) for a in args]), f.experimental_get_tracing_count
    if name == "function_in_loop":  # a new tf.function per call traces every time
        once = tf.function(lambda x: x * 2)
        made = []

        def run():
            out = []
            for _ in range(4):
                f = once if fixed else tf.function(lambda x: x * 2)
                made.append(f)
                out.append(_host(f(x)))
            return out
        return run, lambda: sum(f.experimental_get_tracing_count() for f in set(made))
    if name == "changing_shapes":  # without a signature every new shape is a new trace
        spec = [tf.TensorSpec([None, None], tf.float32)] if fixed else None
        f = tf.function(lambda x: tf.reduce_sum(x * x), input_signature=spec)
        shapes = [tf.ones((s, s)) for s in (8, 16, 8, 32)]
        return (lambda: [_host(f(a)) for a in shapes]), f.experimental_get_tracing_count
    raise ValueError(f"unknown pitfall {name!r}")
