"""A PyTorch Transformer-encoder text classifier over variable sequence lengths, with padding masks.

Synthetic data and seeded weights: `python3 run.py bench --user examples/torch_transformer.py`."""
import numpy as np

VOCAB, CLASSES, BATCH = 1000, 4, 16
SHAPE = (BATCH, 48)  # (batch, padded length) of the steady-state steps


def shapes(rng):
    """The retrace run: padded lengths as a data loader without bucketing gives them."""
    return [(BATCH, int(n)) for n in rng.integers(16, 65, 8)]


def inputs(shape, seed):
    """Token ids (0 = padding), the padding mask (True = pad) and labels, as NumPy arrays."""
    batch, length = shape
    rng = np.random.default_rng(seed)
    lengths = rng.integers(length // 2, length + 1, batch)
    lengths[0] = length  # the longest sequence sets the padded length
    tokens = rng.integers(1, VOCAB, (batch, length))
    pad = np.arange(length)[None, :] >= lengths[:, None]
    tokens[pad] = 0
    return (tokens, pad), rng.integers(0, CLASSES, batch)


def torch_model():
    """Embedding + 2-layer nn.TransformerEncoder + masked mean pooling + linear head."""
    import torch
    from torch import nn

    class Classifier(nn.Module):
        def __init__(self, dim=64):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, dim, padding_idx=0)
            self.position = nn.Parameter(torch.randn(1, 128, dim) * 0.02)
            layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=128, dropout=0.0,
                                               batch_first=True)
            # the fused fast path is inference-only and changes numerics: keep one code path
            self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
            self.head = nn.Linear(dim, CLASSES)

        def forward(self, tokens, pad):
            x = self.embed(tokens) + self.position[:, :tokens.shape[1]]
            x = self.encoder(x, src_key_padding_mask=pad)
            keep = (~pad).unsqueeze(-1).float()
            return self.head((x * keep).sum(1) / keep.sum(1))

    model = Classifier()
    return {"model": model, "loss": nn.functional.cross_entropy,
            "optimizer": torch.optim.Adam(model.parameters(), lr=1e-3)}
