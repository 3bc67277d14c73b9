"""Seeded NumPy parameters and synthetic data, shared by every backend."""
import numpy as np

from .spec import PAD, is_decoder, param_shapes

EMBED_STD = 0.02  # GPT-2's embedding initialisation


def init_params(spec, seed=0):
    """He-normal weights, N(0, 0.02) embeddings, zero biases, unit norm scales: float32 arrays in
    the spec's layout."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in param_shapes(spec).items():
        if name.endswith(".W"):
            fan_in = int(np.prod(shape[1:]))
            params[name] = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape).astype(np.float32)
        elif name.endswith((".tok", ".pos")):
            params[name] = rng.normal(0.0, EMBED_STD, shape).astype(np.float32)
        elif name.endswith(".gamma"):
            params[name] = np.ones(shape, np.float32)
        else:
            params[name] = np.zeros(shape, np.float32)
    return params


def synthetic_batch(spec, batch, seed=0, side=None):
    """A seeded batch: NCHW float32 images in [0, 1) and int32 labels; `side` is int or (h, w).

    A decoder's: synthetic_tokens (`side`: the tokens per sequence)."""
    if is_decoder(spec):
        return synthetic_tokens(spec, batch, seed, side)
    rng = np.random.default_rng(seed)
    c, h, w = spec.input_chw
    if side is not None:
        h, w = (side, side) if isinstance(side, int) else side
    x = rng.random((batch, c, h, w), dtype=np.float32)
    y = rng.integers(0, spec.classes, batch).astype(np.int32)
    return x, y


def synthetic_tokens(spec, batch, seed=0, tokens=None, ragged=True):
    """Seeded (ids, targets), int32 (batch, tokens): each sequence has its own length (2 to
    `tokens`, the first full; all full unless `ragged`), PAD after it; targets are the next ids,
    PAD where there is none. The padding mask is `ids != PAD`; the lengths, its row sums."""
    rng = np.random.default_rng(seed)
    tokens = tokens or spec.input_chw[0]
    ids = rng.integers(0, spec.classes, (batch, tokens)).astype(np.int32)
    lengths = rng.integers(2, tokens + 1, batch) if ragged else np.full(batch, tokens)
    lengths[0] = tokens
    ids[np.arange(tokens)[None, :] >= lengths[:, None]] = PAD
    targets = np.full_like(ids, PAD)
    targets[:, :-1] = ids[:, 1:]
    return ids, targets


PAD_STRATEGIES = {  # how a batch is padded: strategy -> its tokens, from (its longest, the cap)
    "exact": lambda n, cap: n,  # to the batch's longest sequence: a new shape for each length
    "pow2": lambda n, cap: min(cap, 1 << (n - 1).bit_length()),  # buckets 8, 16, 32, ...
    "mult32": lambda n, cap: min(cap, -(-n // 32) * 32),  # buckets 32, 64, 96, ...
    "max": lambda n, cap: cap,  # every batch at the longest the stream allows: one shape
}


def length_stream(steps, shortest, longest, median, sigma, seed=0):
    """Seeded lengths of each batch's longest sequence: log-normal around `median` with `sigma`,
    clipped to [shortest, longest], so that long batches are rare (a long tail)."""
    rng = np.random.default_rng(seed)
    drawn = np.exp(rng.normal(np.log(median), sigma, steps)).round().astype(int)
    return [int(n) for n in np.clip(drawn, shortest, longest)]


def token_batch(spec, batch, length, padded, seed=0):
    """synthetic_tokens with `length` as its longest sequence, PAD-padded to `padded` tokens."""
    ids, targets = synthetic_tokens(spec, batch, seed, tokens=length)
    pad = lambda a: np.pad(a, ((0, 0), (0, padded - length)), constant_values=PAD)
    return pad(ids), pad(targets)
