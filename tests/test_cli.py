"""Bad input gets a one-line answer that names the valid choices."""
import subprocess
import sys

import pytest

from backends import BackendUnavailable, load, unsupported_reason


@pytest.mark.parametrize("args, message", [
    (["--profile", "huge"], "unknown profile 'huge': choose one of quick, default, paper"),
    (["--backend", "mxnet"], "unknown backend 'mxnet': choose one of tf, torch, chainer, jax"),
    (["--model", "lenet"], "unknown model 'lenet': choose one of mnist_cnn, vgg, resnet"),
    (["--variant", "fast"], "unknown variant 'fast': choose one of eager, graph, graph_dynamic"),
    (["--device", "tpu"], "unknown device 'tpu': choose one of cpu, cuda"),
    (["--precision", "fp8"], "unknown precision 'fp8': choose one of float32, bfloat16, float16"),
])
def test_bad_option_is_one_line_usage_error(args, message):
    run = subprocess.run([sys.executable, "-m", "pytest", "suites", "--co", "-q", *args],
                         capture_output=True, text=True)
    assert run.returncode == 4
    errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and message in errors[0]


def test_unknown_names_in_the_registry():
    with pytest.raises(ValueError, match="unknown backend 'mxnet'"):
        load("mxnet")
    with pytest.raises(ValueError, match="unknown variant 'jit'"):
        unsupported_reason("tf", "jit")


def test_missing_framework_is_a_reason_not_an_import_error(monkeypatch):
    import backends
    monkeypatch.setitem(backends.BACKENDS, "tf", backends.BACKENDS["tf"]._replace(
        folder="backends.no_such_module", package="nothere"))
    with pytest.raises(BackendUnavailable, match="'nothere' is not importable here.*tox -e tf"):
        load("tf")


def test_cuda_without_a_gpu_is_one_line_usage_error():
    """--device cuda on a machine without one: one line naming the framework's own check."""
    import importlib.util
    if not any(importlib.util.find_spec(m) for m in ("tensorflow", "torch", "chainer")):
        pytest.skip("no framework installed in this environment to ask for a GPU")
    if _gpu_present():
        pytest.skip("this machine has a GPU")
    run = subprocess.run([sys.executable, "-m", "pytest", "suites", "--co", "-q", "--device", "cuda"],
                         capture_output=True, text=True)
    errors = [line for line in run.stderr.splitlines() if line.startswith("ERROR:")]
    assert run.returncode == 4 and len(errors) == 1 and "--device cuda:" in errors[0]


def _gpu_present():
    import shutil
    return shutil.which("nvidia-smi") is not None


def test_blas_threads_follow_the_threads_option(env):
    """Chainer's CPU work runs in NumPy's BLAS, whose thread count is fixed when NumPy loads."""
    import os
    assert os.environ["OMP_NUM_THREADS"] == os.environ["OPENBLAS_NUM_THREADS"] == str(env["threads"])
