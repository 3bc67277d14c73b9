"""The decoder in Chainer (spec layout, F.erf's exact GELU). The padding mask and the clamped ids
are computed before the forward and passed in: under @static_graph, array code on an input
outside Chainer functions runs on the first call only."""
import math

import chainer
import chainer.functions as F
import numpy as np
from chainer import static_graph

from models import spec as S


def _gelu(x):
    return 0.5 * x * (1.0 + F.erf(x / math.sqrt(2.0)))


def _attention(x, layer, p, bias):
    n, t, d = x.shape
    qkv = F.linear(x, p[f"{layer.name}.qkv.W"], p[f"{layer.name}.qkv.b"], n_batch_axes=2)
    q, k, v = (F.transpose(F.reshape(a, (n, t, layer.heads, d // layer.heads)), (0, 2, 1, 3))
               for a in F.split_axis(qkv, 3, axis=2))
    scores = F.matmul(q, k, transb=True) / math.sqrt(d // layer.heads)
    scores = scores + F.broadcast_to(bias, scores.shape)
    out = F.reshape(F.transpose(F.matmul(F.softmax(scores, axis=3), v), (0, 2, 1, 3)), (n, t, d))
    return F.linear(out, p[f"{layer.name}.out.W"], p[f"{layer.name}.out.b"], n_batch_axes=2)


def _layer(x, layer, p, bias):
    if isinstance(layer, S.LayerNorm):
        flat = F.layer_normalization(F.reshape(x, (-1, layer.width)), p[f"{layer.name}.gamma"],
                                     p[f"{layer.name}.beta"], S.LN_EPS)
        return F.reshape(flat, x.shape)
    if isinstance(layer, S.Linear):
        return F.linear(x, p[f"{layer.name}.W"], p[f"{layer.name}.b"], n_batch_axes=2)
    if isinstance(layer, S.GELU):
        return _gelu(x)
    if isinstance(layer, S.Attention):
        return _attention(x, layer, p, bias)
    raise TypeError(f"chainer decoder has no rule for {layer!r}")


def inputs(ids):
    """(ids with PAD as 0, (N, 1, T, T) float32 attention bias) of a PAD-padded id batch."""
    xp = chainer.backend.get_array_module(ids)
    real, t = ids != S.PAD, ids.shape[1]
    allowed = xp.tril(xp.ones((t, t), bool))[None, None] & real[:, None, None, :]
    return xp.where(real, ids, 0).astype(np.int32), xp.where(allowed, 0.0, S.MASK_VALUE).astype(
        np.float32)


class Decoder(chainer.Chain):
    """(N, T) ids (PAD-padded) -> (N, T, vocab) logits; `body` takes inputs(ids)."""

    def __init__(self, spec, params):
        super().__init__()
        self.spec, self.names = spec, list(params)
        with self.init_scope():
            for name, value in params.items():
                setattr(self, name.replace(".", "_"), chainer.Parameter(np.array(value)))

    def forward(self, ids):
        return self.body(*inputs(ids))

    def body(self, ids, bias):
        p = {name: getattr(self, name.replace(".", "_")) for name in self.names}
        t = ids.shape[1]
        embed = lambda layer: (F.embed_id(ids, p[f"{layer.name}.tok"])
                               + F.broadcast_to(p[f"{layer.name}.pos"][:t], (len(ids), t, layer.width)))
        return S.run_decoder(self.spec.layers, embed, lambda x, layer: _layer(x, layer, p, bias))


class StaticDecoder(Decoder):
    """The same chain with `body` cached by @static_graph (one schedule per input shape)."""

    @static_graph
    def body(self, ids, bias):
        return super().body(ids, bias)


def cross_entropy(logits, targets):
    """Mean cross-entropy over the real next tokens (targets that are not PAD: Chainer's ignore
    label is -1, PAD)."""
    return F.softmax_cross_entropy(F.reshape(logits, (-1, logits.shape[-1])), targets.reshape(-1),
                                   ignore_label=S.PAD)
