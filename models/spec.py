"""Framework-neutral model spec: layers as plain data, shapes, parameter and FLOP counts."""
from dataclasses import dataclass, field

BN_EPS = 1.001e-5  # Keras ResNetV2's epsilon
BN_DECAY = 0.99  # share of the old running average kept per step (Keras momentum, Chainer decay)
LEARNING_RATE = 0.01


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
    """A whole network: its layers, input shape (C, H, W) and class count."""
    name: str
    layers: tuple
    input_chw: tuple
    classes: int
    config: dict = field(default_factory=dict, compare=False)


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
        elif isinstance(layer, BatchNorm):
            shapes[f"{layer.name}.gamma"] = (layer.channels,)
            shapes[f"{layer.name}.beta"] = (layer.channels,)
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


def forward_flops(spec, chw=None):
    """Forward FLOPs per example (convolutions and linears only) for input shape `chw`."""
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
