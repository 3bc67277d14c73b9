"""What a benchmark or test case is: backend x model x variant, built from a profile."""
import math
from dataclasses import asdict, dataclass

import pytest

import catalog
import models
from backends import precision_skip, unsupported_reason
from suites import cpu


class KnownWrong(catalog.KnownWrong):
    """A measured wrong answer (catalog.KNOWN_WRONG), judged on this CPU."""

    def holds_here(self, precision="float32", version=None):
        """True on this CPU's vector ISA, at `precision` and in framework `version`."""
        return self.holds_on(cpu.vector_isa(), precision, version)

    def applies(self, backend, model, variant, batch, precision="float32", version=None):
        return self.applies_on(cpu.vector_isa(), backend, model, variant, batch, precision,
                               version)


KNOWN_WRONG = tuple(KnownWrong(**asdict(entry)) for entry in catalog.KNOWN_WRONG)


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
        """The KNOWN_WRONG entry that applies to this case on this CPU and framework version."""
        return next((entry for entry in KNOWN_WRONG if entry.applies(
            self.backend.NAME, self.spec.name, self.variant, self.batch, self.precision,
            self.backend.version())), None)

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
    if reason := unsupported_reason(backend, variant, env["device"] if env else "cpu"):
        return f"{backend}/{variant}: {reason}"
    if env and (reason := env["profile"].variant_skip(backend, variant)):
        return reason
    if precision == "float32":
        return None
    if reason := precision_skip(backend, precision, env["device"], variant):
        return f"{backend}/{precision}: {reason}"
    profile = env["profile"]
    if model not in profile.precision_models:
        return (f"profile {profile.name!r} runs {precision} on "
                f"{', '.join(profile.precision_models)} only")
    return None
