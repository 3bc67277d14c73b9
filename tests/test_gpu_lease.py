"""What a run on the GPU machine records (gpu/run.sh): its GPU, the commit and timing code of the
tree it was sent, and each group's time share; bad input is one line."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import conftest
from suites.profiles import PROFILES, JOBS
from tests.test_faults_pytest import _pytest, _usage_error

ROOT = Path(__file__).resolve().parents[1]


def test_the_group_budget_sets_every_share_the_focus_groups_too():
    profile = conftest.with_group_budget(JOBS["answer"].apply(PROFILES["default"]), 42.0)
    assert profile.adaptive.budget_s == 42.0
    assert profile.adaptive.focus and all(b == 42.0 for _, b, _ in profile.adaptive.focus)
    assert profile.adaptive.limits(("chainer", "mnist_cnn", "train"))[0] == 42.0
    assert conftest.with_group_budget(PROFILES["default"], None) is PROFILES["default"]


@pytest.mark.parametrize("args, said", [
    (("--group-budget-s", "0"), "above 0 seconds"),
    (("--group-budget-s", "30", "--profile", "quick"), "profile 'quick' adds no processes")])
def test_a_group_budget_that_cannot_apply_is_a_usage_error(args, said):
    error = _usage_error(_pytest("tests/test_spec.py", "--co", "-q", *args))
    assert "--group-budget-s" in error and said in error


def _fake_smi(tmp_path, monkeypatch, script):
    smi = tmp_path / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\n{script}\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")


def test_the_gpu_is_named_as_nvidia_smi_names_it(tmp_path, monkeypatch):
    _fake_smi(tmp_path, monkeypatch, "echo 'NVIDIA H200, 580.159.04, 143771 MiB'")
    assert conftest.gpu_name() == "NVIDIA H200, 580.159.04, 143771 MiB"
    _fake_smi(tmp_path, monkeypatch, "exit 9")
    assert conftest.gpu_name() is None


def test_a_copied_tree_names_the_commit_it_was_sent(monkeypatch):
    """The GPU machine's copy once came with an older .git: git named the wrong commit there."""
    monkeypatch.setenv("GRAPHBENCH_CODE", "0123456789ab")
    monkeypatch.setenv("GRAPHBENCH_COMMIT", "f" * 40)
    info = {"id": "older", "dirty": True}
    conftest.pytest_benchmark_update_commit_info(None, info)
    assert info["id"] == "f" * 40 and info["dirty"] is False
    assert conftest.timing_code() == "0123456789ab" and conftest.changed_files() == []


def test_provenance_refuses_a_tree_that_differs_from_its_commit(monkeypatch, capsys):
    sys.path.insert(0, str(ROOT / "gpu"))
    import provenance
    monkeypatch.delenv("GRAPHBENCH_COMMIT", raising=False)
    monkeypatch.setattr(provenance, "changed_files", lambda: ["conftest.py"])
    assert provenance.main() == 1
    assert capsys.readouterr().err.startswith("gpu/provenance.py: commit first;")
    monkeypatch.setattr(provenance, "changed_files", lambda: [])
    monkeypatch.setattr(provenance, "timing_code", lambda: "abc")
    assert provenance.main() == 0
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          cwd=ROOT).stdout.strip()
    assert capsys.readouterr().out == f"GRAPHBENCH_COMMIT={head} GRAPHBENCH_CODE=abc\n"


def _gpu_run(folder, name, gpu="NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB", code="abc",
             complete=True):
    folder.mkdir(parents=True, exist_ok=True)
    run = {"machine_info": {"graphbench": {"device": "cuda", "gpu": gpu, "code": code}},
           "graphbench_run": {"complete": complete}}
    (folder / name).write_text(json.dumps(run))


def test_the_gpu_job_runs_what_this_gpu_and_code_lack_in_priority_order(tmp_path):
    from gpu.plan import PLAN, missing
    h100, runs = "NVIDIA H100 80GB HBM3", tmp_path / "Linux-CPython-3.12-64bit"
    assert [s.name for s in missing([tmp_path], h100, "abc")] == [s.name for s in PLAN]
    _gpu_run(runs, "0090_gpu-jax-mnist_cnn.json")
    _gpu_run(runs, "0091_gpu-torch-mnist_cnn.json", complete=False)  # cut at its limit
    _gpu_run(runs, "0092_gpu-chainer-mnist_cnn.json", code="old")
    _gpu_run(runs, "0093_gpu-jax-vgg.json", gpu="NVIDIA H200, 580.159.04, 143771 MiB")
    (tmp_path / "findings").mkdir()
    (tmp_path / "findings" / "gpu_step-cost-jax.json").write_text(json.dumps(
        {"machine": {"gpu": h100, "code": "abc"}, "complete": True}))
    left = [s.name for s in missing([tmp_path], h100, "abc")]
    assert "jax-mnist_cnn" not in left and "step-cost-jax" not in left
    assert {"torch-mnist_cnn", "chainer-mnist_cnn", "jax-vgg"} <= set(left)
    assert left == [s.name for s in PLAN if s.name in left]  # the plan's order kept


def test_the_gpu_plan_has_every_answer_row_with_the_mnist_cnn_first():
    from gpu.plan import ANSWER_MODELS, PLAN
    steady = [s for s in PLAN if s.kind == "run"]
    rows = {key for s in steady for key in s.keys}
    assert {(b, m, p, "block") for b in ("jax", "chainer", "torch") for m in ANSWER_MODELS
            for p in ("train", "infer")} <= rows
    assert [s.keys[0][1] for s in steady][:4] == ["mnist_cnn"] * 4  # block, then jax's step wait
    torch = next(s for s in steady if s.name == "torch-vgg")
    assert "graph_cudagraphs,cuda_graph" in " ".join(torch.args) and "--wait" in torch.args


def test_the_gpu_job_needs_the_commit_it_was_sent(monkeypatch, capsys):
    from gpu import job
    monkeypatch.delenv("GRAPHBENCH_CODE", raising=False)
    assert job.main(["--seconds", "10"]) == 2
    assert "GRAPHBENCH_COMMIT" in capsys.readouterr().err


def test_a_wait_that_is_not_step_or_block_is_a_usage_error():
    error = _usage_error(_pytest("tests/test_spec.py", "--co", "-q", "--wait", "never"))
    assert "unknown wait 'never'" in error and "step, block" in error
    assert conftest.default_wait("cuda") == "block" and conftest.default_wait("cpu") == "step"
