"""What each GPU window runs (gpu/plan.py, gpu/job.py): the steps this GPU and timing code still
lack, in priority order, each sized from what it cost before, its dry run or another GPU."""
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from suites.profiles import PROFILES

ROOT = Path(__file__).resolve().parents[1]


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
    later = [s for s in PLAN[PLAN.index(blocks[-1]):] if s.part]  # after every answer row
    assert [s.part for s in later[:4]] == ["parity"] * 3 + ["first calls"]  # its parity first
    assert {s.label for s in later[:3]} == {"mnist_cnn"} and later[0].name == "parity-torch"
    assert {"lengths", "precision", "determinism"} <= {s.part for s in later}
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


def test_the_busy_points_run_on_a_gpu_only_or_in_its_dry_run():
    from suites.profiles import PROFILES
    default = PROFILES["default"]
    busy = {"busy-resnet-d50-s224-w1-b32", "busy-decoder-d512-h8-x6-t256-b8"}
    assert busy <= set(default.on_device("cuda").scale.models)
    assert not busy & set(default.on_device("cpu").scale.models)
    assert busy <= set(default.on_device("cpu", busy=True).scale.models)
    assert default.on_device("cuda").scale.models["busy-resnet-d50-s224-w1-b32"] == (
        "resnet", {"depth": 50, "width": 1.0, "side": 224}, 32)


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
