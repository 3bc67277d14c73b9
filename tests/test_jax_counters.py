"""JAX's trace and compile counts and persistent-cache events, pinned: the names are undocumented
(jax.monitoring) or private (`_cache_size()`), so a JAX upgrade that moves them fails here."""
import pytest

import models


@pytest.fixture
def jaxb(backend):
    """The jax backend module; other backends skip."""
    module, _ = backend
    if module.NAME != "jax":
        pytest.skip(f"{module.NAME}: JAX's counters only")
    return module


def _steps(module, variant, batches):
    spec = models.build("mnist_cnn")
    runner = module.Runner(spec, models.init_params(spec), variant)
    for i, batch in enumerate(batches):
        runner.train_step(*runner.to_device(*models.synthetic_batch(spec, batch, seed=i)))
    return runner


def test_jit_traces_and_compiles_once_per_shape(jaxb):
    """The Python-side trace counter, the compile events and jit's private cache size agree."""
    runner = _steps(jaxb, "graph", (2, 3, 2, 3))
    assert runner.traces() == 2
    assert runner._compiles["train"] == 2
    assert runner._train._cache_size() == 2


def test_eager_compiles_each_primitive_once_per_shape(jaxb):
    """Op-by-op eager traces nothing, but XLA compiles its primitives once per new shape."""
    runner = _steps(jaxb, "eager", (5,))
    first = runner._compiles["train"]
    runner.train_step(*runner.to_device(*models.synthetic_batch(runner.spec, 5)))
    assert runner.traces() == 0
    assert runner._compiles["train"] == first  # the same shape again: nothing new to compile
    runner.train_step(*runner.to_device(*models.synthetic_batch(runner.spec, 7)))
    assert runner._compiles["train"] > first  # a new batch size compiles again


def test_persistent_cache_events(jaxb, tmp_path):
    """An empty cache dir writes (a miss), a populated one reads back (a hit): every entry kept."""
    import jax
    import jax.numpy as jnp

    def counts():
        return (jaxb._event_count(jaxb._CACHE_HIT_EVENT), jaxb._event_count(jaxb._CACHE_MISS_EVENT))

    x = jnp.arange(7.0)
    for expected in ((0, 1), (1, 0)):  # cold, then warm (in-memory caches cleared between)
        with jaxb.compile_cache(tmp_path):
            before = counts()
            jax.jit(lambda v: jnp.sin(v) * 3.0)(x).block_until_ready()
            assert tuple(a - b for a, b in zip(counts(), before)) == expected
    assert any(tmp_path.iterdir())


def test_first_call_splits_into_trace_lower_and_compile(jaxb):
    """JAX's duration events split a jit's first call; a second call on the shape adds nothing."""
    import time
    spec = models.build("mnist_cnn")
    runner = jaxb.Runner(spec, models.init_params(spec), "graph")
    batch = runner.to_device(*models.synthetic_batch(spec, 4))
    start = time.perf_counter()
    runner.train_step(*batch)
    first_s, phases = time.perf_counter() - start, jaxb.compile_phases(runner)
    assert set(phases) == {"trace_s", "lower_s", "compile_s"}
    assert all(v > 0 for v in phases.values()) and sum(phases.values()) < first_s
    runner.train_step(*batch)
    assert jaxb.compile_phases(runner) == phases


def test_a_gpu_runner_compiles_with_deterministic_ops_and_cpu_refuses(jaxb, monkeypatch):
    """Inside deterministic(True), `graph` jits with xla_gpu_deterministic_ops where the runner's
    device is a GPU (its platform faked here: the option also compiles on CPU, where it does
    nothing); op-by-op JAX and a CPU runner refuse at their first call."""
    from types import SimpleNamespace
    import jax
    spec = models.build("mnist_cnn")
    batch = models.synthetic_batch(spec, 4)
    options, jit = [], jax.jit
    monkeypatch.setattr(jax, "jit", lambda *a, **k: options.append(
        k.get("compiler_options")) or jit(*a, **k))
    plain = jaxb.Runner(spec, models.init_params(spec), "graph")
    loss = plain.train_step(*plain.to_device(*batch))
    runner = jaxb.Runner(spec, models.init_params(spec), "graph")
    runner.device = SimpleNamespace(platform="gpu")  # what _first_call reads
    with jaxb.deterministic(True):
        assert runner.train_step(*plain.to_device(*batch)) == loss
    assert options == [None, {"xla_gpu_deterministic_ops": True}]
    for variant in ("graph", "eager"):
        cpu = jaxb.Runner(spec, models.init_params(spec), variant)
        with pytest.raises(NotImplementedError, match="deterministic"), jaxb.deterministic(True):
            cpu.train_step(*cpu.to_device(*batch))
