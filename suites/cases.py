"""What a benchmark or test case is: backend x model x variant, built from a profile."""
import math
from dataclasses import dataclass

import pytest

import models
from backends import UNSUPPORTED, precision_skip
from suites import cpu


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

    def covers(self, backend, model, variant):
        return (backend, model) == (self.backend, self.model) and variant in self.variants

    def holds_here(self, precision="float32"):
        """True on this CPU's vector ISA and at `precision`."""
        return ((not self.isas or cpu.vector_isa() in self.isas)
                and (not self.precisions or precision in self.precisions))

    def applies(self, backend, model, variant, batch, precision="float32"):
        return (self.covers(backend, model, variant) and (not self.batches or batch in self.batches)
                and self.holds_here(precision))


KNOWN_WRONG = (
    KnownWrong("torch", "mnist_cnn", ("graph", "graph_dynamic", "graph_static"),
               "torch 2.13 inductor (CPU, AVX-512 and AVX2 code alike): every conv gradient of "
               "conv->conv->ReLU->maxpool is exactly zero at batch 2-7 in all three compile "
               "modes, optimizer inside or outside the compiled region; right at 1, 16, 32 and "
               "with aot_eager; at 8 wrong with dynamic=True when reusing a graph compiled at a "
               "smaller batch (findings/torch_inductor_conv_grad.md)",
               batches=(2, 3, 4, 5, 6, 7), repro_batch=4),
    KnownWrong("torch", "resnet", ("graph", "graph_dynamic", "graph_static"),
               "torch 2.13 inductor (CPU) with AVX2 code: the compiled ResNet backward corrupts "
               "the heap (aborts, or wrong shortcut-conv gradients, varying from run to run); "
               "right with AVX-512 code, aot_eager and eager (findings/torch_inductor_avx2_heap.md)",
               isas=("avx2",), strict=False),
    KnownWrong("torch", "vgg", ("graph", "graph_static"),
               "torch 2.13 inductor (CPU), static shapes, bfloat16 autocast: every conv gradient "
               "of the VGG is exactly zero at batch 5-8, 16, 32 (the backward reads the last "
               "max-pool's zero-filled gradient buffer before the scatter that fills it: the "
               "mnist_cnn bug); right at 1-4, with dynamic=True, aot_eager, eager and in float32, "
               "AVX-512 and AVX2 alike; only the linear layer trains "
               "(findings/torch_bf16_vgg.md)",
               batches=(5, 6, 7, 8, 16, 32), precisions=("bfloat16",)),
    KnownWrong("chainer", "resnet", ("graph",),
               "Chainer 7.8.1 @static_graph with BatchNormalization (NumPy CPU, float32 and "
               "float64, every batch 1-8/16/32): the replayed backward reuses step 1's batch "
               "mean/inv_std, so gamma's and all upstream gradients are wrong from step 2 (beta's, "
               "later layers', the forward and the SGD update are right) and the loss departs from "
               "step 3 (this ResNet: NaN from step 8); the first call also updates the running "
               "mean/var twice; exact without BatchNorm (findings/chainer_static_graph_bn.md)"),
)


@dataclass
class Case:
    """One backend module, one model spec with its seeded weights and batch, one variant."""
    backend: object  # the loaded backend module
    device: object  # the backend's device handle
    model: str
    variant: str
    spec: object
    batch: int
    precision: str = "float32"
    deterministic: bool = False  # set by the determinism suite, which runs it in the context
    seed: int = 0

    def params(self):
        """Seeded spec-layout weights (fresh arrays every call)."""
        return models.init_params(self.spec, self.seed)

    def data(self, seed=None):
        """A seeded synthetic NCHW batch."""
        return models.synthetic_batch(self.spec, self.batch, self.seed if seed is None else seed)

    def runner(self):
        """A fresh model in this variant, loaded with the seeded weights."""
        return self.backend.Runner(self.spec, self.params(), self.variant, self.device,
                                   precision=self.precision)

    def reject_non_finite(self, message):
        """End the case: an xfail when it is known wrong (its result is saved with loss_finite
        False, which the report shows but never as a figure), else a failure."""
        if self.known_wrong():
            pytest.xfail(f"{message}; known wrong: {self.known_wrong()}")
        pytest.fail(message)

    def train_losses(self, steps):
        """Losses of a fresh runner over `steps` SGD steps on this case's batch."""
        runner = self.runner()
        x, y = runner.to_device(*self.data())
        return [runner.train_step(x, y) for _ in range(steps)]

    def known_wrong_entry(self):
        """The KNOWN_WRONG entry that applies to this case on this CPU, or None."""
        return next((entry for entry in KNOWN_WRONG if entry.applies(
            self.backend.NAME, self.spec.name, self.variant, self.batch, self.precision)), None)

    def known_wrong(self):
        """Why this case is known to compute a wrong answer, or None."""
        entry = self.known_wrong_entry()
        return entry.reason if entry else None


def extra_info(case, phase, traces, threads, device, loss=None):
    """The keys every saved result carries."""
    chw = case.spec.input_chw
    flops = models.train_flops(case.spec) if phase != "infer" else models.forward_flops(case.spec)
    info = {
        "backend": case.backend.NAME, "framework_version": case.backend.version(),
        "model": case.model, "model_config": case.spec.config, "variant": case.variant,
        "phase": phase, "device": device, "threads": threads, "batch": case.batch,
        "input_shape": [case.batch, *chw], "params": models.param_count(case.spec),
        "flops": flops * case.batch, "traces": traces,
        "loss": loss, "loss_finite": None if loss is None else math.isfinite(loss),
        "precision": case.precision, "deterministic": case.deterministic,
        "vector_isa": cpu.vector_isa(),
    }
    if case.known_wrong():
        info["known_wrong"] = case.known_wrong()
    return info


def skip_reason(backend, variant, precision="float32", env=None, model=None):
    """Why (backend, variant, precision) is a visible skip in this session, or None."""
    if reason := UNSUPPORTED.get((backend, variant)):
        return f"{backend}/{variant}: {reason}"
    if env and (reason := env["profile"].variant_skip(backend, variant)):
        return reason
    if precision == "float32":
        return None
    if reason := precision_skip(backend, precision, env["device"]):
        return f"{backend}/{precision}: {reason}"
    profile = env["profile"]
    if model not in profile.precision_models:
        return (f"profile {profile.name!r} runs {precision} on "
                f"{', '.join(profile.precision_models)} only")
    return None
