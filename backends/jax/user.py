"""A user's JAX model in one variant: a pure apply function, its parameter pytree and an Optax
optimizer, stepped op by op (eager) or as one jax.jit of the whole step (graph)."""
import numpy as np
import jax


class Runner:
    """train_step / infer_step / traces of the user's model, as the suite's jax Runner."""

    def __init__(self, user, variant, device=None, example=None):
        if variant not in ("eager", "graph"):
            raise ValueError(f"jax has no variant {variant!r}")
        built = user.build("jax")
        self.apply, self.loss_fn, self.optimizer = built["model"], built["loss"], built["optimizer"]
        if not callable(self.apply):
            user.fail("jax_model()", f"'model' is a {type(self.apply).__name__}, not a pure "
                                     "apply(params, *inputs) function")
        if "params" not in built:
            user.fail("jax_model()", "the returned dict lacks params (the pytree apply takes)")
        if not all(hasattr(self.optimizer, a) for a in ("init", "update")):
            user.fail("jax_model()", f"'optimizer' is a {type(self.optimizer).__name__}, "
                                     "not an optax.GradientTransformation")
        self.device = device or jax.devices("cpu")[0]
        self.params = jax.device_put(built["params"], self.device)
        self.opt_state = self.optimizer.init(self.params)
        self._traced = [0]
        self._train, self._infer = self._train_impl, self.apply
        if variant == "graph":  # the old parameters and optimizer state are dropped: donated
            self._train = jax.jit(self._counted(self._train_impl), donate_argnums=(0, 1))
            self._infer = jax.jit(self._counted(self.apply))

    def _counted(self, fn):
        def traced(*args):
            self._traced[0] += 1  # Python runs once per trace
            return fn(*args)
        return traced

    def _train_impl(self, params, opt_state, xs, target):
        import optax
        loss, grads = jax.value_and_grad(
            lambda p: self.loss_fn(self.apply(p, *xs), target))(params)
        updates, opt_state = self.optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    def to_device(self, xs, target):
        """NumPy arrays -> device arrays, outside any timed region."""
        put = lambda a: jax.device_put(np.ascontiguousarray(a), self.device)
        return tuple(map(put, xs)), jax.tree.map(put, target)

    def dispatch_train(self, xs, target):
        """One optimizer step dispatched, not waited for: the loss array (wait() reads it)."""
        self.params, self.opt_state, loss = self._train(self.params, self.opt_state, xs, target)
        return loss

    def dispatch_infer(self, xs):
        """Inference outputs dispatched, not waited for: their arrays (wait() reads them)."""
        return jax.tree.leaves(self._infer(self.params, *xs))

    def wait(self, out):
        """Wait for `out` (every step queued before it feeds it: the parameters), then read it: a
        loss as a float, outputs (every output, flattened) as one float32 NumPy array."""
        if isinstance(out, list):
            return np.concatenate([np.asarray(o, np.float32).ravel() for o in out])
        return float(out)

    def train_step(self, xs, target):
        """One optimizer step; the loss as a float (which waits for the device)."""
        return self.wait(self.dispatch_train(xs, target))

    def infer_step(self, xs):
        """Inference outputs (every output, flattened) as one float32 NumPy array."""
        return self.wait(self.dispatch_infer(xs))

    def traces(self):
        """Traces of the jitted train and infer steps so far (0 in eager)."""
        return self._traced[0]
