"""Plain NumPy float64 forward pass and loss: the oracle every backend is checked against."""
import numpy as np

from math import erf, sqrt

from .spec import (BN_EPS, GELU, LN_EPS, MASK_VALUE, PAD, Attention, BatchNorm, Conv, Embedding,
                   Flatten, GlobalAvgPool, LayerNorm, Linear, MaxPool, ReLU, Residual, ZeroPad,
                   is_decoder, run_decoder)

_erf = np.vectorize(erf)  # exact, float64


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


def _layernorm(x, layer, params):
    gamma, beta = (params[f"{layer.name}.{k}"].astype(np.float64) for k in ("gamma", "beta"))
    mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + LN_EPS) * gamma + beta


def _attention(x, layer, params, bias):
    """Causal self-attention written out; `bias` (N, 1, T, T) is 0 or MASK_VALUE."""
    n, t, d = x.shape
    w = {k: params[f"{layer.name}.{k}"].astype(np.float64) for k in ("qkv.W", "qkv.b", "out.W",
                                                                     "out.b")}
    qkv = x @ w["qkv.W"].T + w["qkv.b"]
    heads = lambda a: a.reshape(n, t, layer.heads, d // layer.heads).transpose(0, 2, 1, 3)
    q, k, v = (heads(a) for a in np.split(qkv, 3, axis=-1))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // layer.heads) + bias
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out = (scores / scores.sum(axis=-1, keepdims=True)) @ v
    return out.transpose(0, 2, 1, 3).reshape(n, t, d) @ w["out.W"].T + w["out.b"]


def attention_bias(ids):
    """(N, 1, T, T) additive mask of a padded id batch: MASK_VALUE where a key is later than its
    query or is PAD, else 0."""
    t = ids.shape[1]
    allowed = np.tril(np.ones((t, t), bool))[None, None] & (ids != PAD)[:, None, None, :]
    return np.where(allowed, 0.0, MASK_VALUE)


def _decoder(spec, params, ids):
    """Logits (N, T, vocab) of a decoder on (N, T) ids."""
    bias = attention_bias(ids)

    def embed(layer):
        tok, pos = (params[f"{layer.name}.{k}"].astype(np.float64) for k in ("tok", "pos"))
        return tok[np.where(ids == PAD, 0, ids)] + pos[:ids.shape[1]]

    return run_decoder(spec.layers, embed, lambda x, layer: (
        _attention(x, layer, params, bias) if isinstance(layer, Attention)
        else _layer(x, layer, params, True, {})))


def _layer(x, layer, params, training, seen):
    if isinstance(layer, Conv):
        return _conv(x, layer, params)
    if isinstance(layer, BatchNorm):
        return _batchnorm(x, layer, params, training, seen)
    if isinstance(layer, Linear):
        return x @ params[f"{layer.name}.W"].astype(np.float64).T + params[f"{layer.name}.b"]
    if isinstance(layer, ReLU):
        return np.maximum(x, 0.0)
    if isinstance(layer, LayerNorm):
        return _layernorm(x, layer, params)
    if isinstance(layer, GELU):
        return 0.5 * x * (1.0 + _erf(x / sqrt(2.0)))
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
    """Logits (float64) of `spec` with `params` on NCHW input `x` (a decoder: (N, T) ids)."""
    if is_decoder(spec):
        return _decoder(spec, params, np.asarray(x))
    return _run(np.asarray(x, np.float64), spec.layers, params, training, {})


def batch_statistics(spec, params, x):
    """Each BatchNorm's (mean, biased variance, values per channel) in one training forward."""
    seen = {}
    _run(np.asarray(x, np.float64), spec.layers, params, True, seen)
    return seen


def softmax_cross_entropy(logits, labels):
    """Mean softmax cross-entropy, computed stably, over the labels that are not PAD (a decoder's
    (N, T, vocab) logits: over its real next tokens)."""
    keep = np.asarray(labels).reshape(-1) != PAD
    logits, labels = logits.reshape(-1, logits.shape[-1])[keep], np.asarray(labels).reshape(-1)[keep]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(len(labels)), labels].mean())
