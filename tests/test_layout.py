"""The channels-last weights (models/layout.py) compute what the spec's NCHW ones compute: the TF
and JAX backends load them, so a wrong flatten permutation would be wrong in both."""
import numpy as np

from models import build, init_params
from models import spec as S
from models.layout import channels_last


def test_a_linear_after_flatten_sees_the_same_features_in_nhwc_order():
    spec = build("mnist_cnn")
    params = init_params(spec, seed=0)
    flatten = next(layer for layer in S.walk(spec.layers) if isinstance(layer, S.Flatten))
    linear = next(layer for layer in S.walk(spec.layers) if isinstance(layer, S.Linear))
    x = np.random.default_rng(1).standard_normal((2, *flatten.chw))
    nchw = x.reshape(2, -1) @ params[f"{linear.name}.W"].T
    nhwc = x.transpose(0, 2, 3, 1).reshape(2, -1) @ channels_last(spec, params)[f"{linear.name}.W"]
    np.testing.assert_allclose(nhwc, nchw, rtol=1e-12)


def test_conv_kernels_become_hwio_and_every_parameter_is_kept():
    spec = build("resnet", depth=50, width=1 / 16, side=32)
    params = init_params(spec, seed=0)
    found = channels_last(spec, params)
    assert set(found) == set(params)
    conv = next(layer for layer in S.walk(spec.layers) if isinstance(layer, S.Conv))
    assert found[f"{conv.name}.W"].shape == params[f"{conv.name}.W"].transpose(2, 3, 1, 0).shape
