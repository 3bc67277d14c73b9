"""run.py and the README on bad input: options are honoured or refused in one line, never ignored."""
import json
import re
from pathlib import Path

import pytest

import run

README = Path(__file__).resolve().parents[1] / "README.md"


def test_help_says_both_commands_and_what_each_does(capsys):
    """The help printed the docstring's first line only, cut after `bench --job seeds`, and the
    two jobs bare: `test` and what `bench` writes were not said."""
    with pytest.raises(SystemExit) as done:
        run.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert done.value.code == 0 and "or `python3 run.py test` (tests)." in out
    assert "bench: time the suites in each env" in out and "test: each env's tests" in out


def test_test_honours_envs(calls):
    assert run.main(["test", "--envs", "tf"]) == 0
    assert calls == [["tox", "-e", "tf"]]


def test_test_passes_profile_and_pytest_args_to_the_framework_envs(calls):
    assert run.main(["test", "--envs", "tf,torch", "--profile", "default", "--", "-k", "parity"]) == 0
    assert calls == [["tox", "run-parallel", "-p", "auto", "-e", "torch,tf", "--", "tests",
                      "suites", "--benchmark-disable", "--profile", "default", "-m", "not framework_free",
                      "-k", "parity"]]


def test_the_test_command_runs_its_envs_side_by_side_and_one_env_alone(calls):
    """Side by side, the longest env first: torch started third would end alone, minutes late;
    the report env, longer than Chainer's, started after it ended last, alone."""
    assert run.main(["test"]) == 0
    assert calls[-1][:4] == ["tox", "run-parallel", "-p", "auto"]
    assert calls[-1][-1] == "torch,tf,jax,report,chainer,browser"
    assert run.main(["test", "--envs", "chainer"]) == 0
    assert calls[-1] == ["tox", "-e", "chainer"]


def test_test_refuses_pytest_args_for_the_report_env(calls, capsys):
    with pytest.raises(SystemExit) as stop:
        run.main(["test", "--", "-x"])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and "report" in err[-1] and "--envs" in err[-1] and not calls


@pytest.mark.parametrize("job", ["bench", "test"])
@pytest.mark.parametrize("envs", ["", ","])
def test_empty_envs_is_a_usage_error(calls, capsys, job, envs):
    with pytest.raises(SystemExit) as stop:
        run.main([job, "--envs", envs])
    assert stop.value.code == 2 and "--envs" in capsys.readouterr().err and not calls


@pytest.mark.parametrize("job", ["bench", "test"])
def test_an_env_named_twice_is_a_usage_error(calls, capsys, job):
    with pytest.raises(SystemExit) as stop:
        run.main([job, "--envs", "tf,torch,tf"])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and "'tf' twice" in err[-1] and not calls


def test_bench_runs_the_asked_envs_then_the_report(calls):
    assert run.main(["bench", "--envs", "chainer", "--profile", "quick"]) == 0
    assert calls[0][:4] == ["tox", "-e", "chainer", "--"] and "--profile" in calls[0]
    assert calls[0][calls[0].index("--profile") + 1] == "quick"
    assert calls[1][:3] == ["tox", "-e", "report"]


def test_readme_says_how_to_get_tox_where_it_first_shows_tox():
    text = README.read_text()
    first = text.index("tox -e")
    before = text[:first].rsplit("\n## ", 1)[-1]  # the section that shows it first
    assert re.search(r"pip install\s+['\"]?tox", before) and ".tools/bin/tox" in before


def test_ctrl_c_is_one_line(monkeypatch, capsys):
    def interrupted(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", interrupted)
    assert run.main(["bench", "--envs", "tf"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "interrupted" in err[0]


@pytest.mark.parametrize("saved, said, not_said", [
    (False, "nothing ran or was saved in: torch (the error above)", "partial runs are kept"),
    (True, "benchmark runs failed in: torch (their partial runs are kept)", "nothing ran")])
def test_a_bench_whose_env_saved_nothing_says_so(monkeypatch, capsys, saved, said, not_said):
    """Issue 52: a pytest option that fails at start ended with 'their results are kept'."""
    runs = [set()]
    partial = {run.ROOT / "results" / "m" / "0001_default.json"}

    def call(*args):
        if saved and "torch" in args:
            runs[0] = partial
        return 4 if "torch" in args else 0
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", call)
    monkeypatch.setattr(run, "saved_runs", lambda: runs[0])
    monkeypatch.setattr(run, "shared", lambda new: None)
    assert run.main(["bench", "--envs", "torch"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and not_said not in err[0]
    assert ("draws it" in err[0]) == saved


def test_pytest_arguments_the_first_env_refuses_end_the_bench_before_the_next_envs_set_up(
        monkeypatch, capsys):
    """A mistyped argument after `--` is refused in every env alike: on a fresh machine each
    later env's set-up (a source build, a torch download) would end in the same line."""
    made, built = [], []
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "set_up", lambda envs: built.append(envs) or 0)
    monkeypatch.setattr(run, "call", lambda *args: made.append(args) or 4)
    assert run.main(["bench", "--envs", "tf,chainer,torch", "--", "--bogus"]) == 1
    assert built == [["tf"]] and [args[2] for args in made] == ["tf"]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing ran or was saved in: tf (the error above)" in err[0]
    assert "chainer, torch not run: pytest refused the arguments in tf" in err[0]
    assert "README not redrawn" in err[0]


@pytest.mark.parametrize("device, codes, ran", [
    ("cpu", {"tf": 0, "chainer": 4}, ["tf", "chainer", "torch"]),  # tf took them: chainer's own
    ("cuda", {"tf": 4}, ["tf", "chainer", "torch"]),  # one framework's CUDA build, not the args
    ("cpu", {"tf": 1}, ["tf", "chainer", "torch"])])  # a failure, not a usage error
def test_a_usage_error_of_one_env_leaves_the_others_running(monkeypatch, capsys, device, codes,
                                                            ran):
    made = []
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "no_gpu", lambda: "")
    monkeypatch.setattr(run, "call", lambda *args: made.append(args) or next(
        (code for env, code in codes.items() if env in args), 0))
    assert run.main(["bench", "--envs", "tf,chainer,torch", "--device", device]) == 1
    assert [args[args.index("-e") + 1] for args in made] == ran
    assert "refused" not in capsys.readouterr().err



@pytest.mark.parametrize("device, cause, ran", [
    ("cpu", "", ["torch"]),  # pytest refused the arguments: jax would refuse them too
    ("cpu", "mine.py: torch_model(): not defined", ["torch", "jax"]),  # the file's, for torch
    ("cuda", "", ["torch", "jax"])])  # one framework's CUDA build
def test_a_user_run_ends_where_pytest_refuses_the_arguments(monkeypatch, capsys, tmp_path,
                                                            device, cause, ran):
    """`bench --user` as `bench`: a mistyped argument after `--` would be refused again after
    each later framework's set-up; a refusal with a cause written (the file's, for one
    framework: user/test_user.py) or on a GPU leaves the others running."""
    import os
    user = tmp_path / "mine.py"
    user.write_text("def torch_model():\n    pass\n\ndef jax_model():\n    pass\n")
    made = []

    def call(*args):
        made.append(args[args.index("-e") + 1])
        Path(os.environ["GRAPHBENCH_USER_CAUSES"]).write_text(cause)
        return 4

    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "no_gpu", lambda: "")
    monkeypatch.setattr(run, "call", call)
    assert run.main(["bench", "--device", device, "--user", str(user), "--", "--bogus"]) == 1
    assert made == ran
    err = capsys.readouterr().err
    assert ("jax not run: pytest refused the arguments in torch" in err) == (ran == ["torch"])


def test_failed_bench_leaves_the_readme(monkeypatch, capsys):
    made = []
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", lambda *args: made.append(args) or int("torch" in args))
    assert run.main(["bench", "--envs", "tf,torch"]) == 1
    assert [args[2] for args in made] == ["tf", "torch"]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "torch" in err[0] and "README not redrawn" in err[0]


def test_another_release_runs_only_when_asked_and_never_redraws_the_readme(calls, monkeypatch):
    new = run.VERSIONS / "torch-release" / "machine" / "0001_default.json"
    seen = iter([set(), {new}])  # before the env, after it
    monkeypatch.setattr(run, "saved_runs", lambda: next(seen))
    assert run.main(["bench", "--envs", "torch-release"]) == 0
    bench, report = calls
    assert bench[:3] == ["tox", "-e", "torch-release"]
    assert f"--benchmark-storage={run.VERSIONS / 'torch-release'}" in bench
    assert report[:3] == ["tox", "-e", "report"] and "--readme" not in report
    assert report[report.index("--results") + 1] == "results/versions/torch-release"
    calls.clear()
    monkeypatch.setattr(run, "saved_runs", lambda: set())
    assert run.main(["bench"]) == 0
    assert "torch-release" not in [call[2] for call in calls]


def test_too_little_disk_for_new_envs_is_one_line_before_any_install(calls, monkeypatch, tmp_path,
                                                                     capsys):
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "free_gb", lambda: 2.0)
    assert run.main(["test", "--envs", "tf,torch"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "2.0 GB free" in err[0] and "torch 5.5" in err[0] and not calls
    assert "needs about 8.3" in err[0] and "--envs" in err[0]  # tf, torch, report and the margin
    for env in ("tf", "torch", "report"):  # created envs need nothing more
        (tmp_path / ".tox" / env).mkdir(parents=True)
    assert run.main(["test", "--envs", "tf,torch"]) == 0 and calls
    assert run.disk_short(["chainer"]) == ""  # 0.2 + 1.0 fits in 2.0


def test_every_framework_free_module_exists():
    """The report env runs the modules tests/conftest.py names, and no framework env does: a
    renamed module left in the list would run nowhere."""
    from tests.conftest import FRAMEWORK_FREE
    here = Path(__file__).parent
    assert len(FRAMEWORK_FREE) > 30 and all((here / name).is_file() for name in FRAMEWORK_FREE)


def test_bench_on_a_gpu_gives_each_framework_env_its_cuda_wheels_in_a_folder_of_its_own(
        calls, monkeypatch):
    """Issue 49: `run.py bench --device cuda` on a user's GPU machine runs TensorFlow with its GPU
    wheel (the CPU env installs tensorflow-cpu), JAX with its CUDA plugin, Chainer with CuPy."""
    monkeypatch.setattr(run, "no_gpu", lambda: "")  # as on a GPU machine
    assert run.main(["bench", "--envs", "tf,jax,torch", "--device", "cuda", "--profile",
                     "quick"]) == 0
    tf, jax, torch = calls[:3]
    assert "testenv:tf.env_dir={work_dir}/tf-gpu" in tf and tf[-2:] != ["--device", "cpu"]
    assert any("tensorflow[and-cuda]==2.21.0" in arg and "{[testenv]deps}" in arg for arg in tf)
    assert "testenv:jax.set_env+=JAX_PLATFORMS=cuda,cpu" in jax
    assert not any(arg.startswith("testenv:") for arg in torch)  # PyPI's torch has CUDA
    for made in (tf, jax, torch):
        assert made[made.index("--"):].count("--device") == 1
        assert made[made.index("--device") + 1] == "cuda"
    calls.clear()
    assert run.main(["bench", "--envs", "tf", "--profile", "quick"]) == 0
    assert not any("-gpu" in arg or arg == "cuda" for arg in calls[0])  # the CPU form as before


def fake_nvidia_smi(folder, script):
    """An `nvidia-smi` in `folder` that runs the shell line `script`."""
    (folder / "nvidia-smi").write_text(f"#!/bin/sh\n{script}\n")
    (folder / "nvidia-smi").chmod(0o755)


@pytest.mark.parametrize("smi", [None, "echo 'NVIDIA-SMI has failed because it couldn'\\''t "
                                        "communicate with the NVIDIA driver'; exit 9"])
@pytest.mark.parametrize("job", ["bench", "test"])
def test_cuda_on_a_machine_without_a_gpu_stops_before_its_wheels_are_installed(
        calls, capsys, monkeypatch, tmp_path, smi, job):
    """--device cuda where no NVIDIA GPU is (no driver device, nvidia-smi missing or failing):
    one line that names nvidia-smi's answer, exit 2, and no env set up (gigabytes of wheels)."""
    monkeypatch.setattr(run.glob, "glob", lambda pattern: [])
    built = []
    monkeypatch.setattr(run, "set_up", lambda envs: built.append(envs) or 0)
    if smi:
        fake_nvidia_smi(tmp_path, smi)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert run.main([job, "--device", "cuda", "--envs", "jax"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("run.py: --device cuda: no NVIDIA GPU here")
    assert ("exited 9: NVIDIA-SMI has failed" if smi else "nvidia-smi: ") in said[0]
    assert not calls and not built


@pytest.mark.parametrize("driver", [None, "echo 'GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-1)'"])
def test_wsl_with_a_gpu_of_another_vendor_is_no_nvidia_gpu(monkeypatch, tmp_path, driver):
    """WSL 2 gives every vendor's GPU as /dev/dxg: it is NVIDIA's where the driver's nvidia-smi
    (in WSL's driver folder, off the PATH here) lists one; else the one line, not a CUDA set-up."""
    monkeypatch.setattr(run.glob, "glob", lambda pattern: ["/dev/dxg"] * (pattern == "/dev/dxg"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr(run, "WSL_LIB", str(tmp_path))
    if driver:
        fake_nvidia_smi(tmp_path, driver)
    said = run.no_gpu()
    assert said == "" if driver else said.startswith("--device cuda: no NVIDIA GPU here (")


@pytest.mark.parametrize("args, said", [
    (["--device", "cuda", "--envs", "torch-release"], "has no GPU form"),
    (["--envs", "torch", "--", "--device", "cuda"], "--device goes before `--`"),
    (["--device", "tpu"], "invalid choice: 'tpu'")])
def test_a_device_that_cannot_apply_is_a_usage_error(calls, capsys, args, said):
    with pytest.raises(SystemExit) as stop:
        run.main(["bench", *args])
    assert stop.value.code == 2 and said in capsys.readouterr().err and not calls


@pytest.mark.parametrize("how", ["a file", "not writable"])
def test_a_results_folder_that_cannot_take_runs_stops_bench_in_one_line(calls, capsys, monkeypatch,
                                                                        tmp_path, how):
    """Issue 52: results/ not writable gave an INTERNALERROR traceback from suites/jobs.py."""
    monkeypatch.setattr(run, "ROOT", tmp_path)
    if how == "a file":
        (tmp_path / "results").write_text("")
    else:
        (tmp_path / "results").mkdir()
        monkeypatch.setattr(run.os, "access", lambda path, mode: False)  # root may write anyway
    assert run.main(["bench", "--envs", "chainer"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(tmp_path / "results") in err[0] and not calls


def test_a_job_beside_this_one_never_gives_its_runs_to_this_answer(monkeypatch, tmp_path):
    """Issue 52: a second job's report claimed the first job's run (saved meanwhile) in its
    answer: each env's new runs are those its tox env saved."""
    def saved(name, env):
        path = tmp_path / name
        path.write_text(json.dumps({"machine_info": {"graphbench": {"tox_env": env}}}))
        return path
    mine, theirs = saved("0002_default.json", "chainer"), saved("0003_default.json", "jax")
    seen = iter([set(), {mine, theirs}])
    made = []
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", lambda *args: made.append(args) or 0)
    monkeypatch.setattr(run, "saved_runs", lambda: next(seen))
    monkeypatch.setattr(run, "shared", lambda new: None)
    monkeypatch.setattr(run, "ROOT", tmp_path)
    assert run.main(["bench", "--envs", "chainer"]) == 0
    report = made[-1]
    answered = [report[i + 1] for i, arg in enumerate(report) if arg == "--answer-for"]
    assert answered == ["0002_default.json"]
