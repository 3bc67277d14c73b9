"""The torch inductor reproducers in findings/ behave as KNOWN_WRONG says for the installed torch:
wrong in the releases its entry lists (`versions`), right in those measured right (`right_in`).
A release that fixes a finding, or one that brings it back, fails here."""
import os
import subprocess
import sys

import pytest

from catalog import KNOWN_WRONG, release
from suites import cpu

FINDINGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "findings")
FIXED = ("torch {version} no longer shows findings/{name}.py: update the torch entry of "
         "KNOWN_WRONG in catalog.py (versions, right_in), the README's findings section and "
         "findings/{name}.md.\n{out}")
BACK = ("torch {version} shows findings/{name}.py again, where KNOWN_WRONG says it is right: a "
        "wrong answer in this release is a finding (catalog.py, README, findings/{name}.md).\n{out}")


def _reproduce(env, name, *args, timeout=120):
    """Run a reproducer with this Python: its exit code, its output, the torch version and
    whether KNOWN_WRONG expects it wrong in that version (a skip where it was not measured)."""
    if "torch" not in env["backends"]:
        pytest.skip("torch is not among this session's --backend")
    torch = pytest.importorskip("torch", reason="torch is not importable in this environment")
    entry = next(k for k in KNOWN_WRONG if k.finding == f"findings/{name}.md")
    wrong = entry.measured_in(torch.__version__)
    if wrong is None:
        pytest.skip(f"torch {release(torch.__version__)} was not measured for findings/{name}.md: "
                    f"run findings/{name}.py and add the release to its KNOWN_WRONG entry's "
                    "versions (wrong) or right_in (right)")
    run = subprocess.run([sys.executable, os.path.join(FINDINGS, f"{name}.py"), *args],
                         capture_output=True, text=True, timeout=timeout)
    out = run.stdout + run.stderr
    assert run.returncode in (0, 1) and "Traceback" not in out, f"the reproducer failed:\n{out}"
    message = (FIXED if wrong else BACK).format(version=torch.__version__, name=name, out=out)
    assert run.returncode == (1 if wrong else 0), message
    return wrong, out


@pytest.mark.torch
def test_conv_grad_zero_as_known(env):
    """Batch 4, loss compiled with the model (as the suite does): the compiled CNN's conv
    gradients are zero (exit 1) in the releases KNOWN_WRONG lists, right in the others."""
    wrong, out = _reproduce(env, "torch_inductor_conv_grad", "--batch", "4")
    if wrong:
        assert "0.weight" in out.split("WRONG:")[1], out


@pytest.mark.torch
def test_avx2_heap_corruption_as_known(env):
    """AVX2 code (forced by environment on an AVX-512 CPU): some run of two aborts, hangs or is
    wrong in the releases KNOWN_WRONG lists (the first bad one ends it: each run compiles for
    about 25 s); both runs right in the others."""
    if cpu.native_isa() not in ("avx2", "avx512"):
        pytest.skip(f"needs an x86 CPU with AVX2 (this one: {cpu.native_isa()})")
    _reproduce(env, "torch_inductor_avx2_heap", "--runs", "2", "--until-bad",
               "--child-timeout", "120", timeout=300)


def test_known_wrong_rule_follows_the_release():
    """The suite's rule for the conv-gradient finding: wrong in 2.13.0 (any local build), not in
    the releases measured right, unknown elsewhere; the report's words name the releases."""
    entry = next(k for k in KNOWN_WRONG if k.finding == "findings/torch_inductor_conv_grad.md")
    case = ("avx512", "torch", "mnist_cnn", "graph", 4)
    assert entry.applies_on(*case, version="2.13.0+cpu")
    assert not entry.applies_on(*case, version="2.15.0+cu132")
    assert entry.applies_on(*case)  # a record without a version: the rule holds
    assert [entry.measured_in(v) for v in ("2.13.0", "2.14.1+cu130", "2.16.0")] == [True, False, None]
    assert entry.where == "at batch 2–7 in torch 2.13.0 (right in 2.14.1, 2.15.0)"


@pytest.mark.torch
def test_torch_still_falls_back_to_eager_past_its_recompile_limit(env):
    """findings/torch_recompile_fallback.py exits 1 while dynamic=False, past recompile_limit,
    runs later sizes eagerly without an error; a torch that raises or keeps compiling fails
    here (update findings/torch_recompile_fallback.md and report/views/lengths.py's wording)."""
    if "torch" not in env["backends"]:
        pytest.skip("torch is not among this session's --backend")
    pytest.importorskip("torch", reason="torch is not importable in this environment")
    run = subprocess.run([sys.executable, os.path.join(FINDINGS, "torch_recompile_fallback.py")],
                         capture_output=True, text=True, timeout=120)
    out = run.stdout + run.stderr
    assert "Traceback" not in out, f"the reproducer failed:\n{out}"
    assert run.returncode == 1 and "FALLBACK" in run.stdout, (
        f"torch no longer falls back silently past recompile_limit:\n{out}")
