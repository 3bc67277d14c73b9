"""Every child's command line: the parents' one builder, the children's one shared parser, the one
wrapper (suites.child.run) and the one way a parent reads a child's JSON line."""
import importlib
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from suites import child, memory_probe
from suites.paired import child_command as paired_command
from suites.pipeline_child import command as pipeline_command
from suites.profiles import PROFILES
from suites.test_construction import child_command as construction_command
from suites.test_memory import probe_command
from suites.test_micro import _command as micro_command

CONFIG = {"channels": [4, 8]}
MODEL = ("backend", "threads", "model", "config", "batch")
ROUNDS = {"rounds": 2, "warmup": 1, "block": 3, "block_s": 0.5}


def _construction():
    case = SimpleNamespace(backend=SimpleNamespace(NAME="chainer"), batch=8, variant="graph",
                           spec=SimpleNamespace(name="mnist_cnn", config=CONFIG),
                           precision="float32")
    return construction_command(case, {"device": "cpu", "threads": 2}, "/tmp/c") + [
        "--spawned-at", "1.5"]


ARGV = {  # each child: the argv its parent builds, and the shared flags it takes
    "construction_child": (_construction, MODEL + ("device",)),
    "memory_probe": (lambda: probe_command("chainer", "mnist_cnn", CONFIG, 8, "eager",
                                           PROFILES["quick"].memory, "cpu", 2),
                     MODEL + ("device", "warm_prime")),
    "paired_child": (lambda: paired_command("chainer", "mnist_cnn", CONFIG, 8, "train",
                                            ["eager"], ROUNDS, 0, "cpu", 2), MODEL + ("device",)),
    "micro_child": (lambda: micro_command("chainer", ["conv"], ["eager"], ROUNDS, 0, 2, "/tmp/c",
                                          True), ("backend", "threads", "warm_prime")),
    "pipeline_child": (lambda: pipeline_command("chainer", "mnist_cnn", CONFIG, 8, "eager",
                                                ["naive"], "/tmp/f", PROFILES["quick"].pipeline,
                                                2, 1, threads=2), MODEL),
}
EXPECTED = {"backend": "chainer", "threads": 2, "model": "mnist_cnn", "config": json.dumps(CONFIG),
            "batch": 8, "device": "cpu", "warm_prime": True}


@pytest.mark.parametrize("module", ARGV)
def test_every_child_parses_its_parents_argv_with_the_shared_parser(monkeypatch, module):
    build, shared = ARGV[module]
    argv, made, real = build(), [], child.parser
    monkeypatch.setattr(child, "parser", lambda *a, **k: made.append(a[0]) or real(*a, **k))
    assert argv[:3] == [sys.executable, "-m", f"suites.{module}"]
    args = vars(importlib.import_module(f"suites.{module}").parse(argv[3:]))
    assert made == [module]
    assert {k: args[k] for k in shared} == {k: EXPECTED[k] for k in shared}
    assert not {"model", "device", "warm_prime"} - set(shared) & set(args)  # only what it takes


@pytest.mark.parametrize("module", ARGV)
def test_every_childs_help_lists_the_shared_flags(capsys, module):
    with pytest.raises(SystemExit) as done:
        importlib.import_module(f"suites.{module}").parse(["--help"])
    usage, _, options = capsys.readouterr().out.partition("\noptions:\n")
    assert done.value.code == 0 and usage.startswith(f"usage: python -m suites.{module} ")
    listed = {line.split()[0].rstrip(",") for line in options.splitlines() if line[2:3] == "-"}
    assert {f"--{name.replace('_', '-')}" for name in ARGV[module][1]} <= listed


@pytest.mark.parametrize("module", ARGV)
def test_every_child_refuses_a_bad_backend_in_one_line_with_exit_2(module):
    argv = ARGV[module][0]()
    argv[argv.index("--backend") + 1] = "nope"
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=child.ROOT)
    assert (done.returncode, done.stdout) == (2, "")
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"{module}: unknown backend 'nope': choose one of ")


def test_the_memory_probe_runs_through_child_run(monkeypatch):
    calls = []
    monkeypatch.setattr(child, "run", lambda *a: calls.append(a) or 7)
    assert memory_probe.main(ARGV["memory_probe"][0]()[3:]) == 7
    [(name, threads, check, measure)] = calls
    assert (name, threads) == ("memory_probe", 2) and callable(check) and callable(measure)


def test_the_builder_spells_every_kind_of_value():
    argv = child.command("x_child", backend="tf", config={"a": [1]}, arms=["eager", "graph"],
                         extra_batches=(9, 10), cache_dir="", seed=0, block_s=0.5,
                         warm_prime=True, device=None, cold=False)
    assert argv == [sys.executable, "-m", "suites.x_child", "--backend", "tf", "--config",
                    '{"a": [1]}', "--arms", "eager,graph", "--extra-batches", "9,10",
                    "--cache-dir", "", "--seed", "0", "--block-s", "0.5", "--warm-prime"]


@pytest.mark.parametrize("code, timeout, message", [
    ("import sys; print('{}'); print('a\\nlast', file=sys.stderr); sys.exit(3)", 60,
     "memory probe exited 3: last"),
    ("print('not json')", 60, "memory probe printed no JSON result: (no stderr)"),
    ("import time; time.sleep(30)", 0.5, "memory probe passed its 0.5 s limit")])
def test_a_failed_child_is_one_line(code, timeout, message):
    with pytest.raises(RuntimeError) as raised:
        child.result([sys.executable, "-c", code], timeout=timeout, name="memory probe")
    assert str(raised.value) == message


def test_a_childs_last_json_line_is_its_result():
    code = "print('noise'); print('{\"a\": 1}')"
    assert child.result([sys.executable, "-c", code]) == {"a": 1}



@pytest.mark.parametrize("profile, block", [("default", (64, 0.05, True)), ("quick", (1, 0, True))])
def test_your_models_steady_child_takes_the_suites_block_rule_from_the_profile(monkeypatch,
                                                                               profile, block):
    """Each arm's block lasts 50 ms or the slowest arm's step, at most 64 steps (the answer job's
    rule), not 64 steps whatever they take: a 437 ms eager step made that an hour."""
    from user import child as user_child, measure
    commands = []
    monkeypatch.setattr(measure, "run_child", lambda argv: commands.append(argv) or {"failed": {}})
    plan = measure.plan_for(PROFILES[profile])
    measure.measure("m.py", "chainer", plan, threads=2, log=lambda line: None)
    steady = [user_child.parse(argv[3:]) for argv in commands if "steady" in argv]
    assert len(steady) == PROFILES[profile].steady_processes
    assert {(args.block, args.block_s, args.equal_blocks) for args in steady} == {block}
    assert {args.rounds for args in steady} == {PROFILES[profile].steady_process_rounds}
