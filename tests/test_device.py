"""The GPU path with a fake device (no GPU here): selection and failure are one clear step."""
import sys
import types

import pytest


def test_cuda_selected_when_the_framework_reports_a_device(backend, env, monkeypatch):
    module, _ = backend
    threads = env["threads"]
    if module.NAME == "torch":
        import torch
        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
        assert module.configure(threads, "cuda") == torch.device("cuda")
    elif module.NAME == "tf":
        import tensorflow as tf
        monkeypatch.setattr(tf.config, "list_physical_devices",
                            lambda kind=None: ["fake-gpu"] if kind == "GPU" else [])
        assert module.configure(threads, "cuda") == "/GPU:0"
    elif module.NAME == "jax":
        import jax
        monkeypatch.setattr(jax, "devices", lambda kind=None: ["fake-gpu"] if kind == "gpu" else [])
        assert module.configure(threads, "cuda") == "fake-gpu"
    else:
        fake = types.SimpleNamespace(cuda=types.SimpleNamespace(
            runtime=types.SimpleNamespace(getDeviceCount=lambda: 1)))
        monkeypatch.setitem(sys.modules, "cupy", fake)
        monkeypatch.setattr(module, "_xp", module._xp)  # restored after the switch to CuPy
        assert module.configure(threads, "cuda") == "@cupy:0"
        assert module._xp is fake


def test_cuda_without_a_device_names_the_check(backend, env, monkeypatch):
    module, _ = backend
    threads = env["threads"]
    if module.NAME == "torch":
        import torch
        monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    elif module.NAME == "tf":
        import tensorflow as tf
        monkeypatch.setattr(tf.config, "list_physical_devices", lambda kind=None: [])
    elif module.NAME == "jax":
        import jax
        monkeypatch.setattr(jax, "devices", lambda kind=None: (_ for _ in ()).throw(
            RuntimeError("Unknown backend gpu")) if kind == "gpu" else [])
    else:
        monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    with pytest.raises(RuntimeError, match=r"^--device cuda: "):
        module.configure(threads, "cuda")


def test_peak_memory_reads_the_frameworks_gpu_counter(backend, monkeypatch):
    """On a (fake) GPU the peak is the framework's counter after its reset; on CPU it is None."""
    module, cpu = backend
    assert module.peak_memory(cpu) is None
    calls = []
    if module.NAME == "torch":
        import torch
        gpu = torch.device("cuda")
        monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda d: calls.append("reset"))
        monkeypatch.setattr(torch.cuda, "synchronize", lambda d: calls.append("sync"))
        monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda d: 123)
    elif module.NAME == "tf":
        import tensorflow as tf
        gpu = "/GPU:0"
        monkeypatch.setattr(tf.config.experimental, "reset_memory_stats",
                            lambda d: calls.append(("reset", d)))
        monkeypatch.setattr(tf.config.experimental, "get_memory_info",
                            lambda d: {"peak": 123, "current": 0})
    elif module.NAME == "jax":  # JAX cannot reset its peak: it is the process's
        gpu = types.SimpleNamespace(platform="gpu", memory_stats=lambda: {"peak_bytes_in_use": 123})
    else:
        gpu = "@cupy:0"
        pool = types.SimpleNamespace(free_all_blocks=lambda: calls.append("reset"),
                                     total_bytes=lambda: 123)
        fake = types.SimpleNamespace(get_default_memory_pool=lambda: pool, cuda=types.SimpleNamespace(
            Device=lambda: types.SimpleNamespace(synchronize=lambda: calls.append("sync"))))
        monkeypatch.setattr(module, "_xp", fake)
    module.reset_peak_memory(gpu)
    assert module.peak_memory(gpu) == 123
    assert module.NAME == "jax" or calls and calls[0] in ("reset", ("reset", "GPU:0"))


def test_float16_is_offered_on_a_gpu_only():
    from backends import BACKENDS, PRECISION_UNSUPPORTED, precision_skip
    for name in (b for b in BACKENDS if (b, "float16") not in PRECISION_UNSUPPORTED):
        assert precision_skip(name, "float16", "cuda") is None
        assert precision_skip(name, "float16", "cpu")
