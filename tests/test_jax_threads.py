"""--threads N means N cores for JAX: XLA:CPU has no thread setting, so configure() pins the
process (CPU affinity) before the CPU client starts, and XLA sizes its Eigen pool from that."""
import os
import subprocess
import sys

import pytest

from suites.child import ROOT

_PROBE = """
import collections, os, sys
from backends.jax import steady as B
B.configure(int(sys.argv[1]), "cpu")
import jax.numpy as jnp
float((jnp.ones((256, 256)) @ jnp.ones((256, 256)))[0, 0])
names = collections.Counter(open(f"/proc/self/task/{t}/comm").read().strip()
                            for t in os.listdir("/proc/self/task"))
print(len(os.sched_getaffinity(0)), names["tf_XLAEigen"])
"""


def test_threads_cap_the_cores_and_xla_pool(backend):
    module, _ = backend
    if module.NAME != "jax":
        pytest.skip(f"{module.NAME}: sets its thread pools directly (JAX only)")
    if len(os.sched_getaffinity(0)) < 2 or not os.path.isdir("/proc/self/task"):
        pytest.skip("needs 2 or more usable cores and Linux /proc to tell 1 thread from many")
    for threads in (1, 2):
        out = subprocess.run([sys.executable, "-c", _PROBE, str(threads)], capture_output=True,
                             text=True, cwd=ROOT, check=True).stdout.split()
        assert [int(v) for v in out] == [threads, threads]  # cores allowed, XLA Eigen threads
