"""pytest-benchmark's own regression check works on this suite's saved runs."""
import json
import subprocess
import sys

import pytest


def _run_suite(storage, backend, *extra):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "suites/test_steady.py", "-q", "-p", "no:cacheprovider",
         "--profile", "quick", "--backend", backend, "--model", "mnist_cnn", "--variant", "eager",
         "-k", "train", f"--benchmark-storage={storage}", *extra], capture_output=True, text=True)


def test_compare_fail_flags_a_regression(tmp_path, backend):
    """Save a run, fake a 1000x faster baseline from it, and compare: the check must fail."""
    module, _ = backend
    if module.NAME != "chainer":  # it checks pytest-benchmark on saved files, not a framework
        pytest.skip("checked in the chainer env, whose runs start fastest (about 80 s in torch's)")
    first = _run_suite(tmp_path, module.NAME, "--benchmark-save=base")
    assert first.returncode == 0, first.stdout[-2000:]
    saved = next(tmp_path.rglob("0001_base.json"))
    data = json.loads(saved.read_text())
    for bench in data["benchmarks"]:
        bench["stats"] = {k: v / 1000 if isinstance(v, float) else v
                          for k, v in bench["stats"].items()}
    saved.with_name("0002_fast.json").write_text(json.dumps(data))
    regressed = _run_suite(tmp_path, module.NAME, "--benchmark-compare=0002",
                           "--benchmark-compare-fail=median:50%")
    assert regressed.returncode != 0 and "Performance has regressed" in regressed.stdout + regressed.stderr
    same = _run_suite(tmp_path, module.NAME, "--benchmark-compare=0001",
                      "--benchmark-compare-fail=median:100000%")
    assert same.returncode == 0, same.stdout[-2000:]
