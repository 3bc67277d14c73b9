"""Backend registry: lazy loading of the framework modules (what each supports: catalog.py)."""
import importlib

from catalog import (BACKENDS, CPU_FLOAT16, DETERMINISM_UNSUPPORTED,  # noqa: F401
                     PRECISION_UNSUPPORTED, PRECISIONS, UNSUPPORTED, VARIANTS, check_choice,
                     precision_skip, unsupported_reason)


class BackendUnavailable(Exception):
    """The backend's framework cannot be imported in this environment."""


def load(name):
    """Import a backend module; a missing framework raises BackendUnavailable with the fix."""
    check_choice("backend", name, BACKENDS)
    module, package, fix = BACKENDS[name]
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise BackendUnavailable(
            f"{name}: framework {package!r} is not importable here ({error}); run it with `{fix}`"
        ) from None
