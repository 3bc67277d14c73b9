"""What a run on the GPU machine records (gpu/run.sh): its GPU, the commit and timing code of the
tree it was sent, and each group's time share; bad input is one line."""
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
