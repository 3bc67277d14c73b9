"""A Chainer convolutional text classifier (embedding, 1-D convolutions, mean over time) over
variable sequence lengths. Synthetic data and seeded weights:
`python3 run.py bench --user examples/chainer_textcnn.py`."""
import numpy as np

VOCAB, CLASSES, BATCH = 1000, 4, 32
SHAPE = (BATCH, 48)  # (batch, padded length) of the steady-state steps
SHAPES = [(BATCH, n) for n in (48, 20, 64, 20, 37, 48, 64, 37)] + [(11, 48)]  # last short batch


def inputs(shape, seed):
    """Token ids (0 = padding) and int32 labels, as NumPy arrays."""
    batch, length = shape
    rng = np.random.default_rng(seed)
    tokens = rng.integers(1, VOCAB, (batch, length)).astype(np.int32)
    tokens[np.arange(length)[None, :] >= rng.integers(4, length + 1, batch)[:, None]] = 0
    return (tokens,), rng.integers(0, CLASSES, batch).astype(np.int32)


def chainer_model():
    """EmbedID, convolutions of widths 3 and 5 over the sequence, mean over time, linear head.

    Mean, not the usual max over time: Chainer 7.8.1's @static_graph cannot run F.max's backward
    (TypeError in its replayed schedule), which the suite reports as a skip of `graph`."""
    import chainer
    import chainer.functions as F
    import chainer.links as L

    class TextCNN(chainer.Chain):
        def __init__(self, dim=64, maps=64):
            super().__init__()
            with self.init_scope():
                self.embed = L.EmbedID(VOCAB, dim, ignore_label=0)
                self.conv3 = L.Convolution1D(dim, maps, 3, pad=1)
                self.conv5 = L.Convolution1D(dim, maps, 5, pad=2)
                self.head = L.Linear(2 * maps, CLASSES)

        def forward(self, tokens):
            x = F.transpose(self.embed(tokens), (0, 2, 1))  # (batch, dim, length)
            pooled = [F.mean(F.relu(conv(x)), axis=2) for conv in (self.conv3, self.conv5)]
            return self.head(F.concat(pooled, axis=1))

    model = TextCNN()
    optimizer = chainer.optimizers.Adam(alpha=1e-3)
    optimizer.setup(model)
    return {"model": model, "loss": F.softmax_cross_entropy, "optimizer": optimizer}
