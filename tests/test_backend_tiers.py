"""Every backend has one module per tier, defining the tier's interface and nothing else public.

Read from the source with `ast`: no framework is imported, so this runs in every tox env.
A new backend (say jax) is registered in BACKENDS, then gets backends/jax.py,
backends/micro/jax.py, backends/pipeline/jax.py and backends/user/jax.py defining the names below.
"""
import ast
from pathlib import Path

import pytest

from backends import BACKENDS
from backends.micro import WORKLOADS

ROOT = Path(__file__).resolve().parent.parent
_RUNNER = ("Runner", "Runner.train_step", "Runner.infer_step", "Runner.to_device", "Runner.traces")
INTERFACE = {  # tier -> the names its callers use, which every backend module of the tier defines
    # callers: conftest.py, suites/*, user/* through backends.load(name)
    "backends": ("NAME", "LOG_SIGNALS", "version", "configure", "prime", "deterministic",
                 "compile_cache", "cache_hits", "reset_peak_memory", "peak_memory",
                 "matmul_step", *_RUNNER,
                 # the steady child's --wait block: a block's steps queued, one wait at its end
                 "Runner.dispatch_train", "Runner.dispatch_infer", "Runner.wait"),
    # callers: suites/micro_child.py, suites/test_micro.py, tests/test_pitfalls.py; the
    # `_<workload>` builders are what backends.micro.registry(globals()) collects
    "backends/micro": ("NAME", "UNSUPPORTED", "COMPILES_NOTHING", "build", "pitfall",
                       *(f"_{workload}" for workload in WORKLOADS)),
    # callers: suites/pipeline_child.py, tests/test_pipeline.py through load_pipeline(name)
    "backends/pipeline": ("NAME", "LABEL_DTYPE", "CHANNELS_LAST", "loader"),
    # callers: user/cold.py, user/steady.py, user/measure.py
    "backends/user": _RUNNER,
}
ALLOWED = {  # (tier, public name) -> why only some backends of the tier define it
    ("backends/micro", "graph_breaks"): "optional, torch only: suites/micro_child.py records it "
                                        "where hasattr(micro, 'graph_breaks')",
    ("backends/user", "graph_breaks"): "optional, torch only: user/cold.py records it "
                                       "where hasattr(adapter, 'graph_breaks')",
    ("backends", "function"): "tf's variant -> tf.function wrapper, which backends/user/tf.py "
                              "reuses",
    ("backends", "DYNAMIC"): "torch's variant -> torch.compile(dynamic=...), which "
                             "backends/user/torch.py reuses",
    ("backends", "compile_phases"): "optional, jax only: suites/construction_child.py records "
                                    "it where hasattr(backend, 'compile_phases')",
    ("backends", "compiles"): "optional, jax only: suites/test_retrace.py records compiles per "
                              "step where hasattr(backend, 'compiles') (eager compiles too)",
}


def module_path(tier, backend):
    return ROOT / tier / f"{backend}.py"


def _bound(statements):
    """Top-level statements -> (node, name) for every name they bind, into if/try bodies too."""
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node, node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield node, name.id
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                yield node, (alias.asname or alias.name).split(".")[0]
        elif isinstance(node, (ast.If, ast.Try)):
            yield from _bound([*node.body, *node.orelse, *getattr(node, "finalbody", []),
                               *(s for h in getattr(node, "handlers", []) for s in h.body)])


def names(source):
    """(every top-level name, the public ones): a public class adds its public methods as
    Class.method; imports count as defined but never as exported; `__all__` wins where set."""
    defined, public, exported = set(), set(), None
    for node, name in _bound(ast.parse(source).body):
        defined.add(name)
        if name == "__all__" and isinstance(node, ast.Assign):
            exported = set(ast.literal_eval(node.value))
        if name.startswith("_") or isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        public.add(name)
        if isinstance(node, ast.ClassDef):
            methods = {f"{name}.{m.name}" for m in node.body
                       if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and not m.name.startswith("_")}
            defined |= methods
            public |= methods
    if exported is not None:
        public = {n for n in public if n.split(".")[0] in exported}
    return defined, public


def interface_errors(tier, backend, defined, public):
    """One line per problem, naming the tier, the module and the names, or [] when it conforms."""
    where = f"{tier}/{backend}.py"
    missing = sorted(set(INTERFACE[tier]) - defined)
    extra = sorted(public - set(INTERFACE[tier]) - {n for t, n in ALLOWED if t == tier})
    errors = []
    if missing:
        errors.append(f"{where} lacks {', '.join(missing)}, which every module of tier {tier} "
                      "defines (INTERFACE in tests/test_backend_tiers.py)")
    if extra:
        errors.append(f"{where} exports {', '.join(extra)}, outside the interface of tier {tier}: "
                      "make each private (a leading _) or list (tier, name) in ALLOWED with why")
    return errors


@pytest.mark.parametrize("tier", INTERFACE)
def test_every_module_of_a_tier_is_a_registered_backend(tier):
    unknown = sorted(p.name for p in (ROOT / tier).glob("*.py")
                     if p.stem != "__init__" and p.stem not in BACKENDS)
    assert not unknown, f"tier {tier}: {', '.join(unknown)} not in backends.BACKENDS: register it"


@pytest.mark.parametrize("tier", INTERFACE)
@pytest.mark.parametrize("backend", BACKENDS)
def test_module_defines_the_tier_interface(tier, backend):
    path = module_path(tier, backend)
    if not path.is_file():
        pytest.fail(f"{tier}/{backend}.py does not exist: every backend in BACKENDS has one "
                    f"module per tier, defining {', '.join(INTERFACE[tier])}")
    errors = interface_errors(tier, backend, *names(path.read_text()))
    assert not errors, "\n".join(errors)


def test_allowed_names_are_still_used():
    """An ALLOWED entry no backend module exports any more is stale: remove it."""
    for tier, name in ALLOWED:
        found = [b for b in BACKENDS if module_path(tier, b).is_file()
                 and name in names(module_path(tier, b).read_text())[1]]
        assert found, f"ALLOWED lists ({tier!r}, {name!r}) but no module of the tier exports it"


def test_a_renamed_or_unlisted_name_fails_with_the_tier_module_and_name():
    source = (module_path("backends/micro", "tf").read_text()
              .replace("def pitfall(", "def pitfall_renamed(")
              .replace("def build(", "def _build(") + "\ndef helper():\n    pass\n")
    errors = interface_errors("backends/micro", "jax", *names(source))
    assert errors == [
        "backends/micro/jax.py lacks build, pitfall, which every module of tier backends/micro "
        "defines (INTERFACE in tests/test_backend_tiers.py)",
        "backends/micro/jax.py exports helper, pitfall_renamed, outside the interface of tier "
        "backends/micro: make each private (a leading _) or list (tier, name) in ALLOWED with why"]


def test_all_and_runner_methods_are_read():
    source = ("__all__ = ['Runner']\nNAME = 'x'\nfrom os import path\n"
              "class Runner:\n    def train_step(self): pass\n    def _hidden(self): pass\n")
    defined, public = names(source)
    assert public == {"Runner", "Runner.train_step"}
    assert {"NAME", "path", "Runner.train_step"} <= defined
