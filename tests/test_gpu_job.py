"""How the GPU job runs a window's steps (gpu/job.py): run numbers, first calls after their models'
steps, what each step cost and where its time went, checks side by side, a step stopped at its
limit as pytest saves."""
import json
import os
import subprocess
import sys
from pathlib import Path

import conftest
from tests.test_gpu_plan import _dry_job, _gpu_run, _ledger
from tests.test_gpu_report import _rec

ROOT = Path(__file__).resolve().parents[1]


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
