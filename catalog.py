"""What the suite can run, with no framework imported: variants, precisions, backends, loaders, and
the combinations that are skips (with their reasons). backends/, suites/ and report/ all read it."""

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

PRECISIONS = {
    "float32": "float32 weights, compute and logits",
    "bfloat16": "mixed: bfloat16 compute, float32 weights and logits (Keras mixed_bfloat16, "
                "torch.autocast)",
    "float16": "mixed: float16 compute with loss scaling, float32 weights and logits "
               "(Keras mixed_float16, torch.autocast + GradScaler, Chainer mixed16)",
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


PRECISION_UNSUPPORTED = {  # (backend, precision) -> why it is a skip
    ("chainer", "bfloat16"): "NumPy and CuPy have no bfloat16 dtype: Chainer's mixed precision "
                             "is float16 (mixed16) only",
}
_XLA_DETERMINISM = ("TF 2.21: with op determinism on, XLA refuses MaxPool's gradient ('GPU MaxPool "
                    "gradient ops do not yet have a deterministic XLA implementation'), on CPU "
                    "too; every model here max-pools")
DETERMINISM_UNSUPPORTED = {  # (backend, variant) -> why deterministic ops cannot train it
    ("tf", "xla"): _XLA_DETERMINISM,
    ("tf", "xla_dynamic"): _XLA_DETERMINISM,
}
CPU_FLOAT16 = ("float16 mixed precision is measured on a GPU only (--device cuda): on CPU the "
               "frameworks' mixed-precision path is bfloat16")


def precision_skip(backend, precision, device):
    """Why `precision` cannot run on `backend` and `device`, or None when it can."""
    check_choice("backend", backend, BACKENDS)
    check_choice("precision", precision, PRECISIONS)
    if precision == "float16" and device == "cpu":
        return CPU_FLOAT16
    return PRECISION_UNSUPPORTED.get((backend, precision))


def check_choice(kind, value, choices):
    """Raise a one-line ValueError unless `value` is one of `choices`."""
    if value not in choices:
        raise ValueError(f"unknown {kind} {value!r}: choose one of {', '.join(choices)}")


def unsupported_reason(backend, variant):
    """Why `variant` cannot run on `backend`, or None when it can."""
    check_choice("backend", backend, BACKENDS)
    check_choice("variant", variant, VARIANTS)
    return UNSUPPORTED.get((backend, variant))


LOADERS = {  # the input pipeline's loaders (seed 003)
    "naive": "read, decode, crop and scale one example at a time, then batch",
    "parallel": "the same per-example work on parallel workers (tf.data AUTOTUNE, processes)",
    "cache": "decoded images kept in memory (filled when the loader is built); crop per example",
    "prefetch": "naive, with one background producer preparing batches while the step runs",
    "vectorized": "decode per example, then crop and scale the whole batch in one op",
}
LOADER_BASELINE = "naive"  # the loader every other is compared with
STEADY_AA = "eager_aa"  # a second, independent float32 eager runner: the A/A control
