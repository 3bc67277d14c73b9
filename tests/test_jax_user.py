"""A user's JAX model (apply function, parameter pytree, Optax optimizer): jit follows eager."""
from pathlib import Path

import numpy as np
import pytest

from backends.user import load

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "user" / "jax_mlp.py"


def _losses(variant, user):
    from backends.jax.user import Runner
    runner = Runner(user, variant)
    losses = [runner.train_step(*runner.to_device(*user.batch(shape, seed)))
              for seed, shape in enumerate(user.shapes() * 2)]
    return losses, runner.traces()


def test_jit_follows_eager_and_traces_per_shape(backend):
    if backend[0].NAME != "jax":
        pytest.skip(f"{backend[0].NAME}: the JAX user adapter only")
    pytest.importorskip("optax", reason="optax is in the jax env only: `tox -e jax`")
    user = load(FIXTURE)
    (eager, none), (graph, traces) = _losses("eager", user), _losses("graph", user)
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    assert eager[-1] < eager[0] and (none, traces) == (0, 2)  # two shapes: two traces

