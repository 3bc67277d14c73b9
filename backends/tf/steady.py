"""TensorFlow 2 / Keras 3 backend: eager, tf.function (plain, signature, reduce_retracing) and XLA."""
import contextlib

import numpy as np
import tensorflow as tf
import keras

from models import spec as S
from models.layout import channels_last

NAME = "tf"
# log records worth counting: name in extra_info -> (logger, text in the message)
LOG_SIGNALS = {"retrace_warnings": ("tensorflow", "triggered tf.function retracing")}
_POLICIES = {"float32": "float32", "bfloat16": "mixed_bfloat16", "float16": "mixed_float16"}


def version():
    """Framework version string."""
    return tf.__version__


def configure(threads, device):
    """Set thread pools (before any op) and check the device; returns the TF device name."""
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError:
        pass  # already set by an earlier call in this process
    if device == "cuda":
        if not tf.config.list_physical_devices("GPU"):
            raise RuntimeError("--device cuda: TensorFlow sees no GPU "
                               "(tf.config.list_physical_devices('GPU') is empty)")
        return "/GPU:0"
    return "/CPU:0"


def compile_cache(cache_dir):
    """TF keeps no on-disk trace cache: every fresh tf.function is cold."""
    return contextlib.nullcontext()


def cache_hits():
    """TF has no compile cache counter."""
    return None


@contextlib.contextmanager
def deterministic(on):
    """Run the block with TF's op determinism on or off, then restore the previous setting."""
    from tensorflow.python.framework import config  # the public API can only enable it
    before = config.is_op_determinism_enabled()
    (config.enable_op_determinism if on else config.disable_op_determinism)()
    try:
        yield
    finally:
        (config.enable_op_determinism if before else config.disable_op_determinism)()


def reset_peak_memory(device):
    """Reset a GPU's peak-allocation counter; on CPU a no-op (CPU peaks are RSS, per process)."""
    if device != "/CPU:0":
        tf.config.experimental.reset_memory_stats(device.strip("/"))


def peak_memory(device):
    """Peak bytes TF allocated on the GPU since the reset; None on CPU. Untested on hardware."""
    if device == "/CPU:0":
        return None
    return tf.config.experimental.get_memory_info(device.strip("/"))["peak"]


def _keras_layer(layer, dtype):
    """One Keras layer for a non-residual spec layer (NHWC), under a dtype policy name."""
    if isinstance(layer, S.Conv):
        same = layer.stride == 1 and 2 * layer.pad == layer.k - 1
        conv = keras.layers.Conv2D(layer.cout, layer.k, layer.stride, use_bias=layer.bias,
                                   padding="same" if same or layer.k == 1 and layer.pad == 0
                                   else "valid", name=layer.name, dtype=dtype)
        if same or not layer.pad:
            return [conv]
        return [keras.layers.ZeroPadding2D(layer.pad, dtype=dtype), conv]
    if isinstance(layer, S.BatchNorm):
        return [keras.layers.BatchNormalization(epsilon=S.BN_EPS, momentum=S.BN_DECAY,
                                                name=layer.name, dtype=dtype)]
    if isinstance(layer, S.Linear):
        return [keras.layers.Dense(layer.fout, name=layer.name, dtype=dtype)]
    if isinstance(layer, S.ReLU):
        return [keras.layers.ReLU(dtype=dtype)]
    if isinstance(layer, S.MaxPool):
        return [keras.layers.MaxPooling2D(layer.k, layer.stride, padding="valid", dtype=dtype)]
    if isinstance(layer, S.ZeroPad):
        return [keras.layers.ZeroPadding2D(layer.pad, dtype=dtype)]
    if isinstance(layer, S.GlobalAvgPool):
        return [keras.layers.GlobalAveragePooling2D(dtype=dtype)]
    if isinstance(layer, S.Flatten):
        return [keras.layers.Flatten(dtype=dtype)]
    raise TypeError(f"tf backend has no rule for {layer!r}")


class _Net(keras.Model):
    """The spec as a Keras model; residual blocks become nested layer lists."""

    def __init__(self, spec, policy):
        super().__init__(name=spec.name)
        # the logits layer stays float32 under a mixed policy (Keras' mixed-precision advice)
        self.logits_layer = [lay.name for lay in S.walk(spec.layers) if isinstance(lay, S.Linear)][-1]
        self.layer_policy = policy
        self.plan = self._plan(spec.layers)

    def _plan(self, layers):
        plan = []
        for layer in layers:
            if isinstance(layer, S.Residual):
                plan.append((self._plan(layer.pre), self._plan(layer.body),
                             self._plan(layer.shortcut), layer.shortcut_from_pre))
            else:
                dtype = "float32" if getattr(layer, "name", None) == self.logits_layer else self.layer_policy
                plan.extend(_keras_layer(layer, dtype))
        return plan

    def _run(self, plan, x, training):
        for step in plan:
            if isinstance(step, tuple):
                pre, body, short, from_pre = step
                p = self._run(pre, x, training)
                x = self._run(body, p, training) + self._run(short, p if from_pre else x, training)
            else:
                x = step(x, training=training)
        return x

    def call(self, x, training=False):
        return self._run(self.plan, x, training)


def _keras_weights(spec, params):
    """Spec-layout parameters as {layer name: [kernel, bias] or [gamma, beta]} in Keras layout."""
    found, weights = channels_last(spec, params), {}
    for layer in S.walk(spec.layers):
        if keys := _KERAS_ORDER.get(type(layer)):
            weights[layer.name] = [found[f"{layer.name}.{key}"] for key in keys
                                   if f"{layer.name}.{key}" in found]
    return weights


_KERAS_ORDER = {S.Conv: ("W", "b"), S.BatchNorm: ("gamma", "beta"), S.Linear: ("W", "b")}


def _cross_entropy(labels, logits):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))


def function(fn, variant, signature=None):
    """Wrap a step function as the variant asks; `signature` (None-dim TensorSpecs) for *_dynamic."""
    if variant == "eager":
        return fn
    if variant == "graph":
        return tf.function(fn)
    if variant == "graph_relaxed":
        return tf.function(fn, reduce_retracing=True)
    if variant == "xla":
        return tf.function(fn, jit_compile=True)
    if variant in ("graph_dynamic", "xla_dynamic"):
        return tf.function(fn, input_signature=signature, jit_compile=variant == "xla_dynamic")
    raise ValueError(f"tf backend has no variant {variant!r}")


def _function(fn, variant, spec, with_labels):
    """`function` with the spec's input signature (None batch and sides, or batch and tokens)."""
    if S.is_decoder(spec):
        images = labels = tf.TensorSpec([None, None], tf.int32)
    else:
        images = tf.TensorSpec([None, None, None, spec.input_chw[0]], tf.float32)
        labels = tf.TensorSpec([None], tf.int32)
    signature = [images, labels] if with_labels else [images]
    return function(fn, variant, signature)


class Runner:
    """One model in one variant: train_step, infer_step and the trace count."""

    def __init__(self, spec, params, variant, device="/CPU:0", precision="float32"):
        self.device = device
        self.decoder = S.is_decoder(spec)
        with tf.device(device):
            self.model = self._build(spec, params, precision)
            self.variables = self.model.trainable_variables
            self.optimizer = keras.optimizers.SGD(learning_rate=S.LEARNING_RATE)
            if precision == "float16":  # float16 gradients underflow without loss scaling
                self.optimizer = keras.optimizers.LossScaleOptimizer(self.optimizer)
            self.optimizer.build(self.variables)  # else the first traced call traces twice
        self._train = _function(self._train_impl, variant, spec, True)
        self._infer = _function(self._infer_impl, variant, spec, False)

    def _build(self, spec, params, precision):
        """The Keras model with the spec's weights, its variables created eagerly."""
        if self.decoder:
            from backends.tf import decoder
            self._loss = decoder.cross_entropy
            return decoder.Decoder(spec, channels_last(spec, params))
        self._loss = _cross_entropy
        model = _Net(spec, _POLICIES[precision])
        c, h, w = spec.input_chw
        model(tf.zeros((1, h, w, c)))  # create variables eagerly, outside any trace
        for layer in model._flatten_layers():
            if layer.name in (weights := _keras_weights(spec, params)):
                layer.set_weights(weights[layer.name] + layer.get_weights()[2:])
        return model

    def _train_impl(self, x, y):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self._loss(y, logits)
            scaled = self.optimizer.scale_loss(loss)  # the loss itself unless loss scaling is on
        self.optimizer.apply_gradients(zip(tape.gradient(scaled, self.variables), self.variables))
        return loss

    def _infer_impl(self, x):
        return self.model(x, training=False)

    def to_device(self, x, y):
        """NCHW NumPy batch -> NHWC device tensors, a decoder's int32 ids as they are (outside
        any timed region)."""
        x = x if self.decoder else x.transpose(0, 2, 3, 1)
        with tf.device(self.device):
            return tf.constant(np.ascontiguousarray(x)), tf.constant(y)

    def dispatch_train(self, x, y):
        """One SGD step queued, not waited for: the loss tensor."""
        with tf.device(self.device):
            return self._train(x, y)

    def dispatch_infer(self, x):
        """Inference logits queued, not waited for."""
        with tf.device(self.device):
            return self._infer(x)

    def wait(self, out):
        """`out` on the host (reading it waits for the device): a loss as a float, logits as
        NumPy."""
        return float(out) if out.shape.rank == 0 else out.numpy()

    def train_step(self, x, y):
        """One SGD step; returns the loss as a float (which waits for the device)."""
        return self.wait(self.dispatch_train(x, y))

    def infer_step(self, x):
        """Inference logits as a NumPy array (which waits for the device)."""
        return self.wait(self.dispatch_infer(x))

    def traces(self):
        """Concrete functions traced so far by the train and infer functions."""
        return sum(f.experimental_get_tracing_count() for f in (self._train, self._infer)
                   if hasattr(f, "experimental_get_tracing_count"))


def matmul_step(n, device="/CPU:0"):
    """A callable multiplying two n x n float32 matrices and waiting for the result."""
    with tf.device(device):
        a, b = (tf.constant(np.random.default_rng(i).random((n, n), dtype=np.float32)) for i in (0, 1))

    def step():
        with tf.device(device):
            return float(tf.matmul(a, b)[0, 0])  # reading one element waits for the whole product
    return step


def prime(cold=True):
    """Pay tf.function's one-time process start-up (AutoGraph, gradient registry) before timing
    (no on-disk cache: `cold` changes nothing)."""
    w = tf.Variable(tf.ones(3))

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(x * w)
        return tape.gradient(loss, w)
    step(tf.ones(3))
