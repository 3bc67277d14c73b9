"""A user's model file on bad input: one line naming the file, the function and what is wrong."""
import subprocess
import sys
from pathlib import Path

import pytest

from backends.user import UserFileError, frameworks_in, load

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "user"


def _one_line(error):
    text = str(error.value)
    assert "\n" not in text
    return text


def test_missing_file():
    with pytest.raises(UserFileError) as error:
        load(FIXTURES / "not_there.py")
    assert _one_line(error).endswith("not_there.py: no such file")


def test_syntax_error_names_the_line():
    with pytest.raises(UserFileError) as error:
        frameworks_in(FIXTURES / "bad_syntax.py")
    assert "bad_syntax.py: does not parse: line 1" in _one_line(error)


def test_a_nul_byte_names_its_line(tmp_path):
    model = tmp_path / "nul.py"
    model.write_bytes(b"import torch\n\ndef build_torch_model():\n    return 1\0\n")
    with pytest.raises(UserFileError) as error:
        frameworks_in(model)
    assert "nul.py: does not parse: line 4: " in _one_line(error) and "None" not in _one_line(error)


def test_import_error():
    with pytest.raises(UserFileError) as error:
        load(FIXTURES / "bad_import.py")
    assert "bad_import.py: does not import: ModuleNotFoundError" in _one_line(error)


def test_no_builder():
    with pytest.raises(UserFileError) as error:
        load(FIXTURES / "no_builder.py")
    assert "defines none of tf_model, torch_model, chainer_model, jax_model" in _one_line(error)


@pytest.mark.parametrize("mode, call, expected", [
    ("list", "build", "torch_model(): must return a dict with model, loss, optimizer, got list"),
    ("missing_keys", "build", "torch_model(): the returned dict lacks loss, optimizer"),
    ("inputs_list", "batch", "inputs(): must return (inputs, target), got list"),
    ("inputs_not_array", "batch", "inputs(): array 0 is a list, not a NumPy array"),
])
def test_wrong_returns(mode, call, expected):
    user = load(FIXTURES / "wrong_returns.py")
    user.module.MODE = mode
    with pytest.raises(UserFileError) as error:
        user.build("torch") if call == "build" else user.batch((2, 3), 0)
    assert _one_line(error).endswith(f"wrong_returns.py: {expected}")


def test_shapes_missing_or_empty():
    user = load(FIXTURES / "wrong_returns.py")
    user.module.SHAPES = []
    with pytest.raises(UserFileError, match="SHAPES: must be a non-empty list"):
        user.shapes()
    del user.module.SHAPES
    with pytest.raises(UserFileError, match="SHAPES: not defined"):
        user.shape()


def _run(*args):
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    return done.returncode, (done.stdout + done.stderr).strip().splitlines()


def test_run_py_refuses_a_missing_file_in_one_line():
    code, lines = _run("run.py", "bench", "--user", "nothere.py")
    assert code == 2 and lines[-1] == "run.py: error: nothere.py: no such file"


def test_a_file_not_in_utf8_is_one_line(tmp_path):
    """Latin-1 bytes without a coding line: the file, the byte and its line; run.py exits 2."""
    path = tmp_path / "latin.py"
    path.write_bytes(b"def tf_model():\n    return 'caf\xe9'\n")
    with pytest.raises(UserFileError) as error:
        frameworks_in(path)
    assert _one_line(error) == f"{path}: is not UTF-8 text: byte 0xe9 on line 2 (save it as UTF-8)"
    code, lines = _run("run.py", "bench", "--user", str(path))
    assert code == 2 and lines[-1] == f"run.py: error: {error.value}" and len(lines) < 5


def test_a_declared_encoding_is_read(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\ndef chainer_model():\n    return 'caf\xe9'\n")
    assert frameworks_in(path) == ["chainer"]


def test_run_py_user_goes_with_bench():
    code, lines = _run("run.py", "test", "--user", str(FIXTURES / "no_builder.py"))
    assert code == 2 and "--user goes with bench" in lines[-1]


def test_pytest_user_suite_refuses_a_file_without_builders():
    code, lines = _run("-m", "pytest", "user", "--user", str(FIXTURES / "no_builder.py"), "-q")
    assert code == 4
    assert any(line.endswith("no_builder.py: defines none of tf_model, torch_model, "
                             "chainer_model, jax_model") for line in lines)


def test_readme_user_file_is_complete(tmp_path):
    """The user guide's complete user file loads, gives its shapes and batches, and (with torch)
    takes a step."""
    text = (ROOT / "docs" / "USAGE.md").read_text().split("## Your own model, in detail")[1]
    path = tmp_path / "mymodel.py"
    path.write_text(text.split("```python\n")[1].split("```")[0])
    assert frameworks_in(path) == ["torch"]
    user = load(path)
    assert user.shape() == (32, 50) and len(user.shapes()) == 6
    (tokens, mask), labels = user.batch(user.shape(), 0)
    assert tokens.shape == mask.shape == (32, 50) and labels.shape == (32,)
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    from user.measure import check
    check(path, "torch")
