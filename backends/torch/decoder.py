"""The decoder in PyTorch: parameters in the spec's layout and order, attention written out."""
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from models import spec as S


def _gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


class Decoder(nn.Module):
    """(N, T) int ids (PAD-padded) -> (N, T, vocab) logits."""

    def __init__(self, spec, params):
        super().__init__()
        self.spec, self.names = spec, list(params)
        self.weights = nn.ParameterList(nn.Parameter(torch.from_numpy(np.array(v)))
                                        for v in params.values())

    def forward(self, ids):
        p = dict(zip(self.names, self.weights))
        real = ids != S.PAD
        t = ids.shape[1]
        causal = torch.ones(t, t, dtype=torch.bool, device=ids.device).tril()
        bias = torch.where(causal & real[:, None, None, :], 0.0, S.MASK_VALUE)
        embed = lambda layer: (F.embedding(torch.where(real, ids, 0), p[f"{layer.name}.tok"])
                               + p[f"{layer.name}.pos"][:t])
        return S.run_decoder(self.spec.layers, embed, lambda x, layer: self._layer(x, layer, p, bias))

    @staticmethod
    def _layer(x, layer, p, bias):
        if isinstance(layer, S.LayerNorm):
            return F.layer_norm(x, (layer.width,), p[f"{layer.name}.gamma"],
                                p[f"{layer.name}.beta"], S.LN_EPS)
        if isinstance(layer, S.Linear):
            return F.linear(x, p[f"{layer.name}.W"], p[f"{layer.name}.b"])
        if isinstance(layer, S.GELU):
            return _gelu(x)
        if isinstance(layer, S.Attention):
            return _attention(x, layer, p, bias)
        raise TypeError(f"torch decoder has no rule for {layer!r}")


def _attention(x, layer, p, bias):
    n, t, d = x.shape
    qkv = F.linear(x, p[f"{layer.name}.qkv.W"], p[f"{layer.name}.qkv.b"])
    q, k, v = (a.reshape(n, t, layer.heads, d // layer.heads).transpose(1, 2)
               for a in qkv.split(d, dim=-1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(d // layer.heads) + bias
    out = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(n, t, d)
    return F.linear(out, p[f"{layer.name}.out.W"], p[f"{layer.name}.out.b"])


def cross_entropy(logits, targets):
    """Mean cross-entropy over the real next tokens (targets that are not PAD)."""
    return F.cross_entropy(logits.flatten(0, -2), targets.flatten(), ignore_index=S.PAD)
