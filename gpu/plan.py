"""The GPU job's steps in priority order, and which of them a GPU kind still lacks at this timing
code (framework-free: gpu/job.py runs the missing ones, the report lists them as not measured)."""
import json
import math
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # `python3 gpu/plan.py`
from gpu.measured import (done_steps, newest_gpu, newest_machine,  # noqa: E402
                          newest_releases, read_saved)
# the GPU of the first windows' costs (MEASURED_S), which size another GPU's steps (step_costs)
MEASURED_GPU = "NVIDIA H100 80GB HBM3"
ANSWER_MODELS = ("mnist_cnn", "vgg", "resnet", "decoder")
VARIANTS = {"jax": "eager,graph", "chainer": "eager,graph",
            "torch": "eager,graph,graph_cudagraphs,cuda_graph"}
# TensorFlow's GPU wheel and its CUDA 12 libraries are larger than a call may carry to the GPU
# machine, which has no network: its rows are not measured there (docs/METHOD.md, On a GPU)
NOT_ON_THE_GPU_MACHINE = {"TensorFlow": "no network there to fetch its 1.9 GB GPU wheel"}
GRACE_S = 40  # a step stopped at its limit gets this long to save what finished
# the longest job one call fits, the --seconds of a window's first call: a command's 600 s,
# less the transfers and the machine's own start
CALL_S = 535
# the job's start inside its --seconds (Chainer's wheel installed, nvidia-smi, the versions
# printed): window 4's calls took 7-10 s more than their steps
JOB_START_S = 15
# the most one step may take: a whole call's job after its start, less the grace to save it
WHOLE_CALL_S = CALL_S - JOB_START_S - GRACE_S
# a step stopped after this share of a whole call had one: it expects more, and waits to be split
MOST_OF_A_CALL = 0.9
# the expectations that rest on no cost of this GPU's own (sized): a call starts such a step only
# where this much more than it expects fits (gpu.job.chosen); the three steps cut in windows 8-9
# (H200) were sized from the H100's costs and ran 2-3 times as long
UNSURE = ("another GPU's cost", "dry run", "its -graph part", "windows 2-3", "the plan's guess")
UNSURE_MARGIN = 1.25
# a window's second call: what 900 s lent leave after the machine's start, the first call and
# the transfers, less 40 s (the ninth window: 367 s left after a first call of 496 s; the
# second, warm, held the machine 6 s more than its 284 s)
SECOND_CALL_S = 320
# the parts beyond the answer rows: what the report calls each, and the record kinds that
# show it measured on a machine (the report lists the others as not measured yet)
PARTS = {"first calls": ("first calls cold and warm, break-even", ("first_call",)),
         "lengths": ("lengths that vary", ("lengths_total",)),
         "precision": ("mixed precision", ("precision_speedup",)),
         "determinism": ("deterministic ops", ("determinism_step",)),
         "parity": ("parity with the TF32 tolerance", ("parity_check",)),
         "busy": ("ResNet-50 at 224² px, batch 32, and the decoder's compute point at batch 8",
                  ("busy_speedup",)),
         "sweep": ("the work-per-step sweep", ("scale_speedup", "compute_speedup")),
         "cudagraphs": ("CUDA-graph capture under `reduce-overhead`", ("cudagraph_capture",))}


@dataclass(frozen=True)
class Step:
    """One pytest session of the GPU job, saved as its own run `gpu-<name>`."""
    name: str
    backend: str
    args: tuple  # pytest arguments after the common ones (GPU_ARGS), or a script's argv
    limit_s: int  # the most it may take; a step cut at its limit saves what finished
    what: str = ""
    keys: tuple = field(default=())  # (backend, model, phase, wait) rows it measures
    env: tuple = ()  # (name, value) set for this step's processes only
    part: str = ""  # the part it measures beyond the answer rows (PARTS), for the report
    label: str = ""  # of that part, the model (a prefix) or variant whose records it gives
    case: str = ""  # and the case they carry, where a step takes one (a lengths strategy)
    expect_s: int = 0  # what it takes on a GPU (0: unknown): skipped where it won't fit the time
    kind: str = "run"  # run: a saved pytest-benchmark run; check: a pytest session, study: a
    # script printing JSON lines (both saved as findings/gpu_<name>.json with their output)
    sized_by: str = field(default="", compare=False)  # where expect_s comes from (sized())

    @property
    def save(self):
        return f"gpu-{self.name}"

    @property
    def variants(self):
        """The variants it times besides eager (its --variant), or () for any."""
        args = list(self.args)
        found = args[args.index("--variant") + 1].split(",") if "--variant" in args else []
        return tuple(v for v in found if v != "eager")


# inductor's vector-ISA probes, each a Python importing torch (ten or more a process), are what a
# torch process's prime spent its 59-71 s on on the H100 (7.8 s without them, window 7); a CUDA
# model compiles no C++ kernel that needs them. gpu/job.py sets this on a GPU for each torch
# step whose prime is not profiled (docs/METHOD.md)
NO_ISA_PROBES = {"TORCHINDUCTOR_VEC_ISA_OK": "0"}
# a torch step that ran them (before window 7) took that much longer than it will now. Its
# cost says its prime where it was timed (`torch_prime_s`, window 5 on); before it, the two
# profiles' subprocesses, 54-57 s
PRIME_WITHOUT_PROBES_S = 8
PROBES_S = 55


# torch's first calls (four arms, each in 3 cold and 3 warm processes, and 63-71 s of
# inductor's cold prime on the H100) outlast a call (CALL_S): the ResNet's were sized at 651 s
# from their dry run, and the MNIST CNN's, sized at 308 s, were stopped at their 413-s limit
# with 5 of 8 cases (the sixth window). Two steps a model, each with eager (its own break-even
# baseline), whose records the report joins (report.build.select.unit: a variant's first
# calls); named apart from the whole step, whose dry-run cost is not theirs. Three for the
# ResNet: its `-graph` step expects 395 s (its dry run), and a `-cudagraphs` half, five cases
# to its three (by_cases), about 660 s, more than a call
_HALVES = (("-graph", "eager,graph"), ("-cudagraphs", "eager,graph_cudagraphs,cuda_graph"))
_THIRDS = (("-graph", "eager,graph"), ("-reduce-overhead", "eager,graph_cudagraphs"),
           ("-cuda_graph", "eager,cuda_graph"))
FIRST_CALL_STEPS = {("torch", m): _THIRDS if m == "resnet" else _HALVES for m in ANSWER_MODELS}
# what a part expects before it runs on a GPU, by its cases (by_cases): the cut MNIST CNN
# step's parent started in 73 s (its torch import and prime, the probes' 55 s in it), then took
# 342 s for 4-5 cases (three fresh processes each, a warm one after an untimed populating one):
# about 75 s a case. A `-graph` part times three cases (eager cold, `graph` cold and warm),
# about 300 s with the probes (the MNIST CNN's: 248 s), as each of the ResNet's thirds; the
# `-cudagraphs` half five (eager cold, then each CUDA-graph arm cold and warm), about 450 s
FIRST_CALL_GUESS_S = {"-graph": 300 - PROBES_S, "-cudagraphs": 450 - PROBES_S,
                      "-reduce-overhead": 300 - PROBES_S, "-cuda_graph": 300 - PROBES_S}


def _first_call_guess(backend, suffix):
    """What a first-calls step expects before it runs on a GPU: its half's, else its backend's."""
    return FIRST_CALL_GUESS_S.get(suffix, GUESS_S["first-calls", backend])


GPU_ARGS = ("-q", "-p", "no:cacheprovider", "--device", "cuda", "--profile", "default")


def _steady(backend, model, wait="block", phases=("train", "infer")):
    keyword = f"({' or '.join(phases)}) and not float16 and not bfloat16"
    name = f"{backend}-{model}" + ("" if wait == "block" else f"-wait-{wait}")
    expect = MEASURED_NOW_S.get(name, GUESS_S["steady", backend])
    return Step(name, backend,
                ("suites/test_steady.py", "--job", "answer", "--group-budget-s",
                 str(_BUDGET[backend]), "--backend", backend, "--model", model, "--variant",
                 VARIANTS[backend], "--wait", wait, "-k", f"({keyword})"),
                max(expect * 3 // 2, 90), f"steady {backend} {model} {'/'.join(phases)}, --wait "
                f"{wait}", tuple((backend, model, phase, wait) for phase in phases),
                expect_s=expect)


# each group's time share (three processes at least): a JAX or Chainer group took 15-30 s on the
# H100, a torch one of four arms (two compiled by inductor, cold) 70-110 s
_BUDGET = {"jax": 15, "chainer": 15, "torch": 25}
# what a step took on the H100 in the second and third windows (gpu/job.py's steps.json,
# 2026-11-26), seconds; later windows' costs are saved with their runs (step_costs), which
# override these: the job runs a step only where its cost fits the time left (op-by-op
# ResNet-50 in JAX compiles each primitive on its first call: 231 s)
MEASURED_S = {"jax-mnist_cnn": 35, "jax-mnist_cnn-wait-step": 20, "chainer-mnist_cnn": 40,
              "torch-mnist_cnn": 215, "jax-vgg": 55, "chainer-vgg": 40, "torch-vgg": 290,
              "jax-resnet": 235, "chainer-resnet": 45, "jax-decoder": 80, "chainer-decoder": 55,
              "chainer-mnist_cnn-wait-step": 25, "torch-mnist_cnn-wait-step": 150}
# MEASURED_S as the job's steps take them now: torch's less the probes they ran
MEASURED_NOW_S = {name: s - PROBES_S * name.startswith("torch-") for name, s in MEASURED_S.items()}
# guesses for the steps not yet run on a GPU, (kind, backend) -> seconds (lengths: one variant's
# step; sweep: one point's; the others: a model's or the backend's): the steady groups'
# costs above, scaled by their processes (construction: 3 cold and 3 warm children per variant)
GUESS_S = {("steady", "jax"): 60, ("steady", "chainer"): 45, ("steady", "torch"): 330,
           ("first-calls", "jax"): 90, ("first-calls", "chainer"): 60,
           ("first-calls", "torch"): 300, ("lengths", "jax"): 90,
           # one strategy's (LENGTHS_PER_STRATEGY): its process's start, then a stream whose four
           # strategies took 24-38 s together on the H100
           ("lengths", "chainer"): 30,
           ("lengths", "torch"): 150, ("precision", "jax"): 60, ("precision", "chainer"): 60,
           ("precision", "torch"): 200, ("determinism", "jax"): 60,
           ("determinism", "chainer"): 60, ("determinism", "torch"): 150,
           ("sweep", "jax"): 40, ("sweep", "chainer"): 30, ("sweep", "torch"): 90,
           # three processes a point, each compiling once: op-by-op JAX compiles each primitive
           # (the H100's small ResNet-50 group took 231 s), torch.compile about 60 s a process
           ("busy", "jax"): 220, ("busy", "torch"): 250,
           # a torch process's start (about 17 s without the ISA probes), then `reduce-overhead`'s
           # compiles of four models' train and infer steps: parity's per variant, 20-90 s
           ("cudagraphs", "torch"): 150}
BACKENDS = ("jax", "chainer", "torch")
# the default profile's sweep points on a GPU, one step each, less the busy ones (steps of their
# own); named here, not imported, so that the report starts without NumPy (a test compares them)
SWEEP_POINTS = ("vgg-s32-w1_16-b2", "vgg-s64-w1_4-b8", "vgg-s112-w1_2-b4", "vgg-s224-w1-b1",
                "decoder-d512-h8-x6-t256-b1")
# the variants of the lengths steps (per variant: its four strategies, at most the profile's
# budget each): the CPU lengths suite's, and torch's CUDA-graph ones on a GPU
LENGTHS_VARIANTS = {"jax": ("eager", "graph"), "chainer": ("eager", "graph"),
                    "torch": ("eager", "graph", "graph_dynamic", "graph_static", "graph_cudagraphs",
                              "cuda_graph")}
# the lengths suite's padding strategies (models.weights.PAD_STRATEGIES, named here as the sweep's
# points are), and the backends whose lengths steps take one strategy each, in a process of its
# own: CuPy keeps the kernels a process compiled in memory, where no compile_cache reaches, so a
# later strategy would reuse the first one's (docs/METHOD.md, "Chainer's first calls on a GPU")
PAD_STRATEGY_NAMES = ("exact", "pow2", "mult32", "max")
LENGTHS_PER_STRATEGY = ("chainer",)


def lengths_totals(backend):
    """The (variant, strategy) totals a GPU's lengths steps measure for `backend`: each variant's
    four strategies, in its one step or (LENGTHS_PER_STRATEGY) one step each."""
    return [(v, k) for v in LENGTHS_VARIANTS[backend] for k in PAD_STRATEGY_NAMES]


# cuBLAS's deterministic workspace, which torch.use_deterministic_algorithms needs on CUDA, must be
# set before CUDA starts: for the determinism steps only (it changes cuBLAS's workspace)
_DETERMINISTIC = (("CUBLAS_WORKSPACE_CONFIG", ":4096:8"),)

def _parity(backend, model):
    """The check of one model's logits and first loss against the float64 reference on the GPU,
    every variant, at the TF32 tolerance (`parity-<backend>` for the MNIST CNN)."""
    return Step(f"parity-{backend}" + ("" if model == "mnist_cnn" else f"-{model}"), backend,
                ("tests/test_parity.py", "--backend", backend, "--model", model, "-k",
                 "not trajectory", "-rf", "--tb=line"), 300 if backend == "torch" else 100,
                f"{backend}: parity of the {model} on cuda against the float64 reference (TF32 "
                "tolerance)", expect_s=150 if backend == "torch" else 60, kind="check",
                part="parity", label=model)


_STUDY_VARIANTS = {"jax": "graph,eager", "torch": "eager,cuda_graph", "chainer": "eager,graph"}

PLAN = (
    *(Step(f"step-cost-{b}", b, ("gpu/step_cost.py", "--backend", b, "--variants",
                                 _STUDY_VARIANTS[b]), 90,
           f"where a sub-millisecond step's time goes ({b}): the MNIST CNN train step waited on "
           "per step, on its loss only, and once per block", expect_s=15, kind="study")
      for b in ("jax", "torch")),
    *(_steady(b, "mnist_cnn") for b in ("jax", "chainer", "torch")),
    # the suite's harness before --wait: each step waited on (runs 0086-0088 timed so)
    _steady("jax", "mnist_cnn", wait="step", phases=("train",)),
    *(_steady(b, m) for m in ANSWER_MODELS[1:] for b in ("jax", "chainer", "torch")),
    # the MNIST CNN's parity right after the answer rows: about a minute for the three, the
    # cheapest check that what those rows time is right (torch's rows had stood unchecked on
    # both GPUs through ten windows while it waited behind parts 1.2-5)
    *(_parity(b, "mnist_cnn") for b in ("torch", "jax", "chainer")),
    # 1.2: first calls cold and warm (break-even with the steady groups), in fresh processes
    *(Step(f"first-calls-{b}-{m}{suffix}", b, ("suites/test_construction.py", "--job", "answer",
                                                "--backend", b, "--model", m, "--variant",
                                                variants, "-k", "not float16 and not bfloat16"),
           _first_call_guess(b, suffix) * 2, f"first calls {b} {m} ({variants}), cold and warm",
           expect_s=_first_call_guess(b, suffix), part="first calls", label=m)
      for m in ANSWER_MODELS for b in BACKENDS
      for suffix, variants in FIRST_CALL_STEPS.get((b, m), (("", VARIANTS[b]),))),
    # 1.3: where the GPU is busy, the default profile's busy points of the sweep (a GPU's only:
    # Profile.on_device), one step a point: ResNet-50 at 224² px, batch 32; the decoder's compute
    # point at batch 8
    *(Step(f"busy-{b}-{m}", b, ("suites/test_scale.py", "--job", "answer", "--backend", b,
                                "--variant", "eager,graph", "-k", f"busy-{m}"),
           GUESS_S["busy", b] * 2, f"{b}: {m} where the GPU is busy, eager and `graph`",
           expect_s=GUESS_S["busy", b], part="busy", label=f"busy-{m}")
      for m in ("resnet", "decoder") for b in ("torch", "jax")),
    # the per-step waits of Chainer's and torch's MNIST CNN groups: after the first calls and
    # the busy points, since gpu/step_cost.py already times what a per-step wait costs torch
    *(_steady(b, "mnist_cnn", wait="step", phases=("train",)) for b in ("chainer", "torch")),
    # 1.4: token lengths that vary (the CPU lengths suite's strategies and variants, and a GPU's
    # CUDA-graph ones), one step a variant (Chainer's: one a strategy, LENGTHS_PER_STRATEGY):
    # its four strategies, each cut at the profile's budget, fit a window where a backend's whole
    # suite would not
    *(Step(f"lengths-{b}-{v}{'-' + k if k else ''}", b,
           ("suites/test_lengths.py", "--job", "seeds", "--backend", b, "--variant", v,
            *(("-k", k) if k else ())),
           GUESS_S["lengths", b] * 3, f"lengths that vary, {b} `{v}`{', ' + k if k else ''}",
           expect_s=GUESS_S["lengths", b], part="lengths", label=v, case=k or "")
      for b in BACKENDS for v in LENGTHS_VARIANTS[b]
      for k in (PAD_STRATEGY_NAMES if b in LENGTHS_PER_STRATEGY else (None,))),
    # 5: article 002 on the GPU: mixed precision in each mode, then deterministic ops
    *(Step(f"precision-{b}", b, ("suites/test_steady.py", "--job", "seeds", "--group-budget-s",
                                 str(_BUDGET[b]), "--backend", b, "--model", "mnist_cnn",
                                 "--variant", "eager,graph", "-k", "train"),
           GUESS_S["precision", b] * 2, f"mixed precision {b} mnist_cnn train",
           expect_s=GUESS_S["precision", b], part="precision") for b in BACKENDS),
    *(Step(f"determinism-{b}", b, ("suites/test_determinism.py", "--job", "seeds", "--backend", b,
                                   "--model", "mnist_cnn", "--variant", "eager,graph"),
           GUESS_S["determinism", b] * 2, f"deterministic ops {b} mnist_cnn",
           expect_s=GUESS_S["determinism", b], env=_DETERMINISTIC, part="determinism")
      for b in BACKENDS),
    # the other answer models' parity: JAX and Chainer's take seconds, torch's compile every
    # variant of a network; a wrong answer there is a finding to write up before its speedup is read
    *(_parity(b, m) for b in ("jax", "chainer", "torch") for m in ANSWER_MODELS[1:]),
    # 6: whether `reduce-overhead` ran each answer model's steps as CUDA graphs or silently left
    # graphs out (inductor's own counter and reasons): what the graph_cudagraphs rows mean rests
    # on it. One process, four models, train and infer compiled once each
    Step("cudagraphs-torch", "torch", ("gpu/cudagraph_capture.py",), 300,
         "torch: whether mode=\"reduce-overhead\" runs every graph of each answer model as a CUDA "
         "graph, train and infer", expect_s=GUESS_S["cudagraphs", "torch"], kind="study",
         part="cudagraphs"),
    # last, as the issue asks only for its busy points (1.3): the default profile's sweep (the
    # report shows one profile a machine), up to the full-width VGG at 224² px, batch 1, and the
    # decoder's compute point, one step a point
    *(Step(f"sweep-{b}-{point}", b, ("suites/test_scale.py", "--job", "answer", "--backend", b,
                                     "--variant", "eager,graph", "-k", point),
           max(GUESS_S["sweep", b] * 2, 90), f"{b}: where graph mode stops paying, {point}, "
           "eager and `graph`", expect_s=GUESS_S["sweep", b], part="sweep", label=point)
      for b in BACKENDS for point in SWEEP_POINTS),
)
NAMED = {step.name: step for step in PLAN}  # the plan's steps by name


def whole_of(step):
    """The steady step whose run a first-calls step's break-even needs: one job kind, one timing
    code (report.build.select.same_job); None for the other steps."""
    if step.part != "first calls":
        return None
    return NAMED[f"{step.backend}-{step.label}"]


def missing(folders, gpu_model, code, releases=None, machine=None):
    """The plan's steps still to run for this GPU model and code, in priority order: first those
    this GPU model never ran, then those it ran only at an older timing code or release (a window
    is short, and a row not yet measured tells a reader more than a row measured again); a model's
    steps run at an older code come right after its first calls, which the report shows only beside
    steps of their own code, and first of all where its first calls ran at this code (in an
    earlier call of the window: a torch pair outlasts one call). The release is each backend's
    newest run's, or `releases`' (gpu.job: the GPU machine's own, before any run of it); the
    machine the newest run's, or `machine` (gpu.job's, whose host may not be the last window's)."""
    machine = machine or newest_machine(folders, gpu_model)
    current = {**newest_releases(folders, gpu_model, machine), **(releases or {})}
    done = done_steps(folders, gpu_model, code, current, machine)
    ever = done_steps(folders, gpu_model, None, machine=machine)
    again = [step for step in PLAN if step.name in ever and step.name not in done]
    order = [whole_of(step) for step in PLAN if step.name in done and whole_of(step) in again]
    for step in PLAN:
        if step.name not in ever:
            order += [step] + [whole_of(step)] * (whole_of(step) in again)
    costs = step_costs(folders, gpu_model)
    scaled = dry_estimates(folders, costs)
    # once each: a model whose first calls take two steps has its steps after the first
    return [by_cases(sized(step, costs, scaled), costs, scaled) for step in dict.fromkeys(
        order + [s for s in again if s not in order])]


def cases(step):
    """A first-calls step's cases: eager cold, then each compiled variant cold and warm."""
    return 1 + 2 * len(step.variants)


def by_cases(step, costs, scaled):
    """A torch first-calls part sized by the plan's guess: its model's `-graph` part's expected
    time (a GPU's cost or a dry run's estimate), by their cases; else `step` as it is. Not
    capped at a call as `sized` caps a dry run's: no budget inside bounds a part's cases, and
    one longer than a call would be cut in it, saving no complete run (the plan says so, to
    split it before a window)."""
    graph = NAMED.get(f"first-calls-{step.backend}-{step.label}-graph")
    if step.part != "first calls" or graph is None or not step.sized_by.startswith(GUESSED):
        return step
    graph = sized(graph, costs, scaled)
    if graph.sized_by.startswith(GUESSED):
        return step
    expect = math.ceil(graph.expect_s * cases(step) / cases(graph))
    return replace(step, expect_s=expect, limit_s=max(90, 2 * expect),
                   sized_by=f"its -graph part's time by cases ({graph.sized_by})")


LEDGERS = "**/costs_*.json"  # the GPU job's cost ledgers (gpu/job.py) under a results folder


def step_costs(folders, gpu_model):
    """{step name: (seconds, whether it finished)}: what each step took in the newest GPU job
    that ran it (findings/<GPU>/costs_*.json, gpu/job.py's), this GPU model's before another
    GPU's, less inductor's ISA probes where it ran them on a GPU (without_probes); a dry run's
    ledger (a CPU's) counts for that CPU's own dry runs only. Another GPU's cost (the H100's
    windows 2-3 among them, MEASURED_NOW_S) has a third item, what it was scaled by (None where
    nothing was): what this GPU took against that GPU's (other_gpu_ratios), as the H100's
    Chainer first calls (28 s, a CuPy cache kept between steps) took the H200 70 s, each process
    compiling into an empty one."""
    first_windows = {name: (float(s), True) for name, s in MEASURED_NOW_S.items()}
    newest = {True: {}, False: {} if gpu_model == MEASURED_GPU else first_windows}
    for path, saved in sorted(read_saved(folders, LEDGERS), key=lambda item: item[0].name):
        machine = saved.get("machine", {})
        mine, on_gpu = machine.get("gpu") == gpu_model, machine.get("device") == "cuda"
        if mine or machine.get("device") != "cpu":
            newest[mine].update({cost["step"]: (without_probes(cost) if on_gpu else
                                                cost["seconds"], isinstance(cost["exit"], int))
                                 for cost in saved.get("steps", [])})
    mine, other = newest[True], newest[False]
    ratios = ratios_by_kind(finished(mine), finished(other))
    scaled = {}
    for name, (seconds, done) in other.items():
        ratio = nearest_ratio(name, ratios)
        scaled[name] = (seconds * (ratio or 1), done, ratio)
    return {**scaled, **mine}


def finished(costs):
    """{step name: seconds} of the steps in `costs` (step_costs) that finished."""
    return {name: cost[0] for name, cost in costs.items() if cost[1]}


def ratios_by_kind(top, bottom):
    """{a key of _nearest: [top / bottom]} over the plan's steps both {name: seconds} hold."""
    ratios = {}
    for name in top.keys() & bottom.keys() & NAMED.keys():
        if bottom[name] > 0:
            for key in _nearest(NAMED[name]):
                ratios.setdefault(key, []).append(top[name] / bottom[name])
    return ratios


def nearest_ratio(name, ratios):
    """The median of the ratios (ratios_by_kind) nearest to step `name`; None without any."""
    near = next((ratios[k] for k in _nearest(NAMED[name]) if k in ratios), None) \
        if name in NAMED else None
    return statistics.median(near) if near else None


def without_probes(cost):
    """A GPU step's `cost` (a ledger's entry) in seconds, less what inductor's ISA probes took in
    it where a torch step ran them (its environment did not skip them)."""
    step = NAMED.get(cost["step"])
    if (step is None or step.backend != "torch" or step.kind == "study"
            or NO_ISA_PROBES.items() <= cost.get("env", {}).items()):
        return cost["seconds"]
    probes = max(0.0, cost["torch_prime_s"] - PRIME_WITHOUT_PROBES_S) \
        if "torch_prime_s" in cost else PROBES_S
    return max(cost["seconds"] - probes, 1.0)


def dry_costs(folders):
    """(CPU, {step name: seconds}): the steps that passed in the dry runs (DEVICE=cpu) of the
    newest dry-run ledger's CPU, the newest ledger's figure for each; (None, {}) with none. A
    step that failed there is no cost: one of CUDA-only variants (torch's CUDA graphs) skips
    every case on a CPU and exits 1, having saved nothing, in seconds."""
    ledgers = sorted(((path.name, saved) for path, saved in read_saved(folders, LEDGERS)
                      if saved.get("machine", {}).get("device") == "cpu"), key=lambda x: x[0])
    cpu = ledgers[-1][1]["machine"].get("cpu") if ledgers else None
    return cpu, {cost["step"]: cost["seconds"] for _, saved in ledgers
                 if saved["machine"].get("cpu") == cpu for cost in saved.get("steps", [])
                 if cost["exit"] == 0}


# kinds of step whose dry run does what the GPU step does, at the answer's sizes and bound by
# compiles and start-up on both machines: another of the backend's kinds sizes them where
# theirs has no ratio. The busy points compute far longer on a 2-core CPU than on a GPU
# (torch's busy ResNet-50 took 319 s there); a token stream's cost is its compiles, mixed
# precision's MNIST CNN took the H100 over 72 s where the dry run took 33, and the sweep's
# points took 4-57 s each in theirs, as steady steps do
LIKE_STEADY = ("run", "first calls", "parity", "lengths", "precision", "determinism", "sweep")


def dry_estimates(folders, costs):
    """{step name: seconds} for each step with a dry run on one CPU and no GPU cost yet: its dry
    run's time times the median GPU/dry ratio of the steps that have both (the finished GPU
    costs in `costs`, else MEASURED_NOW_S) of its backend and kind (steady, first calls, ...), else
    of its backend where its kind is LIKE_STEADY (what its GPU and its imports cost: Chainer's
    first calls 5.6, torch's steps 2.6-3.8, H100 over Zen 5), else of its kind; none else.
    A compile-bound step's ratio is not a steady one's (JAX's MNIST CNN: first calls 3.3,
    steps 1.3)."""
    from catalog import GPU_ONLY
    _, dry = dry_costs(folders)
    dry = {**{half: dry[whole] for half, whole in _same_on_a_cpu().items() if whole in dry},
           **dry}
    on_gpu = {**MEASURED_NOW_S, **finished(costs)}
    ratios = ratios_by_kind(on_gpu, dry)
    found = {}
    for name in dry.keys() & NAMED.keys() - on_gpu.keys():
        if NAMED[name].variants and set(NAMED[name].variants) <= GPU_ONLY.keys():
            continue  # its dry run timed eager alone: a CPU skips every CUDA-graph arm
        if ratio := nearest_ratio(name, ratios):
            found[name] = dry[name] * ratio
    return found


def _same_on_a_cpu():
    """{a torch `-graph` first-calls half: the whole first-calls step}: the same cases on a CPU,
    which skips the whole step's CUDA-graph arms, so the whole's dry run sizes the half (dry runs
    before the split timed the whole only)."""
    return {f"first-calls-torch-{m}-graph": f"first-calls-torch-{m}" for m in ANSWER_MODELS}


def _nearest(step):
    """The keys of the GPU/dry ratios that may size `step`, nearest first: its backend and kind
    (its part, else its run kind), its backend (a kind LIKE_STEADY only), its kind."""
    kind = step.part or step.kind
    return [(step.backend, kind), *([step.backend] if kind in LIKE_STEADY else []), kind]


def sized(step, costs, scaled=None):
    """`step` expecting what it took when it last ran (`costs`): a step stopped at its limit took
    longer than that, so twice it, and a limit half as long again; one that never ran on a GPU,
    its dry run scaled (`scaled`, dry_estimates), and a limit twice that (a guess from a CPU).
    Only a step stopped with (most of) a whole call expects more than one (WHOLE_CALL_S): a
    guess, or a limit from one, never keeps a step from every window."""
    if step.name in costs:
        seconds, finished, *other = costs[step.name]
        expect = math.ceil(seconds) if finished else max(step.expect_s, math.ceil(2 * seconds))
        if not finished and seconds < MOST_OF_A_CALL * WHOLE_CALL_S:
            expect = min(expect, WHOLE_CALL_S)
        by = ("a GPU job's cost" if not other else "another GPU's cost" if other[0] is None
              else f"another GPU's cost × {other[0]:.2f}, what this GPU took against it")
        return replace(step, expect_s=expect, limit_s=max(step.limit_s, expect * 3 // 2),
                       sized_by=by)
    if step.name in (scaled or {}):
        expect = min(math.ceil(scaled[step.name]), WHOLE_CALL_S)
        return replace(step, expect_s=expect, limit_s=max(90, 2 * expect),
                       sized_by="dry run × GPU/dry ratio")
    halves = step.part == "first calls" and step.name.endswith(tuple(FIRST_CALL_GUESS_S))
    probes = MEASURED_NOW_S.get(step.name) != MEASURED_S.get(step.name)
    less = ", less the ISA probes" * probes
    return replace(step, sized_by=f"windows 2-3 (MEASURED_S{less})" if step.name in MEASURED_S
                   else f"{GUESSED} ({'FIRST_CALL_GUESS_S' if halves else 'GUESS_S'})")


GUESSED = "the plan's guess"


def known_gpus(results):
    """The GPU models the machines of `results`/summary.json name ('NVIDIA H100 80GB HBM3')."""
    from machines import gpu_model
    try:
        records = json.loads((results / "summary.json").read_text())["records"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return sorted({model for r in records if (model := gpu_model(r["machine"]))})


def main(argv=None):
    """Print what a GPU model still lacks at this tree's timing code, in the job's order, with
    each step's expected time, its source and the running total."""
    import argparse
    from conftest import timing_code
    from gpu.job import added, longer_than_a_call, preview
    parser = argparse.ArgumentParser(description=main.__doc__.split(",")[0])
    folders = [ROOT / "results"]
    last = newest_gpu(folders) or MEASURED_GPU
    parser.add_argument("--gpu", default=last, help="the GPU model (default: the newest GPU "
                        f"run's, {last})")
    calls = f"{CALL_S},{SECOND_CALL_S}"
    parser.add_argument("--calls", default=calls, help="a window's job calls, seconds each "
                        f"(default {calls}): the steps each runs if each takes its time")
    args = parser.parse_args(argv)
    try:
        calls = [float(x) for x in args.calls.split(",")]
    except ValueError:
        parser.error(f"--calls {args.calls}: seconds, comma-separated ({calls})")
    if min(calls) <= JOB_START_S:  # a call holds steps only after the job's start
        parser.error(f"--calls {args.calls}: each call's seconds above the job's start "
                     f"({JOB_START_S} s)")
    code, total, together = timing_code(), 0, 0
    if args.gpu not in (known := known_gpus(folders[0])):  # a typo reads as a new GPU kind
        print(f"gpu/plan.py: no published run names {args.gpu!r} (they name "
              f"{', '.join(known) or 'no GPU'}): its whole plan follows", file=sys.stderr)
    machine = newest_machine(folders, args.gpu)
    print(f"{args.gpu}, timing code {code}, on the host of its newest run "
          f"({machine or 'none yet'}); dry runs on {dry_costs(folders)[0] or 'no CPU yet'}")
    steps = missing(folders, args.gpu, code, machine=machine)
    for step in steps:
        longer, together = added(step, together)  # checks run side by side (gpu.job)
        total += longer
        print(f"{step.name:42} {step.expect_s:5d} s (limit {step.limit_s:4d})  {total:6d} s  "
              f"{step.sized_by}" + ("; beside the checks before it" if longer < step.expect_s
                                    else "")
              + ("; longer than a call: no window runs it" if longer_than_a_call(step) else ""))
    window = sum(calls) - JOB_START_S * len(calls)  # what a window's calls hold for steps
    print(f"about {total / 60:.0f} minutes of GPU jobs, {math.ceil(total / window)} windows or "
          "more; the next window's calls, if each step takes its time:")
    for seconds, names in zip(calls, preview(steps, calls)):
        print(f"  {seconds:.0f} s: {', '.join(names) or 'nothing fits'}")
    print(carried())
    return 0


def carried():
    """A line on what a call carries against the 64 MiB it may (gpu/provenance.py stops above)."""
    from gpu.provenance import CARRY_LIMIT, WHEELS, carried_bytes
    try:
        size = carried_bytes()
    except (OSError, subprocess.CalledProcessError):
        return "what a call carries: unknown here (not a git checkout)"
    wheel = "with .whl/" if any(WHEELS.glob("*.whl")) else ".whl/ not built yet"
    return (f"a call carries {size / 2 ** 20:.1f} MiB of the {CARRY_LIMIT // 2 ** 20} it may "
            f"({wheel}): {(CARRY_LIMIT - size) / 2 ** 20:.1f} MiB left for the runs windows add")


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()  # a buffered plan meets the closed pipe here, not at exit
    except BrokenPipeError:  # `| head` read what it wanted: no traceback (Python's signal docs)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    raise SystemExit(status)
