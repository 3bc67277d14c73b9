"""What the suite can run, with no framework imported: variants, precisions, backends, loaders, and
the combinations that are skips (with their reasons), and the wrong answers it found (KNOWN_WRONG).
backends/, suites/, report/ and run.py all read it."""
import re
from dataclasses import dataclass
from typing import NamedTuple

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
    "graph_cudagraphs": "torch.compile(mode='reduce-overhead'): graph's compile, replayed as CUDA "
                        "graphs recorded per shape (GPU only)",
    "cuda_graph": "the whole train (or infer) step captured by hand in one torch.cuda.CUDAGraph "
                  "per input shape, then replayed (GPU only)",
}

WAITS = {  # --wait: when a timed step waits for the device
    "step": "the device waited on and the loss read after every step",
    "block": "a block's steps dispatched back to back, as a training loop runs them; the device "
             "waited on and the last loss read once, at the block's end, in the clock",
}

PRECISIONS = {
    "float32": "float32 weights, compute and logits",
    "bfloat16": "mixed: bfloat16 compute, float32 weights and logits (Keras mixed_bfloat16, "
                "torch.autocast)",
    "float16": "mixed: float16 compute with loss scaling, float32 weights and logits "
               "(Keras mixed_float16, torch.autocast + GradScaler, Chainer mixed16)",
}


class Framework(NamedTuple):
    """A backend's catalog entry: all the harness knows of its framework outside its folder."""
    folder: str  # backends/<name>/ as a package: one module per backends.PARTS
    package: str  # what `import` names
    fix: str  # how to install it: its tox env, which tox.ini names as the backend
    versions: tuple  # the distributions whose version is the framework's (charts, conform)
    records: tuple  # more distributions whose versions a run records (conftest.DISTRIBUTIONS)
    color: str  # its colour in every chart, never the A/A band's grey
    loss_call: str  # how the user tool calls a user's loss: as the framework's own losses
    # its tox env's disk once installed, in GB (du on the 2-core AMD EPYC, tox.ini's pins; torch
    # is 2.15.0 with its CUDA libraries), which run.py checks before it installs
    env_gb: float
    # its env's minutes in the test command (clean clone at 0dbf780, 2-core AMD EPYC Zen 4,
    # install included): run-parallel starts the longest first
    test_minutes: float
    title: str  # its row of the README's "What is compared": the framework and its pin
    eager: str  # its eager mode, in its own words
    modes: str  # its graph-cached variants, each as its framework calls it
    ci_cpu_only: str = ""  # why the bench workflow's env of it cannot use a GPU runner


BACKENDS = {  # name -> its Framework; adding one: docs/USAGE.md, Adding a framework
    "tf": Framework(folder="backends.tf", package="tensorflow", fix="tox -e tf",
                    versions=("tensorflow-cpu", "tensorflow"), records=("keras",),
                    color="#e8710a", loss_call="loss(target, outputs)",  # as Keras losses
                    env_gb=1.6, test_minutes=5.8, title="TensorFlow 2.21 (Keras 3)", eager="eager",
                    modes="`graph` = `tf.function`, `graph_dynamic` = `tf.function(input_signature"
                          "=…None…)`, `graph_relaxed` = `tf.function(reduce_retracing=True)`, `xla` "
                          "= `tf.function(jit_compile=True)`, `xla_dynamic` = the same with the "
                          "None-dim signature",
                    ci_cpu_only="tox installs tensorflow-cpu; TensorFlow's GPU wheels need CUDA 12 "
                                "libraries that the suite does not pin, so a GPU figure for it "
                                "would measure whatever the runner has"),
    "torch": Framework(folder="backends.torch", package="torch", fix="tox -e torch",
                       versions=("torch",), records=(), color="#c0392b",
                       loss_call="loss(outputs, target)", env_gb=5.5, test_minutes=13.3,
                       title="PyTorch 2.15", eager="eager",
                       modes="`graph` = `torch.compile()`, `graph_dynamic` = `torch.compile(dynamic"
                             "=True)`, `graph_static` = `torch.compile(dynamic=False)`; on a GPU "
                             "`graph_cudagraphs` = `torch.compile(mode=\"reduce-overhead\")`, "
                             "`cuda_graph` = the whole step captured in one CUDA graph"),
    "chainer": Framework(folder="backends.chainer", package="chainer", fix="tox -e chainer",
                         versions=("chainer",), records=(), color="#2e86c1",
                         # F.cross_entropy, F.softmax_cross_entropy
                         loss_call="loss(outputs, target)", env_gb=0.2, test_minutes=1.9,
                         title="Chainer 7.8.1", eager="define-by-run",
                         modes="`graph` = `@static_graph`"),
    "jax": Framework(folder="backends.jax", package="jax", fix="tox -e jax", versions=("jax",),
                     records=("jaxlib", "optax"), color="#7b3fa0",
                     loss_call="loss(outputs, target)",  # as optax's losses (logits, labels)
                     env_gb=0.7, test_minutes=4.6,
                     title="JAX 0.12 on Python 3.12 (0.10.2 on 3.11; plain JAX)",
                     eager="op-by-op (each primitive compiled once per shape)",
                     modes="`graph` = `jax.jit` of the whole train step (parameters and BatchNorm "
                           "statistics donated) and of the infer step",
                     ci_cpu_only="the jax env installs the CPU jaxlib and sets JAX_PLATFORMS=cpu"),
}

_TF_CUDA_GRAPHS = ("TensorFlow has no user-level CUDA-graph capture of a step (XLA:GPU's own "
                   "command buffers are part of 'xla', not a variant)")
_CHAINER_CUDA_GRAPHS = "Chainer 7.8.1 has no CUDA-graph capture of a step"
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
    ("tf", "graph_cudagraphs"): _TF_CUDA_GRAPHS,
    ("tf", "cuda_graph"): _TF_CUDA_GRAPHS,
    ("chainer", "graph_cudagraphs"): _CHAINER_CUDA_GRAPHS,
    ("chainer", "cuda_graph"): _CHAINER_CUDA_GRAPHS,
    ("jax", "graph_dynamic"): "jax.jit has no shape-polymorphic mode: it traces and compiles per "
                              "input shape; jax.export's symbolic shapes save the trace and "
                              "lowering only, each concrete shape is still compiled",
    ("jax", "graph_relaxed"): "jax.jit has no shape-relaxing mode: one trace and compile per shape",
    ("jax", "graph_static"): "jax.jit already specialises on every shape (see 'graph')",
    ("jax", "xla"): "jax.jit already compiles the whole step with XLA (see 'graph')",
    ("jax", "xla_dynamic"): "jax.jit compiles per concrete shape, and has no None-dim signature "
                            "to trace once (see 'graph_dynamic')",
    ("jax", "graph_cudagraphs"): "JAX has no user-level CUDA-graph mode (XLA:GPU's own command "
                                 "buffers are part of 'graph')",
    ("jax", "cuda_graph"): "JAX has no user-level CUDA-graph capture of a step",
}
EAGER_COMPILES = {  # backend -> why its eager mode has first calls to warm (an on-disk cache)
    "jax": "eager JAX compiles each primitive once per shape, through the persistent cache",
    "chainer": "on a GPU, CuPy compiles each kernel once, through its on-disk kernel cache "
               "(Chainer's cache_hits: None on a CPU, which compiles nothing)",
}
CUDA_GRAPHS_CPU = ("CUDA graphs exist only on an NVIDIA GPU (--device cuda): on a CPU there is no "
                   "graph to capture or replay")
GPU_ONLY = {"graph_cudagraphs": CUDA_GRAPHS_CPU, "cuda_graph": CUDA_GRAPHS_CPU}  # variant -> why


PRECISION_UNSUPPORTED = {  # (backend, precision) -> why it is a skip
    ("chainer", "bfloat16"): "NumPy and CuPy have no bfloat16 dtype: Chainer's mixed precision "
                             "is float16 (mixed16) only",
    ("jax", "float16"): "JAX has no loss scaling of its own (it lives in separate libraries): "
                        "float16 is not measured",
}
VARIANT_PRECISION_UNSUPPORTED = {  # (variant, precision) -> why it is a skip
    ("cuda_graph", "float16"): "float16 needs GradScaler, whose step reads found_inf on the host "
                               "(a sync), which a CUDA-graph capture forbids",
}
_XLA_DETERMINISM = ("TF 2.21: with op determinism on, XLA refuses MaxPool's gradient ('GPU MaxPool "
                    "gradient ops do not yet have a deterministic XLA implementation'), on CPU "
                    "too; every model here max-pools")
_JAX_DETERMINISM = ("JAX's deterministic-ops switch, xla_gpu_deterministic_ops, acts on a GPU only, "
                    "through jax.jit's compiler_options (op-by-op JAX compiles each primitive "
                    "without them): the 'off' runs report whether same-seed runs repeat anyway")
DETERMINISM_UNSUPPORTED = {  # (backend, variant) -> why deterministic ops cannot train it
    ("tf", "xla"): _XLA_DETERMINISM,
    ("tf", "xla_dynamic"): _XLA_DETERMINISM,
    ("jax", "eager"): _JAX_DETERMINISM,
    ("jax", "graph"): _JAX_DETERMINISM,
}
DETERMINISM_ON_A_GPU = {("jax", "graph")}  # of those, the ones a GPU's switch does reach


def determinism_skip(backend, variant, device):
    """Why deterministic ops cannot train `variant` of `backend` on `device`, or None."""
    if device != "cpu" and (backend, variant) in DETERMINISM_ON_A_GPU:
        return None
    return DETERMINISM_UNSUPPORTED.get((backend, variant))
CPU_FLOAT16 = ("float16 mixed precision is measured on a GPU only (--device cuda): on CPU the "
               "frameworks' mixed-precision path is bfloat16")


def precision_skip(backend, precision, device, variant=None):
    """Why `precision` cannot run on `backend` and `device` (in `variant`), or None when it can."""
    check_choice("backend", backend, BACKENDS)
    check_choice("precision", precision, PRECISIONS)
    if precision == "float16" and device == "cpu":
        return CPU_FLOAT16
    return (PRECISION_UNSUPPORTED.get((backend, precision))
            or VARIANT_PRECISION_UNSUPPORTED.get((variant, precision)))


def check_choice(kind, value, choices):
    """Raise a one-line ValueError unless `value` is one of `choices`."""
    if value not in choices:
        raise ValueError(f"unknown {kind} {value!r}: choose one of {', '.join(choices)}")


def unsupported_reason(backend, variant, device="cpu"):
    """Why `variant` cannot run on `backend` and `device`, or None when it can (callers with no
    device option, such as the user tool, run on the CPU)."""
    check_choice("backend", backend, BACKENDS)
    check_choice("variant", variant, VARIANTS)
    check_choice("device", device, ("cpu", "cuda"))
    if device != "cuda" and variant in GPU_ONLY:
        return GPU_ONLY[variant]
    return UNSUPPORTED.get((backend, variant))


SAVED_RATIOS = {  # a paired ratio's name -> the extra_info keys its suite saves it under
    "speedup": ("speedup", "ci_low", "ci_high", "significant"),
    "aa": ("aa_ratio", "aa_ci_low", "aa_ci_high", "aa_significant"),
    "precision": ("precision_speedup", "precision_ci_low", "precision_ci_high",
                  "precision_significant"),
    "determinism": ("determinism_ratio", "determinism_ci_low", "determinism_ci_high",
                    "determinism_significant"),
    "loader": ("loader_ratio", "loader_ci_low", "loader_ci_high", "loader_significant"),
}
SKIP_FIELDS = ("backend", "labels", "variants", "phases")  # what a skip rule matches a case on


def skip_matches(rule, backend, label, variant, phase=None):
    """Whether a profile's skip rule covers the case: a suites/profiles.Skip, or the same rule as
    a run's saved plan holds it (JSON); a field of None matches anything."""
    get = rule.get if isinstance(rule, dict) else lambda name: getattr(rule, name)
    return all(want is None or have == want or (isinstance(want, (list, tuple)) and have in want)
               for have, want in zip((backend, label, variant, phase), map(get, SKIP_FIELDS)))


COLORS = {name: f.color for name, f in BACKENDS.items()}  # each backend's colour in every chart
CALLS = {  # backend -> {variant: the call a user writes for it}
    "tf": {"graph": "`tf.function`",
           "graph_dynamic": "`tf.function` with a None-dim input_signature",
           "graph_relaxed": "`tf.function(reduce_retracing=True)`",
           "xla": "`tf.function(jit_compile=True)`",
           "xla_dynamic": "`tf.function(jit_compile=True)` with a None-dim input_signature"},
    "torch": {"graph": "`torch.compile()`", "graph_dynamic": "`torch.compile(dynamic=True)`",
              "graph_static": "`torch.compile(dynamic=False)`"},
    "chainer": {"graph": "`@static_graph` on the forward"},
    "jax": {"graph": "`jax.jit` of the whole step"},
}


def call_name(backend, variant):
    """The call a variant stands for in `backend`; generic where the catalog has none."""
    return CALLS.get(backend, {}).get(variant) or f"the framework's `{variant}` graph mode"


LOADERS = {  # the input pipeline's loaders (seed 003)
    "naive": "read, decode, crop and scale one example at a time, then batch",
    "parallel": "the same per-example work on parallel workers (tf.data AUTOTUNE, processes)",
    "cache": "decoded images kept in memory (filled when the loader is built); crop per example",
    "prefetch": "naive, with one background producer preparing batches while the step runs",
    "vectorized": "decode per example, then crop and scale the whole batch in one op",
}
LOADER_BASELINE = "naive"  # the loader every other is compared with
PADDINGS = {  # the lengths suite's padding strategies (models/weights.py), in its order, named
    "exact": "exact lengths", "pow2": "powers of two", "mult32": "multiples of 32",
    "max": "the longest (256)"}
PHASES = {  # what a saved result timed (its extra_info's phase); report/build/select.py groups them
    "train": "a train step, steady state",
    "infer": "an inference step, steady state",
    "construction": "the first calls: trace, compile and run, cold and warm",
    "retrace": "steps at input sizes that change",
    "lengths": "decoder train steps at token lengths that change, padded by a strategy",
    "micro": "a micro-benchmark workload (dispatch, control flow, the pitfalls)",
    "peak": "the matmul peak that a throughput is measured against",
    "memory": "the memory a train step needs",
    "determinism": "a train step with deterministic ops on and off",
    "pipeline": "an epoch through an input loader",
    "scale": "a train step as the work per step grows",
}
PITFALL_VARIANTS = {  # the micro suite's pitfalls: variants of their own
    "naive": "the pitfall as written",
    "fixed": "the same code with its fix",
}
STEADY_AA = "eager_aa"  # a second, independent float32 eager runner: the A/A control


@dataclass(frozen=True)
class KnownWrong:
    """A measured wrong answer: its parity test xfails and its results carry the note."""
    backend: str
    model: str
    variants: tuple
    reason: str
    batches: tuple = ()  # the batch sizes it was seen at; empty: all
    repro_batch: int = 0  # a batch that shows it, for the regression test (0: the profile's)
    isas: tuple = ()  # vector ISAs (suites.cpu.vector_isa) it holds on; empty: all
    strict: bool = True  # False: it shows in some runs only (memory corruption), so no XPASS rule
    precisions: tuple = ()  # the precisions it holds at; empty: all
    versions: tuple = ()  # framework releases it was measured wrong in ("2.13.0"); empty: all
    right_in: tuple = ()  # releases where its finding's reproducer was measured right
    remedy: str = ""  # what to use where it holds, as the answer's advice says it

    def covers(self, backend, model, variant):
        return (backend, model) == (self.backend, self.model) and variant in self.variants

    def holds_on(self, isa, precision="float32", version=None):
        """True on a CPU of vector ISA `isa`, at `precision` and in framework `version`."""
        return ((not self.isas or isa in self.isas)
                and (not self.precisions or precision in self.precisions)
                and self.holds_in(version))

    def holds_in(self, version):
        """True in framework `version` ('2.15.0+cpu' is release 2.15.0); unknown (None): True."""
        return not self.versions or version is None or release(version) in self.versions

    def measured_in(self, version):
        """True: wrong there; False: measured right there; None: this release was not measured."""
        if not self.versions or release(version) in self.versions:
            return True
        return False if release(version) in self.right_in else None

    def applies_on(self, isa, backend, model, variant, batch, precision="float32", version=None):
        """True for this case on a CPU of vector ISA `isa` (in framework `version`, if known)."""
        return (self.covers(backend, model, variant) and (not self.batches or batch in self.batches)
                and self.holds_on(isa, precision, version))

    @property
    def finding(self):
        """The write-up under findings/ that the reason names."""
        return re.search(r"findings/[\w.]+\.md", self.reason)[0]

    @property
    def where(self):
        """Where it holds, in a few words: 'at batch 5–8, 16 in bfloat16', 'with AVX2 code'."""
        runs, batches = [], ""
        for b in self.batches:  # consecutive batch sizes as one span: 5–8, 16, 32
            runs[-1:] = [(runs[-1][0], b)] if runs and runs[-1][1] == b - 1 else [*runs[-1:], (b, b)]
        if runs:
            batches = "at batch " + ", ".join(f"{a}–{b}" if b > a else str(a) for a, b in runs)
        return " ".join(filter(None, [batches, self.precisions and "in " + " or ".join(
            self.precisions), self.isas and "with " + " or ".join(i.upper() for i in self.isas)
            + " code", self.versions and f"in {self.backend} " + ", ".join(self.versions)
            + (f" (right in {', '.join(self.right_in)})" if self.right_in else "")])) or "everywhere"


def release(version):
    """A framework version's release part: '2.15.0+cu132' -> '2.15.0'."""
    return version.split("+")[0]


KNOWN_WRONG = (
    KnownWrong("torch", "mnist_cnn", ("graph", "graph_dynamic", "graph_static"),
               "torch 2.13.0 inductor (CPU, AVX-512 and AVX2 code alike): every conv gradient of "
               "conv->conv->ReLU->maxpool is exactly zero at batch 2-7 in all three compile "
               "modes with the loss compiled with the model, as here (the model compiled alone: "
               "2-8), optimizer inside or outside the compiled region; right at 1, 9-16, 32 and "
               "with aot_eager; right in 2.14.1 and 2.15.0 (pytorch/pytorch#185509, fixed by "
               "#185873) (findings/torch_inductor_conv_grad.md)",
               batches=(2, 3, 4, 5, 6, 7), repro_batch=4, versions=("2.13.0",),
               right_in=("2.14.1", "2.15.0")),
    KnownWrong("torch", "resnet", ("graph", "graph_dynamic", "graph_static"),
               "torch 2.13.0, 2.14.1 and 2.15.0 inductor (CPU) with AVX2 code: the compiled ResNet "
               "backward corrupts the heap (aborts, or wrong shortcut-conv gradients, varying "
               "from run to run); right with AVX-512 code, aot_eager and eager; no upstream "
               "report found (findings/torch_inductor_avx2_heap.md)",
               isas=("avx2",), strict=False, versions=("2.13.0", "2.14.1", "2.15.0"),
               remedy="eager or `torch.compile(backend=\"aot_eager\")`"),
    KnownWrong("torch", "vgg", ("graph", "graph_static"),
               "torch 2.13.0 inductor (CPU), static shapes, bfloat16 autocast: every conv gradient "
               "of the VGG is exactly zero at batch 5-8, 16, 32 (the backward reads the last "
               "max-pool's zero-filled gradient buffer before the scatter that fills it: the "
               "mnist_cnn bug); right at 1-4, with dynamic=True, aot_eager, eager and in float32, "
               "AVX-512 and AVX2 alike; only the linear layer trains; right in 2.14.1 and 2.15.0 "
               "(pytorch/pytorch#185509, fixed by #185873) (findings/torch_bf16_vgg.md)",
               batches=(5, 6, 7, 8, 16, 32), precisions=("bfloat16",), versions=("2.13.0",),
               right_in=("2.14.1", "2.15.0")),
    KnownWrong("chainer", "resnet", ("graph",),
               "Chainer 7.8.1 @static_graph with BatchNormalization (NumPy CPU, float32 and "
               "float64, every batch 1-8/16/32): the replayed backward reuses step 1's batch "
               "mean/inv_std, so gamma's and all upstream gradients are wrong from step 2 (beta's, "
               "later layers', the forward and the SGD update are right) and the loss departs from "
               "step 3 (this ResNet: NaN from step 8); the first call also updates the running "
               "mean/var twice; exact without BatchNorm (findings/chainer_static_graph_bn.md)"),
)
