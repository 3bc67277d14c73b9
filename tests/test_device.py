"""The GPU path with a fake device (no GPU here): selection and failure are one clear step."""
import os
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


def _fake_cupy(monkeypatch, swappable=True):
    """A CuPy whose compiler keeps kernels as CuPy 14's does: a disk cache backend object read
    at each compile, set by `_set_kernel_cache_backend` (absent before CuPy 14)."""
    class DiskKernelCacheBackend:
        def __init__(self, cache_dir=None):
            self._cache_dir = cache_dir or os.path.expanduser("~/.cupy/kernel_cache")

        def load(self, name):
            path = os.path.join(self._cache_dir, name)
            return open(path, "rb").read() if os.path.exists(path) else None

        def save(self, name, cubin, source):
            os.makedirs(self._cache_dir, exist_ok=True)
            with open(os.path.join(self._cache_dir, name), "wb") as f:
                f.write(cubin)
    cache = types.ModuleType("cupy.cuda._compiler_cache")
    cache.DiskKernelCacheBackend = DiskKernelCacheBackend
    compiler = types.ModuleType("cupy.cuda.compiler")
    compiler._kernel_cache_backend = DiskKernelCacheBackend()
    if swappable:
        compiler._set_kernel_cache_backend = lambda b: setattr(compiler, "_kernel_cache_backend", b)
    cuda = types.ModuleType("cupy.cuda")
    cuda.compiler, cuda._compiler_cache = compiler, cache
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda
    for name, module in (("cupy", cupy), ("cupy.cuda", cuda), ("cupy.cuda.compiler", compiler),
                         ("cupy.cuda._compiler_cache", cache)):
        monkeypatch.setitem(sys.modules, name, module)
    return cupy, compiler


def test_chainers_gpu_kernel_cache_is_the_rounds_folder_and_counts_what_it_finds(backend, monkeypatch,
                                                                               tmp_path):
    """On a (fake) GPU a round's CuPy kernel cache is its own folder: cold finds nothing, warm
    finds what cold wrote, and the process's cache is back after; on a CPU nothing is counted."""
    module, cpu = backend
    if module.NAME != "chainer":
        pytest.skip("CuPy's kernel cache is Chainer's")
    assert module.cache_hits() is None
    cupy, compiler = _fake_cupy(monkeypatch)
    monkeypatch.setattr(module, "_xp", cupy)
    monkeypatch.setattr(module, "_hits", 0)

    def compile_kernels():  # what CuPy's _compile_with_cache_cuda does with its cache
        for name in ("a.cubin", "b.cubin"):
            if compiler._kernel_cache_backend.load(name) is None:
                compiler._kernel_cache_backend.save(name, b"cubin", "source")
    default = compiler._kernel_cache_backend
    for cache, hits in (("cold", 0), ("cold", 2)):  # the second round finds the first's: warm
        with module.compile_cache(tmp_path / cache):
            compile_kernels()
        assert compiler._kernel_cache_backend is default
        assert module.cache_hits() == hits
    assert sorted(os.listdir(tmp_path / "cold")) == ["a.cubin", "b.cubin"]
    with module.compile_cache(None):
        assert compiler._kernel_cache_backend is default


def test_chainers_gpu_kernel_cache_before_cupy_14_is_its_environment_variable(backend, monkeypatch,
                                                                             tmp_path):
    """A CuPy that reads CUPY_CACHE_DIR at each compile (before 14) gets the round's folder there,
    and counts no hits (its warm first calls are a skip)."""
    module, _ = backend
    if module.NAME != "chainer":
        pytest.skip("CuPy's kernel cache is Chainer's")
    cupy, _ = _fake_cupy(monkeypatch, swappable=False)
    monkeypatch.setattr(module, "_xp", cupy)
    monkeypatch.delenv("CUPY_CACHE_DIR", raising=False)
    with module.compile_cache(tmp_path):
        assert os.environ["CUPY_CACHE_DIR"] == str(tmp_path)
    assert "CUPY_CACHE_DIR" not in os.environ
    assert module.cache_hits() is None


def test_torchs_prime_compiles_on_the_device_configure_chose(backend, env, monkeypatch):
    """Torch's start-up is paid where its models compile: on a GPU, Triton's, not the CPU's."""
    module, _ = backend
    if module.NAME != "torch":
        pytest.skip("the other backends' primes run on their default device, the configured one")
    import torch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(module, "_device", module._device)  # restored after the fake GPU
    assert module.configure(env["threads"], "cuda") == module._device == torch.device("cuda")
    monkeypatch.setattr(module, "_device", torch.device("meta"))  # a device that runs here
    seen = []
    monkeypatch.setattr(torch, "compile", lambda fn: lambda x: seen.append(x.device) or fn(x))
    module.prime()
    assert seen == [torch.device("meta")]


def test_your_chainer_model_on_a_gpu_gets_warm_first_calls(backend, env, monkeypatch):
    """The user suite asks the backend, configured on the GPU, whether warm children can reuse a
    cache: Chainer's CuPy counts its kernel cache's hits there, and NumPy compiles nothing."""
    module, _ = backend
    if module.NAME != "chainer":
        pytest.skip("CuPy's kernel cache is Chainer's")
    from user.measure import keeps_compiled
    assert keeps_compiled(module, env["threads"]) is False
    cupy, _ = _fake_cupy(monkeypatch)
    cupy.cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: 1)
    monkeypatch.setattr(module, "_xp", module._xp)  # restored after the switch to CuPy
    assert keeps_compiled(module, env["threads"], "cuda") is True
