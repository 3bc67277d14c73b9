"""The GPU-only CUDA-graph variants: visible skips on a CPU, and torch's capture logic run against
fake torch.cuda calls (no GPU here) that record the order of what happens."""
import contextlib
import re
import subprocess
import sys
import types

import pytest

import models
from catalog import CUDA_GRAPHS_CPU, GPU_ONLY
from suites import paired
from suites.cases import skip_reason
from suites.profiles import PROFILES


@pytest.mark.parametrize("profile", ["quick", "default"])
def test_on_a_cpu_every_case_is_a_skip_naming_the_gpu(env, profile):
    """Every suite and test case of the GPU-only variants, collected as the suites collect them,
    is a skip whose reason says CUDA graphs need an NVIDIA GPU; nothing runs."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "tests", "suites", "-q", "-rs", "-p", "no:cacheprovider",
         "--ignore", __file__, "--profile", profile, "--device", "cpu", "--benchmark-disable",
         "--backend", ",".join(env["backends"]), "--variant", ",".join(GPU_ONLY),
         "-k", " or ".join(GPU_ONLY),
         "-m", "not framework_free"],  # framework-free tests run no variant, whatever their names
        capture_output=True, text=True, timeout=300)
    summary = out.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ skipped, \d+ deselected in .*", summary), out.stdout[-3000:]
    reasons = [line for line in out.stdout.splitlines() if line.startswith("SKIPPED")]
    assert reasons and all(line.endswith(CUDA_GRAPHS_CPU) for line in reasons), reasons


def test_the_device_rule_and_the_gpu_side_of_it():
    """On a GPU torch runs both (default profile); tf and Chainer say why not; the quick profile
    leaves them out; a whole-step capture has no float16 (GradScaler syncs)."""
    cpu = {"profile": PROFILES["default"], "device": "cpu"}
    gpu = {**cpu, "device": "cuda"}
    for variant in GPU_ONLY:
        for backend in ("torch", "tf", "chainer"):
            assert CUDA_GRAPHS_CPU in skip_reason(backend, variant, "bfloat16", cpu, "mnist_cnn")
        assert skip_reason("torch", variant, "float32", gpu, "mnist_cnn") is None
        for other in ("tf", "chainer"):
            assert "CUDA-graph capture of a step" in skip_reason(other, variant, "float32", gpu,
                                                                 "vgg")
        assert skip_reason("torch", variant, "float32", {**gpu, "profile": PROFILES["quick"]},
                           "vgg").startswith("profile 'quick'")
    assert skip_reason("torch", "graph_cudagraphs", "float16", gpu, "mnist_cnn") is None
    assert "GradScaler" in skip_reason("torch", "cuda_graph", "float16", gpu, "mnist_cnn")


class _Stream:
    def __init__(self, fake, name):
        self.fake, self.name = fake, name

    def wait_stream(self, other):
        self.fake.events.append(f"{self.name} waits {other.name}")


class _Graph:
    def __init__(self, fake):
        self.fake = fake

    def replay(self):
        self.fake.on_replay(self)
        self.fake.events.append("replay")


class _FakeCuda:
    """torch.cuda's stream, graph and synchronize calls: each appends an event ('forward@side')."""

    def __init__(self, monkeypatch, torch):
        self.events, self.on, self.on_replay = [], "default", lambda graph: None
        for name in ("Stream", "current_stream", "stream", "CUDAGraph", "graph", "synchronize"):
            monkeypatch.setattr(torch.cuda, name, getattr(self, name))

    def Stream(self):
        return _Stream(self, "side")

    def current_stream(self, device=None):
        return _Stream(self, "default")

    @contextlib.contextmanager
    def stream(self, stream):
        self.on = stream.name
        yield
        self.on = "default"

    def CUDAGraph(self):
        return _Graph(self)

    @contextlib.contextmanager
    def graph(self, graph, **options):  # the fake runs the step it would record
        self.events.append("capture")
        self.on = "capture"
        yield
        self.on = "default"

    def synchronize(self, device=None):
        self.events.append("sync")


@pytest.fixture
def fake_gpu(backend, monkeypatch):
    """(torch backend, fake torch.cuda, a Runner factory) with the Runner on a fake CUDA device:
    its model stays on the CPU, its CUDA-graph calls go to the fakes."""
    module, _ = backend
    if module.NAME != "torch":
        pytest.skip(f"{module.NAME}: CUDA graphs here are PyTorch's only")
    import torch
    fake = _FakeCuda(monkeypatch, torch)
    monkeypatch.setattr(torch.nn.Module, "to", lambda self, *a, **k: self)
    spec = models.build("mnist_cnn")

    def runner(variant, device="cuda"):
        made = module.Runner(spec, models.init_params(spec), variant, torch.device(device))
        made.model.register_forward_hook(lambda *_: fake.events.append(f"forward@{fake.on}"))
        return made

    def batch(size, seed):
        x, y = models.synthetic_batch(spec, size, seed)
        return torch.from_numpy(x), torch.from_numpy(y.astype("int64"))
    return module, fake, runner, batch


def _capture(step_forwards):
    """The events of one capture: warm-up on the side stream, then the recording."""
    return (["side waits default", *["forward@side"] * 3, "default waits side", "capture",
             *step_forwards])


def test_whole_step_capture_follows_the_recipe(fake_gpu):
    """Warm-up steps on a side stream, then one capture per new shape; every call copies its
    inputs into the static buffers before the replay; a seen shape only replays; the warm-up
    leaves the weights as they were (the first loss is eager's)."""
    module, fake, runner, batch = fake_gpu
    r = runner("cuda_graph")
    seen = {}

    def check_inputs(graph):
        static = next(s for g, s, _ in r._graphs.graphs.values() if g is graph)
        seen.setdefault("copied", []).append(all(a.equal(b) for a, b in zip(static, seen["now"])))
    fake.on_replay = check_inputs

    def step(*inputs):
        seen["now"] = inputs
        return r.train_step(*inputs) if len(inputs) == 2 else r.infer_step(*inputs)

    a1, a2, b = batch(4, 0), batch(4, 1), batch(2, 2)
    eager = runner("eager", "cpu").train_step(*a1)
    fake.events.clear()
    assert step(*a1) == pytest.approx(eager, rel=1e-6)
    assert fake.events == [*_capture(["forward@capture"]), "replay", "sync"]
    fake.events.clear()
    step(*a2)  # seen shape: replay only
    assert fake.events == ["replay", "sync"]
    fake.events.clear()
    step(*b)  # new shape: its own capture
    step(a1[0])  # inference: a graph of its own
    assert fake.events == [*_capture(["forward@capture"]), "replay", "sync",
                           *_capture(["forward@capture"]), "replay", "sync"]
    assert seen["copied"] == [True] * 4
    assert r.traces() == 3  # train at batch 4 and 2, infer at 4


def test_the_device_is_synchronized_before_every_clock_read(fake_gpu, monkeypatch):
    """In the suites' interleaved rounds, no replay is still pending when the clock is read."""
    _, fake, runner, batch = fake_gpu
    r = runner("cuda_graph")
    x, y = batch(4, 0)
    r.train_step(x, y), r.infer_step(x)  # the first calls capture

    def clock():
        fake.events.append("clock")
        return len(fake.events)
    monkeypatch.setattr(paired, "time", types.SimpleNamespace(perf_counter=clock))
    fake.events.clear()
    paired.interleave({"train": lambda: r.train_step(x, y), "infer": lambda: r.infer_step(x)},
                      rounds=3, block=2)
    assert fake.events.count("replay") == 12 and fake.events.count("clock") == 12
    pending = False
    for event in fake.events:
        pending = event == "replay" or (pending and event != "sync")
        assert not (event == "clock" and pending), fake.events


def test_reduce_overhead_compiles_with_cuda_graphs_and_counts_their_skips(fake_gpu):
    """graph_cudagraphs compiles graph's step with inductor's CUDA graphs on: on CPU tensors
    inductor skips them, and the backend's signals count each skip."""
    module, _, runner, _ = fake_gpu
    import torch
    from suites.logs import count_log_signals
    r = runner("graph_cudagraphs")
    assert r._mark_step is torch.compiler.cudagraph_mark_step_begin
    w = torch.ones(3, requires_grad=True)
    with count_log_signals(module.LOG_SIGNALS) as signals:
        torch.compile(lambda x: (x * w).sum(), backend=r.counter)(torch.ones(3)).backward()
    assert r.traces() == 1
    assert signals["cudagraph_skips"] >= 1


class _SkippingRunner:
    """A runner whose first train step makes inductor's own call for a graph it leaves out of
    CUDA graphs (log and counter), as a compile of an unsupported graph does on a GPU."""

    def __init__(self, spec, params, variant, device):
        self.variant, self.calls = variant, 0

    def to_device(self, x, y):
        return x, y

    def train_step(self, x, y):
        from torch._inductor.cudagraph_utils import log_cudagraph_skip_and_bump_counter
        self.calls += 1
        if self.calls == 1:
            log_cudagraph_skip_and_bump_counter(
                "skipping cudagraphs due to mutated inputs (2 instances)\nFound from: model.py")

    def infer_step(self, x):
        self.calls += 1

    def traces(self):
        return 1 if self.calls else 0


def test_the_capture_study_says_which_phase_left_a_graph_out_and_why(backend):
    """gpu/cudagraph_capture.py: a graph inductor leaves out of CUDA graphs (its own log call and
    counter, in this torch release) shows in the phase that compiled it, with its reason's first
    line; a phase without one shows none."""
    module, _ = backend
    if module.NAME != "torch":
        pytest.skip(f"{module.NAME}: CUDA graphs here are PyTorch's only")
    import logging
    import torch._logging
    from gpu import cudagraph_capture as study
    reasons, enabled = study.listen()
    try:
        lines = study.capture(types.SimpleNamespace(NAME="torch", Runner=_SkippingRunner),
                              types.SimpleNamespace(type="cuda"), "mnist_cnn", 3, reasons)
    finally:
        logging.getLogger(study.INDUCTOR).removeHandler(reasons)
        torch._logging.set_logs()
    assert "cudagraphs" in enabled
    assert [(x["phase"], x["variant"], x["frames"], x["cudagraph_skips"], x["reasons"])
            for x in lines] == [
        ("train", "graph_cudagraphs", 1, 1, ["skipping cudagraphs due to mutated inputs (2 "
                                             "instances)"]),
        ("infer", "graph_cudagraphs", 0, 0, [])]
