"""The jax env runs the newest JAX where a Python 3.12 is present, and says in one line when it is
not and none can be fetched (tox.ini [testenv:jax] then falls back to Python 3.11 with JAX
0.10.2)."""
import pytest

import run


@pytest.fixture
def calls(monkeypatch):
    made = []
    monkeypatch.delenv("GRAPHBENCH_JAX_PYTHON", raising=False)
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", lambda *args: made.append(list(args)) or 0)
    return made


def test_a_python_312_found_is_handed_to_tox(calls, monkeypatch, capsys):
    monkeypatch.setattr(run, "python312", lambda: "/opt/py/bin/python3.12")
    assert run.main(["test", "--envs", "jax"]) == 0
    assert run.os.environ["GRAPHBENCH_JAX_PYTHON"] == "/opt/py/bin/python3.12"
    assert "3.12" not in capsys.readouterr().out


def test_no_python_312_is_said_in_one_line(calls, monkeypatch, capsys):
    monkeypatch.setattr(run, "python312", lambda: None)
    assert run.main(["test", "--envs", "jax"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "3.12" in line]
    assert len(lines) == 1 and "JAX 0.10.2 on Python 3.11" in lines[0]
    assert "GRAPHBENCH_JAX_PYTHON" not in run.os.environ


def test_a_python_312_fetched_where_none_is_found_is_handed_to_tox(calls, monkeypatch, capsys):
    monkeypatch.setattr(run, "python312", lambda: None)
    monkeypatch.setattr(run, "fetch_python", {12: "/x/.pythons/cpython-3.12.9/bin/python3.12"}.get)
    assert run.main(["test", "--envs", "jax"]) == 0
    assert run.os.environ["GRAPHBENCH_JAX_PYTHON"] == "/x/.pythons/cpython-3.12.9/bin/python3.12"
    assert "JAX 0.10.2" not in capsys.readouterr().out


def test_envs_without_jax_look_for_no_python(calls, monkeypatch):
    monkeypatch.setattr(run, "python312", lambda: pytest.fail("looked for Python 3.12"))
    assert run.main(["test", "--envs", "tf"]) == 0


def test_python312_finds_only_a_312_that_runs(monkeypatch, tmp_path):
    fake = tmp_path / "versions" / "3.12.9" / "bin" / "python3.12"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\nexit 127\n")  # pyenv's shim for a version not selected
    fake.chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("PATH", str(fake.parent))
    monkeypatch.setattr(run, "PYTHONS", tmp_path / ".pythons")  # none fetched
    assert run.python312() is None
    fake.write_text("#!/bin/sh\nexit 0\n")  # a Python whose version check passes
    assert run.python312() == str(fake)
