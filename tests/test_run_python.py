"""run.py on the Python it is given: on one the pins do not install on it runs itself again under
one they do (found, else fetched with uv), or says in one line what to install; on 3.12 the
chainer env gets its NumPy stub; and it needs nothing but the standard library (a fresh
machine's Python has pip only)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import run
from tests.conftest import REAL_FETCH_PYTHON

ROOT = Path(run.__file__).resolve().parent


class Execed(Exception):
    """os.execv, which never returns, in a test."""


def test_another_python_runs_run_py_again_under_the_answers_one(calls, monkeypatch, capsys):
    execed = []

    def execv(exe, argv):
        execed.append((exe, argv))
        raise Execed
    monkeypatch.setattr(run, "PYTHON", (3, 13))
    monkeypatch.setattr(run, "python_of", lambda minor: f"/opt/py/bin/python3.{minor}")
    monkeypatch.setattr(run.os, "execv", execv)
    with pytest.raises(Execed):
        run.main(["bench", "--envs", "tf", "--", "-k", "mnist"])
    assert execed == [("/opt/py/bin/python3.11", ["/opt/py/bin/python3.11", str(ROOT / "run.py"),
                                                  "bench", "--envs", "tf", "--", "-k", "mnist"])]
    out = capsys.readouterr().out
    assert "Python 3.13 here" in out and "running under /opt/py/bin/python3.11" in out
    assert calls == []


@pytest.mark.parametrize("version", [(3, 10), (3, 13), (3, 14)])
def test_no_python_the_pins_install_on_is_one_line_before_anything_is_installed(
        calls, monkeypatch, capsys, version):
    monkeypatch.setattr(run, "PYTHON", version)
    monkeypatch.setattr(run, "python_of", lambda minor: None)
    monkeypatch.setattr(run.os, "execv", lambda *args: pytest.fail("ran itself again"))
    assert run.main(["test"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"Python {version[0]}.{version[1]} here" in err[0]
    assert "3.11 or 3.12" in err[0] and calls == []


def test_where_none_is_found_run_py_runs_again_under_the_python_it_fetched(calls, monkeypatch,
                                                                          capsys):
    execed = []

    def execv(exe, argv):
        execed.append(exe)
        raise Execed
    monkeypatch.setattr(run, "PYTHON", (3, 13))
    monkeypatch.setattr(run, "python_of", lambda minor: None)
    monkeypatch.setattr(run, "fetch_python", {11: "/x/.pythons/cpython-3.11.9/bin/python3.11"}.get)
    monkeypatch.setattr(run.os, "execv", execv)
    with pytest.raises(Execed):
        run.main(["test"])
    assert execed == ["/x/.pythons/cpython-3.11.9/bin/python3.11"] and calls == []
    out = capsys.readouterr().out
    assert "none on the PATH or under pyenv" in out and "running under /x/.pythons/" in out


def test_a_python_is_fetched_with_uv_installed_by_pip_into_pythons_and_found_there(
        monkeypatch, tmp_path):
    """uv from PyPI by this Python's pip (--target: no venv, none of PEP 668's refusal), then
    `uv python install` into .pythons/, linking nothing into ~/.local/bin; pip or uv failing
    (offline) is None, and a uv half-installed is removed."""
    ran, codes = [], {"pip": 0, "uv": 0}

    def fake_run(argv, **kwargs):
        ran.append(argv)
        tool = "pip" if argv[1:3] == ["-m", "pip"] else "uv"
        if tool == "pip":
            (tmp_path / ".pythons" / "uv" / "bin").mkdir(parents=True)
            (tmp_path / ".pythons" / "uv" / "bin" / "uv").write_text("")
        return subprocess.CompletedProcess(argv, codes[tool])
    monkeypatch.setattr(run, "PYTHONS", tmp_path / ".pythons")
    monkeypatch.setattr(run.subprocess, "run", fake_run)
    monkeypatch.setattr(run, "python_of", lambda minor: f"found 3.{minor}")
    assert REAL_FETCH_PYTHON(11) == "found 3.11"
    pip, uv = ran
    assert pip[1:] == ["-m", "pip", "install", "-q", "--target", str(tmp_path / ".pythons" / "uv"),
                       run.UV]
    assert uv == [str(tmp_path / ".pythons" / "uv" / "bin" / "uv"), "python", "install", "3.11",
                  "--install-dir", str(tmp_path / ".pythons"), "--no-bin"]
    ran.clear()
    assert REAL_FETCH_PYTHON(12) == "found 3.12" and len(ran) == 1  # uv is there: no pip
    codes["uv"] = 1
    assert REAL_FETCH_PYTHON(12) is None
    codes["pip"] = 1
    shutil.rmtree(tmp_path / ".pythons" / "uv")
    assert REAL_FETCH_PYTHON(11) is None and not (tmp_path / ".pythons" / "uv").exists()


def test_a_failed_fetch_is_not_tried_again_for_a_day(monkeypatch, tmp_path, capsys):
    """Offline, each run.py call waited for pip's retries (8 s to minutes): after a failed fetch
    the next calls within FETCH_RETRY_H say so in one line and run nothing; later ones try again,
    and a fetch that works clears the mark."""
    ran, code = [], [1]
    monkeypatch.setattr(run, "PYTHONS", tmp_path / ".pythons")
    monkeypatch.setattr(run.subprocess, "run", lambda argv, **kw:
                        ran.append(argv) or subprocess.CompletedProcess(argv, code[0]))
    monkeypatch.setattr(run, "python_of", lambda minor: f"found 3.{minor}")
    assert REAL_FETCH_PYTHON(12) is None and len(ran) == 1  # pip failed
    assert REAL_FETCH_PYTHON(12) is None and len(ran) == 1  # not tried again
    assert "not fetching CPython 3.12: the last try failed 0.0 h ago" in capsys.readouterr().out
    mark = tmp_path / ".pythons" / "fetch-failed-3.12"
    day_ago = mark.stat().st_mtime - run.FETCH_RETRY_H * 3600 - 1
    os.utime(mark, (day_ago, day_ago))
    code[0] = 0
    (tmp_path / ".pythons" / "uv" / "bin").mkdir(parents=True)
    (tmp_path / ".pythons" / "uv" / "bin" / "uv").write_text("")
    assert REAL_FETCH_PYTHON(12) == "found 3.12" and len(ran) == 2 and not mark.exists()


def test_a_fetched_python_is_found_under_pythons(monkeypatch, tmp_path):
    fetched = tmp_path / ".pythons" / "cpython-3.11.14-linux-x86_64-gnu" / "bin" / "python3.11"
    fetched.parent.mkdir(parents=True)
    fetched.write_text("#!/bin/sh\nexit 0\n")  # its version check passes
    fetched.chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(run, "PYTHONS", tmp_path / ".pythons")
    assert run.python_of(11) == str(fetched) and run.python_of(12) is None


@pytest.mark.parametrize("version, stubbed", [((3, 12), True), ((3, 11), False)])
def test_the_chainer_env_on_312_and_only_it_gets_the_numpy_distutils_stub(calls, monkeypatch,
                                                                           version, stubbed):
    monkeypatch.setattr(run, "PYTHON", version)
    assert run.main(["bench", "--envs", "tf,chainer", "--profile", "quick"]) == 0
    tf, chainer = calls[:2]
    assert run.CHAINER_ON_312 not in tf and (run.CHAINER_ON_312 in chainer) == stubbed


def test_the_stub_serves_numpy_distutils_only_when_imported_and_only_where_it_is_missing():
    """Chainer 7.8.1 imports numpy.distutils.system_info, which NumPy 1.26 lacks on Python 3.12
    (and NumPy 2 everywhere); NumPy must load where the suite imports it, after its threads."""
    probe = ("import sys; assert 'numpy' not in sys.modules; "
             "import numpy.distutils.system_info as s; stub = getattr(s, '__file__', None) is None; "
             "assert not stub or s.get_info('blas_opt') == {}; print(stub)")  # a stub has no file
    env = {**os.environ, "PYTHONPATH": str(ROOT / "envs" / "chainer_py312")}
    said = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert said.returncode == 0, said.stderr
    real = subprocess.run([sys.executable, "-c", "import numpy.distutils.system_info"],
                          capture_output=True)
    assert said.stdout.strip() == ("False" if real.returncode == 0 else "True")


def test_tools_made_with_another_python_are_made_again(monkeypatch, tmp_path, capsys):
    tools = tmp_path / ".tools"
    (tools / "bin").mkdir(parents=True)
    (tools / "bin" / "tox").write_text("")
    (tools / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.13.0\n")
    made = []
    monkeypatch.setattr(run, "TOOLS", tools)
    monkeypatch.setattr(run.venv, "create", lambda path, **kw: made.append(path))
    monkeypatch.setattr(run.subprocess, "run", lambda argv, **kw:
                        run.subprocess.CompletedProcess(argv, 0))
    run.tox()
    assert made == [tools] and "holds Python 3.13, not this 3.11" in capsys.readouterr().out
    (tools / "bin").mkdir(parents=True)
    (tools / "bin" / "tox").write_text("")
    (tools / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    run.tox()
    assert made == [tools]  # this Python's: kept


def test_run_py_needs_no_numpy():
    """A fresh machine's Python has pip only: run.py's checks must not import what the envs do
    (suites/profiles.py's models import NumPy)."""
    blocked = ("import sys\n"
               "class Blocked:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name.partition('.')[0] in ('numpy', 'pytest', 'matplotlib'):\n"
               "            raise ImportError(f'{name} blocked')\n"
               "sys.meta_path.insert(0, Blocked())\n"
               f"sys.path.insert(0, {str(ROOT)!r})\n"
               "import run\n"
               "run.PYTHON = (3, 11)\n"
               "sys.exit(run.main(['bench', '--job', 'nope']))\n")
    said = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True,
                          cwd=ROOT)
    assert said.returncode == 2, said.stderr
    assert said.stderr.strip() == "run.py: unknown job 'nope': choose one of answer, seeds"


def test_the_job_names_run_py_reads_are_the_suites_jobs():
    from suites.profiles import JOBS
    assert run.job_names() == tuple(JOBS)


@pytest.mark.parametrize("ensurepip", [True, False])
def test_tox_goes_into_tools_with_or_without_ensurepip(monkeypatch, tmp_path, ensurepip):
    """Debian's and Ubuntu's Python without python3-venv has no ensurepip: venv.create(with_pip)
    fails there, and this Python's own pip installs tox into a venv made without one."""
    tools, made, ran = tmp_path / ".tools", [], []

    def create(path, with_pip=False):
        made.append(with_pip)
        Path(path).mkdir(exist_ok=True)
        if with_pip and not ensurepip:
            raise run.subprocess.CalledProcessError(1, ["python", "-m", "ensurepip"])
    monkeypatch.setattr(run, "TOOLS", tools)
    monkeypatch.setattr(run.venv, "create", create)
    monkeypatch.setattr(run.subprocess, "run", lambda argv, **kw: ran.append(argv) or
                        run.subprocess.CompletedProcess(argv, 0))
    run.tox()
    python = str(tools / "bin" / "python")
    pip = [python, "-m", "pip"] if ensurepip else [sys.executable, "-m", "pip", "--python", python]
    assert made == ([True] if ensurepip else [True, False])
    assert ran == [[*pip, "install", "-q", "tox>=4.20,<5"]]


def test_tox_that_cannot_be_installed_is_one_line_and_no_tools_left(monkeypatch, tmp_path, capsys):
    tools = tmp_path / ".tools"
    monkeypatch.setattr(run, "TOOLS", tools)
    monkeypatch.setattr(run.venv, "create", lambda path, **kw: Path(path).mkdir())
    monkeypatch.setattr(run.subprocess, "run", lambda argv, **kw:
                        run.subprocess.CompletedProcess(argv, 1))
    with pytest.raises(SystemExit) as stop:
        run.tox()
    said = str(stop.value.code)
    assert said.startswith("run.py: could not install tox") and "python3-venv" in said
    assert "\n" not in said and not tools.exists()
