"""Publication is all or nothing: after a failed move or a SIGTERM a reader sees the old README,
RESULTS.md, summary.json and charts or the new ones, whole, and the last line says which."""
import errno
import hashlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from report import __main__ as cli
from tests.test_report_runs import QUICK, save

ROOT = Path(__file__).parent.parent
# a mark, not a module-level importorskip: a deselected test (-k) then leaves no skip line
pytestmark = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                reason="charts are tested in the tox `report` env")


def _files(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(Path(folder).rglob("*"))
            if p.is_file() and "results" not in p.parts[-2:-1]} | {
        "summary.json": (Path(folder) / "results" / "summary.json").read_bytes()}


def _leftovers(folder):
    return sorted(p.name for p in Path(folder).rglob(".*") if p.name.endswith((".new", ".old")))


def _args(folder):
    return ["--results", str(folder / "results"), "--readme", str(folder / "README.md"),
            "--charts", str(folder / "c")]


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A README, RESULTS.md, summary.json and charts made from one run; then a newer run whose
    every figure differs, so that a new report would change every file (made once a module)."""
    folder = tmp_path_factory.mktemp("published")
    save(folder / "results", json.loads(QUICK.read_text()), "0001_quick", "2026-01-01T00:00:00")
    (folder / "README.md").write_text(
        f"{cli.SUMMARY_START}\n{cli.SUMMARY_END}\n{cli.START}\n{cli.END}\n")
    assert cli.main(_args(folder)) == 0
    save(folder / "results", json.loads(QUICK.read_text()), "0002_quick", "2026-02-01T00:00:00",
         scale=1.5)
    return folder


@pytest.fixture
def changed(tmp_path, published):
    """The published tree copied into this test's own folder; the args of its next report."""
    shutil.copytree(published, tmp_path, dirs_exist_ok=True)
    return _args(tmp_path)


@pytest.mark.parametrize("fails", ["RESULTS.md", "last chart"])
def test_a_move_that_fails_puts_every_file_back(tmp_path, changed, capsys, monkeypatch,
                                                 fails):
    """Was: README new, RESULTS.md and summary.json old (or 8 of 10 charts new), and a last line
    that said 'README and charts not changed'."""
    args = changed
    before = _files(tmp_path)
    real, moves, staged = os.replace, [], []

    def replace(src, dst, *rest, **kw):
        if str(src).endswith(".new"):
            staged[:] = staged or [p for p in tmp_path.rglob(".*.new")]  # all, at the first move
            moves.append(dst)
            if Path(dst).name == fails or (fails == "last chart" and len(moves) == len(staged)):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(dst))
        return real(src, dst, *rest, **kw)
    monkeypatch.setattr(os, "replace", replace)
    assert cli.main(args) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "cannot replace" in last and "not changed" in last
    assert _files(tmp_path) == before and not _leftovers(tmp_path)
    assert len(moves) > 1  # the failure came after a file had been moved


DRIVER = """
import os, signal, sys
from report import __main__ as cli
from report.publish import write
from matplotlib.figure import Figure
where, args = sys.argv[1], sys.argv[2:]
calls = []

def wrap(owner, name, hit=lambda *a: True):
    real = getattr(owner, name)
    def call(*a, **kw):
        if hit(*a):
            calls.append(name)
            if len(calls) == 2:
                os.kill(os.getpid(), signal.SIGTERM)
        return real(*a, **kw)
    setattr(owner, name, call)

if where == "drawing":
    wrap(Figure, "savefig")
elif where == "staging":
    wrap(write, "_write")
else:
    wrap(os, "replace", lambda src, dst: str(src).endswith(".new"))
sys.exit(cli.main(args))
"""


def _terminated(tmp_path, args, where):
    before = _files(tmp_path)
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    done = subprocess.run([sys.executable, str(driver), where, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    driver.unlink()
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert not _leftovers(tmp_path)
    return before, _files(tmp_path), done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("where", ["drawing", "staging"])
def test_sigterm_before_the_moves_leaves_the_old_files(tmp_path, changed, where):
    """Was: exit 143 with no message, a mix of new and old files and up to 13 .new files."""
    before, after, last = _terminated(tmp_path, changed, where)
    assert after == before
    assert "SIGTERM" in last and "not changed" in last


def test_sigterm_during_the_moves_leaves_one_whole_state_and_names_it(tmp_path, changed):
    before, after, last = _terminated(tmp_path, changed, "moving")
    assert "SIGTERM" in last
    if "not changed" in last:
        assert after == before
    else:
        assert "new" in last
        assert all(after[name] != before[name] for name in ("README.md", "RESULTS.md",
                                                             "summary.json"))


def test_an_old_file_that_cannot_be_put_back_is_named_and_kept(tmp_path, changed, capsys,
                                                               monkeypatch):
    """The one case that leaves a mix says so, and where the old file is; never 'not changed'."""
    args = changed
    old_readme = (tmp_path / "README.md").read_bytes()
    real = os.replace

    def replace(src, dst, *rest, **kw):
        if Path(dst).name == "RESULTS.md" or Path(src).name == ".README.md.old":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(dst))
        return real(src, dst, *rest, **kw)
    monkeypatch.setattr(os, "replace", replace)
    assert cli.main(args) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "nor put back" in last and ".README.md.old" in last and "not changed" not in last
    assert (tmp_path / ".README.md.old").read_bytes() == old_readme
    assert _leftovers(tmp_path) == [".README.md.old"]


def test_two_reports_at_once_publish_one_whole_set_after_the_other(tmp_path, monkeypatch, capsys):
    """Issue 52: two reports staged to the same names; the files ended a mix of both, and each
    said otherwise. The second now waits for the first's last move, saying so."""
    import threading
    from report.publish import write
    targets = [tmp_path / name for name in ("README.md", "RESULTS.md", "summary.json")]
    for target in targets:
        target.write_text("old")
    real_swap, staged, go = write._swap, threading.Event(), threading.Event()

    def swap_when_told(moves):
        if threading.current_thread().name == "A":
            staged.set()
            go.wait(10)
        real_swap(moves)
    monkeypatch.setattr(write, "_swap", swap_when_told)
    first = threading.Thread(target=write.publish, args=([(t, "A") for t in targets],), name="A")
    second = threading.Thread(target=write.publish, args=([(t, "B") for t in targets],), name="B")
    first.start()
    assert staged.wait(10)
    second.start()
    second.join(0.5)
    assert second.is_alive()  # waiting, its files not staged over the first's
    assert (tmp_path / ".README.md.new").read_text() == "A"
    go.set()
    first.join(10)
    second.join(10)
    assert [t.read_text() for t in targets] == ["B"] * 3 and not _leftovers(tmp_path)
    assert "another report is publishing into" in capsys.readouterr().err
    key = hashlib.sha1(str(tmp_path.resolve()).encode()).hexdigest()[:12]
    assert not (Path(tempfile.gettempdir()) / f"graphbench-publish-{key}.lock").exists()
