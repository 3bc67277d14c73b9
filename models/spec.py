"""Framework-neutral model spec: layers as plain data, shapes, parameter and FLOP counts."""
from dataclasses import dataclass, field

BN_EPS = 1.001e-5  # Keras ResNetV2's epsilon
BN_DECAY = 0.99  # share of the old running average kept per step (Keras momentum, Chainer decay)
LEARNING_RATE = 0.01
LN_EPS = 1e-5  # torch's LayerNorm default (Keras' is 1e-3, Chainer's 1e-6: set everywhere)
PAD = -1  # a padding position's token id and target: the padding mask is `tokens != PAD`
MASK_VALUE = -1e9  # added to a masked attention score: its exp underflows to exactly 0


@dataclass(frozen=True)
class Conv:
    """2-D convolution, symmetric zero padding `pad`; weights OIHW."""
    name: str
    cin: int
    cout: int
    k: int
    stride: int = 1
    pad: int = 0
    bias: bool = True


@dataclass(frozen=True)
class BatchNorm:
    """Batch normalisation over channels with learned scale and shift."""
    name: str
    channels: int


@dataclass(frozen=True)
class Linear:
    """Fully connected layer; weights (out, in) acting on NCHW-flattened input."""
    name: str
    fin: int
    fout: int


@dataclass(frozen=True)
class Embedding:
    """Token and learned position tables: (N, T) ids -> (N, T, width); a PAD id embeds as id 0."""
    name: str
    vocab: int
    width: int
    tokens: int  # positions in the table: the longest sequence


@dataclass(frozen=True)
class LayerNorm:
    """Layer normalisation over the last axis (LN_EPS) with learned scale and shift."""
    name: str
    width: int


@dataclass(frozen=True)
class Attention:
    """Causal multi-head self-attention written out: fused qkv (q, k, v rows in that order, heads
    contiguous), softmax(QKᵀ/√d_head + mask)·V, output projection. The mask adds MASK_VALUE where
    a key is later than its query or a PAD position; with right padding only the PAD queries'
    rows (excluded from the loss) see the padding part."""
    name: str
    width: int
    heads: int


@dataclass(frozen=True)
class GELU:
    """Exact GELU, 0.5·x·(1 + erf(x/√2)), in every backend (Chainer has none: built from F.erf)."""


@dataclass(frozen=True)
class ReLU:
    """Rectified linear unit."""


@dataclass(frozen=True)
class MaxPool:
    """Max pooling without padding (pad explicitly with ZeroPad)."""
    k: int
    stride: int


@dataclass(frozen=True)
class ZeroPad:
    """Symmetric zero padding of height and width."""
    pad: int


@dataclass(frozen=True)
class GlobalAvgPool:
    """Mean over height and width: (N, C, H, W) -> (N, C)."""


@dataclass(frozen=True)
class Flatten:
    """(N, C, H, W) -> (N, C*H*W) in NCHW order; `chw` is the input shape for layout conversion."""
    chw: tuple


@dataclass(frozen=True)
class Residual:
    """Pre-activation block: p = pre(x); body(p) + shortcut(p if shortcut_from_pre else x)."""
    pre: tuple
    body: tuple
    shortcut: tuple = ()
    shortcut_from_pre: bool = False


@dataclass(frozen=True)
class ModelSpec:
    """A whole network: its layers, input shape per example ((C, H, W), or (tokens,) for a
    decoder) and class count (a decoder's vocabulary)."""
    name: str
    layers: tuple
    input_chw: tuple
    classes: int
    config: dict = field(default_factory=dict, compare=False)


def is_decoder(spec):
    """True for a token model (its first layer an Embedding): (N, T) int ids in, (N, T, vocab) out."""
    return isinstance(spec.layers[0], Embedding)


def run_decoder(layers, embed, apply):
    """A decoder's forward in any framework: embed(the Embedding layer) starts it, each Residual
    adds its body's output (apply(h, layer) per inner layer), any other layer is apply(x, layer)."""
    x = None
    for layer in layers:
        if isinstance(layer, Embedding):
            x = embed(layer)
        elif isinstance(layer, Residual):
            h = x
            for inner in layer.body:
                h = apply(h, inner)
            x = x + h
        else:
            x = apply(x, layer)
    return x


def walk(layers):
    """Yield every layer, descending into residual blocks."""
    for layer in layers:
        if isinstance(layer, Residual):
            yield from walk(layer.pre + layer.body + layer.shortcut)
        else:
            yield layer


def param_shapes(spec):
    """Ordered {parameter name: shape} in the spec's layout (OIHW convs, (out, in) linears)."""
    shapes = {}
    for layer in walk(spec.layers):
        if isinstance(layer, Conv):
            shapes[f"{layer.name}.W"] = (layer.cout, layer.cin, layer.k, layer.k)
            if layer.bias:
                shapes[f"{layer.name}.b"] = (layer.cout,)
        elif isinstance(layer, (BatchNorm, LayerNorm)):
            size = layer.channels if isinstance(layer, BatchNorm) else layer.width
            shapes[f"{layer.name}.gamma"] = (size,)
            shapes[f"{layer.name}.beta"] = (size,)
        elif isinstance(layer, Embedding):
            shapes[f"{layer.name}.tok"] = (layer.vocab, layer.width)
            shapes[f"{layer.name}.pos"] = (layer.tokens, layer.width)
        elif isinstance(layer, Attention):
            for part, rows in (("qkv", 3 * layer.width), ("out", layer.width)):
                shapes[f"{layer.name}.{part}.W"] = (rows, layer.width)
                shapes[f"{layer.name}.{part}.b"] = (rows,)
        elif isinstance(layer, Linear):
            shapes[f"{layer.name}.W"] = (layer.fout, layer.fin)
            shapes[f"{layer.name}.b"] = (layer.fout,)
    return shapes


def param_count(spec):
    """Number of trainable parameters."""
    total = 0
    for shape in param_shapes(spec).values():
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def _out_shape(layer, chw):
    """Shape after one non-residual layer, for (C, H, W) or (F,) inputs."""
    if isinstance(layer, Conv):
        c, h, w = chw
        side = lambda s: (s + 2 * layer.pad - layer.k) // layer.stride + 1
        return (layer.cout, side(h), side(w))
    if isinstance(layer, MaxPool):
        c, h, w = chw
        return (c, (h - layer.k) // layer.stride + 1, (w - layer.k) // layer.stride + 1)
    if isinstance(layer, ZeroPad):
        c, h, w = chw
        return (c, h + 2 * layer.pad, w + 2 * layer.pad)
    if isinstance(layer, GlobalAvgPool):
        return (chw[0],)
    if isinstance(layer, Flatten):
        return (chw[0] * chw[1] * chw[2],)
    if isinstance(layer, Linear):
        return (layer.fout,)
    return chw


def _layer_flops(layer, chw, out):
    """Forward FLOPs (a multiply-add counts 2) of one layer for one example."""
    if isinstance(layer, Conv):
        return 2 * layer.cin * layer.k * layer.k * out[0] * out[1] * out[2]
    if isinstance(layer, Linear):
        return 2 * layer.fin * layer.fout
    return 0


def _decoder_flops(spec, tokens):
    """Forward FLOPs of one sequence of `tokens`: linears per token, QKᵀ and ·V per head."""
    total = 0
    for layer in walk(spec.layers):
        if isinstance(layer, Linear):
            total += 2 * layer.fin * layer.fout * tokens
        elif isinstance(layer, Attention):
            total += 2 * 4 * layer.width * layer.width * tokens  # qkv and out projections
            total += 2 * 2 * tokens * tokens * layer.width  # QKᵀ and ·V, all heads
    return total


def forward_flops(spec, chw=None):
    """Forward FLOPs per example (convolutions, linears, attention) for input shape `chw`."""
    if is_decoder(spec):
        return _decoder_flops(spec, (chw or spec.input_chw)[0])
    def run(layers, shape):
        total = 0
        for layer in layers:
            if isinstance(layer, Residual):
                pre_total, p = run(layer.pre, shape)
                body_total, out = run(layer.body, p)
                short_total, _ = run(layer.shortcut, p if layer.shortcut_from_pre else shape)
                total += pre_total + body_total + short_total
                shape = out
            else:
                out = _out_shape(layer, shape)
                total += _layer_flops(layer, shape, out)
                shape = out
        return total, shape
    return run(spec.layers, tuple(chw or spec.input_chw))[0]


def output_shape(spec, chw=None):
    """Output shape of the network body for one example."""
    shape = tuple(chw or spec.input_chw)
    for layer in spec.layers:
        if isinstance(layer, Residual):
            for inner in layer.body:
                shape = _out_shape(inner, shape)
        else:
            shape = _out_shape(layer, shape)
    return shape


def train_flops(spec, chw=None):
    """FLOPs per example of a training step: the usual 3x forward (forward, two backward matmuls)."""
    return 3 * forward_flops(spec, chw)
