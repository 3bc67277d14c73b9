"""The construction child: one fresh process per round, its JSON line and its one-line refusals."""
import subprocess
import time

from backends import VARIANTS
from suites.construction_child import parse
from suites.child import ROOT, result
from suites.profiles import PROFILES
from suites.test_construction import child_command

KEYS = {"startup_s", "first_call_s", "second_call_s", "cache_hits", "cache_files_before",
        "cache_files_after", "loss", "second_loss",
        "traces", "second_traces", "framework_version", "loss_finite"}


class _Case:  # what child_command reads of a suites.cases.Case
    def __init__(self, backend_name, variant):
        from models import build
        config, self.batch = PROFILES["quick"].models["mnist_cnn"]
        self.backend = type("Backend", (), {"NAME": backend_name})
        self.spec, self.variant, self.precision = build("mnist_cnn", **config), variant, "float32"


def _command(backend_name, variant, cache_dir):
    return child_command(_Case(backend_name, variant), {"device": "cpu", "threads": 1},
                         cache_dir) + ["--spawned-at", repr(time.time())]


def test_the_command_line_parses_back():
    args = parse(_command("chainer", "graph", "/tmp/c")[3:])
    assert (args.backend, args.model, args.variant, args.precision, args.batch, args.threads,
            args.cache_dir) == ("chainer", "mnist_cnn", "graph", "float32", 8, 1, "/tmp/c")
    assert 0 < time.time() - args.spawned_at < 60


def test_child_refuses_a_bad_variant_in_one_line(backend_name, tmp_path):
    done = subprocess.run(_command(backend_name, "nope", tmp_path), capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"construction_child: unknown variant 'nope': choose one of {', '.join(VARIANTS)}"]


def test_child_refuses_an_unsupported_variant_in_one_line(tmp_path):
    done = subprocess.run(_command("chainer", "graph_dynamic", tmp_path), capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("construction_child: chainer/graph_dynamic@float32 is not supported: ")


def test_an_eager_child_returns_every_key(backend, backend_name, tmp_path):
    found = result(_command(backend_name, "eager", tmp_path), timeout=300)
    assert set(found) == KEYS | ({"phases_s"} if backend_name == "jax" else set())
    assert found["loss_finite"]
    assert found["traces"] == found["second_traces"] == 0
    assert found["cache_hits"] == (0 if backend_name in ("torch", "jax") else None)
    # start-up runs from the parent's spawn stamp: a new interpreter and the framework's import
    assert 0.05 < found["startup_s"] < 120 and found["first_call_s"] > 0
    assert found["second_call_s"] > 0 and found["second_loss"] != found["loss"]  # SGD stepped


def test_a_cold_round_is_cold_unless_its_cache_held_files_or_a_hit_came_from_elsewhere():
    from suites.construction_child import cold_fault
    own = {"cache_hits": 1, "cache_files_before": 0, "cache_files_after": 12}
    assert cold_fault([own, {**own, "cache_hits": 0}]) is None  # a hit on its own writes
    assert "held 3 files at start" in cold_fault([own, {**own, "cache_files_before": 3}])
    assert "other than its own" in cold_fault([{**own, "cache_files_after": 0}])
    assert cold_fault([{"cache_hits": 0, "cache_files_before": None,
                        "cache_files_after": None}]) is None
