"""The suite's networks as specs: the seed-004 MNIST CNN, a VGG16-like net, a pre-activation ResNet,
a GPT-style decoder."""
from .spec import (GELU, Attention, BatchNorm, Conv, Embedding, Flatten, GlobalAvgPool, LayerNorm,
                   Linear, MaxPool, ModelSpec, ReLU, Residual, ZeroPad)

RESNET_STAGES = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}
VGG_BLOCKS = ((2, 64), (2, 128), (3, 256), (3, 512), (3, 512))


def mnist_cnn(side=28):
    """Seed 004's CNN: three 3x3 convs without activation between them, ReLU, 2x2 pool, linear."""
    layers = (
        Conv("c1", 1, 8, 3, pad=1), Conv("c2", 8, 8, 3, pad=1), Conv("c3", 8, 8, 3, pad=1),
        ReLU(), MaxPool(2, 2), Flatten((8, side // 2, side // 2)),
        Linear("l1", 8 * (side // 2) ** 2, 10),
    )
    return ModelSpec("mnist_cnn", layers, (1, side, side), 10, {"side": side})


def _scaled(channels, width):
    return max(1, int(round(channels * width)))


def vgg(width=1.0, side=224, classes=10):
    """VGG16's 13 convs with ReLU in blocks of 2,2,3,3,3, a 2x2 pool per block, global pooling, linear."""
    layers, cin = [], 3
    for block, (repeats, channels) in enumerate(VGG_BLOCKS, start=1):
        cout = _scaled(channels, width)
        for i in range(1, repeats + 1):
            layers += [Conv(f"b{block}c{i}", cin, cout, 3, pad=1), ReLU()]
            cin = cout
        layers.append(MaxPool(2, 2))
    layers += [GlobalAvgPool(), Linear("fc", cin, classes)]
    return ModelSpec("vgg", tuple(layers), (3, side, side), classes,
                     {"width": width, "side": side})


def _bottleneck(name, cin, filters, stride, conv_shortcut):
    """Keras' ResNetV2 `block2`: BN-ReLU pre-activation, 1x1 / 3x3 (stride) / 1x1 convs."""
    cout = 4 * filters
    if conv_shortcut:
        shortcut, from_pre = (Conv(f"{name}.short", cin, cout, 1, stride),), True
    else:
        shortcut, from_pre = ((MaxPool(1, stride),) if stride > 1 else ()), False
    body = (
        Conv(f"{name}.c1", cin, filters, 1, bias=False), BatchNorm(f"{name}.bn1", filters), ReLU(),
        Conv(f"{name}.c2", filters, filters, 3, stride, pad=1, bias=False),
        BatchNorm(f"{name}.bn2", filters), ReLU(),
        Conv(f"{name}.c3", filters, cout, 1),
    )
    return Residual((BatchNorm(f"{name}.bn0", cin), ReLU()), body, shortcut, from_pre), cout


def resnet(depth=50, width=1.0, side=224, classes=10, stages=None):
    """Keras' ResNet{50,101,152}V2 layout (stride on each stage's last block) at a width multiplier.

    `stages` (blocks per stage) overrides `depth` for shallow smoke-test networks.
    """
    if stages is None and depth not in RESNET_STAGES:
        raise ValueError(f"resnet depth {depth}: choose one of {sorted(RESNET_STAGES)}")
    stages = tuple(stages or RESNET_STAGES[depth])
    depth = 2 + 3 * sum(stages)
    stem = _scaled(64, width)
    layers = [ZeroPad(3), Conv("stem", 3, stem, 7, 2), ZeroPad(1), MaxPool(3, 2)]
    cin = stem
    for stage, blocks in enumerate(stages, start=1):
        filters = _scaled(64 * 2 ** (stage - 1), width)
        for b in range(blocks):
            last_stride = 2 if (b == blocks - 1 and stage < 4) else 1
            block, cin = _bottleneck(f"s{stage}b{b}", cin, filters, last_stride, b == 0)
            layers.append(block)
    layers += [BatchNorm("post_bn", cin), ReLU(), GlobalAvgPool(), Linear("fc", cin, classes)]
    return ModelSpec("resnet", tuple(layers), (3, side, side), classes,
                     {"depth": depth, "stages": stages, "width": width, "side": side})


VOCAB = 256
# a later sweep point where compute dominates (defined, not run yet)
DECODER_COMPUTE = {"width": 512, "heads": 8, "depth": 6, "tokens": 256}


def decoder(width=128, heads=4, depth=2, tokens=64, vocab=VOCAB):
    """GPT-style decoder: token + learned position embeddings, `depth` pre-LayerNorm blocks (causal
    attention, exact-GELU MLP of 4x width, each residual), final LayerNorm, linear head.

    The defaults are the answer's size, where per-op overhead should matter: d_model 128, 4 heads,
    2 blocks, 64 tokens (at batch 8); DECODER_COMPUTE is a size where compute dominates."""
    if width % heads:
        raise ValueError(f"decoder width {width} is not a multiple of heads {heads}")
    layers = [Embedding("embed", vocab, width, tokens)]
    for b in range(depth):
        attention = (LayerNorm(f"b{b}.ln1", width), Attention(f"b{b}.attn", width, heads))
        mlp = (LayerNorm(f"b{b}.ln2", width), Linear(f"b{b}.fc1", width, 4 * width), GELU(),
               Linear(f"b{b}.fc2", 4 * width, width))
        layers += [Residual((), attention), Residual((), mlp)]
    layers += [LayerNorm("ln_f", width), Linear("head", width, vocab)]
    return ModelSpec("decoder", tuple(layers), (tokens,), vocab,
                     {"width": width, "heads": heads, "depth": depth, "tokens": tokens})


MODELS = {"mnist_cnn": mnist_cnn, "vgg": vgg, "resnet": resnet, "decoder": decoder}


def build(name, **config):
    """Build a registered model spec; unknown names get a one-line error naming the choices."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: choose one of {', '.join(MODELS)}")
    return MODELS[name](**config)
