"""A user's PyTorch model in one variant: the backend's torch.compile flags, the user's loss."""
import numpy as np
import torch
import torch._dynamo
import torch._dynamo.testing
import torch.utils._pytree

from backends.torch import steady as backend

_CAPTURE = ("a whole step captured by hand needs an optimizer step that never reads the host "
           "(torch's CUDA-graph recipe): yours is not known to, so your model has no cuda_graph "
           "arm; graph_cudagraphs (mode=\"reduce-overhead\") is inductor's capture")


def _seed(value=0):
    """Seed torch (and NumPy) so the builder makes the same weights in every runner."""
    torch.manual_seed(value)
    np.random.seed(value)


class Runner:
    """train_step / infer_step / traces of the user's model, as the suite's torch Runner."""

    def __init__(self, user, variant, device=torch.device("cpu"), example=None):
        if variant == "cuda_graph":
            raise ValueError(_CAPTURE)
        if variant != "eager" and variant not in backend.DYNAMIC and variant not in backend.MODES:
            raise ValueError(f"torch has no variant {variant!r}")
        # dynamo caches compiled code on the shared code object of _loss_impl: build every
        # runner of a process before any first call, as the suite's torch Runner does
        torch._dynamo.reset()
        _seed()
        built = user.build("torch")
        self.model, self.loss_fn, self.optimizer = built["model"], built["loss"], built["optimizer"]
        if not isinstance(self.model, torch.nn.Module):
            user.fail("torch_model()", f"'model' is a {type(self.model).__name__}, "
                                       "not a torch.nn.Module")
        if not isinstance(self.optimizer, torch.optim.Optimizer):
            user.fail("torch_model()", f"'optimizer' is a {type(self.optimizer).__name__}, "
                                       "not a torch.optim.Optimizer")
        self.device, self.variant = device, variant
        self.model.to(device)
        self.counter = backend.compile_counter(variant)
        self._loss = self._compile(self._loss_impl)
        self._forward = self._compile(self._forward_impl)
        self._mode = None
        self._mark_step = (torch.compiler.cudagraph_mark_step_begin if variant in backend.MODES
                           else lambda: None)  # one call, one iteration of CUDA-graph trees

    def _compile(self, fn):
        if self.variant == "eager":
            return fn
        return torch.compile(fn, backend=self.counter,
                             dynamic=backend.DYNAMIC.get(self.variant, backend.DYNAMIC["graph"]))

    def _forward_impl(self, xs):
        return self.model(*xs)

    def _loss_impl(self, xs, target):
        return self.loss_fn(self.model(*xs), target)

    def _set_mode(self, mode):
        if self._mode != mode:
            self.model.train(mode == "train")
            self._mode = mode

    def to_device(self, xs, target):
        """NumPy arrays -> device tensors, outside any timed region."""
        put = lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(self.device)
        target = tuple(map(put, target)) if isinstance(target, tuple) else put(target)
        return tuple(map(put, xs)), target

    def dispatch_train(self, xs, target):
        """Compiled forward+loss (and its compiled backward), eager optimizer step, queued on the
        device: the loss tensor (wait() reads it)."""
        self._set_mode("train")
        self._mark_step()
        self.optimizer.zero_grad(set_to_none=True)
        loss = self._loss(xs, target)
        loss.backward()
        self.optimizer.step()
        return loss

    def dispatch_infer(self, xs):
        """Inference outputs queued on the device: their tensors (wait() reads them)."""
        self._set_mode("infer")
        self._mark_step()
        with torch.no_grad():
            return torch.utils._pytree.tree_leaves(self._forward(xs))  # one output, or a nest

    def wait(self, out):
        """Wait for every queued step, then read `out` on the host: a loss as a float, outputs
        (every output, flattened) as one float32 NumPy array."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        if isinstance(out, torch.Tensor):
            return out.item()
        return np.concatenate([o.float().cpu().numpy().ravel() for o in out])

    def train_step(self, xs, target):
        """One optimizer step; the loss, read after the device has finished."""
        return self.wait(self.dispatch_train(xs, target))

    def infer_step(self, xs):
        """Inference outputs as one float32 NumPy array, read after the device has finished."""
        return self.wait(self.dispatch_infer(xs))

    def traces(self):
        """Frames compiled so far (first compiles and recompiles)."""
        return self.counter.frame_count


def graph_breaks(runner, xs, target):
    """torch._dynamo.explain of the train step's forward+loss: graphs, breaks and their reasons."""
    torch._dynamo.reset()
    found = torch._dynamo.explain(runner._loss_impl)(xs, target)
    reasons = sorted({str(b.reason).splitlines()[0] for b in found.break_reasons})
    torch._dynamo.reset()
    return {"graphs": found.graph_count, "graph_breaks": found.graph_break_count,
            "break_reasons": reasons}
