"""A user's Chainer model in one variant: define-by-run, or its forward under @static_graph."""
import contextlib
import io

import chainer
import numpy as np
from chainer import static_graph

def _seed(value=0):
    """Seed NumPy (Chainer's initializers draw from it) so every runner has the same weights."""
    np.random.seed(value)


class _Static(chainer.Chain):
    """The user's chain with its forward cached by @static_graph (one schedule per shape)."""

    def __init__(self, inner):
        super().__init__()
        with self.init_scope():
            self.inner = inner

    @static_graph
    def forward(self, *xs):
        return self.inner(*xs)


class Runner:
    """train_step / infer_step / traces of the user's chain, as the suite's chainer Runner."""

    def __init__(self, user, variant, device="@numpy", example=None):
        if variant not in ("eager", "graph"):
            raise ValueError(f"chainer has no variant {variant!r}")
        _seed()
        built = user.build("chainer")
        inner, self.loss_fn, self.optimizer = built["model"], built["loss"], built["optimizer"]
        if not isinstance(inner, chainer.Link):
            user.fail("chainer_model()", f"'model' is a {type(inner).__name__}, "
                                         "not a chainer.Link")
        if not isinstance(self.optimizer, chainer.Optimizer):
            user.fail("chainer_model()", f"'optimizer' is a {type(self.optimizer).__name__}, "
                                         "not a chainer.Optimizer")
        self.static = variant == "graph"
        self.device = chainer.get_device(device)
        inner.to_device(self.device)  # before the optimizer's first update makes its state
        self.model = _Static(inner) if self.static else inner
        if getattr(self.optimizer, "target", None) is None:
            self.optimizer.setup(inner)

    def _quiet(self):
        # @static_graph prints on stdout at every verbosity level
        return contextlib.redirect_stdout(io.StringIO()) if self.static else contextlib.nullcontext()

    def to_device(self, xs, target):
        """NumPy arrays on the device (as they are on the CPU), outside any timed region."""
        return tuple(map(self.device.send, xs)), self.device.send(target)

    def dispatch_train(self, xs, target):
        """One optimizer step, not read: the loss Variable (wait() reads it)."""
        with self._quiet():
            self.model.cleargrads()
            loss = self.loss_fn(self.model(*xs), target)
            loss.backward()
            self.optimizer.update()
        return loss

    def dispatch_infer(self, xs):
        """Inference outputs, not read: their Variables (wait() reads them)."""
        with self._quiet(), chainer.using_config("train", False), chainer.no_backprop_mode():
            out = self.model(*xs)
            if self.static:  # else every forward-only call builds a new schedule
                self.model.schedule_manager.end_forward()
        return list(out) if isinstance(out, (tuple, list)) else [out]  # one output, or several

    def wait(self, out):
        """Read `out` on the host, which waits for the device: a loss as a float, outputs (every
        output, flattened) as one float32 NumPy array."""
        host = chainer.backend.CpuDevice().send
        if isinstance(out, list):
            return np.concatenate([np.asarray(host(o.array), np.float32).ravel() for o in out])
        return float(host(out.array))

    def train_step(self, xs, target):
        """One optimizer step; the loss as a float."""
        return self.wait(self.dispatch_train(xs, target))

    def infer_step(self, xs):
        """Inference outputs (every output, flattened) as one float32 NumPy array."""
        return self.wait(self.dispatch_infer(xs))

    def traces(self):
        """Static-graph schedules built so far (one per mode and input shape)."""
        manager = getattr(self.model, "schedule_manager", None)
        return sum(len(v) for v in manager.schedules.values()) if manager else 0
