"""A user's Keras model in one variant: the backend's tf.function flags, the user's loss called as
Keras calls a loss, loss(target, outputs), or a compiled keras.Model's own loss and optimizer."""
import keras
import numpy as np
import tensorflow as tf

from backends.tf import steady as backend

def _seed(value=0):
    """Seed Keras, TF and NumPy so the builder makes the same weights in every runner."""
    keras.utils.set_random_seed(value)


def _spec(a):
    return tf.TensorSpec([None] * a.ndim, a.dtype)  # every dim free: batch and lengths vary


def _compiled(out):
    """A compiled keras.Model, alone or as the dict's 'model', brings the loss and optimizer it was
    compiled with (what the dict names wins); its loss is model.compute_loss, as fit() takes it."""
    model = out.get("model") if isinstance(out, dict) else out
    if not (isinstance(model, keras.Model) and model.compiled):
        return out
    own = {"model": model, "optimizer": model.optimizer}
    if model.loss is not None:
        own["loss"] = lambda target, outputs: model.compute_loss(y=target, y_pred=outputs)
    return {**own, **out} if isinstance(out, dict) else own


def _call(model, xs, training):
    return model(xs[0] if len(xs) == 1 else list(xs), training=training)


class Runner:
    """train_step / infer_step / traces of the user's model, as the suite's tf Runner."""

    def __init__(self, user, variant, device="/CPU:0", example=None):
        _seed()
        self.device = device
        with tf.device(device):
            built = user.build("tf", _compiled)
            self.model, self.loss_fn, self.optimizer = (built["model"], built["loss"],
                                                        built["optimizer"])
            if not isinstance(self.model, keras.Model):
                user.fail("tf_model()", f"'model' is a {type(self.model).__name__}, "
                                        "not a keras.Model")
            if not isinstance(self.optimizer, keras.optimizers.Optimizer):
                user.fail("tf_model()", f"'optimizer' is a {type(self.optimizer).__name__}, "
                                        "not a keras optimizer")
            xs, target = self.to_device(*example)
            _call(self.model, xs, False)  # create variables eagerly, outside any trace
            self.variables = self.model.trainable_variables
            self.optimizer.build(self.variables)  # else the first traced call traces twice
        x0, y0 = example
        x_sig = tuple(map(_spec, x0))
        y_sig = tuple(map(_spec, y0)) if isinstance(y0, tuple) else _spec(y0)
        self._train = backend.function(self._train_impl, variant, [x_sig, y_sig])
        self._infer = backend.function(self._infer_impl, variant, [x_sig])

    def _train_impl(self, xs, target):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(target, _call(self.model, xs, True))
        self.optimizer.apply_gradients(zip(tape.gradient(loss, self.variables), self.variables))
        return loss

    def _infer_impl(self, xs):
        return _call(self.model, xs, False)

    def to_device(self, xs, target):
        """NumPy arrays -> device tensors, outside any timed region."""
        with tf.device(self.device):
            put = lambda a: tf.constant(np.ascontiguousarray(a))
            target = tuple(map(put, target)) if isinstance(target, tuple) else put(target)
            return tuple(map(put, xs)), target

    def dispatch_train(self, xs, target):
        """One optimizer step, not read: the loss tensor (wait() reads it)."""
        with tf.device(self.device):
            return self._train(xs, target)

    def dispatch_infer(self, xs):
        """Inference outputs, not read: their tensors (wait() reads them)."""
        with tf.device(self.device):
            return tf.nest.flatten(self._infer(xs))  # one output, or a nest of them

    def wait(self, out):
        """Read `out` on the host, which waits for the device: a loss as a float, outputs (every
        output, flattened) as one float32 NumPy array."""
        if isinstance(out, list):
            return np.concatenate([np.asarray(o, dtype=np.float32).ravel() for o in out])
        return float(out)

    def train_step(self, xs, target):
        """One optimizer step; the loss as a float."""
        return self.wait(self.dispatch_train(xs, target))

    def infer_step(self, xs):
        """Inference outputs (every output, flattened) as one float32 NumPy array."""
        return self.wait(self.dispatch_infer(xs))

    def traces(self):
        """Concrete functions traced so far by the train and infer functions."""
        return sum(f.experimental_get_tracing_count() for f in (self._train, self._infer)
                   if hasattr(f, "experimental_get_tracing_count"))
