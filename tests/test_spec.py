"""The framework-neutral spec: layouts match their published originals, counts are right."""
import subprocess
import sys

import numpy as np
import pytest

import models
from models import reference, spec


@pytest.mark.parametrize("depth, trainable", [(50, 25_568_360), (101, 44_577_896),
                                              (152, 60_236_904)])
def test_resnet_matches_keras_resnetv2(depth, trainable):
    """Trainable parameters equal Keras' ResNet{depth}V2 (1000 classes, width 1)."""
    assert models.param_count(models.build("resnet", depth=depth, classes=1000)) == trainable


def test_vgg_convs_match_vgg16():
    """VGG16's 13 convolutions hold 14,714,688 parameters (Keras' include_top=False)."""
    spec = models.build("vgg", classes=1000)
    assert models.param_count(spec) - (512 * 1000 + 1000) == 14_714_688


def test_mnist_cnn_is_seed_004():
    """Seed 004's CNN: 80 + 584 + 584 + 15,690 parameters; FLOPs counted by hand."""
    spec = models.build("mnist_cnn")
    assert models.param_count(spec) == 16_938
    conv = 2 * 28 * 28 * 8 * 9 * (1 + 8 + 8)
    assert models.forward_flops(spec) == conv + 2 * 1568 * 10
    assert models.train_flops(spec) == 3 * models.forward_flops(spec)


def test_unknown_model_names_choices():
    with pytest.raises(ValueError, match="unknown model 'lenet': choose one of mnist_cnn, vgg, resnet"):
        models.build("lenet")
    with pytest.raises(ValueError, match="choose one of \\[50, 101, 152\\]"):
        models.build("resnet", depth=34)


def test_weights_and_data_are_seeded():
    spec = models.build("mnist_cnn")
    a, b = models.init_params(spec, 1), models.init_params(spec, 1)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["c1.W"], models.init_params(spec, 2)["c1.W"])
    x1, y1 = models.synthetic_batch(spec, 4, seed=3)
    x2, y2 = models.synthetic_batch(spec, 4, seed=3)
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2) and x1.dtype == np.float32


def test_reference_conv_matches_direct_sum():
    """The reference convolution equals a direct loop over one output pixel."""
    spec = models.build("mnist_cnn")
    params = models.init_params(spec)
    layer = spec.layers[0]
    x = np.random.default_rng(0).random((1, 1, 5, 5))
    out = reference._conv(x, layer, params)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    direct = (padded[0, 0, 1:4, 2:5] * params["c1.W"][3, 0]).sum() + params["c1.b"][3]
    assert out[0, 3, 1, 2] == pytest.approx(direct)


def test_reference_loss_of_uniform_logits_is_log_classes():
    assert reference.softmax_cross_entropy(np.zeros((3, 10)), np.array([0, 4, 9])) == \
        pytest.approx(np.log(10))


def test_models_import_no_framework():
    """models/ is framework-neutral: importing it pulls in no ML framework."""
    code = ("import sys, models, models.reference; "
            "print(sorted(m for m in ('tensorflow', 'torch', 'chainer', 'cupy', 'keras') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_decoder_is_gpt_sized():
    """d_model 128, 4 heads, 2 blocks, 64 tokens, vocabulary 256: 12d² + 13d per block."""
    spec, d = models.build("decoder"), 128
    assert spec.config == {"width": 128, "heads": 4, "depth": 2, "tokens": 64}
    assert models.param_count(spec) == 256 * d + 64 * d + 2 * (12 * d * d + 13 * d) + 2 * d \
        + d * 256 + 256
    with pytest.raises(ValueError, match="not a multiple of heads"):
        models.build("decoder", width=130, heads=4)


def test_reference_gelu_is_exact_and_attention_causal():
    """GELU is the erf form (not tanh); a later token changes no earlier logit."""
    gelu = reference._layer(np.array([1.0, -2.0]), spec.GELU(), {}, True, {})
    np.testing.assert_allclose(gelu, [0.8413447460685429, -0.04550026389635842], rtol=1e-15)
    net = models.build("decoder", width=16, heads=2, depth=2, tokens=8)
    params = models.init_params(net)
    ids, _ = models.weights.synthetic_tokens(net, 2, ragged=False)
    changed = ids.copy()
    changed[:, 5] = (ids[:, 5] + 1) % 256
    a, b = reference.forward(net, params, ids), reference.forward(net, params, changed)
    np.testing.assert_array_equal(a[:, :5], b[:, :5])
    assert not np.allclose(a[:, 5:], b[:, 5:])


def test_reference_padded_loss_is_the_sequences_own():
    """A ragged PAD-padded batch's loss is the token-weighted mean of each sequence's loss run
    alone without padding; its real logits are those sequences' logits."""
    net = models.build("decoder", width=16, heads=2, depth=2, tokens=8)
    params = models.init_params(net)
    ids, targets = models.synthetic_batch(net, 5, seed=4)
    lengths = (ids != spec.PAD).sum(axis=1)
    assert len(set(lengths)) > 2 and lengths.max() == 8
    logits = reference.forward(net, params, ids)
    total = 0.0
    for row, n in enumerate(lengths):
        alone = reference.forward(net, params, ids[row:row + 1, :n])
        np.testing.assert_allclose(logits[row, :n], alone[0], rtol=1e-12, atol=1e-12)
        total += (n - 1) * reference.softmax_cross_entropy(alone[:, :-1], ids[row:row + 1, 1:n])
    assert reference.softmax_cross_entropy(logits, targets) == pytest.approx(
        total / (lengths - 1).sum(), rel=1e-12)
