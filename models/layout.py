"""The spec's weights in the channels-last layout that the TF and JAX backends compute in: conv
kernels OIHW -> HWIO, linear and attention weights (out, in) -> (in, out), and a linear after a
Flatten permuted from the NCHW flatten order to the NHWC one (correctness-critical: written once,
here)."""
from . import spec as S


def channels_last(spec, params):
    """{name.W, name.b, name.gamma, ...: NumPy array} of `spec` in NHWC/HWIO layout (linear and
    attention weights (in, out), a decoder's other parameters as they are)."""
    out, flatten_chw = {}, None
    for layer in S.walk(spec.layers):
        if isinstance(layer, S.Flatten):
            flatten_chw = layer.chw
        elif isinstance(layer, S.Conv):
            out[f"{layer.name}.W"] = params[f"{layer.name}.W"].transpose(2, 3, 1, 0)
            if layer.bias:
                out[f"{layer.name}.b"] = params[f"{layer.name}.b"]
        elif isinstance(layer, (S.BatchNorm, S.LayerNorm, S.Embedding)):
            keys = ("tok", "pos") if isinstance(layer, S.Embedding) else ("gamma", "beta")
            for key in keys:
                out[f"{layer.name}.{key}"] = params[f"{layer.name}.{key}"]
        elif isinstance(layer, S.Attention):
            for part in ("qkv", "out"):
                out[f"{layer.name}.{part}.W"] = params[f"{layer.name}.{part}.W"].T
                out[f"{layer.name}.{part}.b"] = params[f"{layer.name}.{part}.b"]
        elif isinstance(layer, S.Linear):
            w = params[f"{layer.name}.W"]
            if flatten_chw is not None:  # NCHW flatten order -> NHWC flatten order
                w = w.reshape(len(w), *flatten_chw).transpose(0, 2, 3, 1).reshape(len(w), -1)
            out[f"{layer.name}.W"], out[f"{layer.name}.b"] = w.T, params[f"{layer.name}.b"]
    return out
