"""A Keras text classifier (Embedding with a padding mask + LSTM + Dense) over variable sequence
lengths. Synthetic data and seeded weights: `python3 run.py bench --user examples/keras_text.py`."""
import numpy as np

VOCAB, CLASSES, BATCH = 1000, 4, 32
SHAPE = (BATCH, 40)  # (batch, padded length) of the steady-state steps


def shapes(rng):
    """The retrace run: padded lengths as a data loader without bucketing gives them."""
    return [(BATCH, int(n)) for n in rng.integers(10, 81, 8)]


def inputs(shape, seed):
    """Token ids (0 = padding, which the Embedding masks) and labels, as NumPy arrays."""
    batch, length = shape
    rng = np.random.default_rng(seed)
    tokens = rng.integers(1, VOCAB, (batch, length)).astype(np.int32)
    lengths = rng.integers(max(1, length // 2), length + 1, batch)
    tokens[np.arange(length)[None, :] >= lengths[:, None]] = 0
    return (tokens,), rng.integers(0, CLASSES, batch).astype(np.int32)


def tf_model():
    """Embedding(mask_zero) -> LSTM(64) -> Dense(classes); Adam; sparse cross-entropy."""
    import keras
    model = keras.Sequential([
        keras.Input((None,), dtype="int32"),
        keras.layers.Embedding(VOCAB, 64, mask_zero=True),
        keras.layers.LSTM(64),
        keras.layers.Dense(CLASSES),
    ])
    return {"model": model, "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            "optimizer": keras.optimizers.Adam(1e-3)}
