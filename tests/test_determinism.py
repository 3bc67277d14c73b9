"""With deterministic ops on, two same-seed runs of every variant repeat bit for bit on CPU."""
import pytest

from backends import DETERMINISM_UNSUPPORTED

STEPS = 4


@pytest.mark.models("mnist_cnn")
def test_same_seed_runs_are_identical_with_determinism_on(case, env):
    if why := DETERMINISM_UNSUPPORTED.get((case.backend.NAME, case.variant)):
        pytest.skip(why)
    if env["device"] != "cpu":
        pytest.skip("asserted on CPU only; on a GPU the suite reports it")
    with case.backend.deterministic(True):
        first, second = case.train_losses(STEPS), case.train_losses(STEPS)
    assert first == second  # exact: bit-identical floats, no tolerance


@pytest.mark.models("mnist_cnn")
def test_determinism_unsupported_entries_still_fail(case):
    """Each DETERMINISM_UNSUPPORTED entry still raises: when the framework fixes it, this fails."""
    if (case.backend.NAME, case.variant) not in DETERMINISM_UNSUPPORTED:
        pytest.skip("deterministic ops are supported here")
    with pytest.raises(Exception, match="deterministic"), case.backend.deterministic(True):
        case.train_losses(STEPS)
