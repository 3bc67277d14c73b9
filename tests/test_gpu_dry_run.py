"""The GPU job's dry run, end to end in the chainer env: gpu/job.py runs two real steps of the plan
on this CPU (DEVICE=cpu) as a window would on the GPU, packs them, and take_back refuses them as a
dry run's. The framework-free tests replace the steps; this one runs what a window runs."""
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("first-calls-chainer-decoder", "parity-chainer")  # a timed run and a check, ~10 s


def test_the_gpu_jobs_dry_run_runs_a_timed_step_and_a_check_and_take_back_refuses_it(tmp_path):
    # inside the test: a module-level skip is a line in every collection of tests/, -k or not
    pytest.importorskip("chainer")  # the shortest backend's steps: its env only
    from conftest import timing_code
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip() or "0" * 40
    out, store = tmp_path / "out", tmp_path / "store"
    env = {**os.environ, "DEVICE": "cpu", "OUT": str(out), "GPU_JOB_STORE": str(store),
           "GRAPHBENCH_COMMIT": commit, "GRAPHBENCH_CODE": timing_code() or "unknown"}
    done = subprocess.run([sys.executable, "gpu/job.py", "--seconds", "200", "--only",
                           ",".join(STEPS)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with tarfile.open(out / "runs.tar") as tar:
        names = tar.getnames()
        saved = {name: json.load(tar.extractfile(name)) for name in names}
    run = [n for n in names if n.startswith("Linux-") and n.endswith(f"_gpu-{STEPS[0]}.json")]
    assert len(run) == 1, names
    info = saved[run[0]]["machine_info"]["graphbench"]
    assert info["device"] == "cpu" and saved[run[0]]["graphbench_run"]["complete"]
    assert {b["extra_info"]["backend"] for b in saved[run[0]]["benchmarks"]} == {"chainer"}
    assert f"findings/gpu_{STEPS[1]}.json" in names
    ledger = next(data for name, data in saved.items() if "/costs_" in name)
    assert {c["step"]: c["exit"] for c in ledger["steps"]} == dict.fromkeys(STEPS, 0)
    from gpu.take_back import main
    results = tmp_path / "results"
    assert main([str(out)], results=results) == 2  # a dry run's runs are no GPU's
    assert not results.exists()
