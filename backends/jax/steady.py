"""JAX backend in plain JAX (no Flax): op-by-op eager, and jax.jit of the whole train and infer
steps.

Layout NHWC with HWIO kernels (XLA:CPU's native convolution layout, as in jax's stax); the spec's
OIHW / NCHW-flatten weights are converted once when a Runner loads them."""
import contextlib
import os

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental.compilation_cache import compilation_cache

from models import spec as S
from models.layout import channels_last

NAME = "jax"
LOG_SIGNALS = {}  # JAX logs nothing worth counting; traces and compiles are counted directly
_DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}
# jax.monitoring events (the names are undocumented: dispatch.py and compiler.py of jax 0.10.2;
# tests/test_jax_counters.py pins them). A backend compile fires on persistent-cache hits too.
_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_PHASES = {"trace_s": "/jax/core/compile/jaxpr_trace_duration",  # durations of a first call
           "lower_s": "/jax/core/compile/jaxpr_to_mlir_module_duration",
           "compile_s": _COMPILE_EVENT}  # compile_s includes persistent-cache loads
_CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"
_CACHE_MISS_EVENT = "/jax/compilation_cache/cache_misses"  # fires when an entry is written
_events = {}  # event name -> count in this process since _listen() first ran
_seconds = {}  # duration event name -> seconds summed in this process since then
_listening = []  # one entry once the listeners are registered


def _count(event, *_, **__):
    _events[event] = _events.get(event, 0) + 1


def _time(event, duration, **_):
    _count(event)
    _seconds[event] = _seconds.get(event, 0.0) + duration


def _listen():
    """Count compile and cache events from now on (once per process)."""
    if not _listening:
        _listening.append(True)
        jax.monitoring.register_event_listener(_count)
        jax.monitoring.register_event_duration_secs_listener(_time)


def _event_count(name):
    """How many times jax.monitoring reported `name` in this process since _listen()."""
    _listen()
    return _events.get(name, 0)


def version():
    """Framework version string."""
    return jax.__version__


def configure(threads, device):
    """Cap XLA:CPU at `threads` cores by CPU affinity (it has no thread-count setting and sizes
    its pools from the cores this process may run on, when its CPU client starts: call this
    before any computation); returns the JAX device."""
    allowed = sorted(os.sched_getaffinity(0))
    if threads < len(allowed):
        os.sched_setaffinity(0, allowed[:threads])
    _listen()
    if device == "cuda":
        try:
            return jax.devices("gpu")[0]
        except RuntimeError:
            raise RuntimeError("--device cuda: JAX sees no GPU (this env installs the CPU jaxlib "
                               "and sets JAX_PLATFORMS=cpu)") from None
    return jax.devices("cpu")[0]


@contextlib.contextmanager
def compile_cache(cache_dir):
    """Compile with JAX's persistent compilation cache in `cache_dir` (every entry cached: empty is
    cold, populated is warm); `None` keeps the process's setting (off unless configured)."""
    if cache_dir is None:
        yield
        return
    keys = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
            "jax_persistent_cache_min_entry_size_bytes")
    before = {key: getattr(jax.config, key) for key in keys}
    jax.clear_caches()  # in-memory executables would hide the on-disk cache
    compilation_cache.reset_cache()  # JAX reads the dir once per process unless reset
    for key, value in zip(keys, (str(cache_dir), 0.0, -1)):
        jax.config.update(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            jax.config.update(key, value)
        compilation_cache.reset_cache()
        jax.clear_caches()


def compile_phases(runner):
    """Seconds the runner's train calls so far spent tracing, lowering and compiling (or loading
    from the persistent cache), from jax.monitoring's duration events: a first call's split."""
    return dict(runner._phases)


def compiles(runner):
    """XLA executables the runner's calls compiled (or loaded from the persistent cache) so far:
    one per shape for `graph`, one per primitive and shape for op-by-op `eager`."""
    return sum(runner._compiles.values())


def cache_hits():
    """Persistent compilation cache hits so far in this process (jax.monitoring events)."""
    return _event_count(_CACHE_HIT_EVENT)


_DETERMINISTIC = [False]  # whether runners first called now compile with deterministic ops


@contextlib.contextmanager
def deterministic(on):
    """Off: the block as it is. On: a `graph` runner first called inside it compiles with XLA's
    xla_gpu_deterministic_ops (jax.jit's compiler_options), a GPU's switch; on CPU, and for
    op-by-op JAX, which compiles each primitive without compile options, its first call refuses
    (catalog.determinism_skip)."""
    before, _DETERMINISTIC[0] = _DETERMINISTIC[0], on
    try:
        yield
    finally:
        _DETERMINISTIC[0] = before


def reset_peak_memory(device):
    """On CPU a no-op (CPU peaks are RSS, per process)."""


def peak_memory(device):
    """Peak bytes in use on a GPU (device.memory_stats()); None on CPU. Untested on hardware."""
    stats = device.memory_stats() if device.platform != "cpu" else None
    return stats.get("peak_bytes_in_use") if stats else None


def _params(spec, params):
    """Spec-layout NumPy parameters -> {name: array} in this backend's layout (HWIO, (in, out))."""
    return {k: jnp.asarray(np.ascontiguousarray(v))
            for k, v in channels_last(spec, params).items()}


def _running_stats(spec):
    """Fresh BatchNorm running statistics: {name.mean: 0, name.var: 1}."""
    return {f"{layer.name}.{key}": jnp.full(layer.channels, value, jnp.float32)
            for layer in S.walk(spec.layers) if isinstance(layer, S.BatchNorm)
            for key, value in (("mean", 0.0), ("var", 1.0))}


def _batchnorm(x, layer, params, stats, training, updates):
    """Batch norm in float32: batch statistics (recording the running update) or running ones."""
    x32 = x.astype(jnp.float32)
    if training:
        mean, var = x32.mean(axis=(0, 1, 2)), x32.var(axis=(0, 1, 2))
        n = x.size // x.shape[-1]  # the running variance is unbiased, as in torch and Chainer
        for key, batch in (("mean", mean), ("var", var * n / max(n - 1, 1))):
            old = stats[f"{layer.name}.{key}"]
            updates[f"{layer.name}.{key}"] = S.BN_DECAY * old + (1 - S.BN_DECAY) * batch
    else:
        mean, var = stats[f"{layer.name}.mean"], stats[f"{layer.name}.var"]
    scale = params[f"{layer.name}.gamma"] * lax.rsqrt(var + S.BN_EPS)
    return ((x32 - mean) * scale + params[f"{layer.name}.beta"]).astype(x.dtype)


def _layer(x, layer, params, stats, training, updates):
    if isinstance(layer, S.Conv):
        out = lax.conv_general_dilated(
            x, params[f"{layer.name}.W"].astype(x.dtype), (layer.stride,) * 2,
            [(layer.pad, layer.pad)] * 2, dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return out + params[f"{layer.name}.b"].astype(x.dtype) if layer.bias else out
    if isinstance(layer, S.BatchNorm):
        return _batchnorm(x, layer, params, stats, training, updates)
    if isinstance(layer, S.Linear):
        w, b = (params[f"{layer.name}.{k}"].astype(x.dtype) for k in ("W", "b"))
        return x @ w + b
    if isinstance(layer, S.ReLU):
        return jnp.maximum(x, 0)
    if isinstance(layer, S.MaxPool):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, layer.k, layer.k, 1),
                                 (1, layer.stride, layer.stride, 1), "VALID")
    if isinstance(layer, S.ZeroPad):
        return jnp.pad(x, ((0, 0), (layer.pad,) * 2, (layer.pad,) * 2, (0, 0)))
    if isinstance(layer, S.GlobalAvgPool):
        return x.mean(axis=(1, 2))
    if isinstance(layer, S.Flatten):
        return x.reshape(x.shape[0], -1)
    if isinstance(layer, S.Residual):
        p = _run(x, layer.pre, params, stats, training, updates)
        short = _run(p if layer.shortcut_from_pre else x, layer.shortcut, params, stats, training,
                     updates)
        return _run(p, layer.body, params, stats, training, updates) + short
    raise TypeError(f"jax backend has no rule for {layer!r}")


def _run(x, layers, params, stats, training, updates):
    for layer in layers:
        x = _layer(x, layer, params, stats, training, updates)
    return x


def _forward(spec, params, stats, x, training, dtype=jnp.float32):
    """(float32 logits, updated running statistics) of `spec` on NHWC `x`, computing in `dtype`."""
    updates = {}
    logits = _run(x.astype(dtype), spec.layers, params, stats, training, updates)
    return logits.astype(jnp.float32), {**stats, **updates}


def _cross_entropy(logits, labels):
    """Mean softmax cross-entropy of float32 logits and integer labels."""
    log_probs = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(log_probs, labels[:, None], axis=1).mean()


def _sgd(params, grads):
    """Plain SGD over the parameter pytree (no optimizer state: no momentum, no step count)."""
    return jax.tree.map(lambda p, g: p - S.LEARNING_RATE * g, params, grads)


def _decoder_module():
    from backends.jax import decoder
    return decoder


class Runner:
    """One model in one variant: train_step, infer_step and the trace count.

    `graph` jits the whole train step (parameters, running statistics and batch in; new ones and
    the loss out) and the infer step. It donates the parameters and statistics: the Runner drops
    the old ones at once, so XLA may update them in place as torch's optimizer and TF's variables
    do, instead of allocating a second copy of the weights every step."""

    def __init__(self, spec, params, variant, device=None, precision="float32"):
        if variant not in ("eager", "graph"):
            raise ValueError(f"jax backend has no variant {variant!r}")
        self.device = device or jax.devices("cpu")[0]
        self.spec, self.dtype = spec, _DTYPES[precision]
        self._decoder = _decoder_module() if S.is_decoder(spec) else None
        self.params = jax.device_put(_params(spec, params), self.device)
        self.stats = jax.device_put(_running_stats(spec), self.device)
        self._traced = {"train": 0, "infer": 0}  # Python-side: the body runs once per trace
        self._compiles = {"train": 0, "infer": 0}  # backend compiles during this runner's calls
        self._phases = dict.fromkeys(_PHASES, 0.0)  # seconds of its train calls in each phase
        self.variant = variant
        self._train = lambda *args: self._first_call("train", args)
        self._infer = lambda *args: self._first_call("infer", args)

    def _first_call(self, name, args):
        """Settle the step's function at its first call (deterministic ops or not, so that no
        later step pays a check), then call it."""
        if _DETERMINISTIC[0] and (self.variant == "eager" or self.device.platform == "cpu"):
            raise NotImplementedError(
                "JAX has no deterministic-ops switch " + ("for op-by-op primitives" if
                                                           self.variant == "eager" else "on CPU")
                + " (xla_gpu_deterministic_ops reaches jax.jit's compiles on a GPU only)")
        fn = {"train": self._train_impl, "infer": self._infer_impl}[name]
        if self.variant == "graph":
            fn = jax.jit(self._counted(name, fn), donate_argnums=(0, 1) if name == "train" else (),
                         compiler_options={"xla_gpu_deterministic_ops": True}
                         if _DETERMINISTIC[0] else None)
        setattr(self, f"_{name}", fn)
        return fn(*args)

    def _counted(self, name, fn):
        def traced(*args):
            self._traced[name] += 1
            return fn(*args)
        return traced

    def _train_impl(self, params, stats, x, y):
        def loss_fn(p):
            if self._decoder:
                return self._decoder.cross_entropy(self._decoder.forward(self.spec, p, x), y), stats
            logits, new_stats = _forward(self.spec, p, stats, x, True, self.dtype)
            return _cross_entropy(logits, y), new_stats
        (loss, new_stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
        return _sgd(params, grads), new_stats, loss

    def _infer_impl(self, params, stats, x):
        if self._decoder:
            return self._decoder.forward(self.spec, params, x)
        return _forward(self.spec, params, stats, x, False, self.dtype)[0]

    def _call(self, name, fn, *args):
        before = _event_count(_COMPILE_EVENT), {k: _seconds.get(e, 0.0) for k, e in _PHASES.items()}
        out = fn(*args)
        self._compiles[name] += _event_count(_COMPILE_EVENT) - before[0]
        if name == "train":
            for key, event in _PHASES.items():
                self._phases[key] += _seconds.get(event, 0.0) - before[1][key]
        return out

    def to_device(self, x, y):
        """NCHW NumPy batch -> NHWC device arrays (int32 labels; a decoder's int32 ids as they
        are), outside any timed region."""
        x = x if self._decoder else x.transpose(0, 2, 3, 1)
        return (jax.device_put(np.ascontiguousarray(x), self.device),
                jax.device_put(y.astype(np.int32), self.device))

    def dispatch_train(self, x, y):
        """One SGD step dispatched, not waited for (dispatch is asynchronous): the loss array."""
        self.params, self.stats, loss = self._call("train", self._train, self.params, self.stats,
                                                   x, y)
        return loss

    def dispatch_infer(self, x):
        """Inference logits dispatched, not waited for."""
        return self._call("infer", self._infer, self.params, self.stats, x)

    def wait(self, out):
        """Wait for every output of the steps dispatched (op-by-op, the update still runs when the
        loss is ready, into the next arm's timed block), then `out` on the host: a loss as a
        float, logits as NumPy."""
        jax.block_until_ready((self.params, self.stats, out))
        return float(out) if out.ndim == 0 else np.asarray(out)

    def train_step(self, x, y):
        """One SGD step; returns the loss as a float after every output is computed."""
        return self.wait(self.dispatch_train(x, y))

    def infer_step(self, x):
        """Inference logits as a NumPy array (which waits for the device)."""
        return self.wait(self.dispatch_infer(x))

    def traces(self):
        """Traces of the jitted train and infer steps so far (0 in eager: nothing is traced)."""
        return sum(self._traced.values())


def matmul_step(n, device=None):
    """A callable multiplying two n x n float32 matrices and waiting for the result."""
    device = device or jax.devices("cpu")[0]
    a, b = (jax.device_put(np.random.default_rng(i).random((n, n), dtype=np.float32), device)
            for i in (0, 1))
    return lambda: float((a @ b)[0, 0])  # float() waits for the product


def prime(cold=True):
    """Pay JAX's one-time process start-up (backend client, first trace, lowering and compile)
    before timing; the persistent cache is off here either way, so `cold` changes nothing."""
    w = jnp.ones(3)
    jax.jit(jax.grad(lambda x: (x * w).sum()))(jnp.ones(3)).block_until_ready()
