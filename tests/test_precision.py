"""Mixed precision trains (finite, falling loss) and stays near float32; unsupported is a skip."""
import dataclasses
import math

import numpy as np
import pytest

from backends import CPU_FLOAT16, precision_skip

STEPS = 4
# bfloat16 keeps 8 mantissa bits (~0.4%); SGD steps amplify the difference (2.7% seen at step 4)
FIRST_LOSS_RTOL = 1e-2
TRAJECTORY_RTOL = 5e-2


@pytest.mark.models("mnist_cnn")
@pytest.mark.precisions
def test_mixed_precision_trains_near_float32(case, request):
    if case.precision == "float32":
        pytest.skip("the float32 baseline itself")
    if reason := case.known_wrong():
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    mixed = case.train_losses(STEPS)
    full = dataclasses.replace(case, precision="float32").train_losses(STEPS)
    assert all(map(math.isfinite, mixed)), mixed
    assert mixed[-1] < mixed[0], f"loss did not fall over {STEPS} steps: {mixed}"
    assert mixed[0] == pytest.approx(full[0], rel=FIRST_LOSS_RTOL)
    np.testing.assert_allclose(mixed, full, rtol=TRAJECTORY_RTOL)
    assert mixed != full, "mixed precision gave float32's exact losses: is it really on?"


def test_unsupported_precision_is_a_reason():
    assert precision_skip("tf", "float16", "cpu") == CPU_FLOAT16
    assert "no bfloat16" in precision_skip("chainer", "bfloat16", "cpu")
    assert precision_skip("torch", "bfloat16", "cpu") is None
    with pytest.raises(ValueError, match="unknown precision 'int4': choose one of float32"):
        precision_skip("tf", "int4", "cpu")
