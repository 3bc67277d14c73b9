"""Benchmark sessions on bad input: a usage error before the first case, or a saved run that says
it did not finish; never an hour of measurements lost or a session that measured nothing passing."""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends import BACKENDS

ROOT = Path(__file__).resolve().parents[1]
BENCH = """
def test_first(benchmark):
    benchmark(lambda: None)

def test_interrupt():
    raise KeyboardInterrupt

def test_never(benchmark):
    benchmark(lambda: None)
"""


def _pytest(*args, cwd=ROOT, **environ):
    env = dict(os.environ, PYTHONPATH=str(ROOT), **environ)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, cwd=cwd, env=env)


def _usage_error(run):
    errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR:")]
    assert run.returncode == 4 and len(errors) == 1, run.stdout + run.stderr
    return errors[0]


@pytest.mark.parametrize("threads", ["0", "-1"])
def test_threads_below_one_is_a_usage_error(threads):
    error = _usage_error(_pytest("tests/test_spec.py", "--co", "-q", "--threads", threads))
    assert f"--threads {threads}" in error


@pytest.mark.parametrize("off", ["--benchmark-disable", "--benchmark-skip"])
@pytest.mark.parametrize("save", ["--benchmark-save=x", "--benchmark-autosave"])
def test_disabled_benchmarks_cannot_be_saved(save, off, tmp_path):
    error = _usage_error(_pytest("tests/test_spec.py", "--co", "-q", off, save,
                                 f"--benchmark-storage={tmp_path}"))
    assert off in error and "nothing" in error


def test_unwritable_results_folder_fails_before_the_first_case(tmp_path):
    (tmp_path / "test_bench.py").write_text(
        "def test_one(benchmark, tmp_path_factory):\n"
        "    open(tmp_path_factory.getbasetemp().parent / 'ran', 'w').close()\n"
        "    benchmark(lambda: None)\n")
    (tmp_path / "blocker").write_text("a file where the results folder should be")
    run = _pytest("-p", "conftest", "test_bench.py", "--benchmark-save=x",
                  "--benchmark-storage=blocker/results", f"--basetemp={tmp_path / 'base'}",
                  cwd=tmp_path)
    error = _usage_error(run)
    assert "blocker" in error and "cannot write" in error
    assert not (tmp_path / "ran").exists()


def test_a_job_marker_folder_that_cannot_be_made_is_one_line_not_a_traceback(tmp_path):
    (tmp_path / "test_bench.py").write_text(BENCH)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / ".jobs").write_text("a file where the job markers should go")
    run = _pytest("-p", "conftest", "test_bench.py", "--benchmark-save=x",
                  f"--benchmark-storage={tmp_path / 'results'}", cwd=tmp_path)
    error = _usage_error(run)
    assert ".jobs" in error and "nothing was run" in error and "INTERNALERROR" not in run.stderr


def test_interrupted_run_is_saved_as_unfinished(tmp_path):
    (tmp_path / "test_bench.py").write_text(BENCH)
    run = _pytest("-p", "conftest", "test_bench.py", "--benchmark-save=x",
                  f"--benchmark-storage={tmp_path / 'results'}", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    saved = json.loads(next((tmp_path / "results").rglob("*_x.json")).read_text())
    assert len(saved["benchmarks"]) == 1
    assert saved["graphbench_run"]["complete"] is False
    assert "interrupted" in saved["graphbench_run"]["reason"]
    assert (saved["graphbench_run"]["cases_run"], saved["graphbench_run"]["cases"]) == (1, 3)


def test_finished_run_is_saved_as_complete(tmp_path):
    (tmp_path / "test_bench.py").write_text(BENCH.replace("raise KeyboardInterrupt", "pass"))
    run = _pytest("-p", "conftest", "test_bench.py", "--benchmark-save=x",
                  f"--benchmark-storage={tmp_path / 'results'}", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    saved = json.loads(next((tmp_path / "results").rglob("*_x.json")).read_text())
    status = saved["graphbench_run"]
    assert {k: status[k] for k in ("complete", "cases_run", "cases", "beside")} == {
        "complete": True, "cases_run": 3, "cases": 3, "beside": []}
    assert "reason" not in status and set(status["load"]) == {"start", "end", "cpus"}
    assert "another graphbench job" not in run.stdout


def test_no_importable_framework_measures_nothing_and_fails(tmp_path):
    missing = [name for name, framework in BACKENDS.items()
               if importlib.util.find_spec(framework.package) is None]
    if not missing:
        pytest.skip("every framework is importable here")
    run = _pytest("suites/test_steady.py", "-q", "--backend", ",".join(missing),
                  "--benchmark-save=x", f"--benchmark-storage={tmp_path}")
    assert run.returncode == 1, run.stdout + run.stderr
    lines = [line for line in run.stdout.splitlines() if "measured nothing" in line]
    assert len(lines) == 1 and "python3 run.py bench" in lines[0] and "tox -e" in lines[0]


def test_missing_dependency_in_collection_is_one_line(tmp_path):
    (tmp_path / "test_needs.py").write_text("import no_such_module_xyz\n")
    run = _pytest("-p", "conftest", "test_needs.py", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stdout, run.stdout
    lines = [line for line in run.stdout.splitlines()
             if "no_such_module_xyz" in line and "python3 run.py bench" in line]
    assert len(lines) == 1


FULL_DISK = """
import errno, os

def fsync(fd):  # the disk fills up as the run is written
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

os.fsync = fsync
"""


def test_a_full_disk_while_saving_keeps_the_run_and_says_where(tmp_path):
    """Was: a truncated results/<machine>/0001_x.json and the whole run lost."""
    (tmp_path / "test_bench.py").write_text(BENCH.replace("raise KeyboardInterrupt", "pass"))
    (tmp_path / "full_disk.py").write_text(FULL_DISK)
    (tmp_path / "kept").mkdir()
    run = _pytest("-p", "conftest", "-p", "full_disk", "test_bench.py", "--benchmark-save=x",
                  f"--benchmark-storage={tmp_path / 'results'}", cwd=tmp_path,
                  TMPDIR=str(tmp_path / "kept"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert not [p for p in (tmp_path / "results").rglob("*")
                if p.is_file() and ".jobs" not in p.parts]  # the session's marker: suites/jobs.py
    lines = [line for line in run.stdout.splitlines() if "could not be saved" in line]
    assert len(lines) == 1 and "No space left on device" in lines[0], run.stdout
    kept = next((tmp_path / "kept").glob("graphbench-0001_x-*.json"))
    assert str(kept) in lines[0] and "0001_x.json" in lines[0]
    assert len(json.loads(kept.read_text())["benchmarks"]) == 2


@pytest.mark.parametrize("backend, variant, valid", [
    ("chainer", "xla", "choose --variant from eager, graph"),
    ("torch", "cuda_graph", "choose --variant from eager, graph"),  # the quick profile's
    ("chainer", "graph_static,xla", "choose --variant from eager, graph")],
    ids=["xla", "gpu-only", "two"])  # not the variants' names, which tests select by (-k)
def test_a_save_that_selects_no_workload_is_a_usage_error(tmp_path, backend, variant, valid):
    """Was: --variant xla on Chainer passed after timing the matmul probe alone ('1 passed, 83
    skipped'), saved that run and printed an older run's answer."""
    error = _usage_error(_pytest("suites/test_peak.py", "suites/test_steady.py", "-q",
                                 "--backend", backend, "--variant", variant, "--benchmark-save=x",
                                 f"--benchmark-storage={tmp_path}"))
    assert f"--variant {variant}" in error and valid in error and "no case" in error
    assert not list(tmp_path.rglob("*.json"))


def test_profile_given_twice_is_a_usage_error():
    """Was: the last --profile won, and a quick run could be saved under run.py's `default`."""
    error = _usage_error(_pytest("tests/test_spec.py", "--co", "-q", "--profile", "default",
                                 "--profile=quick"))
    assert "--profile given twice (default and quick)" in error
