"""What a framework must provide: its folder backends/<name>/ with one module per part
(backends.PARTS), each defining the part's interface and nothing else public; its catalog entry
(catalog.BACKENDS) and its tox env. Read from the source with `ast`, nothing imported: it runs in
the report env. docs/USAGE.md, Adding a framework, says it in prose; tests/test_workflow.py checks
that the CI matrix runs every backend."""
import ast
import configparser
import shutil
from pathlib import Path

import pytest

from backends import BACKENDS, PARTS
from backends.micro import WORKLOADS
from catalog import BACKENDS as BACKENDS_ENTRIES
from catalog import Framework

ROOT = Path(__file__).resolve().parent.parent
_RUNNER = ("Runner", "Runner.train_step", "Runner.infer_step", "Runner.to_device", "Runner.traces")
INTERFACE = {  # part -> the names its callers use, which every framework's module of it defines
    # callers: conftest.py, suites/*, user/* through backends.load(name)
    "steady": ("NAME", "LOG_SIGNALS", "version", "configure", "prime", "deterministic",
               "compile_cache", "cache_hits", "reset_peak_memory", "peak_memory",
               "matmul_step", *_RUNNER,
               # the steady child's --wait block: a block's steps queued, one wait at its end
               "Runner.dispatch_train", "Runner.dispatch_infer", "Runner.wait"),
    # callers: suites/micro_child.py, suites/test_micro.py, tests/test_pitfalls.py; the
    # `_<workload>` builders are what backends.micro.registry(globals()) collects
    "micro": ("NAME", "UNSUPPORTED", "COMPILES_NOTHING", "build", "pitfall",
              *(f"_{workload}" for workload in WORKLOADS)),
    # callers: suites/pipeline_child.py, tests/test_pipeline.py through load_pipeline(name)
    "pipeline": ("NAME", "LABEL_DTYPE", "CHANNELS_LAST", "loader"),
    # callers: user/cold.py, user/steady.py, user/measure.py
    # the steady child's --wait block on a GPU, as the suite's runners
    "user": (*_RUNNER, "Runner.dispatch_train", "Runner.dispatch_infer", "Runner.wait"),
    # caller: the same folder's steady.py, which builds the model in the framework's own form
    "decoder": ("cross_entropy",),
}
OPEN = {"decoder": "only its own folder's steady.py calls it: a Decoder class, or JAX's pure "
                   "forward function, is the framework's own business"}  # part -> why
ALLOWED = {  # (part, public name) -> why only some frameworks' module of the part defines it
    ("micro", "graph_breaks"): "optional, torch only: suites/micro_child.py records it "
                               "where hasattr(micro, 'graph_breaks')",
    ("user", "graph_breaks"): "optional, torch only: user/cold.py records it "
                              "where hasattr(adapter, 'graph_breaks')",
    ("steady", "function"): "tf's variant -> tf.function wrapper, which backends/tf/user.py reuses",
    ("steady", "DYNAMIC"): "torch's variant -> torch.compile(dynamic=...), which "
                           "backends/torch/user.py reuses",
    ("steady", "MODES"): "torch's variant -> torch.compile(mode=...), which "
                         "backends/torch/user.py reuses",
    ("steady", "compile_counter"): "torch's inductor in a variant's mode with its frame count, "
                                   "which backends/torch/user.py reuses",
    ("steady", "compile_phases"): "optional, jax only: suites/construction_child.py records "
                                  "it where hasattr(backend, 'compile_phases')",
    ("steady", "compiles"): "optional, jax only: suites/test_retrace.py records compiles per "
                            "step where hasattr(backend, 'compiles') (eager compiles too)",
}


def module_path(root, name, part):
    return root / "backends" / name / f"{part}.py"


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


def interface_errors(part, name, defined, public):
    """One line per problem, naming the module, the part and the names, or [] when it conforms."""
    where = f"backends/{name}/{part}.py"
    missing = sorted(set(INTERFACE[part]) - defined)
    extra = [] if part in OPEN else sorted(
        public - set(INTERFACE[part]) - {n for p, n in ALLOWED if p == part})
    errors = []
    if missing:
        errors.append(f"{where} lacks {', '.join(missing)}, which every framework's {part}.py "
                      "defines (INTERFACE in tests/test_framework_contract.py)")
    if extra:
        errors.append(f"{where} exports {', '.join(extra)}, outside the interface of {part}.py: "
                      "make each private (a leading _) or list (part, name) in ALLOWED with why")
    return errors


def folder_errors(root, name):
    """One line per module the framework's folder lacks or that breaks its part's interface."""
    if not (root / "backends" / name / "__init__.py").is_file():
        return [f"backends/{name}/__init__.py does not exist: every framework of catalog.BACKENDS "
                f"is a folder (a package) holding {', '.join(f'{p}.py' for p in PARTS)}"]
    errors = []
    for part, what in PARTS.items():
        path = module_path(root, name, part)
        if not path.is_file():
            errors.append(f"backends/{name}/{part}.py does not exist: every framework has one "
                          f"({what}), defining {', '.join(INTERFACE[part])}")
        else:
            errors += interface_errors(part, name, *names(path.read_text()))
    return errors


def tox_config(root):
    config = configparser.ConfigParser(interpolation=None)
    config.read(root / "tox.ini")
    return config


def registry_errors(name, entry, tox):
    """One line per problem with the framework's catalog entry or its tox env."""
    errors = []
    if not isinstance(entry, Framework):
        return [f"catalog.BACKENDS[{name!r}] is a {type(entry).__name__}: a catalog.Framework"]
    if entry.folder != f"backends.{name}":
        errors.append(f"catalog.BACKENDS[{name!r}].folder is {entry.folder!r}: backends.{name}")
    if entry.fix != f"tox -e {name}":
        errors.append(f"catalog.BACKENDS[{name!r}].fix is {entry.fix!r}: tox -e {name}")
    if not entry.versions:
        errors.append(f"catalog.BACKENDS[{name!r}].versions is empty: name the distribution "
                      "whose version is the framework's")
    if not tox.has_section(f"testenv:{name}"):
        errors.append(f"tox.ini has no [testenv:{name}]: the framework's env, named as the "
                      "backend (its tests run with --backend {env_name})")
    if name not in [e.strip() for e in tox.get("tox", "env_list", fallback="").split(",")]:
        errors.append(f"tox.ini's env_list lacks {name}: `tox` and run.py run the envs it lists")
    return errors


def test_every_part_has_an_interface():
    assert set(INTERFACE) == set(PARTS)


def test_every_framework_folder_is_registered():
    found = {p.name for p in (ROOT / "backends").iterdir() if (p / "__init__.py").is_file()}
    unknown = ", ".join(f"backends/{name}/" for name in sorted(found - set(BACKENDS)))
    assert not unknown, f"{unknown}: a framework's folder with no catalog.BACKENDS entry: register it"


@pytest.mark.parametrize("name", BACKENDS)
def test_a_framework_provides_its_folder_catalog_entry_and_tox_env(name):
    errors = folder_errors(ROOT, name) + registry_errors(name, BACKENDS[name], tox_config(ROOT))
    assert not errors, "\n".join(errors)


def test_allowed_names_are_still_used():
    """An ALLOWED entry no framework's module exports any more is stale: remove it."""
    for part, name in ALLOWED:
        found = [b for b in BACKENDS if module_path(ROOT, b, part).is_file()
                 and name in names(module_path(ROOT, b, part).read_text())[1]]
        assert found, f"ALLOWED lists ({part!r}, {name!r}) but no {part}.py exports it"


def test_a_framework_missing_a_module_a_name_or_its_registration_is_told_each(tmp_path):
    shutil.copytree(ROOT / "backends" / "jax", tmp_path / "backends" / "mx",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "backends" / "mx" / "decoder.py").unlink()
    micro = module_path(tmp_path, "mx", "micro")
    micro.write_text(micro.read_text().replace("def pitfall(", "def _pitfall("))
    (tmp_path / "tox.ini").write_text("[tox]\nenv_list = jax, report\n")
    entry = BACKENDS["jax"]._replace(folder="backends.mx", fix="pip install mxnet", versions=())
    errors = folder_errors(tmp_path, "mx") + registry_errors("mx", entry, tox_config(tmp_path))
    assert errors == [
        "backends/mx/micro.py lacks pitfall, which every framework's micro.py defines "
        "(INTERFACE in tests/test_framework_contract.py)",
        "backends/mx/decoder.py does not exist: every framework has one "
        f"({PARTS['decoder']}), defining cross_entropy",
        "catalog.BACKENDS['mx'].fix is 'pip install mxnet': tox -e mx",
        "catalog.BACKENDS['mx'].versions is empty: name the distribution whose version is the "
        "framework's",
        "tox.ini has no [testenv:mx]: the framework's env, named as the backend (its tests run "
        "with --backend {env_name})",
        "tox.ini's env_list lacks mx: `tox` and run.py run the envs it lists"]
    shutil.rmtree(tmp_path / "backends" / "mx")
    assert folder_errors(tmp_path, "mx")[0].startswith("backends/mx/__init__.py does not exist")
    assert registry_errors("mx", ("backends.mx", "mxnet", "tox -e mx"), tox_config(tmp_path))[0] \
        == "catalog.BACKENDS['mx'] is a tuple: a catalog.Framework"


def test_a_renamed_or_unlisted_name_fails_with_the_module_and_name():
    source = (module_path(ROOT, "tf", "micro").read_text()
              .replace("def pitfall(", "def pitfall_renamed(")
              .replace("def build(", "def _build(") + "\ndef helper():\n    pass\n")
    errors = interface_errors("micro", "jax", *names(source))
    assert errors == [
        "backends/jax/micro.py lacks build, pitfall, which every framework's micro.py defines "
        "(INTERFACE in tests/test_framework_contract.py)",
        "backends/jax/micro.py exports helper, pitfall_renamed, outside the interface of "
        "micro.py: make each private (a leading _) or list (part, name) in ALLOWED with why"]


def test_all_and_runner_methods_are_read():
    source = ("__all__ = ['Runner']\nNAME = 'x'\nfrom os import path\n"
              "class Runner:\n    def train_step(self): pass\n    def _hidden(self): pass\n")
    defined, public = names(source)
    assert public == {"Runner", "Runner.train_step"}
    assert {"NAME", "path", "Runner.train_step"} <= defined


def test_the_readmes_table_of_what_is_compared_is_drawn_from_the_catalog():
    """A new framework needs no README edit: `python -m report --readme` draws its row of "What is
    compared" from its catalog entry (title, eager, modes) between the compared markers."""
    from report.publish.write import COMPARED_END, COMPARED_START
    from report.views.compared import compared_table
    text = (ROOT / "README.md").read_text()
    drawn = text.split(COMPARED_START, 1)[1].split(COMPARED_END, 1)[0].strip()
    assert drawn == compared_table(), "redraw the README: python -m report --readme README.md"
    rows = compared_table().splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| {f.title}" for f in BACKENDS_ENTRIES.values()]
