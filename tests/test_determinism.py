"""With deterministic ops on, two same-seed runs of every variant repeat bit for bit on CPU."""
import pytest

from backends import determinism_skip

STEPS = 4


@pytest.mark.models("mnist_cnn")
def test_same_seed_runs_are_identical_with_determinism_on(case, env):
    if why := determinism_skip(case.backend.NAME, case.variant, env["device"]):
        pytest.skip(why)
    if env["device"] != "cpu":
        pytest.skip("asserted on CPU only; on a GPU the suite reports it")
    with case.backend.deterministic(True):
        first, second = case.train_losses(STEPS), case.train_losses(STEPS)
    assert first == second  # exact: bit-identical floats, no tolerance


@pytest.mark.models("mnist_cnn")
def test_determinism_unsupported_entries_still_fail(case, env):
    """Each refused (backend, variant) still raises here: when the framework fixes it, this fails."""
    if not determinism_skip(case.backend.NAME, case.variant, env["device"]):
        pytest.skip("deterministic ops are supported here")
    with pytest.raises(Exception, match="deterministic"), case.backend.deterministic(True):
        case.train_losses(STEPS)
