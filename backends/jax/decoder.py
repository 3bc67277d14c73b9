"""The decoder in plain JAX: a pure function of a parameter dict (linear weights (in, out))."""
import math

import jax
import jax.numpy as jnp

from models import spec as S


def _gelu(x):
    return 0.5 * x * (1.0 + jax.lax.erf(x / math.sqrt(2.0)))


def _attention(x, layer, p, bias):
    n, t, d = x.shape
    qkv = x @ p[f"{layer.name}.qkv.W"] + p[f"{layer.name}.qkv.b"]
    q, k, v = (a.reshape(n, t, layer.heads, d // layer.heads).transpose(0, 2, 1, 3)
               for a in jnp.split(qkv, 3, axis=-1))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d // layer.heads) + bias
    out = (jax.nn.softmax(scores, axis=-1) @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
    return out @ p[f"{layer.name}.out.W"] + p[f"{layer.name}.out.b"]


def _layer(x, layer, p, bias):
    if isinstance(layer, S.LayerNorm):
        mean, var = x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True)
        return ((x - mean) * jax.lax.rsqrt(var + S.LN_EPS) * p[f"{layer.name}.gamma"]
                + p[f"{layer.name}.beta"])
    if isinstance(layer, S.Linear):
        return x @ p[f"{layer.name}.W"] + p[f"{layer.name}.b"]
    if isinstance(layer, S.GELU):
        return _gelu(x)
    if isinstance(layer, S.Attention):
        return _attention(x, layer, p, bias)
    raise TypeError(f"jax decoder has no rule for {layer!r}")


def forward(spec, p, ids):
    """(N, T, vocab) float32 logits of (N, T) int ids (PAD-padded)."""
    real, t = ids != S.PAD, ids.shape[1]
    allowed = jnp.tril(jnp.ones((t, t), bool)) & real[:, None, None, :]
    bias = jnp.where(allowed, 0.0, S.MASK_VALUE).astype(jnp.float32)
    embed = lambda layer: (p[f"{layer.name}.tok"][jnp.where(real, ids, 0)]
                           + p[f"{layer.name}.pos"][:t])
    return S.run_decoder(spec.layers, embed, lambda x, layer: _layer(x, layer, p, bias))


def cross_entropy(logits, targets):
    """Mean cross-entropy over the real next tokens (targets that are not PAD)."""
    real = targets != S.PAD
    log_probs = jax.nn.log_softmax(logits)
    picked = jnp.take_along_axis(log_probs, jnp.where(real, targets, 0)[..., None], axis=-1)[..., 0]
    return -jnp.where(real, picked, 0.0).sum() / real.sum()
