"""XLA:CPU computes a bfloat16 convolution in float32 between converts (openxla/xla#10687):
JAX's bfloat16 arm on CPU saves no convolution arithmetic. This fails once XLA keeps it bf16."""
import re

import pytest


def test_bf16_convolution_runs_in_float32_on_cpu(backend):
    if backend[0].NAME != "jax":
        pytest.skip(f"{backend[0].NAME}: XLA:CPU's rewrite, checked in the jax env")
    import jax
    import jax.numpy as jnp
    from jax import lax
    if jax.default_backend() != "cpu":
        pytest.skip("the rewrite is XLA:CPU's")
    x, w = jnp.ones((2, 12, 12, 8), jnp.bfloat16), jnp.ones((3, 3, 8, 16), jnp.bfloat16)
    conv = jax.jit(lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    hlo = conv.lower(x, w).compile().as_text()
    assert re.findall(r"= (\w+)\[[\d,]+\]\{[\d,]+\} convolution\(", hlo) == ["f32"]
    assert conv(x, w).dtype == jnp.bfloat16  # converted back: the caller sees bfloat16
