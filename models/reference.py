"""Plain NumPy float64 forward pass and loss: the oracle every backend is checked against."""
import numpy as np

from .spec import (BN_EPS, BatchNorm, Conv, Flatten, GlobalAvgPool, Linear, MaxPool, ReLU,
                   Residual, ZeroPad)


def _windows(x, k, stride):
    """(N, C, H, W) -> (N, C, H', W', k, k) strided view of k x k windows."""
    n, c, h, w = x.shape
    ho, wo = (h - k) // stride + 1, (w - k) // stride + 1
    s = x.strides
    return np.lib.stride_tricks.as_strided(
        x, (n, c, ho, wo, k, k), (s[0], s[1], s[2] * stride, s[3] * stride, s[2], s[3]))


def _conv(x, layer, params):
    x = np.pad(x, ((0, 0), (0, 0), (layer.pad,) * 2, (layer.pad,) * 2))
    out = np.einsum("nchwij,ocij->nohw", _windows(x, layer.k, layer.stride),
                    params[f"{layer.name}.W"].astype(np.float64), optimize=True)
    if layer.bias:
        out = out + params[f"{layer.name}.b"].astype(np.float64)[None, :, None, None]
    return out


def _batchnorm(x, layer, params, training, seen):
    if training:
        mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
        seen[layer.name] = mean, var, x.size // x.shape[1]
    else:  # fresh running statistics
        mean, var = np.zeros(x.shape[1]), np.ones(x.shape[1])
    gamma = params[f"{layer.name}.gamma"].astype(np.float64)
    beta = params[f"{layer.name}.beta"].astype(np.float64)
    scale = gamma / np.sqrt(var + BN_EPS)
    return (x - mean[None, :, None, None]) * scale[None, :, None, None] + beta[None, :, None, None]


def _layer(x, layer, params, training, seen):
    if isinstance(layer, Conv):
        return _conv(x, layer, params)
    if isinstance(layer, BatchNorm):
        return _batchnorm(x, layer, params, training, seen)
    if isinstance(layer, Linear):
        return x @ params[f"{layer.name}.W"].astype(np.float64).T + params[f"{layer.name}.b"]
    if isinstance(layer, ReLU):
        return np.maximum(x, 0.0)
    if isinstance(layer, MaxPool):
        return _windows(x, layer.k, layer.stride).max(axis=(4, 5))
    if isinstance(layer, ZeroPad):
        return np.pad(x, ((0, 0), (0, 0), (layer.pad,) * 2, (layer.pad,) * 2))
    if isinstance(layer, GlobalAvgPool):
        return x.mean(axis=(2, 3))
    if isinstance(layer, Flatten):
        return x.reshape(x.shape[0], -1)
    if isinstance(layer, Residual):
        pre = _run(x, layer.pre, params, training, seen)
        source = pre if layer.shortcut_from_pre else x
        short = _run(source, layer.shortcut, params, training, seen)
        return _run(pre, layer.body, params, training, seen) + short
    raise TypeError(f"reference has no rule for {layer!r}")


def _run(x, layers, params, training, seen):
    for layer in layers:
        x = _layer(x, layer, params, training, seen)
    return x


def forward(spec, params, x, training=True):
    """Logits (float64) of `spec` with `params` on NCHW input `x`."""
    return _run(np.asarray(x, np.float64), spec.layers, params, training, {})


def batch_statistics(spec, params, x):
    """Each BatchNorm's (mean, biased variance, values per channel) in one training forward."""
    seen = {}
    _run(np.asarray(x, np.float64), spec.layers, params, True, seen)
    return seen


def softmax_cross_entropy(logits, labels):
    """Mean softmax cross-entropy, computed stably."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(len(labels)), labels].mean())
