"""A JAX convolutional text classifier (embedding, 1-D convolutions, max over time) over variable
sequence lengths, as a JAX user writes it: a pure apply function, a parameter pytree and Optax.
Synthetic data and seeded weights: `python3 run.py bench --user examples/jax_textcnn.py`."""
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


def jax_model(dim=64, maps=64):
    """Embedding (row 0 = padding, masked), convolutions of widths 3 and 5, max over time, head."""
    import jax
    import jax.numpy as jnp
    import optax

    def apply(params, tokens):
        x = params["embed"][tokens] * (tokens > 0)[..., None]  # (batch, length, dim)
        pooled = [jax.nn.relu(jax.lax.conv_general_dilated(
            x, params[f"conv{k}"], (1,), [(k // 2, k // 2)],
            dimension_numbers=("NWC", "WIO", "NWC"))
            + params[f"bias{k}"]).max(axis=1) for k in (3, 5)]
        return jnp.concatenate(pooled, axis=1) @ params["head"] + params["head_bias"]

    rng = np.random.default_rng(0)
    normal = lambda shape, fan_in: jnp.asarray(rng.normal(0, fan_in ** -0.5, shape), jnp.float32)
    params = {"embed": normal((VOCAB, dim), 1), "head": normal((2 * maps, CLASSES), 2 * maps),
              "head_bias": jnp.zeros(CLASSES), **{f"conv{k}": normal((k, dim, maps), k * dim)
                                                  for k in (3, 5)},
              **{f"bias{k}": jnp.zeros(maps) for k in (3, 5)}}
    loss = lambda logits, labels: optax.softmax_cross_entropy_with_integer_labels(
        logits, labels).mean()
    return {"model": apply, "params": params, "loss": loss, "optimizer": optax.adam(1e-3)}
