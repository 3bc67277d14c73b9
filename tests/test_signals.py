"""A variant that falls back silently is said: what a backend logs or counts while the steady
steps run (torch's graphs left out of CUDA graphs, a recompile limit hit) reaches the tables."""
import ast
import json
import types
from pathlib import Path

from report.build.steady import steady_records
from report.views.tables import SIGNALS, signals_line
from suites import paired_child
from suites.paired import AA, child_command, paired_info
from suites.profiles import PROFILES
from tests.test_report_summary import paired_with_construction

GRAPH = "graph_cudagraphs"


def _fake_backend(bumps):
    """A backend whose `graph_cudagraphs` arm bumps a running counter at its first call and at its
    fourth step, which falls in the warm-up or the timed rounds."""
    class Runner:
        def __init__(self, spec, params, variant, device, precision):
            self.variant, self.calls = variant, 0

        def to_device(self, x, y):
            return x, y

        def dispatch_train(self, x, y):
            self.calls += 1
            if self.variant == GRAPH and self.calls in (1, 4):
                bumps[0] += 1
            return 1.0

        def wait(self, out):
            return out

        def traces(self):
            return 0
    return types.SimpleNamespace(LOG_SIGNALS={"cudagraph_skips": lambda: bumps[0]}, Runner=Runner,
                                 cache_hits=lambda: None, version=lambda: "0")


def test_the_steady_child_counts_signals_per_arms_first_call_and_in_the_timed_rounds(monkeypatch):
    import models
    config, batch = PROFILES["quick"].models["mnist_cnn"]
    spec, bumps = models.build("mnist_cnn", **config), [0]
    monkeypatch.setattr(paired_child.child, "start",
                        lambda *args: (_fake_backend(bumps), "cpu", spec))
    argv = child_command("torch", "mnist_cnn", config, batch, "train", ["eager", AA, GRAPH],
                         {"rounds": 3, "warmup": 1, "block": 1}, wait="block")[3:]
    found = paired_child.measure(paired_child.parse(argv))
    assert found["log_signals"] == {
        "first_call": {"eager": {"cudagraph_skips": 0}, AA: {"cudagraph_skips": 0},
                       GRAPH: {"cudagraph_skips": 1}},
        "timed": {"cudagraph_skips": 1}}
    json.dumps(found)  # the child prints it as one JSON line


def _group(first_call, timed, processes=3):
    child = {"settings": {"warmup_rounds": 1, "block": 1, "gc": "off", "order": "random",
                          "order_seed": 0},
             "first_calls_s": 1.0, "compile_cache_hits": None,
             "log_signals": {"first_call": first_call, "timed": timed}}
    return {"times": {arm: [[1e-3]] * processes for arm in first_call},
            "children": [child] * processes}


def test_a_results_tables_say_what_each_arm_counted_and_say_nothing_where_nothing_was(tmp_path):
    first = {"eager": {"cudagraph_skips": 0}, GRAPH: {"cudagraph_skips": 2,
                                                      "recompile_limit_hits": 0}}
    info = paired_info(_group(first, {"cudagraph_skips": 1, "recompile_limit_hits": 0}), GRAPH)
    assert info["signals_first_call"] == [first[GRAPH]] * 3
    results = paired_with_construction(tmp_path)
    speedup = next(r for r in results if r.info["phase"] == "train" and r.info["variant"] != "eager")
    assert signals_line(steady_records(results)) == ""  # runs before the count: nothing said
    speedup.info.update(signals_first_call=info["signals_first_call"],
                        signals_timed=info["signals_timed"])
    found = [r for r in steady_records(results) if r.get("signals_first_call")]
    assert [(r["signals_first_call"], r["signals_timed"]) for r in found] == [
        ({"cudagraph_skips": 6}, {"cudagraph_skips": 3})]
    line = signals_line(found)
    model, variant = speedup.info["model"], speedup.info["variant"]
    assert f"`{variant}` train: 6 graphs left out of CUDA graphs at its first calls" in line
    assert "3 graphs left out of CUDA graphs in its group's timed rounds" in line
    assert model in line and "recompile" not in line



def test_every_signal_a_backend_counts_has_its_words_in_the_tables():
    """A backend's LOG_SIGNALS names (read from its source: no framework here) each have the words
    the tables say them in, never the bare key."""
    root, named = Path(__file__).resolve().parents[1], set()
    for path in sorted(root.glob("backends/*/steady.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "LOG_SIGNALS"
                                                    for t in node.targets):
                named |= {key.value for key in node.value.keys}
    assert named >= {"cudagraph_skips", "retrace_warnings"} and named <= set(SIGNALS)
