"""Backend registry: which framework modules exist, which variants each supports, lazy loading."""
import importlib

VARIANTS = {
    "eager": "define-by-run: TF eager, PyTorch eager, Chainer's default",
    "graph": "the graph cache with defaults: tf.function, torch.compile, Chainer @static_graph",
    "graph_dynamic": "shape-polymorphic: tf.function(input_signature with None dims), "
                     "torch.compile(dynamic=True)",
    "graph_relaxed": "tf.function(reduce_retracing=True): widens a dim to None after it changes",
    "graph_static": "torch.compile(dynamic=False): specialise on every shape, never go dynamic",
    "xla": "tf.function(jit_compile=True)",
    "xla_dynamic": "tf.function(jit_compile=True, input_signature with None dims): one trace, "
                   "but XLA still compiles per concrete shape",
}

BACKENDS = {  # name -> (module, framework package, how to install it)
    "tf": ("backends.tf", "tensorflow", "tox -e tf"),
    "torch": ("backends.torch", "torch", "tox -e torch"),
    "chainer": ("backends.chainer", "chainer", "tox -e chainer"),
}

UNSUPPORTED = {  # (backend, variant) -> why it is a skip, not a run
    ("tf", "graph_static"): "plain tf.function already specialises on every shape (see 'graph')",
    ("torch", "graph_relaxed"): "torch.compile's default (dynamic=None) already relaxes a dim "
                                "after it changes (see 'graph')",
    ("torch", "xla"): "XLA for PyTorch needs torch_xla, which is not part of this suite's CPU pins",
    ("chainer", "graph_dynamic"): "@static_graph has no shape-polymorphic mode: "
                                  "one schedule per input shape",
    ("chainer", "graph_relaxed"): "@static_graph has no shape-relaxing mode",
    ("chainer", "graph_static"): "@static_graph already specialises on every shape (see 'graph')",
    ("chainer", "xla"): "Chainer has no XLA or other compiler backend",
    ("torch", "xla_dynamic"): "XLA for PyTorch needs torch_xla, which is not part of this suite's "
                              "CPU pins",
    ("chainer", "xla_dynamic"): "Chainer has no XLA or other compiler backend",
}


class BackendUnavailable(Exception):
    """The backend's framework cannot be imported in this environment."""


def check_choice(kind, value, choices):
    """Raise a one-line ValueError unless `value` is one of `choices`."""
    if value not in choices:
        raise ValueError(f"unknown {kind} {value!r}: choose one of {', '.join(choices)}")


def unsupported_reason(backend, variant):
    """Why `variant` cannot run on `backend`, or None when it can."""
    check_choice("backend", backend, BACKENDS)
    check_choice("variant", variant, VARIANTS)
    return UNSUPPORTED.get((backend, variant))


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
