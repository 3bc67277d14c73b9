"""JAX's batch norm is written out by hand: after one train step every layer's running mean and
variance must move by the spec's rule (a BN_DECAY share kept, the unbiased batch variance, as in
torch and Chainer), checked against the float64 reference's batch statistics."""
import numpy as np
import pytest

import models
from models import reference
from models.spec import BN_DECAY


def test_running_statistics_follow_the_spec(backend):
    module, _ = backend
    if module.NAME != "jax":
        pytest.skip(f"{module.NAME}: JAX's hand-written batch norm only (the others use their "
                    "framework's)")
    spec = models.build("resnet", width=1 / 16, side=32, stages=(1, 1))
    params = models.init_params(spec)
    x, y = models.synthetic_batch(spec, 4, seed=0)
    runner = module.Runner(spec, params, "eager")
    runner.train_step(*runner.to_device(x, y))
    seen = reference.batch_statistics(spec, params, x)
    assert set(seen) == {key.rsplit(".", 1)[0] for key in runner.stats}
    assert min(n for _, _, n in seen.values()) <= 64  # where n / (n - 1) is 1.6% or more
    for name, (mean, var, n) in seen.items():
        moved = {key: (np.asarray(runner.stats[f"{name}.{key}"], np.float64) - BN_DECAY * fresh)
                 / (1 - BN_DECAY) for key, fresh in (("mean", 0.0), ("var", 1.0))}
        for key, want in (("mean", mean), ("var", var * n / (n - 1))):
            np.testing.assert_allclose(moved[key], want, rtol=0, atol=1e-3 * np.abs(want).max(),
                                       err_msg=f"{name}.{key}")
