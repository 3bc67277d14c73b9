"""PyTorch backend: eager, torch.compile (default, dynamic=True, dynamic=False, and
mode="reduce-overhead": CUDA graphs) and a whole step captured by hand in a CUDA graph."""
import contextlib
import os
from unittest import mock

import numpy as np
import torch
import torch._dynamo
import torch._dynamo.testing
import torch._inductor.utils
from torch import nn
from torch._dynamo.utils import counters

from catalog import GPU_ONLY, precision_skip, unsupported_reason
from models import spec as S

NAME = "torch"
# signals worth counting: name in extra_info -> (logger, text in the message), or a running
# counter (inductor bumps cudagraph_skips for every graph it leaves out of CUDA graphs, and logs
# the reason on the "cudagraphs" artifact logger only when it is on a CUDA device)
LOG_SIGNALS = {"recompile_limit_hits": ("torch._dynamo.convert_frame", "hit config."),
               "cudagraph_skips": lambda: counters["inductor"]["cudagraph_skips"]}
DYNAMIC = {"graph": None, "graph_dynamic": True, "graph_static": False}
MODES = {"graph_cudagraphs": "reduce-overhead"}  # variant -> torch.compile mode (graph's dynamic)
_WARMUP_STEPS = 3  # before a capture, as in torch's CUDA-graph recipe (whole-network capture)
_AUTOCAST = {"float32": None, "bfloat16": torch.bfloat16, "float16": torch.float16}
_device = torch.device("cpu")  # the configured device, where prime compiles


def version():
    """Framework version string."""
    return torch.__version__


def configure(threads, device):
    """Set thread pools and check the device; returns the torch device (prime's too)."""
    global _device
    torch.set_num_threads(threads)
    with contextlib.suppress(RuntimeError):  # inter-op pool is fixed once work has started
        torch.set_num_interop_threads(threads)
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda: PyTorch sees no CUDA device "
                           "(torch.cuda.is_available() is False)")
    _device = torch.device(device)
    return _device


@contextlib.contextmanager
def compile_cache(cache_dir):
    """Compile with inductor's on-disk cache in `cache_dir`: empty is cold, populated is warm.

    `None` keeps the session's cache (TORCHINDUCTOR_CACHE_DIR or torch's default)."""
    torch._dynamo.reset()  # in-memory only: the on-disk caches survive it
    torch._inductor.utils.clear_caches()
    if cache_dir is None:
        yield
        return
    paths = {"TORCHINDUCTOR_CACHE_DIR": str(cache_dir),
             "TRITON_CACHE_DIR": os.path.join(str(cache_dir), "triton")}
    with mock.patch.dict(os.environ, paths):
        yield
    torch._inductor.utils.clear_caches()


def cache_hits():
    """Inductor FX-graph cache hits so far in this process."""
    return counters["inductor"]["fxgraph_cache_hit"]


@contextlib.contextmanager
def deterministic(on):
    """Run the block with torch.use_deterministic_algorithms(on), then restore the setting.

    On CUDA this also needs CUBLAS_WORKSPACE_CONFIG set before CUDA starts (untested here)."""
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(on)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before)


def reset_peak_memory(device):
    """Reset the CUDA peak-allocation counter; on CPU a no-op (CPU peaks are RSS, per process)."""
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def peak_memory(device):
    """Peak bytes allocated on the CUDA device since the reset; None on CPU. Untested on hardware."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    return torch.cuda.max_memory_allocated(device)


class _Residual(nn.Module):
    def __init__(self, block):
        super().__init__()
        self.pre, self.body = _sequential(block.pre), _sequential(block.body)
        self.shortcut, self.from_pre = _sequential(block.shortcut), block.shortcut_from_pre

    def forward(self, x):
        p = self.pre(x)
        return self.body(p) + self.shortcut(p if self.from_pre else x)


class _GlobalAvgPool(nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3))


def _module(layer):
    """One torch module for a spec layer (NCHW)."""
    if isinstance(layer, S.Conv):
        return nn.Conv2d(layer.cin, layer.cout, layer.k, layer.stride, layer.pad, bias=layer.bias)
    if isinstance(layer, S.BatchNorm):
        return nn.BatchNorm2d(layer.channels, eps=S.BN_EPS, momentum=1 - S.BN_DECAY)
    if isinstance(layer, S.Linear):
        return nn.Linear(layer.fin, layer.fout)
    if isinstance(layer, S.ReLU):
        return nn.ReLU()
    if isinstance(layer, S.MaxPool):
        return nn.MaxPool2d(layer.k, layer.stride)
    if isinstance(layer, S.ZeroPad):
        return nn.ZeroPad2d(layer.pad)
    if isinstance(layer, S.GlobalAvgPool):
        return _GlobalAvgPool()
    if isinstance(layer, S.Flatten):
        return nn.Flatten()
    if isinstance(layer, S.Residual):
        return _Residual(layer)
    raise TypeError(f"torch backend has no rule for {layer!r}")


def _sequential(layers):
    return nn.Sequential(*[_module(layer) for layer in layers])


def _load(model, spec, params):
    """Copy spec parameters (already in torch's layout) into the modules, in spec order."""
    tensors = [p for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear, nn.BatchNorm2d))
               for p in (m.weight, m.bias) if p is not None]
    values = list(params.values())
    assert len(tensors) == len(values), "torch modules and spec parameters differ in number"
    with torch.no_grad():
        for tensor, value in zip(tensors, values):
            tensor.copy_(torch.from_numpy(np.asarray(value)))


def _network(spec, params):
    """(module holding `params`, its loss of logits and labels): the spec's layers, or the decoder."""
    if S.is_decoder(spec):
        from backends.torch import decoder
        return decoder.Decoder(spec, params), decoder.cross_entropy
    model = _sequential(spec.layers)
    _load(model, spec, params)
    return model, nn.functional.cross_entropy


class _StepGraphs:
    """torch's whole-step CUDA-graph recipe, one graph per (step, input shapes): warm-up steps on
    a side stream, static input buffers, capture; then every call copies in and replays."""

    def __init__(self, state):
        self.state = state  # () -> the tensors a warm-up step changes (weights, BatchNorm stats)
        self.graphs = {}  # (step name, input shapes) -> (graph, static inputs, static output)

    def __call__(self, name, step, *inputs):
        key = (name, *(tuple(t.shape) for t in inputs))
        if key not in self.graphs:
            self.graphs[key] = self._capture(step, inputs)
        graph, static, out = self.graphs[key]
        for buffer, value in zip(static, inputs):
            buffer.copy_(value)
        graph.replay()
        return out

    def _capture(self, step, inputs):
        static = [t.clone() for t in inputs]
        saved = [t.detach().clone() for t in self.state()]
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(_WARMUP_STEPS):
                step(*static)
        torch.cuda.current_stream().wait_stream(side)
        with torch.no_grad():  # the warm-up leaves no trace: one call is still one step
            for tensor, value in zip(self.state(), saved):
                tensor.copy_(value)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # records, runs nothing: the first replay is the step
            out = step(*static)
        return graph, static, out


def compile_counter(variant):
    """Inductor, in the variant's mode, counting the frames it compiles (the user adapter's too)."""
    # torch.compile(backend=counter, mode=...) would hand the mode to the counter, which takes
    # none: the mode goes into the inductor wrapper torch.compile builds for "inductor"
    return torch._dynamo.testing.CompileCounterWithBackend(
        torch._TorchCompileInductorWrapper(MODES[variant], None, None)
        if variant in MODES else "inductor")


class Runner:
    """One model in one variant: train_step, infer_step and the compile count."""

    def __init__(self, spec, params, variant, device=torch.device("cpu"), precision="float32"):
        if variant in GPU_ONLY and (reason := unsupported_reason(NAME, variant, device.type)
                                    or precision_skip(NAME, precision, device.type, variant)):
            raise ValueError(f"torch/{variant}@{precision}: {reason}")
        # Dynamo keeps compiled entries and seen sizes on the code object of _loss_impl, shared by
        # every Runner: without a reset, earlier runners' shapes change this one's compiles and
        # count toward its recompile limit (past which it silently runs eagerly).
        torch._dynamo.reset()
        self.device = device
        self.model, self._criterion = _network(spec, params)
        self.model.to(device)
        # plain SGD keeps no state (no step count): capturable as it is; Adam would need
        # capturable=True
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=S.LEARNING_RATE)
        self.autocast = _AUTOCAST[precision]
        # a capture must not keep autocast's cast cache (torch.cuda.make_graphed_callables' rule)
        self._autocast_cache = variant != "cuda_graph"
        # float16 gradients underflow without loss scaling (a GPU path: untested on hardware)
        self.scaler = torch.amp.GradScaler(device.type) if precision == "float16" else None
        self.counter = compile_counter(variant)
        self._loss = self._compile(self._loss_impl, variant)
        self._forward = self._compile(self._logits, variant)
        self._graphs = _StepGraphs(self._state) if variant == "cuda_graph" else None
        self._mark_step = (torch.compiler.cudagraph_mark_step_begin if variant in MODES
                           else lambda: None)  # one call, one iteration of CUDA-graph trees
        self._mode = "train"

    def _compile(self, fn, variant):
        if variant in ("eager", "cuda_graph"):
            return fn
        if variant in MODES:
            return torch.compile(fn, backend=self.counter, dynamic=DYNAMIC["graph"])
        if variant not in DYNAMIC:
            raise ValueError(f"torch backend has no variant {variant!r}")
        return torch.compile(fn, backend=self.counter, dynamic=DYNAMIC[variant])

    def _state(self):
        return [*self.model.parameters(), *self.model.buffers()]

    def _logits(self, x):
        if self.autocast is None:
            return self.model(x)
        with torch.autocast(x.device.type, dtype=self.autocast, cache_enabled=self._autocast_cache):
            return self.model(x).float()  # the loss sees float32 logits

    def _loss_impl(self, x, y):
        return self._criterion(self._logits(x), y)

    def _set_mode(self, mode):
        if self._mode != mode:  # switching walks every module: keep it out of repeated steps
            self.model.train(mode == "train")
            self._mode = mode

    def to_device(self, x, y):
        """NCHW NumPy batch (a decoder's: int32 ids) -> device tensors (int64 labels), outside any
        timed region."""
        return (torch.from_numpy(np.ascontiguousarray(x)).to(self.device),
                torch.from_numpy(y.astype(np.int64)).to(self.device))

    def _train(self, x, y):
        """Compiled forward+loss (and its compiled backward), eager SGD update: the loss tensor."""
        # None grads: backward allocates them afresh (in a capture, from the graph's private pool)
        self.optimizer.zero_grad(set_to_none=True)
        loss = self._loss(x, y)
        if self.scaler is None:
            loss.backward()
            self.optimizer.step()
        else:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        return loss

    def _infer(self, x):
        with torch.no_grad():
            return self._forward(x)

    def _run(self, name, step, *inputs):
        """The step as it is, or (cuda_graph) replayed from the graph captured for these shapes."""
        self._mark_step()
        return self._graphs(name, step, *inputs) if self._graphs else step(*inputs)

    def _synchronize(self):
        if self.device.type == "cuda":  # every stream: the clock is read right after a step
            torch.cuda.synchronize(self.device)

    def dispatch_train(self, x, y):
        """One SGD step queued on the device, not waited for: the loss tensor (wait() reads it)."""
        self._set_mode("train")
        return self._run("train", self._train, x, y)

    def dispatch_infer(self, x):
        """Inference logits queued on the device, not waited for (wait() reads them)."""
        self._set_mode("infer")
        return self._run("infer", self._infer, x)

    def wait(self, out):
        """Wait for every queued step, then read `out` on the host: a loss as a float, logits as
        NumPy."""
        self._synchronize()
        return out.item() if out.dim() == 0 else out.cpu().numpy()

    def train_step(self, x, y):
        """One SGD step; returns the loss, read after the device has finished."""
        return self.wait(self.dispatch_train(x, y))

    def infer_step(self, x):
        """Inference logits as a NumPy array, read after the device has finished."""
        return self.wait(self.dispatch_infer(x))

    def traces(self):
        """Frames compiled so far (first compiles and recompiles), by dynamo's compile counter;
        cuda_graph: graphs captured (one per step and input shape)."""
        return len(self._graphs.graphs) if self._graphs else self.counter.frame_count


def matmul_step(n, device=torch.device("cpu")):
    """A callable multiplying two n x n float32 matrices and waiting for the result."""
    a, b = (torch.from_numpy(np.random.default_rng(i).random((n, n), dtype=np.float32)).to(device)
            for i in (0, 1))
    return lambda: float((a @ b)[0, 0])  # .item() waits for the device


def prime(cold=True):
    """Pay inductor's one-time process start-up (imports, compiler probes; on a GPU Triton's)
    before any timed case, on the configured device: `cold` in an empty cache dir (~11 s here: all
    of it), else on the session's cache (~2 s after the first process; leaves ~0.5 s to the next
    cold compile: not for cold first calls)."""
    import tempfile
    with (tempfile.TemporaryDirectory() if cold else contextlib.nullcontext()) as cache_dir, \
            compile_cache(cache_dir):
        w = torch.ones(3, requires_grad=True, device=_device)
        torch.compile(lambda x: (x * w).sum())(torch.ones(3, device=_device)).backward()
    torch._dynamo.reset()
