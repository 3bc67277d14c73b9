"""Seeded NumPy parameters and synthetic data, shared by every backend."""
import numpy as np

from .spec import param_shapes


def init_params(spec, seed=0):
    """He-normal weights, zero biases, unit BatchNorm scale: float32 arrays in the spec's layout."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in param_shapes(spec).items():
        if name.endswith(".W"):
            fan_in = int(np.prod(shape[1:]))
            params[name] = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape).astype(np.float32)
        elif name.endswith(".gamma"):
            params[name] = np.ones(shape, np.float32)
        else:
            params[name] = np.zeros(shape, np.float32)
    return params


def synthetic_batch(spec, batch, seed=0, side=None):
    """A seeded batch: NCHW float32 images in [0, 1) and int32 labels; `side` is int or (h, w)."""
    rng = np.random.default_rng(seed)
    c, h, w = spec.input_chw
    if side is not None:
        h, w = (side, side) if isinstance(side, int) else side
    x = rng.random((batch, c, h, w), dtype=np.float32)
    y = rng.integers(0, spec.classes, batch).astype(np.int32)
    return x, y
