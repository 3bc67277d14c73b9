"""The decoder in TensorFlow: a Keras model holding the weights (linear weights (in, out)), its
forward written in tf ops."""
import math

import keras
import tensorflow as tf

from models import spec as S


def _attention(x, layer, p, bias):
    n, t, d = tf.shape(x)[0], tf.shape(x)[1], x.shape[-1]
    heads, size = layer.heads, x.shape[-1] // layer.heads
    qkv = x @ p[f"{layer.name}.qkv.W"] + p[f"{layer.name}.qkv.b"]
    q, k, v = (tf.transpose(tf.reshape(a, (n, t, heads, size)), (0, 2, 1, 3))
               for a in tf.split(qkv, 3, axis=-1))
    scores = tf.matmul(q, k, transpose_b=True) / math.sqrt(size) + bias
    out = tf.transpose(tf.nn.softmax(scores, axis=-1) @ v, (0, 2, 1, 3))
    return tf.reshape(out, (n, t, d)) @ p[f"{layer.name}.out.W"] + p[f"{layer.name}.out.b"]


def _layer(x, layer, p, bias):
    if isinstance(layer, S.LayerNorm):
        mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
        return ((x - mean) * tf.math.rsqrt(var + S.LN_EPS) * p[f"{layer.name}.gamma"]
                + p[f"{layer.name}.beta"])
    if isinstance(layer, S.Linear):
        return x @ p[f"{layer.name}.W"] + p[f"{layer.name}.b"]
    if isinstance(layer, S.GELU):
        return 0.5 * x * (1.0 + tf.math.erf(x / math.sqrt(2.0)))
    if isinstance(layer, S.Attention):
        return _attention(x, layer, p, bias)
    raise TypeError(f"tf decoder has no rule for {layer!r}")


class Decoder(keras.Model):
    """(N, T) int32 ids (PAD-padded) -> (N, T, vocab) logits; `params` in (in, out) layout."""

    def __init__(self, spec, params):
        super().__init__(name=spec.name)
        self.spec, self.names = spec, list(params)
        self.params = [self.add_weight(shape=v.shape, initializer="zeros", name=k.replace(".", "_"))
                       for k, v in params.items()]
        for variable, value in zip(self.params, params.values()):
            variable.assign(value)

    def call(self, ids, training=False):
        p = dict(zip(self.names, self.params))
        real, t = ids != S.PAD, tf.shape(ids)[1]
        causal = tf.linalg.band_part(tf.ones((t, t), tf.bool), -1, 0)
        bias = tf.where(causal & real[:, None, None, :], 0.0, S.MASK_VALUE)
        embed = lambda layer: (tf.gather(p[f"{layer.name}.tok"], tf.where(real, ids, 0))
                               + p[f"{layer.name}.pos"][:t])
        return S.run_decoder(self.spec.layers, embed, lambda x, layer: _layer(x, layer, p, bias))


def cross_entropy(targets, logits):
    """Mean cross-entropy over the real next tokens (targets that are not PAD)."""
    real = targets != S.PAD
    each = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.where(real, targets, 0), logits)
    return tf.reduce_sum(tf.where(real, each, 0.0)) / tf.reduce_sum(tf.cast(real, tf.float32))
