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
    else:
        monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy -> ImportError
    with pytest.raises(RuntimeError, match=r"^--device cuda: "):
        module.configure(threads, "cuda")
