"""Chainer backend: define-by-run and @static_graph (NumPy on CPU, CuPy on a GPU)."""
import contextlib
import importlib
import io
import os
from unittest import mock

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import static_graph

from models import spec as S

NAME = "chainer"
LOG_SIGNALS = {}  # @static_graph prints (to stdout) instead of logging
_xp = np
_DTYPES = {"float32": np.float32, "float16": chainer.mixed16}  # NumPy has no bfloat16
_hits = 0  # kernels CuPy found in its on-disk cache (compile_cache's counting backend)


def version():
    """Framework version string."""
    return chainer.__version__


def configure(threads, device):
    """Chainer's CPU threads are NumPy's BLAS threads (set by environment); check the device."""
    global _xp
    if device == "cuda":
        try:
            import cupy  # installed by hand (cupy-cuda12x or -cuda13x): no env pins it
            cupy.cuda.runtime.getDeviceCount()
        except Exception as error:  # ImportError, or CUDARuntimeError without a GPU
            raise RuntimeError(f"--device cuda: Chainer has no CuPy GPU ({error})") from None
        _xp = cupy
        return "@cupy:0"
    return "@numpy"


@contextlib.contextmanager
def compile_cache(cache_dir):
    """On a GPU, CuPy's on-disk kernel cache in `cache_dir` (empty is cold, populated is warm); on
    a CPU nothing compiles (@static_graph keeps no cache beyond its chain: a fresh chain is cold).
    `None` keeps the process's cache (~/.cupy/kernel_cache unless CUPY_CACHE_DIR says)."""
    if cache_dir is None or _xp is np:
        yield
        return
    compiler = importlib.import_module("cupy.cuda.compiler")
    if not hasattr(compiler, "_set_kernel_cache_backend"):  # before CuPy 14: read per compile
        with mock.patch.dict(os.environ, {"CUPY_CACHE_DIR": str(cache_dir)}):
            yield
        return
    # CuPy 14 reads CUPY_CACHE_DIR once, at import (cupy/cuda/_compiler_cache.py): swap its backend
    before = compiler._kernel_cache_backend
    compiler._set_kernel_cache_backend(_counting_cache(cache_dir))
    try:
        yield
    finally:
        compiler._set_kernel_cache_backend(before)


def _counting_cache(cache_dir):
    """CuPy's disk kernel cache in `cache_dir`, each kernel it finds counted in `_hits`."""
    from cupy.cuda._compiler_cache import DiskKernelCacheBackend

    class Counting(DiskKernelCacheBackend):
        def load(self, name):
            global _hits
            found = super().load(name)
            _hits += found is not None
            return found
    return Counting(str(cache_dir))


def cache_hits():
    """Kernels CuPy loaded from its on-disk cache so far in this process (on a GPU, CuPy 14 and
    later); None where nothing is counted: on a CPU (NumPy compiles nothing), or an older CuPy."""
    if _xp is np:
        return None
    return _hits if hasattr(importlib.import_module("cupy.cuda.compiler"),
                            "_set_kernel_cache_backend") else None


def deterministic(on):
    """Chainer's cuDNN deterministic config for the block; on CPU (NumPy) it changes nothing."""
    return chainer.using_config("cudnn_deterministic", on)


def reset_peak_memory(device):
    """Empty CuPy's pool so its size grows from zero; on CPU a no-op (CPU peaks are RSS)."""
    if device != "@numpy":
        _xp.get_default_memory_pool().free_all_blocks()


def peak_memory(device):
    """CuPy pool bytes held since the reset (the pool keeps freed blocks, so its size is the peak);
    None on CPU. Untested on hardware."""
    if device == "@numpy":
        return None
    _xp.cuda.Device().synchronize()
    return _xp.get_default_memory_pool().total_bytes()


def _link_name(name):
    return name.replace(".", "_")


def _apply(chain, layers, x):
    """Run spec layers on x with the chain's links (NCHW)."""
    for layer in layers:
        if isinstance(layer, (S.Conv, S.BatchNorm, S.Linear)):
            x = getattr(chain, _link_name(layer.name))(x)
        elif isinstance(layer, S.ReLU):
            x = F.relu(x)
        elif isinstance(layer, S.MaxPool):
            x = F.max_pooling_2d(x, layer.k, layer.stride, cover_all=False)
        elif isinstance(layer, S.ZeroPad):
            p = layer.pad
            x = F.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), "constant")
        elif isinstance(layer, S.GlobalAvgPool):
            x = F.mean(x, axis=(2, 3))
        elif isinstance(layer, S.Flatten):
            x = F.reshape(x, (x.shape[0], -1))
        elif isinstance(layer, S.Residual):
            p = _apply(chain, layer.pre, x)
            x = _apply(chain, layer.body, p) + _apply(chain, layer.shortcut,
                                                      p if layer.shortcut_from_pre else x)
        else:
            raise TypeError(f"chainer backend has no rule for {layer!r}")
    return x


def _link(layer, params):
    """One link initialised from spec parameters (Chainer's layout is the spec's)."""
    if isinstance(layer, S.Conv):
        return L.Convolution2D(layer.cin, layer.cout, layer.k, layer.stride, layer.pad,
                               nobias=not layer.bias, initialW=params[f"{layer.name}.W"],
                               initial_bias=params.get(f"{layer.name}.b"))
    if isinstance(layer, S.BatchNorm):
        return L.BatchNormalization(layer.channels, decay=S.BN_DECAY, eps=S.BN_EPS,
                                    initial_gamma=params[f"{layer.name}.gamma"],
                                    initial_beta=params[f"{layer.name}.beta"])
    return L.Linear(layer.fin, layer.fout, initialW=params[f"{layer.name}.W"],
                    initial_bias=params[f"{layer.name}.b"])


class _Net(chainer.Chain):
    """The spec as a Chainer chain (define-by-run)."""

    def __init__(self, spec, params):
        super().__init__()
        self.spec = spec
        with self.init_scope():
            for layer in S.walk(spec.layers):
                if isinstance(layer, (S.Conv, S.BatchNorm, S.Linear)):
                    setattr(self, _link_name(layer.name), _link(layer, params))

    def forward(self, x):
        return _apply(self, self.spec.layers, x)


class _StaticNet(_Net):
    """The same chain with its forward cached by @static_graph (one schedule per input shape)."""

    @static_graph
    def forward(self, x):
        return _apply(self, self.spec.layers, x)


def _network(spec, params, static):
    """(chain holding `params`, its loss of logits and labels): the spec's layers, or the decoder."""
    if S.is_decoder(spec):
        from backends.chainer import decoder
        return (decoder.StaticDecoder if static else decoder.Decoder)(spec, params), \
            decoder.cross_entropy
    return (_StaticNet if static else _Net)(spec, params), F.softmax_cross_entropy


class Runner:
    """One model in one variant: train_step, infer_step and the schedule count."""

    def __init__(self, spec, params, variant, device="@numpy", precision="float32"):
        if variant not in ("eager", "graph"):
            raise ValueError(f"chainer backend has no variant {variant!r}")
        if precision not in _DTYPES:
            raise ValueError(f"chainer backend has no precision {precision!r}: "
                             f"choose one of {', '.join(_DTYPES)}")
        self.static = variant == "graph"
        self.dtype = _DTYPES[precision]
        with self._precision():
            self.model, self._loss = _network(spec, params, self.static)
        self.model.to_device(device)
        self.optimizer = chainer.optimizers.SGD(lr=S.LEARNING_RATE)
        self.optimizer.setup(self.model)
        if precision == "float16":  # float16 gradients underflow without loss scaling
            self.optimizer.loss_scaling()

    def _precision(self):
        # mixed16: float32 parameters, float16 activations (a GPU path: untested on hardware)
        return chainer.using_config("dtype", self.dtype)

    def _quiet(self):
        # @static_graph prints on stdout at every verbosity level
        return contextlib.redirect_stdout(io.StringIO()) if self.static else contextlib.nullcontext()

    def to_device(self, x, y):
        """NCHW NumPy batch -> device arrays, outside any timed region."""
        return _xp.asarray(x), _xp.asarray(y)

    def dispatch_train(self, x, y):
        """One SGD step queued (on CuPy's stream; NumPy runs it at once): the loss array."""
        with self._quiet(), self._precision():
            self.model.cleargrads()
            loss = self._loss(F.cast(self.model(x), np.float32), y)
            loss.backward()
            self.optimizer.update()
        return loss.array

    def dispatch_infer(self, x):
        """Inference logits queued, not waited for."""
        with self._quiet(), self._precision(), chainer.using_config("train", False), \
                chainer.no_backprop_mode():
            logits = F.cast(self.model(x), np.float32)
            if self.static:  # else every forward-only call builds a new schedule
                self.model.schedule_manager.end_forward()
        return logits.array

    def wait(self, out):
        """Wait for the device, then `out` on the host: a loss as a float, logits as NumPy."""
        if _xp is not np:
            _xp.cuda.Device().synchronize()
        return float(out) if out.ndim == 0 else chainer.backend.CpuDevice().send(out)

    def train_step(self, x, y):
        """One SGD step; returns the loss as a float (which waits for the device)."""
        return self.wait(self.dispatch_train(x, y))

    def infer_step(self, x):
        """Inference logits as a NumPy array (which waits for the device)."""
        return self.wait(self.dispatch_infer(x))

    def traces(self):
        """Static-graph schedules built so far (one per mode and input shape)."""
        manager = getattr(self.model, "schedule_manager", None)
        return sum(len(v) for v in manager.schedules.values()) if manager else 0


def matmul_step(n, device="@numpy"):
    """A callable multiplying two n x n float32 matrices (NumPy or CuPy) and waiting for it."""
    a, b = (_xp.asarray(np.random.default_rng(i).random((n, n), dtype=np.float32)) for i in (0, 1))
    return lambda: float((a @ b)[0, 0])  # converting to float waits for the device


def prime(cold=True):
    """Chainer has no compiler stack to start up."""
