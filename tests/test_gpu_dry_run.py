"""The GPU job's dry run, end to end in the chainer and JAX envs: gpu/job.py runs real steps of the
plan on this CPU (DEVICE=cpu) as a window would on the GPU, packs them, and take_back refuses them
as a dry run's. The framework-free tests replace the steps; this one runs what a window runs."""
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# each env's shortest steps: Chainer's a timed run and a check (~10 s), JAX's a check (~5 s);
# torch's shortest took 23 s in the Zen 5's dry run, in the env that bounds the test command's time
STEPS = {"chainer": ("first-calls-chainer-decoder", "parity-chainer"), "jax": ("parity-jax",)}


@pytest.mark.parametrize("backend", sorted(STEPS))
def test_the_gpu_jobs_dry_run_runs_real_steps_and_take_back_refuses_them(backend, tmp_path):
    # inside the test: a module-level skip is a line in every collection of tests/, -k or not
    pytest.importorskip(backend)  # its env only
    from gpu.plan import NAMED
    out, store = tmp_path / "out", tmp_path / "store"
    env = {**os.environ, "DEVICE": "cpu", "OUT": str(out), "GPU_JOB_STORE": str(store),
           "GRAPHBENCH_COMMIT": "f" * 40, "GRAPHBENCH_CODE": "abc"}  # as test_gpu_lease's
    done = subprocess.run([sys.executable, "gpu/job.py", "--seconds", "200", "--only",
                           ",".join(STEPS[backend])], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with tarfile.open(out / "runs.tar") as tar:
        names = tar.getnames()
        saved = {name: json.load(tar.extractfile(name)) for name in names}
    for step in STEPS[backend]:
        if NAMED[step].kind == "run":  # a timed run, saved by pytest-benchmark as a GPU step's
            run = [n for n in names if n.startswith("Linux-") and n.endswith(f"_gpu-{step}.json")]
            assert len(run) == 1, names
            assert saved[run[0]]["machine_info"]["graphbench"]["device"] == "cpu"
            assert saved[run[0]]["graphbench_run"]["complete"]
            assert {b["extra_info"]["backend"] for b in saved[run[0]]["benchmarks"]} == {backend}
        else:  # a check or study, saved with its machine
            assert saved[f"findings/gpu_{step}.json"]["machine"]["device"] == "cpu"
    ledger = next(data for name, data in saved.items() if "/costs_" in name)
    assert {c["step"]: c["exit"] for c in ledger["steps"]} == dict.fromkeys(STEPS[backend], 0)
    from gpu.take_back import main
    results = tmp_path / "results"
    assert main([str(out)], results=results) == 2  # a dry run's files are no GPU's
    assert not results.exists()
