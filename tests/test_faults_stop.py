"""Stopping a job: SIGTERM is Ctrl-C (the children stop, the partial run is kept and marked
unfinished), and run.py says what it kept."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import run
from tests.conftest import REAL_SET_UP

ROOT = Path(__file__).resolve().parents[1]
SLOW = """
import time
from pathlib import Path

def test_first(benchmark):
    benchmark(lambda: None)

def test_slow(benchmark):
    Path("started").write_text("")
    time.sleep(60)
    benchmark(lambda: None)
"""
# tox in run.py's place: runs the suites (a slow test file) with the project's conftest
FAKE_TOX = """
import os, subprocess, sys, tempfile, time
from pathlib import Path
if "--notest" in sys.argv:  # run.py's set-up step: the envs exist (or pip installs for a while)
    Path("tox-setup.pid").write_text(str(os.getpid()))
    unpacked = Path(tempfile.mkdtemp(prefix="pip-unpack-"))  # where pip unpacks wheels
    (unpacked / "torch.whl").write_text("")
    Path("unpacked").write_text(str(unpacked))
    if os.environ.get("FAKE_INSTALL_S"):
        Path("installing").write_text("")
        time.sleep(float(os.environ["FAKE_INSTALL_S"]))
    sys.exit(0)
if sys.argv[1] == "exec":  # run.py's set-up step: an env's commands_pre, a source build
    Path("building").write_text("")
    time.sleep(float(os.environ.get("FAKE_BUILD_S", "0")))
    Path("built").write_text("")
    sys.exit(0)
Path("tox.pid").write_text(str(os.getpid()))
if os.environ.get("FAKE_BUILD_S") and not Path("built").exists():  # commands_pre, in the run
    Path("building").write_text("")  # where tox and pip ignore stops, as pytest saves
    time.sleep(float(os.environ["FAKE_BUILD_S"]))
pytest = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                           "conftest", "test_slow.py", "--benchmark-save=default",
                           "--benchmark-storage=results"])
Path("pytest.pid").write_text(str(pytest.pid))
sys.exit(pytest.wait())
"""
DRIVER = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
import run
run.ROOT, run.VERSIONS = Path.cwd(), Path.cwd() / "results" / "versions"
run.tox = lambda: {tox!r}
sys.exit(run.main(["bench", "--envs", "chainer"]))
"""


def _wait_for(path, seconds=60):
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").exists() or Path(
        f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


def _saved(folder):
    return [json.loads(p.read_text()) for p in sorted(folder.rglob("0*_*.json"))]


def _fake_tox(tmp_path):
    """FAKE_TOX as an executable `tox` in tmp_path: its path."""
    (tmp_path / "tox.py").write_text(FAKE_TOX)
    tox = tmp_path / "tox"
    tox.write_text(f"#!/bin/sh\nexec {sys.executable} {tmp_path / 'tox.py'} \"$@\"\n")
    tox.chmod(0o755)
    return tox


def _start(tmp_path, background=False, **environ):
    """run.py's bench job with the fake tox, in a session of its own: the driver process;
    `background`: started as `nohup` or a shell's `&` starts it, SIGINT ignored."""
    (tmp_path / "test_slow.py").write_text(SLOW)
    tox = _fake_tox(tmp_path)
    for env in ("chainer", "report"):  # run.py's disk check: envs already made
        (tmp_path / ".tox" / env).mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), **environ)
    with open(tmp_path / "err", "w") as err:  # a file: a pipe waits for orphans to close it
        return subprocess.Popen(
            [sys.executable, "-c", DRIVER.format(root=str(ROOT), tox=str(tox))], cwd=tmp_path,
            env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if background
            else None)


@pytest.fixture
def job(tmp_path):
    """A bench job of run.py whose tox runs a slow test file; its processes' pids once started."""
    driver, pids = _start(tmp_path), {}
    try:
        _wait_for(tmp_path / "started")
        pids = {name: int((tmp_path / f"{name}.pid").read_text()) for name in ("tox", "pytest")}
        yield driver, pids
    finally:
        for pid in [driver.pid, *pids.values()]:  # what the old run.py left running
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        driver.wait()


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("how", ["SIGTERM to run.py", "Ctrl-C", "SIGTERM to a background job"])
def test_a_stop_while_tox_installs_stops_the_install_and_runs_nothing(tmp_path, how):
    """Issue 52: SIGTERM 1.5 s into tox's install_deps never arrived (tox and pip inherited the
    ignored signals): the env finished, the whole benchmark ran and a complete run was saved. A
    job started in the background passed SIGINT ignored on to tox: the stop waited STOP_S."""
    (tmp_path / "system-tmp").mkdir()
    driver = _start(tmp_path, background="background" in how, FAKE_INSTALL_S="60",
                    TMPDIR=str(tmp_path / "system-tmp"))
    try:
        _wait_for(tmp_path / "installing")
        setup = int((tmp_path / "tox-setup.pid").read_text())
        os.killpg(driver.pid, signal.SIGINT) if how == "Ctrl-C" else driver.send_signal(
            signal.SIGTERM)
        driver.wait(timeout=run.STOP_S / 3)
    finally:
        if driver.poll() is None:
            driver.kill()
    err = (tmp_path / "err").read_text()
    code, name = (130, "Ctrl-C") if how == "Ctrl-C" else (143, "SIGTERM")
    assert driver.returncode == code, err
    assert not _alive(setup) and not (tmp_path / "started").exists()  # no pytest ever began
    assert not list((tmp_path).rglob("0*_*.json"))
    lines = [line for line in err.splitlines() if line.startswith("run.py:") and name in line]
    assert len(lines) == 1 and "while setting up chainer: nothing ran" in lines[0], err
    _assert_setup_left_nothing(tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_a_stop_during_chainers_source_build_ends_it_at_once(tmp_path):
    """Chainer's `pip install` is tox's commands_pre, which ran with the tests, where tox and
    pip ignore a stop so that pytest can save: a stop during its first build waited STOP_S
    (30 s) and was then killed. The set-up step builds it now, and a stop ends it."""
    (tmp_path / "tox.ini").write_text("[testenv:chainer]\ncommands_pre =\n    python -m pip "
                                      "install --no-build-isolation chainer==7.8.1\n")
    (tmp_path / "system-tmp").mkdir()
    driver = _start(tmp_path, FAKE_BUILD_S="60", TMPDIR=str(tmp_path / "system-tmp"))
    try:
        _wait_for(tmp_path / "building")
        os.killpg(driver.pid, signal.SIGINT)
        driver.wait(timeout=run.STOP_S / 3)
    finally:
        if driver.poll() is None:
            driver.kill()
    err = (tmp_path / "err").read_text()
    assert driver.returncode == 130, err
    assert not (tmp_path / "built").exists() and not (tmp_path / "started").exists()
    assert "while setting up chainer: nothing ran" in err, err
    _assert_setup_left_nothing(tmp_path)


def _assert_setup_left_nothing(tmp_path):
    """The set-up's temporary files were in a folder of its own, under the system's, now gone."""
    unpacked = Path((tmp_path / "unpacked").read_text())
    assert unpacked.parent.parent == tmp_path / "system-tmp"
    assert unpacked.parent.name.startswith("graphbench-setup.")
    assert not any((tmp_path / "system-tmp").iterdir()), "the set-up's temporary files outlived it"


def test_the_set_up_removes_its_temporary_files_when_it_ends(tmp_path, monkeypatch):
    """pip unpacks wheels into TMPDIR: the set-up step gives it a folder and removes it."""
    tox = _fake_tox(tmp_path)
    monkeypatch.setattr(run, "tox", lambda: str(tox))
    monkeypatch.setattr(run, "ROOT", tmp_path)
    (tmp_path / "system-tmp").mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "system-tmp"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "system-tmp"))  # a broken set-up's, not /tmp
    assert REAL_SET_UP(["chainer"]) == 0
    _assert_setup_left_nothing(tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("how", ["SIGTERM to run.py", "Ctrl-C", "SIGTERM to every process"])
def test_stopping_the_job_stops_its_children_and_keeps_the_partial_run(job, tmp_path, how):
    """Was: SIGTERM to run.py alone exited 143 silently while tox and pytest ran on; SIGTERM to
    every process lost the partial run that Ctrl-C kept."""
    driver, pids = job
    if how == "Ctrl-C":  # the terminal signals the foreground process group
        os.killpg(driver.pid, signal.SIGINT)
    else:
        for pid in [driver.pid] + (list(pids.values()) if how.endswith("every process") else []):
            os.kill(pid, signal.SIGTERM)
    driver.wait(timeout=30)
    err = (tmp_path / "err").read_text()
    code, name = (130, "Ctrl-C") if how == "Ctrl-C" else (143, "SIGTERM")
    assert driver.returncode == code, err
    assert not [name for name, pid in pids.items() if _alive(pid)]
    saved = _saved(tmp_path / "results")
    assert len(saved) == 1 and len(saved[0]["benchmarks"]) == 1, err
    status = saved[0]["graphbench_run"]
    assert status["complete"] is False and name in status["reason"]
    lines = [line for line in err.splitlines() if line.startswith("run.py:")]
    assert len(lines) == 1 and name in lines[0] and "0001_default.json" in lines[0], err
    assert "unfinished" in lines[0] and "1 of 2 cases" in lines[0]


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_sigterm_to_pytest_keeps_the_partial_run(tmp_path):
    """Was: pytest died on SIGTERM and the hour it had measured was lost."""
    (tmp_path / "test_slow.py").write_text(SLOW)
    bench = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "conftest", "test_slow.py",
         "--benchmark-save=x", "--benchmark-storage=results"], cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE, text=True)
    try:
        _wait_for(tmp_path / "started")
        bench.send_signal(signal.SIGTERM)
        out, _ = bench.communicate(timeout=60)
    finally:
        if bench.poll() is None:
            bench.kill()
    assert bench.returncode == 2, out
    saved = _saved(tmp_path / "results")
    assert len(saved) == 1 and saved[0]["graphbench_run"]["reason"] == "stopped (SIGTERM)"


def test_ctrl_c_during_the_report_says_the_runs_are_complete(monkeypatch, tmp_path, capsys):
    """Was: 'a run saved so far is marked unfinished' of a run that was complete."""
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "VERSIONS", tmp_path / "results" / "versions")
    monkeypatch.setattr(run, "free_gb", lambda: 1e3)
    monkeypatch.setattr(run, "tox", lambda: "tox")

    def call(*args):
        if args[2] == "report":
            raise KeyboardInterrupt
        path = tmp_path / "results" / "machine" / "0007_default.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"graphbench_run": {"complete": True, "cases_run": 3,
                                                       "cases": 3}}))
        return 0
    monkeypatch.setattr(run, "call", call)
    assert run.main(["bench", "--envs", "tf"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unfinished" not in err[0], err
    assert "results/machine/0007_default.json (complete)" in err[0] and "README" in err[0]
    assert "`.tools/bin/tox -e report -- python -m report --readme README.md" in err[0]


def _bench_stopped_in(monkeypatch, tmp_path, stop_in, codes=None):
    """run.py bench with tox stubbed: each env saves a complete run and exits with its code in
    `codes` (0), until `stop_in` ('<env>' in its run, 'set-up <env>' in its set-up) stops it."""
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "VERSIONS", tmp_path / "results" / "versions")
    monkeypatch.setattr(run, "tox", lambda: "tox")

    def set_up(envs):
        if stop_in == f"set-up {envs[0]}":
            raise run.SetupStopped("SIGINT", envs[0])
        return 0

    def call(*args):
        env = args[args.index("-e") + 1]
        if stop_in == env:
            raise KeyboardInterrupt
        number = len(list(tmp_path.rglob("0*_default.json")))
        path = tmp_path / "results" / "machine" / f"{number:04d}_default.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"graphbench_run": {"complete": True}}))
        return (codes or {}).get(env, 0)
    monkeypatch.setattr(run, "set_up", set_up)
    monkeypatch.setattr(run, "call", call)


def test_a_stopped_bench_names_the_command_that_runs_the_envs_it_left(monkeypatch, tmp_path,
                                                                      capsys):
    """An answer job runs for an hour: stopped in its third env, the two envs done are kept and
    the line says how to run the rest, as it was asked (profile, pytest arguments) but its envs."""
    _bench_stopped_in(monkeypatch, tmp_path, "torch")
    argv = ["bench", "--envs", "tf,chainer,torch,jax", "--profile", "quick", "--", "-k", "a b"]
    assert run.main(argv) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "0000_default.json (complete), results/machine/0001" in err[0], err
    assert ("to go on, `python3 run.py bench --profile quick --envs torch,jax -- -k 'a b'` runs "
            "the envs not finished") in err[0]
    assert "GRAPHBENCH_PROGRESS" not in os.environ


def test_a_stop_in_a_later_envs_set_up_keeps_what_ran_before_it(monkeypatch, tmp_path, capsys):
    """Was 'nothing ran' of a job whose first env had run and saved; an env that failed is left
    to run again too."""
    _bench_stopped_in(monkeypatch, tmp_path, "set-up torch", codes={"tf": 1})
    assert run.main(["bench", "--envs", "tf,chainer,torch"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "while setting up torch: nothing ran in it; kept" in err[0], err
    assert "0000_default.json (complete)" in err[0]
    assert "`python3 run.py bench --envs tf,torch` runs the envs not finished" in err[0]


@pytest.mark.parametrize("stop_in, said, left", [
    ("jax", "kept results/user/m/user-mine.md (measured: torch)", "jax"),
    ("torch", "no user report was saved", "torch,jax")])
def test_a_stopped_user_run_says_the_report_it_kept_and_how_to_go_on(
        monkeypatch, tmp_path, capsys, stop_in, said, left):
    """Was 'no run was saved; the README was not redrawn' of a user run whose first framework's
    report was saved: a user run saves a report, never a numbered run, nor the README."""
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "tox", lambda: "tox")
    user = tmp_path / "mine.py"
    user.write_text("def torch_model():\n    pass\n\ndef jax_model():\n    pass\n")

    def call(*args):
        if args[args.index("-e") + 1] == stop_in:
            raise KeyboardInterrupt
        folder = tmp_path / "results" / "user" / "m"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "user-mine.md").write_text("# Should I compile `mine`?\n")
        return 0
    monkeypatch.setattr(run, "call", call)
    assert run.main(["bench", "--user", str(user)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"interrupted (Ctrl-C); {said}; to go on" in err[0], err
    assert f"`python3 run.py bench --user {user} --envs {left}` runs the envs" in err[0]


@pytest.mark.parametrize("argv, expected", [
    (["bench", "--envs", "tf"], "python3 run.py bench --envs jax"),
    (["bench", "--env=tf,jax", "--job", "seeds"], "python3 run.py bench --job seeds --envs jax"),
    (["--profile", "quick", "bench", "--e", "tf", "--", "--envs", "x"],
     "python3 run.py --profile quick bench --envs jax -- --envs x"),  # pytest's own, after --
    (["bench", "--profile", "quick"], "python3 run.py bench --profile quick --envs jax")])
def test_the_command_that_goes_on_changes_only_the_envs(argv, expected):
    assert run.again(argv, ["jax"]) == expected
