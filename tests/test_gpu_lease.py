"""A call to the GPU machine (gpu/run.sh, gpu/provenance.py, gpu/job.py, gpu/take_back.py): its
GPU named as nvidia-smi names it, the commit and timing code of the tree it was sent, Chainer's
wheel and room in what it carries, a window's files taken back only where they are a GPU's; bad
input is one line."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import conftest
from suites.profiles import PROFILES, JOBS
from tests.test_faults_pytest import _pytest, _usage_error
from tests.test_gpu_plan import _dry_job

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
    monkeypatch.setattr(provenance, "chainer_wheel", lambda: ROOT / ".whl" / "chainer.whl")
    assert provenance.main() == 0
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          cwd=ROOT).stdout.strip()
    assert capsys.readouterr().out == f"GRAPHBENCH_COMMIT={head} GRAPHBENCH_CODE=abc\n"


def test_what_a_call_carries_is_the_tree_git_lists_with_the_wheels_and_stops_above_64_mib(
        tmp_path, monkeypatch, capsys):
    """Tracked, untracked unignored and .whl/ files count, ignored ones do not; above the limit
    provenance.py stops in one line and plan.py's line says so."""
    from gpu import plan, provenance
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q", str(tmp_path)], check=True)
    for name, size in (("tracked.json", 100), ("untracked.txt", 20), ("ignored.log", 5000),
                       (".whl/chainer.whl", 3), (".gitignore", 0)):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"x" * size)
    (tmp_path / ".gitignore").write_text("*.log\n/.whl/\n")  # 13 bytes
    subprocess.run(git + ["add", "tracked.json"], check=True, cwd=tmp_path)
    subprocess.run(git + ["commit", "-qm", "t"], check=True, cwd=tmp_path)
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    monkeypatch.setattr(provenance, "WHEELS", tmp_path / ".whl")
    assert provenance.carried_bytes() == 100 + 20 + 13 + 3
    monkeypatch.setattr(provenance, "CARRY_LIMIT", 135)
    assert "0.0 MiB of the 0 it may (with .whl/)" in plan.carried()
    for name, value in (("changed_files", lambda: []), ("chainer_wheel", lambda: None)):
        monkeypatch.setattr(provenance, name, value)
    assert provenance.main() == 1
    said = capsys.readouterr()
    assert not said.out and said.err.startswith("gpu/provenance.py: a call would carry 0.0 MiB")
    monkeypatch.setattr(provenance, "ROOT", tmp_path / "nowhere")
    assert "unknown here" in plan.carried()


def test_provenance_builds_chainers_wheel_only_where_none_is_and_says_when_it_cannot(
        tmp_path, monkeypatch, capsys):
    """A new checkout has no .whl/: the job on the GPU machine would stop at its start, so the
    command run before each call builds the wheel, with the chainer env's pin and setuptools."""
    sys.path.insert(0, str(ROOT / "gpu"))
    import provenance
    assert provenance.chainer_pin() == "chainer==7.8.1"
    monkeypatch.setattr(provenance, "WHEELS", tmp_path)
    commands = []

    def pip(command, **_):
        commands.append(command)
        if "wheel" in command[3:4]:
            raise subprocess.CalledProcessError(1, command)
    monkeypatch.setattr(provenance.venv, "create", lambda *a, **k: None)
    monkeypatch.setattr(provenance.subprocess, "run", pip)
    monkeypatch.setattr(provenance, "changed_files", lambda: [])
    assert provenance.main() == 1
    assert capsys.readouterr().err.splitlines()[-1].startswith(
        "gpu/provenance.py: no Chainer wheel in .whl/ and building one failed")
    assert "setuptools<70" in commands[0] and commands[1][-1] == "chainer==7.8.1"
    assert "--no-build-isolation" in commands[1] and str(tmp_path) in commands[1]
    (tmp_path / "chainer-7.8.1-py3-none-any.whl").write_bytes(b"")
    commands.clear()
    assert provenance.chainer_wheel().name == "chainer-7.8.1-py3-none-any.whl" and not commands


def test_the_tree_a_gpu_call_carries_keeps_room_under_its_limit():
    """Each GPU call carries the tracked tree with Chainer's wheel, 64 MiB at most, or it is
    refused; gpu/provenance.py stops before a call above that. The tree keeps 4 MiB spare, so
    that a window's runs land: the wheel (1 MiB), a window's runs (84-436 kB from 2026-11-28 to
    12-04) and a CPU job's (0.4-1.4 MB); 8 MiB before provenance.py checked the limit. It held
    56.4 MiB on 2026-11-27, runs indented as pytest-benchmark saves them; 31.8 without; 51.2 on
    2026-12-05 with the results page's data as JSON (4.0 MB), 47.8 with it packed; 53.4 on
    2026-12-06 with the allocator probes' files, 51.6 with their processes one per line; 53.5 on
    2026-12-07 with summary.json's records written without spaces (0.35 MiB less)."""
    from gpu import provenance
    try:
        size = provenance.listed_bytes(untracked=False)
    except subprocess.CalledProcessError:
        pytest.skip("not a git checkout: no tracked tree to carry")
    assert size <= provenance.CARRY_LIMIT - 4 * 2 ** 20, (
        f"the tracked tree holds {size / 2 ** 20:.1f} MiB: `python -m report.build.compact` "
        "rewrites indented runs in half the bytes (all were compact on 2026-12-07; their times "
        "per round, to 17 digits, took 5.3 MB more than to the nanosecond would); a run "
        "moved out of the tree can change the answer (older codes' runs feed it): redraw and see "
        "README.md and summary.json unchanged")


def test_the_gpu_job_needs_the_commit_it_was_sent(monkeypatch, capsys):
    from gpu import job
    monkeypatch.delenv("GRAPHBENCH_CODE", raising=False)
    assert job.main(["--seconds", "10"]) == 2
    assert "GRAPHBENCH_COMMIT" in capsys.readouterr().err


def test_a_wait_that_is_not_step_or_block_is_a_usage_error():
    error = _usage_error(_pytest("tests/test_spec.py", "--co", "-q", "--wait", "never"))
    assert "unknown wait 'never'" in error and "step, block" in error
    assert conftest.default_wait("cuda") == "block" and conftest.default_wait("cpu") == "step"


@pytest.mark.parametrize("smi, said", [("exit 9", "nvidia-smi exited 9"),
                                       (None, "no NVIDIA GPU here")])
def test_the_gpu_job_without_a_gpu_stops_in_one_line_and_writes_nothing(tmp_path, monkeypatch,
                                                                         capsys, smi, said):
    """Issue 52: gpu/run.sh on a machine without a GPU exited 0 after four empty sessions."""
    from gpu import job
    if smi:
        _fake_smi(tmp_path, monkeypatch, smi)
    else:
        monkeypatch.setenv("PATH", str(tmp_path))  # no nvidia-smi at all
    _dry_job(monkeypatch, tmp_path / "store", tmp_path / "out", device=None)
    assert job.main(["--seconds", "60"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and "DEVICE=cpu" in err[0]
    assert not (tmp_path / "store").exists() and not (tmp_path / "out").exists()
    assert job.main(["--seconds", "60", "--only", "jax-nope"]) == 2
    assert "choose from step-cost-jax" in capsys.readouterr().err


@pytest.mark.parametrize("gpu, device, said", [
    (None, "cuda", "names no GPU"), ("", "cuda", "names no GPU"),
    ("NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB", "tpu", "not one of cpu, cuda")])
def test_a_gpu_run_that_names_no_gpu_is_left_out_in_one_line(tmp_path, gpu, device, said):
    """Issue 52: 0083_default with device 'cuda' and no GPU name was pooled into the CPU answer."""
    from report.build.load import load_file
    run = json.loads((ROOT / "results/Linux-CPython-3.11-64bit/0083_default.json").read_text())
    run["machine_info"]["graphbench"].update(device=device, gpu=gpu)
    path = tmp_path / "0090_default.json"
    path.write_text(json.dumps(run))
    with pytest.raises(ValueError) as error:
        load_file(path)
    assert str(path) in str(error.value) and said in str(error.value)
    assert "\n" not in str(error.value)


def test_a_windows_files_go_where_the_report_reads_them_or_nowhere(tmp_path, capsys):
    """What this stop did by hand: runs merged into results/, the per-step-wait run into
    results/waits/cuda/ (never pooled), the studies into results/findings/<GPU model>/."""
    import tarfile
    from gpu import take_back
    runs = ROOT / "results" / "Linux-CPython-3.12-64bit-1453ffec"
    packed = tmp_path / "window"
    packed.mkdir()
    indented = tmp_path / "0089.json"  # as pytest-benchmark saves a run on the GPU machine
    indented.write_text(json.dumps(json.loads((runs / "0089_gpu-jax-mnist_cnn.json").read_text()),
                                   indent=4))
    with tarfile.open(packed / "runs.tar", "w") as tar:
        tar.add(indented, "Linux-CPython-3.12-64bit/0089_a.json")
        tar.add(ROOT / "results/waits/cuda/0092_gpu-jax-mnist_cnn-wait-step.json",
                "Linux-CPython-3.12-64bit/0092_b.json")
        tar.add(ROOT / "results/findings/NVIDIA-H100-80GB-HBM3/gpu_step-cost-jax.json",
                "findings/gpu_step-cost-jax.json")
    results = tmp_path / "results"
    (results / "Linux-CPython-3.12-64bit").mkdir(parents=True)  # a CPU machine's runs there
    cpu_run = ROOT / "results" / "Linux-CPython-3.12-64bit" / "0085_default.json"
    (results / "Linux-CPython-3.12-64bit" / "0085_default.json").write_bytes(cpu_run.read_bytes())
    assert take_back.main([str(packed)], results) == 0
    placed = sorted(str(p.relative_to(results)) for p in results.rglob("*.json"))
    assert "waits/cuda/0092_b.json" in placed
    assert "findings/NVIDIA-H100-80GB-HBM3/gpu_step-cost-jax.json" in placed
    assert any(p.startswith("Linux-CPython-3.12-64bit-") and p.endswith("0089_a.json")
               for p in placed)  # its own machine folder, beside the CPU's
    from report.build.compact import compact_text
    run = next(results.glob("Linux-CPython-3.12-64bit-*/0089_a.json"))
    assert run.read_text() == compact_text(indented.read_text())  # half the bytes, the same JSON
    (results / "findings/NVIDIA-H100-80GB-HBM3/gpu_step-cost-jax.json").write_text("{}")
    before = sorted(results.rglob("*"))
    assert take_back.main([str(packed)], results) == 2 and sorted(results.rglob("*")) == before
    assert "exists with other content; nothing written" in capsys.readouterr().err
    assert take_back.main([str(tmp_path / "nowhere")], results) == 2


@pytest.mark.parametrize("dry", ["run", "ledger"])
def test_a_dry_runs_folder_is_refused_whole_in_one_line(tmp_path, capsys, dry):
    """A dry run (DEVICE=cpu) packs its files as a window does: taken back, its runs joined the
    CPU's in results/ and its ledger made the plan's dry-run CPU this one (49 guesses, not 9)."""
    import tarfile
    from gpu import take_back
    gpu_run = ROOT / "results/waits/cuda/0092_gpu-jax-mnist_cnn-wait-step.json"
    cpu_run = ROOT / "results/Linux-CPython-3.12-64bit/0085_default.json"
    ledger = {"machine": {"gpu": "cpu", "device": "cpu", "cpu": "AMD EPYC"}, "steps": []}
    (tmp_path / "costs_1.json").write_text(json.dumps(ledger))
    packed = tmp_path / "dry"
    packed.mkdir()
    with tarfile.open(packed / "runs.tar", "w") as tar:
        tar.add(gpu_run, "Linux-CPython-3.12-64bit/0092_b.json")
        if dry == "run":
            tar.add(cpu_run, "Linux-CPython-3.12-64bit/0143_gpu-jax-decoder.json")
        else:
            tar.add(tmp_path / "costs_1.json", "findings/costs_1.json")
    results = tmp_path / "results"
    results.mkdir()
    assert take_back.main([str(packed)], results) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(packed) in err[0] and "dry run" in err[0]
    assert "nothing written" in err[0] and not any(results.rglob("*"))
