"""The torch inductor reproducers in findings/ still reproduce; a torch fix fails here."""
import os
import subprocess
import sys

import pytest

from suites import cpu

FINDINGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "findings")
FIXED = ("torch {version} no longer shows findings/{name}.py: update the torch entry of "
         "KNOWN_WRONG in catalog.py, the README's findings section and findings/{name}.md."
         "\n{out}")


def _reproduce(env, name, *args, timeout=120):
    """Run a reproducer with this Python; its exit code, output and the torch version."""
    if "torch" not in env["backends"]:
        pytest.skip("torch is not among this session's --backend")
    torch = pytest.importorskip("torch", reason="torch is not importable in this environment")
    run = subprocess.run([sys.executable, os.path.join(FINDINGS, f"{name}.py"), *args],
                         capture_output=True, text=True, timeout=timeout)
    out = run.stdout + run.stderr
    assert run.returncode in (0, 1) and "Traceback" not in out, f"the reproducer failed:\n{out}"
    return run.returncode, out, torch.__version__


@pytest.mark.torch
def test_conv_grad_zero_still_reproduces(env):
    """Batch 4: the compiled CNN's conv gradients are zero (exit 1) on every CPU seen so far."""
    code, out, version = _reproduce(env, "torch_inductor_conv_grad", "--batch", "4")
    assert code == 1, FIXED.format(version=version, name="torch_inductor_conv_grad", out=out)
    assert "0.weight" in out.split("WRONG:")[1], out


@pytest.mark.torch
def test_avx2_heap_corruption_still_reproduces(env):
    """AVX2 code (forced by environment on an AVX-512 CPU): some run aborts, hangs or is wrong."""
    if cpu.native_isa() not in ("avx2", "avx512"):
        pytest.skip(f"needs an x86 CPU with AVX2 (this one: {cpu.native_isa()})")
    code, out, version = _reproduce(env, "torch_inductor_avx2_heap", "--runs", "2",
                                   "--child-timeout", "120", timeout=300)
    assert code == 1, FIXED.format(version=version, name="torch_inductor_avx2_heap", out=out)
