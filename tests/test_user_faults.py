"""A user's model file, round three: builders bound without `def`, a directory, a zero dimension,
the line that raised, and a model whose loss goes non-finite (never timed as a speedup)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import run
from backends import BACKENDS
from backends.user import UserFileError, first_non_finite, frameworks_in, load
from report.build import user as U
from report.views import user_md
from tests.test_user_report import synthetic

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "user"
WHY = "loss inf by train step 4 (23.8 → 1.53e+14 → … → inf)"


def _line_of(path, text):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _error(call, *args):
    with pytest.raises(UserFileError) as error:
        call(*args)
    assert "\n" not in str(error.value)
    return str(error.value)


def test_a_builder_bound_without_def_is_found(tmp_path):
    path = tmp_path / "bound.py"
    path.write_text("from somewhere import jax_model\nchainer_model = lambda: {}\n"
                    "torch_model: object = chainer_model\n")
    assert frameworks_in(path) == ["torch", "chainer", "jax"]


def test_a_directory_is_called_a_directory(tmp_path, capsys):
    assert _error(frameworks_in, tmp_path) == (
        f"{tmp_path}: is a directory; --user takes one model file (a .py defining tf_model, "
        "torch_model, chainer_model or jax_model)")
    with pytest.raises(SystemExit) as done:
        run.main(["bench", "--user", str(tmp_path)])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"{tmp_path}: is a directory; --user "
                                                             "takes one model file (a .py defining "
                                                             "tf_model, torch_model, chainer_model "
                                                             "or jax_model)")


@pytest.mark.parametrize("name, value, expected", [
    ("SHAPES", [(4, 3), (0, 3)], "SHAPES: shape 2 of 2, (0, 3): dimension 0 is 0; a shape's "
                                 "dimensions are positive ints"),
    ("SHAPES", [(4, 2.5)], "SHAPES: shape 1 of 1, (4, 2.5): dimension 1 is 2.5; a shape's "
                           "dimensions are positive ints"),
    ("SHAPE", (-1, 3), "SHAPE: (-1, 3): dimension 0 is -1; a shape's dimensions are positive ints"),
])
def test_a_zero_or_bad_dimension_is_named(name, value, expected):
    user = load(FIXTURES / "wrong_returns.py")
    setattr(user.module, name, value)
    message = _error(user.shape if name == "SHAPE" else user.shapes)
    assert message == f"{user.path}: {expected}"


def test_an_empty_input_array_is_named():
    """An array with a zero-size dimension, whatever the shape asked for: named with its shape."""
    user = load(FIXTURES / "wrong_returns.py")
    assert _error(user.batch, (0, 3), 0) == (
        f"{user.path}: inputs((0, 3), 0): array 0 has shape (0, 3): an empty array (a dimension "
        "is 0)")


def test_a_raising_builder_names_its_line():
    user = load(FIXTURES / "wrong_returns.py")
    user.module.MODE = "raise"
    line = _line_of(user.path, 'raise ValueError("boom while building")')
    assert _error(user.build, "torch") == (
        f"{user.path}:{line}: torch_model(): raised ValueError: boom while building")


def test_run_py_ends_with_the_cause(monkeypatch, capsys):
    """A failed env's cause, as its pytest session wrote it, is run.py's last line."""
    cause = "/x/m.py:9: chainer_model(): a train step raised ValueError: no"

    def env_fails(*args):
        Path(os.environ["GRAPHBENCH_USER_CAUSES"]).write_text(cause + "\n")
        return 1
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", env_fails)
    assert run.main(["bench", "--user", str(FIXTURES / "chainer_raising.py"), "--envs", "chainer"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"run.py: {cause}" and "failed in: chainer" in err[-2]
    assert "GRAPHBENCH_USER_CAUSES" not in os.environ


def test_where_the_loss_went_non_finite_is_said():
    assert first_non_finite({1: 1.14, 2: 658.0, 3: 8.9e6}) is None
    assert first_non_finite(dict(enumerate([1.14, 658.0, 8.9e6, float("nan")], 1))) == (
        "loss nan at train step 4 (1.14 → 658 → 8.9e+06 → nan)")
    assert first_non_finite({1: 1.0, 2: 2.0, 9: float("inf")}) == (
        "loss inf by train step 9 (1 → 2 → … → inf)")


def _diverged(m, arms):
    for child in m["steady"]:
        child["non_finite"] = {arm: WHY for arm in arms}
    return m


def test_a_diverging_model_gets_no_answer():
    """Eager's loss goes non-finite: every time is of NaN arithmetic, so no speedup anywhere."""
    m = _diverged(synthetic(), ("eager", "eager_aa", "graph"))
    text = user_md.recommend(*U.measured(m))
    assert text.startswith("**torch: no answer: the loss is not finite.** Eager's " + WHY)
    assert "compile with" not in text and "2.00×" not in text
    table = "\n".join(user_md.tables(*U.measured(m)))
    assert "non-finite ✗" in table and "2.00×" not in table and "×" not in table
    rows = U.records(m, "vm", "user-mymodel")
    assert not [r for r in rows if r["estimate"] is not None and r["kind"] in (
        "speedup", "aa_ratio", "step_time", "break_even")]
    assert {r["note"] for r in rows if r["kind"] == "step_time"} == {f"non-finite loss: {WHY}"}


def test_a_variant_whose_loss_alone_goes_non_finite_is_never_recommended():
    m = _diverged(synthetic(), ("graph",))
    text = user_md.recommend(*U.measured(m))
    assert text.startswith("**torch: stay eager.**")
    assert f"✗ **graph: the loss is not finite** ({WHY}) where eager's stays finite" in text
    row = next(line for line in user_md.tables(*U.measured(m)) if line.startswith("| `graph`"))
    assert "non-finite ✗" in row and "×" not in row
    assert "- ✗ `graph`: " + WHY in "\n".join(user_md.tables(*U.measured(m)))


def test_a_report_from_an_older_measurement_still_draws():
    """Measurements saved before the finiteness check have no `non_finite`: finite, as before."""
    text = user_md.recommend(*U.measured(synthetic()))
    assert text.startswith("**torch: compile with")


def _chainer():
    pytest.importorskip(BACKENDS["chainer"].package, reason="chainer is not in this env: `tox -e chainer`")


def test_a_raising_forward_names_its_line():
    _chainer()
    from user.measure import check
    path = FIXTURES / "chainer_raising.py"
    assert _error(check, path, "chainer") == (
        f"{path}:{_line_of(path, 'raises here')}: chainer_model(): a train step (model, then "
        "loss(outputs, target)) raised ValueError: no scale for 3 features")


def _user_suite(path, tmp_path):
    causes = tmp_path / "causes"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "user", "--backend", "chainer", "--user", str(path),
         "--benchmark-disable", "--threads", "1", "--user-results", str(tmp_path), "-q",
         "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "GRAPHBENCH_USER_CAUSES": str(causes)})
    return done, causes.read_text().splitlines() if causes.exists() else []


def test_a_raising_forward_is_the_cause_run_py_ends_with(tmp_path):
    _chainer()
    path = FIXTURES / "chainer_raising.py"
    done, causes = _user_suite(path, tmp_path)
    assert done.returncode == 4
    assert causes == [f"{path}:{_line_of(path, 'raises here')}: chainer_model(): a train step "
                      "(model, then loss(outputs, target)) raised ValueError: no scale for 3 "
                      "features"]


@pytest.mark.slow
def test_a_diverging_model_fails_and_gets_no_answer(tmp_path):
    """Finite through the eager check, inf at step 4: every test fails in one line naming the
    loss; the report gives no speedup; the measurement keeps where it went non-finite."""
    _chainer()
    path = FIXTURES / "chainer_diverging.py"
    done, causes = _user_suite(path, tmp_path)
    assert done.returncode == 1 and "2 failed" in done.stdout, done.stdout[-3000:]
    assert len(causes) == 2 and all("the loss is not finite" in c for c in causes)
    assert causes[0].startswith("chainer/eager: the loss is not finite: loss inf by train step 4 (")
    report = next(tmp_path.glob("user/*/user-chainer_diverging.md")).read_text()
    assert "**chainer: no answer: the loss is not finite.**" in report
    assert "×" not in report.split("### chainer")[1]  # no speedup, no A/A ratio
    m = json.loads(next(tmp_path.glob("user/*/user-chainer_diverging-chainer.measurement.jsonl"))
                   .read_text())
    assert U.non_finite(m, "eager").startswith("loss inf by train step 4")


def test_your_model_on_a_gpu_runs_in_the_frameworks_gpu_env_told_the_device(monkeypatch):
    """`run.py bench --user F --device cuda`: the framework's GPU env (its CUDA wheels), and the
    user suite's pytest session runs with --device cuda."""
    calls = []
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", lambda *args: calls.append(args) or 0)
    monkeypatch.setattr(run, "DEVICE", ["cpu"])
    monkeypatch.setattr(run, "no_gpu", lambda: "")  # as on a GPU machine
    assert run.main(["bench", "--device", "cuda", "--user", str(FIXTURES / "chainer_raising.py"),
                     "--envs", "chainer"]) == 0
    (argv,) = calls
    assert "testenv:chainer.env_dir={work_dir}/chainer-gpu" in argv
    assert argv[-2:] == ("--device", "cuda") and "--user" in argv
