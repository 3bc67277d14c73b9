"""Backend registry: lazy loading of a framework's folder, one module at a time (catalog.py says
what each supports; tests/test_framework_contract.py what each folder provides)."""
import importlib

from catalog import (BACKENDS, CPU_FLOAT16, DETERMINISM_UNSUPPORTED,  # noqa: F401
                     PRECISION_UNSUPPORTED, PRECISIONS, UNSUPPORTED, VARIANTS, check_choice,
                     determinism_skip, precision_skip, unsupported_reason)

PARTS = {  # the modules in every framework's folder, backends/<name>/, and what each holds
    "steady": "the model runners: train and infer steps per variant, the framework's settings",
    "micro": "the micro suite's workloads and pitfalls",
    "pipeline": "the input pipeline's loaders",
    "user": "a user's own model in one variant",
    "decoder": "the GPT-style decoder, written out op by op",
}


class BackendUnavailable(Exception):
    """The backend's framework cannot be imported in this environment."""


def load(name):
    """A backend's steady module; a missing framework raises BackendUnavailable with its fix."""
    check_choice("backend", name, BACKENDS)
    framework = BACKENDS[name]
    try:
        return importlib.import_module(f"{framework.folder}.steady")
    except ImportError as error:
        raise BackendUnavailable(
            f"{name}: framework {framework.package!r} is not importable here ({error}); run it "
            f"with `{framework.fix}`") from None


def load_part(name, part):
    """A module of the backend's folder (its framework imported on demand, by load first)."""
    load(name)  # a missing framework raises BackendUnavailable with its fix
    return importlib.import_module(f"{BACKENDS[name].folder}.{part}")
