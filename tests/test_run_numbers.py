"""Run numbers are names in the report: a run saved under one Python version's folder continues the
numbers of every other folder of results/ (the jax env runs on Python 3.12, the others on 3.11)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_run_continues_the_numbers_of_every_results_folder(tmp_path):
    (tmp_path / "test_bench.py").write_text("def test_one(benchmark):\n    benchmark(lambda: None)\n")
    other = tmp_path / "results" / "Linux-CPython-3.99-64bit"
    other.mkdir(parents=True)
    (other / "0041_default.json").write_text("{}")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                          "conftest", "test_bench.py", "--benchmark-save=x",
                          f"--benchmark-storage={tmp_path / 'results'}"],
                         capture_output=True, text=True, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stdout + run.stderr
    saved = sorted(p.name for p in (tmp_path / "results").rglob("*_x.json"))
    assert saved == ["0042_x.json"]
