"""Every backend and variant computes the spec: logits and loss against the NumPy reference,
and the same training trajectory as its own eager mode."""
import numpy as np
import pytest

import models
from models import reference
from models.spec import PAD

pytestmark = pytest.mark.suite_models("parity")  # every profile's models and the decoder
LOGIT_RTOL = 1e-4  # float32 vs the float64 reference, relative to the largest logit
LOSS_RTOL = 1e-4
TRAJECTORY_RTOL = 1e-3  # losses after a few SGD steps, graph vs eager (float32 reassociation)
# --device cuda: float32 convolutions run in TF32 by default on an NVIDIA GPU since Ampere (PyTorch's
# cudnn.allow_tf32, JAX's default precision): on an H200 the logits of compiled torch and of both
# JAX modes were 5.0e-4 of the largest logit off, and within 1e-4 with TF32 off (docs/METHOD.md, GPU)
TF32_RTOL = 2e-3
_eager_losses = {}


def _xfail_if_known_wrong(case, request):
    if entry := case.known_wrong_entry():
        request.applymarker(pytest.mark.xfail(reason=entry.reason, strict=entry.strict))


def _rtol(env, cpu_rtol):
    """The tolerance of a float32 comparison on this device (TF32's on a GPU)."""
    return TF32_RTOL if env["device"] == "cuda" else cpu_rtol


def test_logits_match_reference(case, env):
    """Inference logits (running statistics) equal the float64 reference's."""
    x, _ = case.data()
    runner = case.runner()
    logits = runner.infer_step(runner.to_device(x, _)[0])
    expected = reference.forward(case.spec, case.params(), x, training=False)
    assert logits.shape == expected.shape
    np.testing.assert_allclose(logits, expected, rtol=0,
                               atol=_rtol(env, LOGIT_RTOL) * np.abs(expected).max())


def test_first_loss_matches_reference(case, env):
    """The first training step's loss (batch statistics) equals the reference loss."""
    x, y = case.data()
    runner = case.runner()
    loss = runner.train_step(*runner.to_device(x, y))
    expected = reference.softmax_cross_entropy(
        reference.forward(case.spec, case.params(), x, training=True), y)
    assert loss == pytest.approx(expected, rel=_rtol(env, LOSS_RTOL))


def test_trajectory_matches_eager(case, env, request):
    """Losses over the profile's SGD steps equal those of the same backend's eager mode."""
    _xfail_if_known_wrong(case, request)
    _trajectory_vs_eager(case, env["profile"].parity_steps + 1)  # +1: see the last update


def _trajectory_vs_eager(case, steps, cache=True):
    losses = case.train_losses(steps)
    key = (case.backend.NAME, case.model, case.batch)
    if key not in _eager_losses or not cache:
        eager = type(case)(**{**case.__dict__, "variant": "eager"})
        _eager_losses[key] = eager.train_losses(steps)
    np.testing.assert_allclose(losses, _eager_losses[key], rtol=TRAJECTORY_RTOL)


@pytest.mark.known_wrong
def test_known_wrong_still_reproduces(case, env, tmp_path):
    """Each KNOWN_WRONG entry still shows its wrong answer; an XPASS means the framework fixed it."""
    from suites import cpu
    from suites.cases import KNOWN_WRONG
    entries = [k for k in KNOWN_WRONG if k.covers(case.backend.NAME, case.model, case.variant)]
    version = case.backend.version()
    entry = next((k for k in entries if k.strict and k.holds_here(case.precision, version)), None)
    if entry is None:
        pytest.skip(f"no entry for {case.variant} at {case.precision} is checked here (vector ISA "
                    f"{cpu.vector_isa()}, {case.backend.NAME} {version}): varying, ISA-, "
                    "precision- or version-bound ones are checked by findings/")
    case.batch = entry.repro_batch or case.batch
    # a private compile cache: a wrong graph compiled here must not be reused by later cases
    with case.backend.compile_cache(tmp_path), pytest.raises(AssertionError):
        _trajectory_vs_eager(case, env["profile"].parity_steps + 1, cache=False)


@pytest.mark.models("decoder")
def test_padding_changes_no_loss(case):
    """PAD columns with their mask leave the first step's loss as the unpadded batch's; a second
    batch of the same shape with other lengths gets its own reference logits (no stale mask)."""
    ids, targets = models.weights.synthetic_tokens(case.spec, case.batch, ragged=False,
                                                   tokens=case.spec.input_chw[0] - 3)
    pad = lambda a: np.pad(a, ((0, 0), (0, 3)), constant_values=PAD)
    losses = []
    for x, y in ((ids, targets), (pad(ids), pad(targets))):
        runner = case.runner()
        losses.append(runner.train_step(*runner.to_device(x, y)))
    assert losses[1] == pytest.approx(losses[0], rel=LOSS_RTOL)
    runner = case.runner()
    for seed in (1, 2):
        x, y = models.synthetic_batch(case.spec, case.batch, seed)
        logits = runner.infer_step(runner.to_device(x, y)[0])
        expected = reference.forward(case.spec, case.params(), x)
        real = x != PAD
        np.testing.assert_allclose(logits[real], expected[real], rtol=0,
                                   atol=LOGIT_RTOL * np.abs(expected).max())


@pytest.mark.chainer
def test_chainer_gelu_runs_scipy_erf(env):
    """The chainer env has SciPy, so the decoder's F.erf is scipy.special.erf, not a Python loop
    per element (chainer warns and falls back to numpy.vectorize(math.erf) without it)."""
    if "chainer" not in env["backends"]:
        pytest.skip("chainer is not among this session's --backend")
    F = pytest.importorskip("chainer.functions", reason="chainer is not importable here")
    from chainer.functions.math import erf
    from scipy import special  # the chainer env's dependency (tox.ini): an error without it
    F.erf(np.zeros(3, np.float32))
    assert erf._erf_cpu is special.erf
