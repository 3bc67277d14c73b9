"""The Chainer @static_graph BatchNorm reproducer still reproduces; a Chainer fix fails here."""
import os
import subprocess
import sys

import pytest

REPRO = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "findings", "chainer_static_graph_bn.py")
FIXED = ("Chainer {version} fixed {what} (findings/chainer_static_graph_bn.py): update the chainer "
         "entry of KNOWN_WRONG in catalog.py, the README's findings section and "
         "findings/chainer_static_graph_bn.md.\n{out}")


@pytest.mark.chainer
def test_chainer_static_graph_bn_still_reproduces(env):
    """Exit 1 with both parts wrong (gradients, running statistics) is today's known answer."""
    if "chainer" not in env["backends"]:
        pytest.skip("chainer is not among this session's --backend")
    chainer = pytest.importorskip("chainer", reason="chainer is not importable in this environment")
    run = subprocess.run([sys.executable, REPRO], capture_output=True, text=True, timeout=60)
    out = run.stdout + run.stderr
    assert run.returncode in (0, 1) and "Traceback" not in out, f"the reproducer failed:\n{out}"
    version = chainer.__version__
    assert run.returncode == 1, FIXED.format(version=version, what="the drift", out=out)
    assert "BUG PRESENT" in run.stdout, out
    for part in ("gradients", "BN running statistics"):
        assert f"{part}: WRONG" in run.stdout, FIXED.format(version=version, what=part, out=out)
