"""What a run on the GPU machine records (gpu/run.sh): its GPU, the commit and timing code of the
tree it was sent, and each group's time share; bad input is one line."""
import json
import os
import re
import subprocess
import sys
import tarfile
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
    monkeypatch.setattr(provenance, "chainer_wheel", lambda: ROOT / ".whl" / "chainer.whl")
    assert provenance.main() == 0
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          cwd=ROOT).stdout.strip()
    assert capsys.readouterr().out == f"GRAPHBENCH_COMMIT={head} GRAPHBENCH_CODE=abc\n"


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
    refused: the tree keeps 8 MiB spare for the wheel (1 MiB) and the runs later jobs add. It held
    56.4 MiB on 2026-11-27, runs indented as pytest-benchmark saves them; 31.8 without; 51.2 on
    2026-12-05 with the results page's data as JSON (4.0 MB), 47.8 with it packed."""
    listed = subprocess.run(["git", "ls-files", "-z"], capture_output=True, text=True, cwd=ROOT)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no tracked tree to carry")
    listed = listed.stdout.split("\0")
    size = sum((ROOT / name).stat().st_size for name in listed if (ROOT / name).is_file())
    assert size <= (64 - 8) * 2 ** 20, (
        f"the tracked tree holds {size / 2 ** 20:.1f} MiB: `python -m report.build.compact` "
        "rewrites indented runs in half the bytes; else move old runs out of the tree")


def _gpu_run(folder, name, gpu="NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB", code="abc",
             complete=True, versions=None, when="", cpu=None):
    folder.mkdir(parents=True, exist_ok=True)
    backend = name.split("_gpu-", 1)[1].split("-")[0]
    run = {"machine_info": {"graphbench": {"device": "cuda", "gpu": gpu, "code": code,
                                           "versions": versions or {"torch": "2.11.0"}},
                            **({"node": "vm", "cpu": cpu} if cpu else {})},
           "graphbench_run": {"complete": complete}, "datetime": when,
           "benchmarks": [{"extra_info": {"backend": backend}}]}
    (folder / name).write_text(json.dumps(run))


def test_the_gpu_job_runs_what_this_gpu_and_code_lack_in_priority_order(tmp_path):
    from gpu.plan import PLAN, missing
    h100, runs = "NVIDIA H100 80GB HBM3", tmp_path / "Linux-CPython-3.12-64bit"
    assert [s.name for s in missing([tmp_path], h100, "abc")] == [s.name for s in PLAN]
    _gpu_run(runs, "0090_gpu-jax-mnist_cnn.json")
    _gpu_run(runs, "0091_gpu-torch-mnist_cnn.json", complete=False)  # cut at its limit
    _gpu_run(runs, "0092_gpu-chainer-mnist_cnn-wait-step.json", code="old")
    _gpu_run(runs, "0093_gpu-jax-vgg.json", gpu="NVIDIA H200, 580.159.04, 143771 MiB")
    (tmp_path / "findings").mkdir()
    (tmp_path / "findings" / "gpu_step-cost-jax.json").write_text(json.dumps(
        {"machine": {"gpu": h100, "code": "abc"}, "complete": True}))
    left = [s.name for s in missing([tmp_path], h100, "abc")]
    assert "jax-mnist_cnn" not in left and "step-cost-jax" not in left
    assert {"torch-mnist_cnn", "chainer-mnist_cnn-wait-step", "jax-vgg"} <= set(left)
    assert left[-1] == "chainer-mnist_cnn-wait-step"  # at an older code only: after every new row
    assert left[:-1] == [s.name for s in PLAN if s.name in left[:-1]]  # the plan's order kept
    # a model's first calls meet its steps in a break-even only at one code: an older code's
    # steps come right after the first calls, not at the end
    _gpu_run(runs, "0094_gpu-torch-vgg.json", code="old")
    left = [s.name for s in missing([tmp_path], h100, "abc")]
    after = left[left.index("first-calls-torch-vgg-graph") + 1]
    assert after == "torch-vgg" and left[-1] == "chainer-mnist_cnn-wait-step"
    # the first calls ran in an earlier call of the window: their model's steps come first
    _gpu_run(runs, "0095_gpu-first-calls-torch-vgg-graph.json")
    assert [s.name for s in missing([tmp_path], h100, "abc")][0] == "torch-vgg"


def test_a_gpu_machines_new_release_measures_again_what_its_old_one_did(tmp_path, monkeypatch):
    """The report shows a backend's runs of its newest run's release only: an image upgraded
    would have left the old release's rows out of the GPU table, and the plan called them done."""
    from gpu import job
    from gpu.plan import missing
    h100, runs = "NVIDIA H100 80GB HBM3", tmp_path / "Linux-CPython-3.12-64bit"
    old, new = {"torch": "2.11.0", "numpy": "2.5.2"}, {"torch": "2.11.0", "numpy": "2.5.3"}
    _gpu_run(runs, "0090_gpu-jax-mnist_cnn.json", versions=old, when="2026-12-01T10:00")
    _gpu_run(runs, "0091_gpu-chainer-mnist_cnn.json", versions=old, when="2026-12-01T10:05")
    _gpu_run(runs, "0092_gpu-jax-vgg.json", versions=new, when="2026-12-02T10:00")
    left = [s.name for s in missing([tmp_path], h100, "abc")]
    assert "jax-mnist_cnn" in left and "jax-vgg" not in left and "chainer-mnist_cnn" not in left
    assert left.index("jax-mnist_cnn") > left.index("chainer-vgg")  # measured before: after new rows
    # on the GPU machine, its own release decides before its first run
    left = [s.name for s in missing([tmp_path], h100, "abc", {"jax": sorted(old.items())})]
    assert "jax-mnist_cnn" not in left and "jax-vgg" in left
    asked = []
    monkeypatch.setattr(job, "missing", lambda *args: asked.append(args) or [])
    _dry_job(monkeypatch, tmp_path, tmp_path / "out")
    assert job.main(["--seconds", "60"]) == 0
    import numpy
    mine = asked[0][3]  # every backend runs in this Python here: its versions, as a run records them
    assert set(mine) == {"jax", "chainer", "torch"} and mine["jax"] == mine["torch"]
    assert ("numpy", numpy.__version__) in mine["jax"] and mine["jax"] == sorted(mine["jax"])


def test_a_window_on_another_host_measures_what_the_last_host_did(tmp_path, monkeypatch):
    """The report keys a machine on its host's CPU, ISA and cores beside the GPU: the plan keyed
    it on the GPU alone, so a window on another host would have skipped what its table lacks."""
    from gpu import job
    from gpu.plan import missing
    from report.build.load import machine_name
    h200, runs = "NVIDIA H200", tmp_path / "Linux-CPython-3.12-64bit"
    xeon = {"brand_raw": "Intel(R) Xeon(R) Processor", "family": 6, "model": 207, "count": 16,
            "flags": ["avx2", "avx512f"]}
    epyc = {**xeon, "brand_raw": "AMD EPYC", "family": 25, "model": 17}
    _gpu_run(runs, "0090_gpu-jax-mnist_cnn.json", gpu=h200, cpu=xeon, when="2026-12-01T10:00")
    _gpu_run(runs, "0091_gpu-jax-vgg.json", gpu=h200, cpu=epyc, when="2026-12-02T10:00")
    host = {x: machine_name({"node": "vm", "cpu": c, "graphbench": {"gpu": h200}})
            for x, c in (("xeon", xeon), ("epyc", epyc))}
    on = {x: [s.name for s in missing([tmp_path], h200, "abc", machine=host[x])] for x in host}
    assert "jax-mnist_cnn" in on["epyc"] and "jax-vgg" not in on["epyc"]
    assert "jax-mnist_cnn" not in on["xeon"] and "jax-vgg" in on["xeon"]
    assert [s.name for s in missing([tmp_path], h200, "abc")] == on["epyc"]  # the newest run's
    # the job asks its own host before the first run; this one is neither
    asked = []
    monkeypatch.setattr(job, "missing", lambda *args: asked.append(args) or [])
    _dry_job(monkeypatch, tmp_path, tmp_path / "out")
    assert job.main(["--seconds", "60"]) == 0
    from user.save import machine_info
    assert asked[0][4] == machine_name(machine_info()) not in host.values()


def test_a_python_that_cannot_name_its_host_leaves_the_newest_runs_host(monkeypatch):
    """No answer, or no machine in it, is None (gpu.plan.missing then takes the newest run's
    host), not a job stopped before its first step."""
    from gpu import job
    monkeypatch.setattr(job, "python_for", lambda backend: "/nonexistent/python")
    assert job.this_machine(dict(os.environ), "NVIDIA H200") is None
    monkeypatch.setattr(job, "python_for", lambda backend: sys.executable)
    for said in ("print('null')", "print('{}')", "print('not json')"):
        monkeypatch.setattr(job, "MACHINE", said)
        assert job.this_machine(dict(os.environ), "NVIDIA H200") is None


def test_what_each_step_cost_is_saved_and_sizes_the_next_window(tmp_path, monkeypatch):
    """Step costs were copied by hand from steps.json into gpu/plan.py; a step cut at its limit
    (JAX's precision step, at 70 s) was given its guess again."""
    from gpu import job
    from gpu.plan import PLAN, missing
    named = {s.name: s for s in PLAN}
    monkeypatch.setattr(job, "missing", lambda *_: [named["parity-jax"], named["parity-torch"]])
    _dry_job(monkeypatch, tmp_path, tmp_path / "out")
    cut = "stopped at its limit (90 s)"
    ran = lambda step, *_: {"step": step.name, "exit": 0 if step.name == "parity-jax" else cut,
                            "seconds": 6.2 if step.name == "parity-jax" else 91.0}
    monkeypatch.setattr(job, "run_step", ran)
    monkeypatch.setattr(job, "run_side_by_side", lambda steps, *_: [ran(s) for s in steps])
    assert job.main(["--seconds", "300"]) == 1  # the cut step failed
    assert (tmp_path / "out" / "runs.tar").read_bytes()[:2] == b"\x1f\x8b"  # gzip: 16 MiB a file
    with tarfile.open(tmp_path / "out" / "runs.tar") as tar:
        ledger = [n for n in tar.getnames() if n.startswith("findings/costs_")]
    saved = json.loads((tmp_path / ledger[0]).read_text())
    assert len(ledger) == 1 and saved["machine"]["gpu"] == "cpu" and len(saved["steps"]) == 2
    sized = {s.name: s for s in missing([tmp_path], "cpu", "abc")}
    assert sized["parity-jax"].expect_s == 7  # what it took
    assert sized["parity-torch"].expect_s == 182 and sized["parity-torch"].limit_s == max(
        named["parity-torch"].limit_s, 273)  # cut: twice its time, a limit half as long again
    assert sized["parity-chainer"] == named["parity-chainer"]  # never ran: the plan's guess
    other = {s.name: s for s in missing([tmp_path], "NVIDIA H200", "abc")}
    assert other["parity-jax"] == named["parity-jax"]  # a CPU's dry run is no GPU's cost
    _ledger(tmp_path / "h100", "NVIDIA H100 80GB HBM3", parity_jax=5.5)
    other = {s.name: s for s in missing([tmp_path], "NVIDIA H200", "abc")}
    assert other["parity-jax"].expect_s == 6  # another GPU's cost beats a guess


def _dry_job(monkeypatch, store, out, device="cpu"):
    """gpu/job.py's store in `store`, its $OUT in `out`, a dry run's environment (`device`
    None: no DEVICE set)."""
    from gpu import job
    for name, where in (("STORE", store), ("RUNS", store / "runs"),
                        ("STUDIES", store / "findings")):
        monkeypatch.setattr(job, name, where)
    for name, value in (("OUT", str(out)), ("GRAPHBENCH_CODE", "abc"),
                        ("GRAPHBENCH_COMMIT", "f" * 40)):
        monkeypatch.setenv(name, value)
    if device:
        monkeypatch.setenv("DEVICE", device)
    else:
        monkeypatch.delenv("DEVICE", raising=False)


def _ledger(folder, gpu, cpu="AMD EPYC family 26 model 2", stamp="20261127T010000",
            probes=False, **steps):
    """A cost ledger as gpu/job.py writes it: a GPU's, or a dry run's where `gpu` is "cpu";
    steps by name with '_' for '-', seconds (an int: it exited 1; a string: it was cut, after the
    seconds it ends with, if any). A GPU's
    torch steps skip inductor's ISA probes as the job's do since window 7, unless `probes`."""
    folder.mkdir(parents=True, exist_ok=True)
    skip = {} if probes or gpu == "cpu" else {"env": {"TORCHINDUCTOR_VEC_ISA_OK": "0"}}
    (folder / f"costs_{stamp}.json").write_text(json.dumps({
        "machine": {"gpu": gpu, "device": "cpu" if gpu == "cpu" else "cuda", "cpu": cpu},
        "steps": [{"step": name.replace("_", "-").replace("mnist-cnn", "mnist_cnn").replace(
                       "cuda-graph", "cuda_graph"),
                   "seconds": float(s.split()[-1]) if isinstance(s, str) and s[-1].isdigit() else s,
                   "exit": 0 if isinstance(s, float) else 1 if isinstance(s, int)
                   else "stopped at its limit", **(skip if "torch" in name else {})}
                  for name, s in steps.items()]}))


def test_a_step_never_run_on_a_gpu_is_sized_from_its_dry_run_times_its_backends_ratio(tmp_path):
    """The plan guessed 90 s for JAX's ResNet first calls, whose steps alone took 235 s on the
    H100: a step started on a guess too short is cut at its limit and saves nothing."""
    from gpu.plan import PLAN, dry_estimates, missing, step_costs
    h100, named = "NVIDIA H100 80GB HBM3", {s.name: s for s in PLAN}
    _ledger(tmp_path / "h100", h100, jax_mnist_cnn=40.0, first_calls_jax_mnist_cnn=60.0,
            first_calls_chainer_mnist_cnn=20.0, torch_mnist_cnn=60.0)
    _ledger(tmp_path / "dry", "cpu", jax_mnist_cnn=10.0, first_calls_jax_mnist_cnn=30.0,
            first_calls_jax_resnet=100.0, first_calls_chainer_mnist_cnn=40.0,
            first_calls_chainer_vgg=30.0, first_calls_torch_vgg_graph=50.0, lengths_jax_eager=10.0,
            torch_mnist_cnn=20.0, precision_jax="cut", lengths_torch_cuda_graph=2,
            busy_torch_resnet=300.0, precision_chainer=10.0, first_calls_jax_decoder="cut",
            first_calls_torch_vgg_cudagraphs=22.0, sweep_jax_vgg_s224_w1_b1=10.0)
    # an older dry run on another CPU: never mixed into the ratios of the newest one's
    _ledger(tmp_path / "dry", "cpu", cpu="Intel Xeon family 6 model 207",
            stamp="20261101T000000", first_calls_jax_resnet=1.0, jax_vgg=1.0)
    sized = {s.name: s for s in missing([tmp_path], h100, "abc")}
    # GPU/dry ratios: JAX's steps 4, its first calls 2, Chainer's first calls 0.5, torch's
    # steps 3
    assert sized["first-calls-jax-resnet"].expect_s == 200  # its backend's and kind's
    assert sized["first-calls-jax-resnet"].limit_s == 400  # a CPU's guess: twice it
    assert sized["first-calls-chainer-vgg"].expect_s == 15
    assert sized["first-calls-torch-vgg-graph"].expect_s == 150  # its backend's: no torch first calls
    assert sized["torch-mnist_cnn"].expect_s == 60
    # a 2-core CPU computes a busy point far longer than a GPU: sized only by its own kind's
    # ratios; a token stream's cost is its compiles, a sweep point's its compiles and start
    # (JAX's backend ratios: 4 and 2)
    assert sized["busy-torch-resnet"] == named["busy-torch-resnet"]
    assert sized["lengths-jax-eager"].expect_s == 30
    assert sized["sweep-jax-vgg-s224-w1-b1"].expect_s == 30  # 4-57 s a point on the Zen 5
    _ledger(tmp_path / "h100", h100, stamp="20261127T020000", lengths_chainer_eager_max=30.0,
            precision_jax=90.0, busy_jax_resnet=100.0)
    _ledger(tmp_path / "dry", "cpu", stamp="20261127T020000", lengths_chainer_eager_max=10.0,
            precision_jax=10.0, busy_jax_resnet=400.0)
    sized = {s.name: s for s in missing([tmp_path], h100, "abc")}
    assert sized["lengths-jax-eager"].expect_s == 40  # no JAX lengths ratio: its 4, 2 and 9
    assert sized["precision-chainer"].expect_s == 18  # its backend's 0.5 and 3 before JAX's 9
    assert sized["busy-torch-resnet"].expect_s == 75  # the busy points' own ratio, 0.25
    assert sized["jax-mnist_cnn"].expect_s == 40  # a GPU's own cost beats an estimate
    assert sized["precision-jax"].expect_s == 90  # its GPU cost
    assert sized["first-calls-jax-decoder"] == named["first-calls-jax-decoder"]  # cut on a CPU
    # CUDA-graph arms alone besides eager: its dry run (22 s on the Zen 5) timed eager only; its
    # model's `-graph` part's time sizes it, by their cases (five to three)
    assert sized["first-calls-torch-vgg-cudagraphs"].expect_s == 250
    assert sized["first-calls-torch-vgg-cudagraphs"].sized_by.startswith("its -graph part's")
    assert sized["first-calls-torch-decoder-cudagraphs"] == named[
        "first-calls-torch-decoder-cudagraphs"]  # nothing sizes its -graph part: the guess
    # CUDA graphs only: every case skipped on a CPU, nothing saved (exit 1), in seconds
    assert sized["lengths-torch-cuda_graph"] == named["lengths-torch-cuda_graph"]
    assert sized["jax-vgg"] == named["jax-vgg"]  # only the other CPU's dry run has it
    assert "first-calls-jax-resnet" not in step_costs([tmp_path], h100)  # a dry run's is no GPU's
    assert dry_estimates([tmp_path / "h100"], {}) == {}  # no dry run: the plan's guesses


def test_a_torch_steps_cost_with_inductors_isa_probes_sizes_it_without_them(tmp_path):
    """Torch's GPU steps before window 7 spent 55-63 s of their prime in inductor's ISA probes,
    which every torch step skips since: sized with them, each expected a minute too long and
    was left for a later window where it fit."""
    from gpu.plan import MEASURED_NOW_S, MEASURED_S, PROBES_S, missing, step_costs
    h100 = "NVIDIA H100 80GB HBM3"
    _ledger(tmp_path / "h100", h100, probes=True, busy_torch_resnet=200.0,
            busy_torch_decoder=150.0, busy_jax_resnet=90.0)
    _ledger(tmp_path / "h100", h100, stamp="20261128T010000", busy_torch_decoder=140.0)
    ledger = tmp_path / "h100" / "costs_20261127T010000.json"
    saved = json.loads(ledger.read_text())
    saved["steps"][0]["torch_prime_s"] = 68.0  # its prime timed: the probes are all but 8 s
    ledger.write_text(json.dumps(saved))
    costs = step_costs([tmp_path], h100)
    assert costs["busy-torch-resnet"] == (140.0, True)
    assert costs["busy-torch-decoder"] == (140.0, True)  # a newer cost that skipped them: as is
    assert costs["busy-jax-resnet"] == (90.0, True)  # JAX has no such probes
    assert MEASURED_NOW_S["torch-vgg"] == MEASURED_S["torch-vgg"] - PROBES_S
    assert MEASURED_NOW_S["jax-vgg"] == MEASURED_S["jax-vgg"]
    sized = {s.name: s for s in missing([tmp_path], h100, "abc")}
    assert sized["busy-torch-resnet"].expect_s == 140
    assert sized["torch-vgg"].expect_s == MEASURED_S["torch-vgg"] - PROBES_S
    # a dry run's torch costs are a CPU's, which needs the probes: kept whole
    _ledger(tmp_path / "dry", "cpu", busy_torch_resnet=300.0)
    assert step_costs([tmp_path / "dry"], "cpu")["busy-torch-resnet"] == (300.0, True)


def test_no_guess_keeps_a_step_from_every_window_only_a_whole_call_it_outlasted(tmp_path):
    """The plan guessed 90 s for JAX's lengths step, whose dry run took 174 s: stopped at its
    270-s limit it would have expected 540 s, more than any call, and run in no window again."""
    from gpu.job import chosen, longer_than_a_call
    from gpu.plan import CALL_S, JOB_START_S, PLAN, WHOLE_CALL_S, missing, sized
    h100, named = "NVIDIA H100 80GB HBM3", {s.name: s for s in PLAN}
    step = named["lengths-jax-eager"]
    cut = sized(step, {step.name: (272.0, False)})
    assert cut.expect_s == WHOLE_CALL_S and not longer_than_a_call(cut)  # a whole call next
    # ... which runs it first: the job's start (the versions printed) is inside its --seconds
    assert next(chosen([cut], lambda _: CALL_S - JOB_START_S))[1] is None
    assert longer_than_a_call(sized(step, {step.name: (WHOLE_CALL_S + 3.0, False)}))
    assert sized(step, {step.name: (100.0, False)}).expect_s == 200
    _ledger(tmp_path / "h100", h100, jax_mnist_cnn=40.0)
    _ledger(tmp_path / "dry", "cpu", jax_mnist_cnn=10.0, lengths_jax_eager=174.0)
    found = {s.name: s for s in missing([tmp_path], h100, "abc")}["lengths-jax-eager"]
    assert found.expect_s == WHOLE_CALL_S and not longer_than_a_call(found)  # 696 s: a guess


def test_the_plan_says_when_no_published_run_names_its_gpu(tmp_path, monkeypatch, capsys):
    """A session reads its GPU's kind as 'nvidia-h200'; the runs name 'NVIDIA H200': the plan
    for a name no run has is the whole plan, which read as if nothing had been measured."""
    from gpu import plan
    monkeypatch.setattr(plan, "ROOT", tmp_path)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "summary.json").write_text(json.dumps({"records": [
        {"machine": f"vm (Xeon, 16 cores, {plan.MEASURED_GPU})"},
        {"machine": "vm (EPYC, 2 cores)"}]}))
    assert plan.main(["--gpu", "nvidia-h100"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gpu/plan.py: no published run names 'nvidia-h100' (they name "
                   f"{plan.MEASURED_GPU}): its whole plan follows"]
    assert plan.main(["--gpu", plan.MEASURED_GPU]) == 0 and not capsys.readouterr().err


@pytest.mark.parametrize("unbuffered", ["1", None])
def test_the_plan_read_by_a_pipe_that_closes_ends_without_a_traceback(unbuffered):
    """`python3 gpu/plan.py | head` printed a BrokenPipeError traceback after head's lines
    (unbuffered, as in the GPU window's commands); buffered, it met the pipe only at exit."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env.update({"PYTHONUNBUFFERED": unbuffered} if unbuffered else {})
    read, write = os.pipe()
    os.close(read)  # closed before the plan starts: its output meets no reader
    with subprocess.Popen([sys.executable, "gpu/plan.py"], cwd=ROOT, env=env, stdout=write,
                          stderr=subprocess.PIPE, text=True) as plan:
        os.close(write)
        err = plan.stderr.read()
    assert plan.returncode == 1 and "Traceback" not in err, err


def test_the_plan_is_for_the_gpu_the_last_window_had_unless_told(tmp_path, monkeypatch, capsys):
    """Its default was the H100 of the first windows, whose plan (another timing code) is not the
    one the H200's windows since have been working through."""
    from gpu import plan
    monkeypatch.setattr(plan, "ROOT", tmp_path)
    runs = tmp_path / "results" / "Linux-CPython-3.12-64bit"
    _gpu_run(runs, "0090_gpu-jax-mnist_cnn.json", when="2026-11-27T00:00:00")
    _gpu_run(runs, "0091_gpu-jax-vgg.json", gpu="NVIDIA H200, 580.0, 143771 MiB",
             when="2026-12-04T00:00:00")
    _gpu_run(runs, "0092_gpu-jax-resnet.json", when="2026-12-05T00:00:00", complete=False)
    first = lambda argv: plan.main(argv) == 0 and capsys.readouterr().out.split(",")[0]
    assert first([]) == "NVIDIA H200"
    assert first(["--gpu", plan.MEASURED_GPU]) == plan.MEASURED_GPU
    assert plan.newest_gpu([tmp_path / "nothing"]) is None


def test_the_plan_prints_each_missing_steps_time_and_where_it_comes_from(tmp_path, monkeypatch,
                                                                         capsys):
    from gpu import plan
    monkeypatch.setattr(plan, "ROOT", tmp_path)
    _ledger(tmp_path / "results" / "findings" / "h100", plan.MEASURED_GPU, jax_mnist_cnn=40.0)
    _ledger(tmp_path / "results" / "findings" / "dry-run", "cpu", jax_mnist_cnn=10.0,
            first_calls_jax_resnet=100.0)
    assert plan.main([]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert "dry runs on AMD EPYC family 26 model 2" in lines[plan.MEASURED_GPU.split()[0]]
    total = [int(line.split()[5]) for line in out.splitlines() if " s (limit" in line][-1]
    windows = -(-total // (plan.CALL_S + plan.SECOND_CALL_S - 2 * plan.JOB_START_S))
    assert f"about {total / 60:.0f} minutes" in lines["about"]  # the running total, in minutes
    assert f"{windows} windows or more;" in lines["about"]
    assert "400 s" in lines["first-calls-jax-resnet"] and "dry run" in lines[
        "first-calls-jax-resnet"]
    assert "  40 s" in lines["jax-mnist_cnn"] and "a GPU job's cost" in lines["jax-mnist_cnn"]
    assert "GUESS_S" in lines["first-calls-torch-decoder-graph"]


@pytest.mark.parametrize("calls", ["abc", "535,", "0", "535,-5", "15"])
def test_calls_that_hold_no_step_are_a_usage_error(calls, capsys):
    """A call of the job's start or less held -666 windows' worth of steps."""
    from gpu import plan
    with pytest.raises(SystemExit) as stop:
        plan.main(["--calls", calls])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and f"error: --calls {calls}: " in err[-1]


def test_a_gpu_run_is_numbered_past_every_run_in_results_waits_too(tmp_path, monkeypatch):
    """Run 0100 was three runs: a CPU job's, a wait run under waits/ and a GPU window's."""
    from gpu import job
    for name in ("Linux-CPython-3.11-64bit/0100_default.json",
                 "Linux-CPython-3.12-64bit-1453ffec/0099_gpu-jax-decoder.json",
                 "waits/cuda/0098_gpu-chainer-mnist_cnn-wait-step.json"):
        (tmp_path / "results" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "results" / name).write_text("{}")
    monkeypatch.setattr(job, "ROOT", tmp_path)
    store = tmp_path / "store"
    job.number_on(store / "Linux-CPython-3.12-64bit")  # the GPU machine's store, empty
    assert conftest.next_number(store) == "0101"


def test_first_calls_run_only_where_their_models_steps_fit_after_them(tmp_path, monkeypatch,
                                                                      capsys):
    from dataclasses import replace
    from gpu import job
    from gpu.plan import PLAN, WHOLE_CALL_S
    ran, named = [], {s.name: s for s in PLAN}
    steps = [named["first-calls-jax-resnet"], named["jax-resnet"], named["parity-jax"]]
    monkeypatch.setattr(job, "missing", lambda *_: steps)
    _dry_job(monkeypatch, tmp_path, tmp_path / "out")
    monkeypatch.setattr(job, "run_step", lambda step, *_: ran.append(step.name)
                        or {"step": step.name, "exit": 0, "seconds": 1})
    seconds = steps[0].expect_s + 40 + 30  # the first calls alone fit, not with their steps
    assert job.main(["--seconds", str(seconds)]) == 0
    assert ran == ["parity-jax"] and "with jax-resnet" in capsys.readouterr().out
    # a pair longer than the whole call: the first calls run alone (their steps in the next)
    torch = [named["first-calls-torch-vgg-graph"],
             replace(named["torch-vgg"], expect_s=WHOLE_CALL_S)]
    monkeypatch.setattr(job, "missing", lambda *_: torch)
    ran.clear()
    assert job.main(["--seconds", str(torch[0].expect_s + 40 + 30)]) == 0
    assert ran[0] == "first-calls-torch-vgg-graph" and "with torch-vgg" not in capsys.readouterr().out


def test_a_steps_cost_says_where_its_time_went_before_and_after_its_pytest_session(tmp_path):
    """Window 4's torch ResNet step took 262 s and its session 177: the 85 others were a guess;
    window 5's torch configure took 74 s, and whether each process pays it was a guess."""
    from gpu import job
    from gpu.plan import PLAN
    step = next(s for s in PLAN if s.name == "torch-resnet")
    argv = job.command(step, "cuda")
    assert argv[argv.index("gpu.phases") - 1] == "-p"
    # a Python that cannot load the plugin runs its steps without it, not fails them all
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    assert job.phases_plugin(str(broken)) == ()
    test = tmp_path / "test_one.py"
    test.write_text("def test_one():\n    pass\n")
    # a conftest that configures as the suite's loads a backend on a GPU: the span holds it, and
    # the backend's import, configure and prime each have their own
    (tmp_path / "fakeback.py").write_text(
        "import time\n\nprimed = []\n\ndef configure():\n    time.sleep(0.2)\n\n"
        "def prime():\n    time.sleep(0.0 if primed else 0.3)\n    primed.append(1)\n")
    (tmp_path / "conftest.py").write_text(
        "import importlib\nimport time\n\ndef load(name):\n    time.sleep(0.1)\n"
        "    return importlib.import_module(name)\n\n"
        "def backend_module(name):\n    module = load(name)\n    module.configure()\n"
        "    module.prime()\n    module.prime()\n\n"
        "def pytest_configure(config):\n    backend_module('fakeback')\n")
    phases = tmp_path / "phases.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                           "gpu.phases", str(test)], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "GRAPHBENCH_PHASES": str(phases)})
    assert done.returncode == 0, done.stdout + done.stderr
    at = json.loads(phases.read_text())
    parts = [f"fakeback_{part}_{end}" for part in ("import", "configure", "prime")
             for end in ("began", "ended")]
    order = ["plugin_loaded", "configure_began", *parts, "configure_ended", "session_began",
             "session_ended", "sessionfinish_ended", "unconfigure_ended"]
    assert sorted(at, key=at.get) == order
    began = at["plugin_loaded"] - 2.0
    times = job.phase_times(phases, began, at["unconfigure_ended"] + 3.0)
    assert times["to_pytest_s"] == 2.0 and times["exit_s"] == 3.0 and times["configure_s"] >= 0.6
    assert times["before_session_s"] == round(at["session_began"] - began, 1)
    # the second, quick prime does not overwrite the first's marks: the cold one counts
    assert all(times[f"fakeback_{part}_s"] >= slept for part, slept in
               (("import", 0.1), ("configure", 0.2), ("prime", 0.3)))
    assert times["fakeback_prime_s"] < 0.6
    assert set(times) == {"before_session_s", "to_pytest_s", "configure_s", "session_s",
                          "after_s", "exit_s", "fakeback_import_s", "fakeback_configure_s",
                          "fakeback_prime_s"}
    del at["session_ended"], at["sessionfinish_ended"], at["unconfigure_ended"]
    del at["fakeback_prime_ended"]
    phases.write_text(json.dumps(at))  # stopped at its limit mid-session, in the prime
    assert set(job.phase_times(phases, began, began + 9)) == {
        "before_session_s", "to_pytest_s", "configure_s", "fakeback_import_s",
        "fakeback_configure_s"}
    assert job.phase_times(tmp_path / "none.json", 0.0, 1.0) == {}  # cut before pytest started
    phases.write_text("{")
    assert job.phase_times(phases, 0.0, 1.0) == {}


def test_a_named_backends_prime_is_profiled_in_its_first_step_of_a_call(tmp_path, monkeypatch):
    """Window 6: torch's prime took 63-71 s in every process on the H100, 12-18 s on the Zen 4;
    window 7 said where (inductor's ISA probes), at the cost of one prime under cProfile a call."""
    from gpu import job
    from gpu.plan import PLAN
    monkeypatch.setattr(job, "STORE", tmp_path / "store")
    monkeypatch.setattr(job, "_profiled", set())
    torch_steps = [s for s in PLAN if s.backend == "torch" and s.kind != "study"]
    # window 7 found the cause: no prime is profiled unless named again, and none keeps the probes
    assert job.PROFILED == set() and job.prime_profile(torch_steps[0]) is None
    assert job.step_environment(torch_steps[0], "cuda", None) == {"TORCHINDUCTOR_VEC_ISA_OK": "0"}
    monkeypatch.setattr(job, "PROFILED", {"torch"})
    paths = [job.prime_profile(s) for s in torch_steps[:2]]
    assert paths[0] == tmp_path / "store" / "profiles" / f"{torch_steps[0].name}.json"
    assert paths[1] is None  # once a call
    assert job.prime_profile(next(s for s in PLAN if s.backend == "jax")) is None
    assert job.read_profile(torch_steps[0], paths[0]) == {}  # cut before the prime: nothing
    # the profiled step keeps inductor's ISA probes; the call's later torch steps on a GPU skip
    # them (a CUDA model compiles no C++); a dry run and the other backends keep them
    probes = {"TORCHINDUCTOR_VEC_ISA_OK": "0"}
    assert job.step_environment(torch_steps[0], "cuda", paths[0]) == {}
    assert job.step_environment(torch_steps[1], "cuda", None) == probes
    assert job.step_environment(torch_steps[1], "cpu", None) == {}
    jax = next(s for s in PLAN if s.backend == "jax")
    assert job.step_environment(jax, "cuda", None) == {}
    determinism = next(s for s in PLAN if s.name == "determinism-torch")
    assert job.step_environment(determinism, "cuda", None) == {
        "CUBLAS_WORKSPACE_CONFIG": ":4096:8", **probes}
    test = tmp_path / "test_one.py"
    test.write_text("def test_one():\n    pass\n")
    (tmp_path / "fakeback.py").write_text(  # inductor's ISA probes: a Python that imports torch
        "import subprocess\nimport sys\nimport time\n\ndef configure():\n    pass\n\n"
        "def warm_up():\n    time.sleep(0.3)\n\ndef prime():\n    warm_up()\n"
        "    subprocess.check_call([sys.executable, '-c', 'import time\\ntime.sleep(0.2)'])\n"
        "    subprocess.check_output(['true', 'x.cpp'])\n")
    (tmp_path / "conftest.py").write_text(
        "import importlib\n\ndef load(name):\n    return importlib.import_module(name)\n\n"
        "def backend_module(name):\n    module = load(name)\n    module.configure()\n"
        "    module.prime()\n    module.prime()\n\n"
        "def pytest_configure(config):\n    backend_module('fakeback')\n")
    paths[0].parent.mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                           "gpu.phases", str(test)], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "GRAPHBENCH_PHASES": str(tmp_path / "phases.json"),
                               "GRAPHBENCH_PROFILE": str(paths[0])})
    assert done.returncode == 0, done.stdout + done.stderr
    found = job.read_profile(torch_steps[0], paths[0])["torch_prime_profile"]
    assert 0.5 <= found["seconds"] < 1.5  # the first prime alone
    warm_up = next(e for e in found["cumulative"] if e[0].endswith("(warm_up)"))
    assert warm_up[1] >= 0.3 and warm_up[2] == 1
    assert found["own"][0][0] == "<built-in method time.sleep>" and len(found["cumulative"]) <= 80
    ran = found["subprocesses"]
    assert ran["count"] == 2 and [name for name, _ in ran["longest"]] == [
        f"{Path(sys.executable).name} -c import time time.sleep(0.2)", "true x.cpp"]
    assert ran["longest"][0][1] >= 0.2 and ran["seconds"] >= 0.2


def test_steps_run_again_for_their_first_calls_wait_for_them_and_the_preview_says_so():
    """The preview of window 5 ran torch's MNIST CNN steps (215 s, measured already at an older
    code) in a call where their first calls did not fit: a rerun no break-even could read."""
    from dataclasses import replace
    from gpu.job import chosen, preview
    from gpu.plan import PLAN
    named = {s.name: s for s in PLAN}
    sized = lambda name, seconds: replace(named[name], expect_s=seconds)
    steps = [sized("first-calls-jax-resnet", 200), sized("jax-resnet", 50),
             sized("parity-jax", 10)]
    why = dict((step.name, why) for step, why in chosen(steps, lambda _: 150))
    assert why["jax-resnet"].startswith("waits for first-calls-jax-resnet")  # 90 s would fit
    assert "with jax-resnet" in why["first-calls-jax-resnet"] and why["parity-jax"] is None
    assert preview(steps, [150, 535]) == [["parity-jax"], ["first-calls-jax-resnet",
                                                           "jax-resnet"]]
    # a pair longer than a call: the first calls alone, their steps first in the next call
    torch = [sized("first-calls-torch-vgg-graph", 400), sized("torch-vgg", 300), sized("parity-jax", 10)]
    assert preview(torch, [535, 535]) == [["first-calls-torch-vgg-graph", "parity-jax"], ["torch-vgg"]]
    # a step longer than any call (the dry run sized torch's ResNet first calls at 651 s): said
    why = dict((s.name, w) for s, w in chosen([sized("first-calls-torch-vgg-graph", 651)],
                                              lambda _: 535))
    assert "more than a call holds (480 s)" in why["first-calls-torch-vgg-graph"]
    # the job's start is inside its --seconds: 15 s of 535 before its first step, in the preview too
    two = [sized("determinism-jax", 300), sized("precision-jax", 190)]
    assert preview(two, [535]) == [["determinism-jax"]]


def test_checks_run_side_by_side_and_no_timed_step_beside_them(tmp_path, monkeypatch):
    """Parity's six remaining steps (829 s expected, compile-bound) took a window one after
    another on a machine of 16 cores: a check holds no clock, so the job starts consecutive
    ones at once, and a timed step only after they ended."""
    from dataclasses import replace
    from gpu import job
    from gpu.plan import PLAN
    named = {s.name: s for s in PLAN}
    sized = lambda name, seconds: replace(named[name], expect_s=seconds)
    # only tests run side by side, never a suite that times (suites/)
    beside = [s for s in PLAN if s.kind in job.SIDE_BY_SIDE]
    assert beside and all(s.args[0].startswith("tests/") for s in beside)
    steps = [sized("parity-jax", 300), sized("parity-chainer", 190), sized("determinism-jax", 100)]
    assert job.preview(steps, [535]) == [[s.name for s in steps]]  # 300 s, then 100 of 220 left
    assert job.preview(steps[1:2] + steps[2:] + steps[:1], [535]) == [
        ["parity-chainer", "determinism-jax"]]  # a timed step between: each group waits on it
    # each fake check waits for the other's mark: one after the other, the first would time out;
    # the first (waited on first) ends 2 s after the second, whose cost is its own end's
    marks = tmp_path / "marks"
    marks.mkdir()
    check = ("import pathlib, sys, time\nmarks = pathlib.Path(sys.argv[1])\n"
             "def wait(name):\n    for _ in range(200):\n"
             "        if (marks / name).exists(): return\n        time.sleep(0.1)\n"
             "    print('0 passed, 1 failed'); sys.exit(1)\n"
             "(marks / sys.argv[2]).touch()\nwait(sys.argv[3])\n"
             "if sys.argv[2] == 'a':\n    wait('b.done'); time.sleep(2)\n"
             "(marks / (sys.argv[2] + '.done')).touch()\nprint('1 passed')\n")
    timed = ("import pathlib, sys\nmarks = pathlib.Path(sys.argv[1])\n"
             "sys.exit(0 if (marks / 'a.done').exists() and (marks / 'b.done').exists() else 1)\n")
    argv = {"parity-jax": ("-c", check, str(marks), "a", "b"),
            "parity-chainer": ("-c", check, str(marks), "b", "a"),
            "determinism-jax": ("-c", timed, str(marks))}
    monkeypatch.setattr(job, "command", lambda step, *_: [sys.executable, *argv[step.name]])
    monkeypatch.setattr(job, "missing", lambda *_: steps)
    _dry_job(monkeypatch, tmp_path / "store", tmp_path / "out")
    assert job.main(["--seconds", "535"]) == 0
    costs = json.loads((tmp_path / "out" / "steps.json").read_text())
    assert [(c["step"], c["exit"], c.get("side_by_side")) for c in costs] == [
        ("parity-jax", 0, 2), ("parity-chainer", 0, 2), ("determinism-jax", 0, None)]
    assert costs[1]["seconds"] + 1 < costs[0]["seconds"]  # not the time to the first's end
    saved = json.loads((tmp_path / "store" / "findings" / "gpu_parity-chainer.json").read_text())
    assert saved["counts"] == {"passed": 1} and saved["complete"]  # its own output, not the other's


def test_torchs_resnet_first_calls_take_three_steps_that_the_report_joins(tmp_path):
    """Sized at 651 s from their dry run, torch's ResNet first calls fitted no call; its
    `-graph` part expects 395 s, so a five-case `-cudagraphs` half about 660."""
    from dataclasses import replace
    from gpu.job import longer_than_a_call
    from gpu.plan import PLAN, WHOLE_CALL_S, by_cases, dry_estimates, missing, step_costs
    from report.build.plan_gaps import not_measured
    parts = [s for s in PLAN if s.part == "first calls" and s.backend == "torch"
             and s.label == "resnet"]
    assert [s.args[s.args.index("--variant") + 1] for s in parts] == [
        "eager,graph", "eager,graph_cudagraphs", "eager,cuda_graph"]
    # every torch model's: the MNIST CNN's four arms outlasted their 413-s limit (window 6)
    assert [s.name for s in PLAN if s.part == "first calls" and s.backend == "torch"] == [
        f"first-calls-torch-{m}-{half}" for m in ("mnist_cnn", "vgg", "resnet", "decoder")
        for half in (("graph", "reduce-overhead", "cuda_graph") if m == "resnet"
                     else ("graph", "cudagraphs"))]
    _ledger(tmp_path / "dry", "cpu", first_calls_torch_resnet_graph=185.0, torch_decoder=80.0,
            first_calls_torch_vgg=100.0)
    _ledger(tmp_path / "h100", "NVIDIA H100 80GB HBM3", torch_decoder=170.0)
    sized = {s.name: s for s in missing([tmp_path], "NVIDIA H100 80GB HBM3", "abc")}
    graph = sized["first-calls-torch-resnet-graph"].expect_s
    assert graph == 394 and graph * 5 / 3 > WHOLE_CALL_S  # a half of five cases: no call holds it
    # a dry run of the whole first-calls step (before the split) ran the `-graph` part's cases:
    # a CPU skips the CUDA-graph arms
    assert sized["first-calls-torch-vgg-graph"].expect_s == 213
    assert all(sized[f"first-calls-torch-resnet-{third}"].expect_s == graph  # three cases each
               for third in ("reduce-overhead", "cuda_graph"))
    # a half whose cases outlast a call is said before a window, not cut in one
    costs = step_costs([tmp_path], "NVIDIA H100 80GB HBM3")
    half = next(s for s in PLAN if s.name == "first-calls-torch-vgg-cudagraphs")
    _ledger(tmp_path / "dry", "cpu", stamp="20261127T020000", first_calls_torch_vgg_graph=185.0)
    assert longer_than_a_call(by_cases(replace(half, sized_by="the plan's guess"), costs,
                                       dry_estimates([tmp_path], costs)))
    # the ResNet's steps of an older code: once, right after the first of the three
    _gpu_run(tmp_path / "runs", "0094_gpu-torch-resnet.json", code="old")
    left = [s.name for s in missing([tmp_path], "NVIDIA H100 80GB HBM3", "abc")]
    at = left.index("first-calls-torch-resnet-graph")
    assert left[at:at + 4] == ["first-calls-torch-resnet-graph", "torch-resnet",
                               "first-calls-torch-resnet-reduce-overhead",
                               "first-calls-torch-resnet-cuda_graph"]
    assert left.count("torch-resnet") == 1
    # one half measured: the other still named as not measured
    first = lambda variant: _rec("first_call", "torch", variant, "construction", "resnet",
                                 case="cold")
    gap = lambda records: next(x for x in not_measured(records) if x.startswith("first calls"))
    assert gap([first("eager")]).endswith("break-even")  # eager alone: no step measured
    assert gap([first("eager"), first("graph")]).endswith("torch: mnist_cnn, vgg, part of "
                                                          "resnet, decoder)")
    assert gap([first("eager"), first("graph"), first("cuda_graph")]).endswith(
        "torch: mnist_cnn, vgg, part of resnet, decoder)")  # `reduce-overhead`'s still to come
    assert gap([first("eager"), first("graph"), first("cuda_graph"),
                first("graph_cudagraphs")]).endswith("torch: mnist_cnn, vgg, decoder)")


def test_a_torch_first_calls_half_expects_the_time_of_its_cases():
    """Window 6 cut the MNIST CNN's first calls after 4-5 cases in 420 s (about 75 s a case):
    sized at the whole step's 300 s, the five-case `-cudagraphs` half would start after another
    step and be cut again; it waits for a call with its 450 s (395 without inductor's ISA
    probes)."""
    from dataclasses import replace
    from gpu import job
    from gpu.plan import PLAN, PROBES_S, WHOLE_CALL_S
    half = {s.name.rsplit("-", 1)[1]: s for s in PLAN
            if s.name.startswith("first-calls-torch-mnist_cnn-")}
    assert (half["graph"].expect_s, half["cudagraphs"].expect_s) == (300 - PROBES_S,
                                                                      450 - PROBES_S)
    assert half["cudagraphs"].expect_s <= WHOLE_CALL_S and half["cudagraphs"].limit_s > WHOLE_CALL_S
    before = replace(half["graph"], name="another", expect_s=100, part="")
    ran, left = [], [520.0]  # a first call's seconds after the job's start
    for step, why in job.chosen([before, half["cudagraphs"]], lambda _: left[0]):
        if why is None:
            ran.append(step.name)
            left[0] -= step.expect_s
    assert ran == ["another"]  # 420 s left: not enough for 450 and the grace to save


def test_the_gpu_plan_has_every_answer_row_with_the_mnist_cnn_first():
    from gpu.plan import ANSWER_MODELS, PLAN, SWEEP_POINTS
    steady = [s for s in PLAN if s.kind == "run" and s.keys]
    rows = {key for s in steady for key in s.keys}
    assert {(b, m, p, "block") for b in ("jax", "chainer", "torch") for m in ANSWER_MODELS
            for p in ("train", "infer")} <= rows
    assert [s.keys[0][1] for s in steady][:4] == ["mnist_cnn"] * 4  # block, then jax's step wait
    torch = next(s for s in steady if s.name == "torch-vgg")
    assert "graph_cudagraphs,cuda_graph" in " ".join(torch.args) and "--wait" in torch.args
    blocks = [s for s in steady if s.keys[0][3] == "block"]
    later = [s.part for s in PLAN[PLAN.index(blocks[-1]):] if s.part]  # after every answer row
    assert later[:1] == ["first calls"] and {"lengths", "precision", "determinism"} <= set(later)
    waits = [s.name for s in steady if s.keys[0][3] == "step"]  # jax's first, the others later
    assert waits[0] == "jax-mnist_cnn-wait-step" and [s.name for s in PLAN].index(waits[-1]) > max(
        PLAN.index(s) for s in PLAN if s.part in ("first calls", "busy"))
    sweep = [s for s in PLAN if s.part == "sweep"]  # the default profile's: the report shows it
    parts = [s.part for s in PLAN if s.part]  # the issue asks for its busy points only: last
    assert parts[-len(sweep):] == ["sweep"] * len(sweep) and parts.count("parity") == 12
    assert [s.backend for s in sweep[::len(SWEEP_POINTS)]] == ["jax", "chainer", "torch"]
    assert all("suites/test_scale.py" in s.args and "--profile" not in s.args for s in sweep)
    points = [s.args[-1] for s in sweep]  # one step a point; busy points: steps of their own
    assert points[:len(SWEEP_POINTS)] == list(SWEEP_POINTS) and SWEEP_POINTS == tuple(
        m for m in PROFILES["default"].on_device("cuda").scale.models if not m.startswith("busy-"))
    assert not any(p.startswith("busy-") or p in q for p in points for q in points if p != q)
    busy = [s for s in PLAN if s.part == "busy"]  # issue 49's 1.3, before lengths (1.4)
    assert [s.name for s in busy] == ["busy-torch-resnet", "busy-jax-resnet",
                                      "busy-torch-decoder", "busy-jax-decoder"]
    assert PLAN.index(busy[-1]) < PLAN.index(next(s for s in PLAN if s.part == "lengths"))
    assert all(s.limit_s <= 560 for s in busy)  # one call's 600 s less the 40 s for saving
    determinism = next(s for s in PLAN if s.name == "determinism-torch")
    assert ("CUBLAS_WORKSPACE_CONFIG", ":4096:8") in determinism.env


def test_chainers_lengths_take_a_step_per_strategy_and_the_others_a_step_per_variant():
    """CuPy keeps a process's kernels in memory, where no compile_cache reaches: each of Chainer's
    strategies runs in a pytest session of its own (`-k` it), so none reuses another's kernels;
    torch and JAX empty theirs in-process and keep one step a variant."""
    from gpu.plan import LENGTHS_VARIANTS, PAD_STRATEGY_NAMES, PLAN, lengths_totals
    from models.weights import PAD_STRATEGIES
    assert PAD_STRATEGY_NAMES == tuple(PAD_STRATEGIES)
    steps = {b: [s for s in PLAN if s.part == "lengths" and s.backend == b]
             for b in LENGTHS_VARIANTS}
    assert [(s.label, s.args[-1]) for s in steps["chainer"]] == lengths_totals("chainer") == [
        (v, k) for v in LENGTHS_VARIANTS["chainer"] for k in PAD_STRATEGIES]
    assert [(s.label, s.case) for s in steps["chainer"]] == lengths_totals("chainer")
    assert all(s.args[-2] == "-k" and s.name == f"lengths-chainer-{s.label}-{s.args[-1]}"
               for s in steps["chainer"])
    for b in ("jax", "torch"):
        assert [s.label for s in steps[b]] == list(LENGTHS_VARIANTS[b])
        assert not any("-k" in s.args for s in steps[b])


def test_a_chainer_lengths_strategy_is_measured_only_by_its_own_total():
    """The tenth window ran two of Chainer's eight lengths strategies (eager, exact and powers of
    two): part of its eager variant is still named as not measured, beside its graph one."""
    from gpu.plan import PAD_STRATEGY_NAMES
    from report.build.plan_gaps import not_measured
    total = lambda variant, case: _rec("lengths_total", "chainer", variant, "lengths", "decoder",
                                       case=case)
    gap = lambda records: next(x for x in not_measured(records) if x.startswith("lengths"))
    assert gap([total("eager", "exact"), total("eager", "pow2")]) == (
        "lengths that vary (jax, torch; chainer: part of eager, graph)")
    assert gap([total(v, k) for v in ("eager", "graph") for k in PAD_STRATEGY_NAMES]) == (
        "lengths that vary (jax, torch)")


def test_the_gpu_job_needs_the_commit_it_was_sent(monkeypatch, capsys):
    from gpu import job
    monkeypatch.delenv("GRAPHBENCH_CODE", raising=False)
    assert job.main(["--seconds", "10"]) == 2
    assert "GRAPHBENCH_COMMIT" in capsys.readouterr().err


def test_a_wait_that_is_not_step_or_block_is_a_usage_error():
    error = _usage_error(_pytest("tests/test_spec.py", "--co", "-q", "--wait", "never"))
    assert "unknown wait 'never'" in error and "step, block" in error
    assert conftest.default_wait("cuda") == "block" and conftest.default_wait("cpu") == "step"


def test_a_step_at_its_limit_is_stopped_as_pytest_saves_not_killed(tmp_path, monkeypatch):
    """subprocess.run's timeout SIGKILLs: the first window lost two partial runs so."""
    from gpu import job
    from gpu.plan import Step
    script = tmp_path / "slow.py"
    script.write_text("import json, signal, sys, time\n"
                      "def stop(*_):\n"
                      "    print(json.dumps({'saved': 'on SIGTERM'})); sys.exit(1)\n"
                      "signal.signal(signal.SIGTERM, stop)\n"
                      "print('started', flush=True)\n"
                      "time.sleep(60)\n")
    monkeypatch.setattr(job, "STUDIES", tmp_path / "findings")
    monkeypatch.setattr(job, "STORE", tmp_path / "store")  # its output and phases, else /tmp's
    step = Step("slow", "jax", (str(script),), 1, "a study past its limit", kind="study")
    cost = job.run_step(step, "cpu", dict(os.environ), 1.0, {"gpu": "cpu"})
    assert cost["exit"].startswith("stopped at its limit") and cost["seconds"] < 30
    saved = json.loads((tmp_path / "findings" / "gpu_slow.json").read_text())
    assert saved["results"] == [{"saved": "on SIGTERM"}] and not saved["complete"]


def test_the_job_leaves_a_step_that_cannot_fit_for_the_next_window(tmp_path, monkeypatch, capsys):
    """The first window's last call began a 330 s torch group with 189 s left: lost."""
    from gpu import job
    from gpu.plan import Step
    ran = []
    big = Step("big", "torch", ("x",), 400, "long", expect_s=330)
    small = Step("small", "jax", ("y",), 60, "short", expect_s=20)
    monkeypatch.setattr(job, "missing", lambda *_: [big, small])
    _dry_job(monkeypatch, tmp_path, tmp_path / "out")
    monkeypatch.setattr(job, "run_step", lambda step, *_: ran.append(step.name)
                        or {"step": step.name, "exit": 0, "seconds": 1})
    assert job.main(["--seconds", "200"]) == 0
    out = capsys.readouterr().out
    assert ran == ["small"] and "big: left for the next window (expects 330 s and 40 s to save" in out


LOOP = {"versions": {}, "timed_as_a_loop": True}  # the build's view of a GPU timed as a loop


def _rec(kind, backend, variant, phase="train", model="mnist_cnn", estimate=2.0, **more):
    return {"kind": kind, "backend": backend, "model": model, "variant": variant, "phase": phase,
            "precision": "float32", "estimate": estimate, "low": estimate * 0.9,
            "high": estimate * 1.1, "interval": "95% paired bootstrap", "note": None,
            "run": "0091_gpu-torch-mnist_cnn", "dirty": False, "wait": "block", "threads": 16,
            "aa_floor_low": 0.97, "aa_floor_high": 1.06, "mark": "",
            **({"timed": True} if kind == "break_even" else {}), **more}


def test_the_gpu_table_says_chainer_runs_without_cudnn_on_cupy_14():
    from report.build.runs import version_notes
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    for cupy, says in (("14.2.0", True), ("13.6.0", False)):
        versions = {"chainer": "7.8.1", "cupy-cuda13x": cupy}
        shown = {"versions": versions, "version_notes": version_notes(versions),
                 "timed_as_a_loop": True}
        head = gpu_table(gpu, shown, [_rec("speedup", "chainer", "graph")], "cpu", [])[0]
        assert (f"cupy-cuda13x {cupy} (no cuDNN: CuPy 14 dropped it)" in head) == says, head
        assert f"cupy-cuda13x {cupy}" in head
    assert version_notes({"cupy": "dev", "numpy": "14.0"}) == {}  # no major to read: no note


def test_the_gpu_table_shows_each_variant_its_cpu_row_and_what_is_not_measured():
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    records = [_rec("step_time", "torch", "eager", estimate=1.5e-3),
               _rec("step_time", "torch", "cuda_graph", estimate=0.2e-3),
               _rec("speedup", "torch", "cuda_graph", estimate=6.9),
               _rec("speedup", "torch", "graph", estimate=0.77),
               _rec("speedup", "torch", "graph", phase="infer", estimate=0.65),
               dict(_rec("step_time", "chainer", "graph", model="resnet"), estimate=None,
                    known_wrong="BatchNorm replayed (findings/chainer_static_graph_bn.md)",
                    note="non-finite loss")]
    from report.build.plan_gaps import not_measured
    cpu = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    shown = {"versions": {}, "not_measured": not_measured(records), "timed_as_a_loop": True}
    text = "\n".join(gpu_table(gpu, shown, records, "cpu", cpu))
    assert text.startswith("**On the H100** (NVIDIA H100 80GB HBM3, 16 threads;")
    rows = [line for line in text.splitlines() if line.startswith("| mnist_cnn")]
    assert [row.split(" | ")[2] for row in rows] == ["`graph`", "`cuda_graph`"]  # registry order
    assert "1.50 → 0.20" in rows[1] and "GPU only" in rows[1] and "`0091`" in rows[1]
    assert "1.29× [1.16, 1.42]" in rows[0] and "0.65× [0.59, 0.72]" in rows[0]
    wrong_there = [{**cpu[0], "known_wrong": "AVX2 heap"}]  # timed, then found wrong (a Zen 3)
    row = gpu_table(gpu, shown, records, "cpu", wrong_there, brief=True)[4]
    assert "| — (a known wrong answer there) |" in row and "1.29" not in row, row
    assert ("Known wrong here, no speedup: resnet (chainer `graph`, [finding](findings/chainer_"
            "static_graph_bn.md)).") in text  # a path: it resolves in README and RESULTS.md alike
    from report.views.gpu import known_wrong
    assert known_wrong([dict(records[-1], known_wrong="no write-up yet")]) \
        == ["resnet (chainer `graph`)"]
    assert ("Not yet on this GPU: mnist_cnn (jax, chainer); vgg; resnet (jax, torch); decoder; "
            "first calls") in text
    assert "lengths that vary; " in text  # no variant of any backend yet
    assert "TensorFlow" in text
    step_timed = [dict(r, wait=None) for r in records]  # the first window's: each step waited on
    from report.build.runs import timed_as_a_loop
    assert timed_as_a_loop(records) and not timed_as_a_loop(step_timed)
    assert gpu_table(gpu, {"versions": {}, "timed_as_a_loop": False}, step_timed, "cpu", cpu) == []


def test_the_gpu_table_pays_back_with_a_first_calls_run_of_its_own():
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    first = {"run": "0105_gpu-first-calls-torch-mnist_cnn", "phase": "construction"}
    records = [_rec("step_time", "torch", "eager", estimate=1.5e-3),
               _rec("speedup", "torch", "graph", estimate=1.3),
               _rec("speedup", "torch", "cuda_graph", estimate=6.9),
               _rec("break_even", "torch", "graph", estimate=7302, case="cold",
                    first_calls_run=first["run"]),
               _rec("break_even", "torch", "graph", estimate=533, case="warm",
                    first_calls_run=first["run"]),
               _rec("first_call", "torch", "graph", estimate=37.31, case="cold", **first),
               _rec("first_call", "torch", "graph", estimate=2.77, case="warm", **first),
               dict(_rec("break_even", "torch", "cuda_graph", case="cold"), estimate=None,
                    note="never (slower)"),
               _rec("first_call", "torch", "cuda_graph", estimate=9.0, case="cold", **first)]
    cpu = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    full = gpu_table(gpu, LOOP, records, "cpu", cpu)
    brief = gpu_table(gpu, LOOP, records, "cpu", cpu, brief=True)
    graph = next(line for line in brief if line.startswith("| mnist_cnn | torch | `graph`"))
    assert " | 7,302 / 533 | 37.31 → 2.77 | 1.29× | `0091`, `0105` |" in graph
    assert "| never (slower) / — | 9.00 → — |" in next(
        line for line in brief if "`cuda_graph`" in line)
    assert "A/A, train" in full[2] and "A/A, train" not in brief[2]
    assert "1.29× [1.16, 1.42]" in "\n".join(full) and "1.29× [" not in "\n".join(brief)
    # the build says which break-evens were timed (`timed`): a verdict, or a first call missing
    no_gain = [_rec("speedup", "torch", "graph_cudagraphs", estimate=1.01),
               dict(_rec("break_even", "torch", "graph_cudagraphs", case="cold"), estimate=None,
                    note="no gain past ±3%: at most 2%"),
               dict(_rec("break_even", "torch", "graph_cudagraphs", case="warm"), estimate=None,
                    timed=False, note="no warm first call in this run"),
               _rec("first_call", "torch", "graph_cudagraphs", estimate=40.0, case="cold", **first)]
    brief = gpu_table(gpu, LOOP, records + no_gain, "cpu", cpu, brief=True)
    assert "| — (no gain past ±3%: at most 2%) / — | 40.00 → — |" in next(
        line for line in brief if "`graph_cudagraphs`" in line)


def test_the_busy_points_are_a_line_of_their_own_under_the_gpu_table():
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    busy = _rec("busy_speedup", "torch", "graph", model="busy-resnet-d50-s224-w1-b32",
                estimate=1.8, flops=7.9e11, batch=32, run="0105_gpu-busy-torch-resnet",
                model_config={"depth": 50, "width": 1.0, "side": 224})
    records = [_rec("step_time", "torch", "eager", estimate=1.5e-3),
               _rec("speedup", "torch", "graph", estimate=0.77), busy]
    text = "\n".join(gpu_table(gpu, LOOP, records, "cpu", []))
    assert ("Where the GPU is busy (train step, eager ÷ `graph`): ResNet-50 at full width, 224² "
            "px, batch 32, 790 GFLOP a step: torch 1.80× [1.62, 1.98] (`0105`).") in text
    assert "busy (" not in "\n".join(gpu_table(gpu, LOOP, records[:2], "cpu", []))


def test_the_busy_points_run_on_a_gpu_only_or_in_its_dry_run():
    from suites.profiles import PROFILES
    default = PROFILES["default"]
    busy = {"busy-resnet-d50-s224-w1-b32", "busy-decoder-d512-h8-x6-t256-b8"}
    assert busy <= set(default.on_device("cuda").scale.models)
    assert not busy & set(default.on_device("cpu").scale.models)
    assert busy <= set(default.on_device("cpu", busy=True).scale.models)
    assert default.on_device("cuda").scale.models["busy-resnet-d50-s224-w1-b32"] == (
        "resnet", {"depth": 50, "width": 1.0, "side": 224}, 32)


def test_a_wait_after_every_step_is_a_record_and_a_line():
    from report.views.gpu import wait_line
    from report.build.studies import wait_records
    line = {"backend": "jax", "variant": "graph", "rounds": 20, "ms": {"step": 0.62, "block": 0.29},
            "step_over": {"block": {"ratio": 2.13, "low": 2.06, "high": 2.23,
                                    "significant": True}},
            "study": "gpu_step-cost-jax", "machine": {"commit": "c" * 40}}
    found = wait_records("vm (x, NVIDIA H100 80GB HBM3)", {"NVIDIA H100 80GB HBM3": [line]})
    assert [(r["kind"], r["estimate"], r["verdict"]) for r in found] == [("wait_cost", 2.13,
                                                                          "slower")]
    assert wait_records("vm (x, NVIDIA H200)", {"NVIDIA H100 80GB HBM3": [line]}) == []
    assert "`jax.jit` 2.13× [2.06, 2.23] (0.62 ms against 0.29)" in wait_line(found)


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


def _cpu_and_two_gpus(first, second):
    """The views' machines: a CPU's torch row, then two GPUs' (`0091_gpu`, `0110_gpu`)."""
    cpu = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    gpu = lambda run: [_rec("step_time", "torch", "eager", run=run),
                       _rec("speedup", "torch", "graph", run=run, verdict="faster")]
    return [("cpu", {"versions": {}}, cpu), (first, LOOP, gpu("0091_gpu")),
            (second, LOOP, gpu("0110_gpu"))]


def test_the_readme_shows_the_gpu_with_most_rows_and_names_the_other():
    from types import SimpleNamespace
    from report.build.select import front_gpu
    from report.views.answer import answer_text
    h100, h200 = ("vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)", "vm (Xeon, 16 cores, NVIDIA H200)")
    run = lambda machine, model, when, wait="block": SimpleNamespace(
        machine=machine, graphbench={"device": "cuda", "wait": wait}, info={"phase": "train"},
        key=("torch", model, "graph", "train", None), datetime=when)
    results = [run(h100, "mnist_cnn", "1"), run(h100, "vgg", "1"), run(h200, "vgg", "2"),
               *(run(h200, m, "3", wait="step") for m in ("resnet", "decoder", "mnist_cnn"))]
    assert front_gpu(results) == h100  # most rows timed as a loop, though older
    assert front_gpu(results[2:]) == h200 and front_gpu(results[3:]) is None
    machines = _cpu_and_two_gpus(h100, h200)
    readme = answer_text(machines, "cpu", more="RESULTS.md#full", gpu=h100)
    assert "**On the H100**" in readme and "**On the H200**" not in readme
    assert "fewer rows measured" not in readme  # the Other GPUs line says where its table is
    assert ("- **Other GPUs** (the H200, in RESULTS.md), against the H100's train rows: the same "
            "verdict on 1 of the 1 rows both decided.") in readme
    assert "**On the H200**" in answer_text(machines, "cpu")  # RESULTS.md: every GPU's table


def test_article_004s_gpu_figure_is_the_one_of_the_gpu_table_shown():
    """After the tenth window the README showed the H200's table (1.19× for Chainer's MNIST CNN)
    yet quoted the H100's 1.26× for article 004, the first GPU listed: the line now quotes the
    GPU whose table the answer shows (the build's front_gpu), in RESULTS.md too."""
    from report.views.answer import answer_text
    h100, h200 = ("vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)", "vm (Xeon, 16 cores, NVIDIA H200)")
    chainer = lambda machine, estimate, run, device="cuda": [
        _rec("step_time", "chainer", "eager", run=run, machine=machine),
        _rec("speedup", "chainer", "graph", estimate=estimate, run=run, machine=machine,
             device=device, processes=3, rounds=10, verdict="faster")]
    machines = [("cpu", {"versions": {}}, chainer("cpu", 1.17, "0123_default", "cpu")),
                (h100, LOOP, chainer(h100, 1.26, "0105_gpu")),
                (h200, LOOP, chainer(h200, 1.19, "0228_gpu"))]
    seed = lambda text: next(line for line in text.splitlines() if "Source article 004" in line)
    for gpu, figure, other in ((h200, "on the H200 1.19×", "H100"),
                               (h100, "on the H100 1.26×", "H200")):
        for text in (answer_text(machines, "cpu", more="RESULTS.md#full", gpu=gpu),
                     answer_text(machines, "cpu", gpu=gpu)):
            assert figure in seed(text) and f"on the {other}" not in seed(text)


def test_the_readmes_legend_defines_the_machines_its_answer_names_only():
    """A machine the README's answer never names (another CPU that agrees) is not in its legend;
    a GPU named only by the line that links its table is."""
    from report.views.answer import answer_text
    cpu, other = ("vm (AMD EPYC, family 26 model 2, 2 cores)",
                  "vm (AMD EPYC, family 25 model 17, 2 cores)")
    h100, h200 = ("vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)", "vm (Xeon, 16 cores, NVIDIA H200)")
    speedup = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    gpu = lambda run: [_rec("step_time", "torch", "eager", run=run),
                       _rec("speedup", "torch", "graph", run=run, verdict="faster")]
    machines = [(cpu, {"versions": {}}, speedup), (other, {"versions": {}}, speedup),
                (h100, LOOP, gpu("0091_gpu")), (h200, LOOP, gpu("0110_gpu"))]
    legend = next(line for line in answer_text(machines, cpu, more="R.md#full", gpu=h100)
                  .splitlines() if line.startswith("Machines: "))
    assert f"`{cpu}`" in legend and f"`{h100}`" in legend and f"`{h200}`" in legend
    assert f"`{other}`" not in legend


# what a GPU window adds above the table: the short lines name more models, and its break-even;
# and a window on another GPU kind, its legend entry (121 characters for the H200, 2026-12-04)
# and its Other GPUs line (123 in the H200's first window at 37ef4920a8c9, 2026-12-04; 232 with
# an undecided rows' clause and another code's): less what the README already holds of those two
MORE_MODELS = 200
OTHER_GPU_LINES = {r"; \*\*[^*]+\*\* = `[^`]*NVIDIA[^`]*`": 125, r"^- \*\*Other GPUs\*\*.*$": 235}


def test_first_calls_read_from_a_kept_cache_are_a_later_runs_and_a_line_says_why():
    """Chainer's on a GPU (CuPy's kernel cache): the row shows no first run, the later runs'
    break-even and first call with the first calls' run, and a line quotes the round that
    compiled."""
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    first = {"run": "0103_gpu-first-calls-chainer-mnist_cnn", "phase": "construction",
             "kept_cache": "CuPy's kernel cache"}
    records = [_rec("speedup", "chainer", "graph", estimate=1.26),
               dict(_rec("break_even", "chainer", "graph", case="cold"), estimate=None,
                    timed=False, note="no cold first call: CuPy's kernel cache was kept between "
                                      "processes"),
               _rec("break_even", "chainer", "graph", estimate=1, case="warm",
                    first_calls_run=first["run"]),
               dict(_rec("first_call", "chainer", "eager", case="warm", **first), estimate=0.23,
                    high=3.22),
               _rec("first_call", "chainer", "graph", estimate=0.23, case="warm", **first)]
    text = "\n".join(gpu_table(gpu, LOOP, records, "cpu", []))
    row = next(line for line in text.splitlines() if line.startswith("| mnist_cnn | chainer"))
    assert " | — / 1 | — → 0.23 | GPU only | `0091`, `0103` |" in row
    from report.build.plan_gaps import not_measured
    brief = "\n".join(gpu_table(gpu, {**LOOP, "not_measured": not_measured(records)}, records,
                                "cpu", [], brief=True))
    assert "a first run's first calls (chainer: CuPy's kernel cache kept)" \
        in brief and "slowest round" not in brief  # the README names it; RESULTS.md says why
    assert ("On this GPU, chainer's first calls read CuPy's kernel cache, which cold rounds do "
            "not empty: only the first process to need a kernel compiles it (mnist_cnn eager: "
            "slowest round 3.22 s, median 0.23 s), so they are a later run's (warm); a first "
            "run's are not measured") in text
    assert "kernel cache" not in "\n".join(gpu_table(
        gpu, LOOP, [dict(r, kept_cache=None) for r in records], "cpu", []))


def _measured_whole(found, cpu):
    """`found` (a GPU's records) with every row and part of the plan measured: each missing row a
    copy of a measured one, each row's first calls and break-even the CPU's widest (torch's)."""
    from gpu.plan import ANSWER_MODELS, PARTS, PLAN, VARIANTS
    speedup = next(r for r in found if r["kind"] == "speedup" and r["phase"] == "train")
    step = next(r for r in found if r["kind"] == "step_time")
    first = [r for r in cpu if r["kind"] in ("first_call", "break_even")
             and r["backend"] == "torch" and r["model"] == "resnet" and r["variant"] == "graph"]
    # a backend whose first calls read a kept cache there keeps its line under the table
    kept_by = {r["backend"]: r["kept_cache"] for r in found if r.get("kept_cache")}
    kept = lambda row: ({"kept_cache": kept_by[row["backend"]]} if row["backend"] in kept_by
                        else {})
    out = [r for r in found if r["kind"] not in ("first_call", "break_even")]
    for model in ANSWER_MODELS:
        for backend, variants in VARIANTS.items():
            for variant in variants.split(",")[1:]:
                row = {"backend": backend, "model": model, "variant": variant}
                if not any(r["kind"] == "speedup" and r.items() >= row.items() for r in found):
                    out += [dict(speedup, **row, phase=p, estimate=123.45, low=120.0,
                                 high=130.0) for p in ("train", "infer")]
                    out += [dict(step, **{**row, "variant": v}, estimate=1.23456)
                            for v in ("eager", variant)]
                out += [dict(r, **row, machine=speedup["machine"], **kept(row)) for r in first]
    out += [dict(speedup, kind=PARTS[s.part][1][0], backend=s.backend, estimate=12, failed=0,
                 failures=[], reasons=["skipping cudagraphs due to mutated inputs (2 instances)"],
                 **({"model": s.label, "variant": s.label} if s.label else {}))
            for s in PLAN if s.part not in ("", "busy", "first calls")]
    out += [dict(speedup, kind="busy_speedup", model=f"busy-{m}", backend=b, flops=7.9e11,
                 batch=32, model_config={"depth": 50, "width": 1.0, "side": 224})
            for m in ("resnet", "decoder") for b in ("torch", "jax")]
    return out


def test_the_readme_leaves_room_for_the_whole_gpu_table():
    from machines import gpu_model
    from report.build.plan_gaps import not_measured
    from report.publish.write import README_LIMIT
    from report.build.runs import timed_as_a_loop
    from report.views.gpu import gpu_table
    by = {}
    for r in json.loads((ROOT / "results" / "summary.json").read_text())["records"]:
        by.setdefault(r["machine"], []).append(r)
    gpus = [m for m in by if gpu_model(m) and timed_as_a_loop(by[m])]
    if not gpus:
        pytest.skip("no GPU timed as a loop in results/")
    gpu = max(gpus, key=lambda m: sum(r["kind"] == "speedup" for r in by[m]))
    cpu = max((m for m in by if not gpu_model(m)),
              key=lambda m: sum(r["kind"] == "speedup" for r in by[m]))
    table = lambda found: len("\n".join(gpu_table(
        gpu, {**LOOP, "not_measured": not_measured(found)}, found, cpu, by[cpu],
        brief=True)))
    grows = table(_measured_whole(by[gpu], by[cpu])) - table(by[gpu])
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    readme = len(text)
    # the front GPU's own legend entry is not another GPU's
    held = lambda pattern: sum(len(m) for m in re.findall(pattern, text, re.M) if gpu not in m)
    above = MORE_MODELS + sum(max(0, room - held(p)) for p, room in OTHER_GPU_LINES.items())
    assert readme + grows + above <= README_LIMIT, (
        f"README.md has {readme:,} characters; the whole GPU table adds {grows:,} and its lines "
        f"{above}: trim {readme + grows + above - README_LIMIT:,} before the next GPU window "
        "fills it")


def test_a_parity_check_on_the_gpu_is_a_record_and_a_line(tmp_path):
    from gpu.job import pytest_outcome
    from report.build.studies import load_studies, parity_records
    from report.build.plan_gaps import not_measured
    from report.views.gpu import parity_line
    gpu, machine = "NVIDIA H100 80GB HBM3", "vm (x, 16 cores, NVIDIA H100 80GB HBM3)"
    output = ("FAILED tests/test_parity.py::test_logits_match_reference[torch-mnist_cnn-graph] - "
              "AssertionError: off by 3e-2\n1 failed, 11 passed, 11 skipped in 80.1s\n")
    folder = tmp_path / "findings" / gpu.replace(" ", "-")
    folder.mkdir(parents=True)
    for step, backend, label, out in (("torch", "torch", None, output),  # the first window's
                                      ("jax", "jax", None, "4 passed, 17 skipped in 9.0s\n"),
                                      ("jax-vgg", "jax", "vgg", "4 passed, 17 skipped in 9.0s\n")):
        (folder / f"gpu_parity-{step}.json").write_text(json.dumps(
            {"machine": {"gpu": gpu, "commit": "c" * 40}, "complete": True, "exit": 1,
             "backend": backend, "label": label, "results": [], **pytest_outcome(out)}))
    found = parity_records(machine, load_studies(tmp_path))
    assert sorted((r["backend"], r["model"], r["estimate"], r["failed"]) for r in found) == [
        ("jax", "mnist_cnn", 4, 0), ("jax", "vgg", 4, 0), ("torch", "mnist_cnn", 11, 1)]
    assert parity_line(found).endswith(
        "tests passed: jax 8 of 8 (mnist_cnn, vgg); torch 11 of 12 (mnist_cnn; failing: "
        "test_logits_match_reference[torch-mnist_cnn-graph]).")
    assert ("parity with the TF32 tolerance (chainer; jax: resnet, decoder; torch: vgg, resnet, "
            "decoder)") in not_measured(found)
    assert parity_records("vm (x, NVIDIA H200)", load_studies(tmp_path)) == []


def test_the_capture_study_is_a_record_per_model_and_phase_and_a_line(tmp_path):
    """gpu/cudagraph_capture.py's lines on the GPU (a CPU's dry-run lines left out) become one
    record per model and phase and the line under the GPU table: the graphs left out and why, or
    none; until then the table names the part as not measured."""
    from gpu.plan import NAMED
    from report.build.studies import capture_records, load_studies
    from report.build.plan_gaps import not_measured
    from report.views.gpu import capture_line
    gpu, machine = "NVIDIA H100 80GB HBM3", "vm (x, 16 cores, NVIDIA H100 80GB HBM3)"
    line = {"backend": "torch", "variant": "graph_cudagraphs", "device": "cuda", "frames": 1,
            "cudagraph_skips": 0, "reasons": []}
    lines = [{**line, "model": "vgg", "phase": "infer"}, {**line, "model": "mnist_cnn",
                                                          "phase": "train"},
             {**line, "model": "vgg", "phase": "train", "cudagraph_skips": 2,
              "reasons": ["skipping cudagraphs due to mutated inputs (2 instances)"]},
             {**line, "model": "resnet", "phase": "train", "device": "cpu", "cudagraph_skips": 9},
             {"backend": "torch", "model": "decoder", "device": "cuda",
              "error": "RuntimeError: inductor: boom"}]
    folder = tmp_path / "findings" / gpu.replace(" ", "-")
    folder.mkdir(parents=True)
    (folder / "gpu_cudagraphs-torch.json").write_text(json.dumps(
        {"machine": {"gpu": gpu, "commit": "c" * 40}, "complete": True, "exit": 0,
         "results": lines}))
    found = capture_records(machine, load_studies(tmp_path))
    assert sorted((r["model"], r["phase"], r["estimate"] or 0) for r in found) == [
        ("decoder", "train", 0), ("mnist_cnn", "train", 0), ("vgg", "infer", 0),
        ("vgg", "train", 2)]
    assert capture_line(found) == (
        "Graphs left out of CUDA graphs under `reduce-overhead` (gpu/cudagraph_capture.py): vgg "
        "train: 2 left out (mutated inputs (2 instances)); decoder: failed (RuntimeError: "
        "inductor: boom).")
    clean = [r for r in found if not r["estimate"] and not r["error"]]
    assert capture_line(clean).endswith("): none, train and infer (mnist_cnn, vgg).")
    part = "CUDA-graph capture under `reduce-overhead` (torch)"
    assert part not in not_measured(found) and part in not_measured([])
    assert capture_records("vm (x, NVIDIA H200)", load_studies(tmp_path)) == []
    step = NAMED["cudagraphs-torch"]
    assert (step.kind, step.backend, step.part, step.args) == (
        "study", "torch", "cudagraphs", ("gpu/cudagraph_capture.py",))


def test_a_model_that_fails_in_the_capture_study_is_a_line_and_the_others_still_run(
        monkeypatch, capsys):
    """gpu/cudagraph_capture.py: a model whose capture raises prints its error as its line and
    the next model runs (a window's study keeps what it found); 1 only where none ran."""
    import types
    from gpu import cudagraph_capture as study
    from suites import child

    def capture(backend, device, model, steps, reasons):
        if model == "vgg":
            raise RuntimeError("inductor: boom\nthe rest of it")
        return [{"model": model, "phase": "train", "cudagraph_skips": 0}]
    monkeypatch.setattr(child, "start", lambda *args: (
        types.SimpleNamespace(NAME="torch"), types.SimpleNamespace(type="cuda"), None))
    monkeypatch.setattr(study, "listen", lambda: (None, ["cudagraphs"]))
    monkeypatch.setattr(study, "capture", capture)
    assert study.main(["--models", "vgg,mnist_cnn"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(x["model"], x.get("error")) for x in lines] == [
        ("vgg", "RuntimeError: inductor: boom"), ("mnist_cnn", None)]
    assert study.main(["--models", "vgg"]) == 1


def test_a_part_is_not_measured_until_each_of_its_steps_is():
    from report.build.plan_gaps import not_measured
    resnet = _rec("busy_speedup", "torch", "graph", model="busy-resnet-d50-s224-w1-b32")
    lengths = [_rec("lengths_total", "jax", v, model="decoder") for v in ("eager", "graph")]
    said = not_measured([resnet, *lengths, _rec("first_call", "chainer", "graph", model="vgg")])
    busy = next(x for x in said if x.startswith("ResNet-50 at 224"))
    assert busy.endswith("(jax; torch: decoder)")  # torch's decoder point still missing, all of jax's
    assert "lengths that vary (chainer, torch)" in said  # jax has both of its variants
    # which models are missing where some are measured: not the bare part, as if none were
    assert ("first calls cold and warm, break-even (jax, torch; chainer: mnist_cnn, resnet, "
            "decoder)") in said
    done = [resnet, _rec("busy_speedup", "torch", "graph", model="busy-decoder-d512-h8-x6-t256-b8")]
    assert next(x for x in not_measured(done) if x.startswith("ResNet-50")).endswith("(jax)")


def test_a_gpu_determinism_row_is_refused_only_where_its_switch_cannot_reach():
    from report.views.determinism import determinism_section
    step = lambda machine, variant: {
        "kind": "determinism_step", "machine": machine, "backend": "jax", "model": "mnist_cnn",
        "variant": variant, "deterministic": False, "estimate": 1e-3, "low": 1e-3, "high": 1e-3,
        "compared_steps": 4, "repeat_identical": True, "identical_to_eager": True,
        "max_rel_diff_to_eager": 0.0}
    gpu, cpu = "vm (x, 16 cores, NVIDIA H100 80GB HBM3)", "vm (AMD EPYC, 2 cores)"
    row = lambda text, variant: next(x for x in text.splitlines() if f"| {variant} |" in x)
    on_gpu = determinism_section([step(gpu, "eager"), step(gpu, "graph")])
    assert "refused" in row(on_gpu, "eager") and "refused" not in row(on_gpu, "graph")
    assert "refused" in row(determinism_section([step(cpu, "graph")]), "graph")


def test_the_gpu_tables_full_form_says_what_the_steps_counted_and_the_readmes_leaves_it_out():
    """A graph left out of CUDA graphs while the steady steps ran is a line in RESULTS.md's GPU
    table (tests/test_signals.py: where it comes from)."""
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    records = [_rec("speedup", "torch", "graph_cudagraphs", signals_first_call={"cudagraph_skips": 2}),
               _rec("speedup", "torch", "graph_cudagraphs", phase="infer")]
    said = lambda brief, found: [line for line in gpu_table(gpu, LOOP, found, "cpu", [], brief)
                                 if line.startswith("Counted while the steps ran")]
    assert said(False, records) == [
        "Counted while the steps ran (the backend's log and counters, summed over processes): "
        "torch mnist_cnn `graph_cudagraphs` train: 2 graphs left out of CUDA graphs at its first "
        "calls."]
    assert said(True, records) == [] and said(False, records[1:]) == []


def test_another_gpus_cost_is_scaled_by_what_this_gpu_took_against_it(tmp_path):
    """The H100's Chainer first calls (28 s, 25 s) sized the H200's steps, which took 70 s and
    more (each process compiling into an empty CuPy cache): two windows cut one at its limit."""
    from gpu.plan import MEASURED_NOW_S, missing, step_costs
    h100, h200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
    _ledger(tmp_path / "h100", h100, first_calls_chainer_mnist_cnn=28.0,
            first_calls_chainer_resnet=38.0, first_calls_chainer_vgg=25.0, busy_jax_resnet=60.0)
    _ledger(tmp_path / "h200", h200, stamp="20261204T160000",
            first_calls_chainer_mnist_cnn=70.0, first_calls_chainer_vgg="cut 61",
            torch_vgg=2.0 * MEASURED_NOW_S["torch-vgg"])
    costs = step_costs([tmp_path], h200)
    assert costs["first-calls-chainer-resnet"] == (95.0, True, 2.5)  # 38 × 70/28
    assert costs["first-calls-chainer-mnist_cnn"] == (70.0, True)  # its own, as is
    assert costs["busy-jax-resnet"] == (60.0, True, None)  # no busy step both ran: as it took
    assert costs["jax-vgg"] == (2.0 * MEASURED_NOW_S["jax-vgg"], True, 2.0)  # a steady step's
    sized = {s.name: s for s in missing([tmp_path], h200, "abc")}
    assert sized["first-calls-chainer-resnet"].expect_s == 95
    assert sized["first-calls-chainer-resnet"].sized_by.startswith("another GPU's cost × 2.50")
    assert sized["busy-jax-resnet"].sized_by == "another GPU's cost"
    # the H100's windows 2-3 (MEASURED_S) are another GPU's costs too, and pair with this one's
    wait = sized["torch-mnist_cnn-wait-step"]
    assert wait.expect_s == 2 * MEASURED_NOW_S["torch-mnist_cnn-wait-step"], wait.sized_by
    assert step_costs([tmp_path], h100)["first-calls-chainer-resnet"] == (38.0, True)  # its own
    # a cut step is no ratio: its time is a bound, not what the step takes
    _ledger(tmp_path / "h200", h200, stamp="20261204T170000",
            first_calls_chainer_mnist_cnn="cut 33")
    assert step_costs([tmp_path], h200)["first-calls-chainer-resnet"] == (38.0, True, None)


def test_a_step_sized_elsewhere_starts_only_where_a_quarter_more_fits():
    """Windows 8-9 started three steps sized from the H100's costs with their expectation just
    fitting the time left: each ran 2-3 times as long, was cut at its limit and saved nothing."""
    from dataclasses import replace
    from gpu.job import chosen
    from gpu.plan import GRACE_S, PLAN, WHOLE_CALL_S
    named = {s.name: s for s in PLAN}
    step = lambda name, seconds, by: replace(named[name], expect_s=seconds, sized_by=by)
    why = lambda s, left: next(w for _, w in chosen([s], lambda _: left))
    elsewhere = step("first-calls-chainer-vgg", 100, "another GPU's cost × 2.54, what ...")
    assert why(elsewhere, 125 + GRACE_S) is None
    assert "100 s (sized elsewhere: 1.25× that) and" in why(elsewhere, 124 + GRACE_S)
    assert why(step("first-calls-chainer-vgg", 100, "a GPU job's cost"), 100 + GRACE_S) is None
    guessed = step("lengths-chainer-eager-exact", 30, "the plan's guess (GUESS_S)")
    assert why(guessed, 70) is not None and why(guessed, 78) is None
    # a quarter more than a whole call holds: as it expects, or it would run in no call
    long = step("lengths-jax-eager", WHOLE_CALL_S - 10, "dry run × GPU/dry ratio")
    assert why(long, WHOLE_CALL_S + GRACE_S) is None


def test_two_hosts_of_one_gpu_model_are_told_apart_wherever_the_answer_names_them():
    """Stop 108: a window on a second H200 host starts a table of its own; the README called both
    "the H200", and its Other GPUs line compared "the H200" with "the H200's train rows"."""
    from report.views.answer import answer_text, in_short
    xeon = "vm (Intel(R) Xeon(R) Processor, family 6 model 207, AVX-512, 16 cores, NVIDIA H200)"
    epyc = "vm (AMD EPYC, family 25 model 17, AVX-512, 16 cores, NVIDIA H200)"
    machines = _cpu_and_two_gpus(xeon, epyc)
    readme = answer_text(machines, "cpu", more="RESULTS.md#full", gpu=xeon)
    assert "**On the H200 on Xeon model 207**" in readme
    assert ("- **Other GPUs** (the H200 on Zen 4, in RESULTS.md), against the H200 on Xeon model "
            "207's train rows:") in readme
    assert f"**H200 on Zen 4** = `{epyc}`" in readme and f"**H200 on Xeon model 207** = `{xeon}`" \
        in readme
    assert "**H200 on Zen 4** = " in in_short(machines, "cpu", xeon)
    alone = answer_text(machines[:2], "cpu", more="RESULTS.md#full", gpu=xeon)
    assert "**On the H200**" in alone  # one H200 keeps its short name


def test_a_cpu_named_only_inside_a_gpu_hosts_name_is_left_off_the_legend():
    from machines import named_among
    from report.views.answer import legend
    zen4, zen5 = ("vm (AMD EPYC, family 25 model 17, AVX-512, 2 cores)",
                  "vm (AMD EPYC, family 26 model 2, AVX-512, 2 cores)")
    epyc = "vm (AMD EPYC, family 25 model 17, AVX-512, 16 cores, NVIDIA H200)"
    xeon = "vm (Intel(R) Xeon(R) Processor, family 6 model 207, AVX-512, 16 cores, NVIDIA H200)"
    machines = [(m, {}, []) for m in (zen4, zen5, epyc, xeon)]
    with named_among([zen4, zen5, epyc, xeon]):
        line = legend(machines, zen5, "on the Zen 5: 1.2×; the H200 on Zen 4: 3.1×.")
        assert "**H200 on Zen 4** = " in line and "**Zen 5** = " in line
        assert "**Zen 4** = " not in line and "Xeon" not in line
        assert "**Zen 4** = " in legend(machines, zen5, "the H200 on Zen 4 and the Zen 4 agree")
