"""Run profiles: model sizes, batch and rounds for CI (quick), this CPU (default) and a GPU (paper);
jobs: what one `run.py bench` of a profile saves."""
from dataclasses import dataclass, replace

from catalog import skip_matches
from models.zoo import DECODER_COMPUTE


@dataclass(frozen=True)
class Profile:
    """What one profile runs: per-model spec config and batch, and how many timed rounds."""
    name: str
    models: dict  # model name -> (spec config, batch)
    steady_rounds: int  # timed rounds of the suites that time one case in one process
    warmup_rounds: int
    cold_rounds: int  # construction: fresh variant, empty compile cache
    warm_rounds: int  # construction: fresh variant, populated on-disk compile cache (torch)
    construction_models: tuple = ("mnist_cnn", "vgg", "resnet")
    construction_precisions: tuple = ("float32",)  # first calls at other precisions: paper only
    notes: str = ""
    parity_steps: int = 3
    retrace: "Retrace" = None
    precision_models: tuple = ("mnist_cnn",)  # models run at non-float32 precisions
    determinism_models: tuple = ("mnist_cnn",)  # models of the determinism suite
    determinism_steps: int = 3  # train steps compared bit for bit between two runs
    memory: "Memory" = None
    pipeline: "Pipeline" = None
    scale: "Scale" = None
    lengths: "Lengths" = None
    adaptive: "Adaptive" = None  # steady and sweep: processes added until intervals are narrow
    steady_processes: int = 3  # steady: fresh child processes per comparison group
    steady_process_rounds: int = 10  # steady: interleaved rounds per child (after warmup_rounds)
    steady_block: int = 1  # steady: steps per arm per round (the most, with steady_block_s)
    steady_block_s: float = 0.0  # steady: grow the block until the fastest arm's lasts this long
    steady_equal_blocks: bool = False  # steady: each arm's block lasts about as long (Job.apply)
    steady_phases: tuple = ("train", "infer")  # steady: the steps it times
    skips: tuple = ()  # Skip rules of the construction, memory, micro and steady suites (retrace:
    # its own)
    precision_phases: tuple = ("train", "infer")  # steady: the steps timed at other precisions
    bench_suites: tuple = None  # the suites a saved run times (None: every suite)
    variants: dict = None  # backend -> the variants this profile runs (None: every variant)
    micro_shared_child: bool = False  # the micro workloads of a backend share each child process
    job: "Job" = None  # the job a saved run of this profile runs (Job.apply), None: every suite

    def on_device(self, device, busy=False):
        """The profile as it runs on `device`: the sweep's GPU-busy points on a GPU only (`busy`:
        on the CPU too, the GPU job's dry run)."""
        if self.scale is None or device == "cuda" or busy or not self.scale.busy_points:
            return self
        return replace(self, scale=replace(self.scale, busy_points=()))

    def variant_skip(self, backend, variant):
        """Why this profile does not run `variant` of `backend`, or None."""
        if self.variants is None or variant in self.variants.get(backend, (variant,)):
            return None
        return (f"profile {self.name!r} runs {', '.join(self.variants[backend])} of {backend} "
                f"only (--profile default runs every variant)")

    def skip_reason(self, suite, backend, model, variant, phase=None):
        """Why this profile leaves a construction, memory, micro or steady case out, or None."""
        return first_reason([r for r in self.skips if suite in r.suites], backend, model, variant,
                            phase)

    def bench_skip(self, suite):
        """Why a saved run of this profile leaves `suite` out, or None (the test command, which
        saves nothing, still runs every suite once)."""
        if self.bench_suites is None or suite in self.bench_suites:
            return None
        if self.job:
            other = next(job for job in JOBS.values() if suite in job.suites)
            return (f"job {self.job.name!r} saves {', '.join(self.bench_suites)}; this suite is "
                    f"job {other.name!r}'s: python3 run.py bench --job {other.name}")
        return (f"profile {self.name!r} saves {', '.join(self.bench_suites)} only, to answer "
                f"within 10 minutes (the test command runs this suite; --profile default saves it)")

    def suite_models(self, suite):
        """{label: (model, spec config, batch)} that a suite runs."""
        if suite == "retrace":
            return self.retrace.models
        if suite == "pipeline":
            return self.pipeline.models
        if suite == "scale":
            return self.scale.models if self.scale else {}
        if suite == "lengths":
            return self.lengths.models if self.lengths else {}
        if suite == "parity":  # the profile's models and the ones only parity checks so far
            return {**self.suite_models("models"), **PARITY_ONLY}
        return {name: (name, config, batch) for name, (config, batch) in self.models.items()}


# label -> (model, spec config, batch) that tests/test_parity.py checks beyond every profile's models:
# the decoder at a size whose compiles take seconds (no suite times it yet)
PARITY_ONLY = {"decoder": ("decoder", {"width": 16, "heads": 2, "depth": 2, "tokens": 8}, 3)}


@dataclass(frozen=True)
class Retrace:
    """The retrace suite's plan: networks by depth, a seeded sequence of sides, a time budget."""
    models: dict  # label -> (model, spec config, batch)
    steps: int  # batches in a sequence
    sides: tuple  # (smallest, largest) input height and width, drawn independently
    repeat_shapes: int  # distinct sides cycled in the repeated-shape control
    budget_s: float  # a run past this stops after its current step, marked as cut short
    cold: bool = True  # each run in an empty compile cache; quick reuses the session's cache
    square_sides: tuple = ()  # square sides in this order instead of seeded draws from `sides`
    skips: tuple = ()  # Skip rules: runs this profile's budget leaves out, with the reason

    def skip_reason(self, backend, label, variant, phase):
        """Why this profile leaves a retrace run out, or None."""
        return first_reason(self.skips, backend, label, variant, phase)


@dataclass(frozen=True)
class Lengths:
    """The lengths study (issue 37): a seeded stream of token batches whose longest sequence
    follows a long tail, padded by each strategy (models.weights.PAD_STRATEGIES), through each
    variant, one cold run each."""
    models: dict  # label -> ("decoder", spec config, batch): its positions cover the longest
    steps: int  # batches in the stream
    lengths: tuple  # (shortest, longest) of a batch's longest sequence
    median: int  # of the log-normal lengths
    sigma: float
    budget_s: float  # a run past this stops after its current step, marked as cut short
    skips: tuple = ()  # Skip rules (labels: the strategies)

    def skip_reason(self, backend, strategy, variant):
        """Why this profile leaves a lengths run out, or None."""
        return first_reason(self.skips, backend, strategy, variant)


@dataclass(frozen=True)
class Memory:
    """The memory suite's plan: peak RSS of train steps in a child process per case."""
    models: tuple  # names from the profile's models (their config and batch)
    steps: int  # train steps at the profile's shape (the peak)
    extra_batches: tuple  # further batch sizes, traced one after another (memory held by the cache)
    repeats: int = 1  # child processes per case: the spread of the peaks
    warm_prime: bool = False  # the start-up paid on the session's compile cache (baseline after)


@dataclass(frozen=True)
class Pipeline:
    """The pipeline suite's plan: encoded images on disk, decoded and randomly cropped per example."""
    models: dict  # label -> (model, spec config, batch)
    examples: int  # images written to the temporary folder (one epoch)
    pad: int  # stored images are (side + pad) square; the crop takes the model's side
    workers: int  # parallel decode workers (threads or processes)
    rounds: int  # timed epochs
    warmup_rounds: int = 1


@dataclass(frozen=True)
class Adaptive:
    """Adaptive repetition: a comparison gets another fresh process until every ratio's 95%
    interval is within ±target of its estimate (where eager's step takes at least min_step_s),
    or it has max_processes, or another process would pass budget_s. It stops on the interval's
    width only, never on whether it includes 1, so the A/A control stays honest."""
    target: float = 0.03
    min_step_s: float = 0.005
    # the target stops a group only from this many processes: with fewer, resampling processes
    # misses a level of each arm's own (tests/test_stats.py)
    min_processes: int = 5
    max_processes: int = 20  # cheap groups may take many; the time share stops costly ones
    budget_s: float = 60.0
    max_rounds: int = 0  # rounds a later process may get (paired.allocate); 0: the profile's
    focus: tuple = ()  # ((backend, model, phase), budget_s, max_processes): a seed's own claim

    def limits(self, key):
        """(budget_s, max_processes) of the comparison group `key`, (backend, model, phase)."""
        return next(((budget, most) for k, budget, most in self.focus if tuple(k) == tuple(key)),
                    (self.budget_s, self.max_processes))


@dataclass(frozen=True)
class Job:
    """What one `python3 run.py bench --job NAME` saves of a profile: its suites, the steady groups
    it times and the time they get."""
    name: str
    suites: tuple  # the suites its saved run times; the others are visible skips naming their job
    minutes: int  # its wall-time budget on a 2-core CPU (docs/METHOD.md, Job time)
    mixed: bool  # steady: seed 002's mixed-precision groups (and the focus groups), not the rows
    group_budget_s: float = None  # steady: each group's time share, if above the profile's
    lifts: tuple = ()  # the profile's Skip rules this job does not apply
    skips: tuple = ()  # Skip rules this job adds to the profile's
    # steady: each arm's block lasts as long as the others' (paired.block_for), not each arm the
    # fastest arm's steps; the mixed-precision losses compare arms after the same steps
    equal_blocks: bool = False

    def apply(self, profile):
        """The profile as this job runs it."""
        adaptive = profile.adaptive
        if adaptive and self.group_budget_s:
            adaptive = replace(adaptive, budget_s=max(adaptive.budget_s, self.group_budget_s))
        return replace(profile, job=self, adaptive=adaptive,
                       steady_equal_blocks=self.equal_blocks or profile.steady_equal_blocks,
                       bench_suites=tuple(s for s in self.suites
                                          if profile.bench_suites is None
                                          or s in profile.bench_suites),
                       skips=tuple(rule for rule in profile.skips if rule not in self.lifts)
                       + self.skips)

    def steady_skip(self, profile, backend, model, variant, precision, phase):
        """Why this job leaves a steady case to the other job, or None."""
        if not self.mixed:
            return None if precision == "float32" else (
                f"job {self.name!r} times float32: mixed precision is seed 002's (python3 run.py "
                "bench --job seeds)")
        focus = {tuple(k) for k, *_ in (profile.adaptive.focus if profile.adaptive else ())}
        mixed = model in profile.precision_models and phase in profile.precision_phases
        if (backend, model, phase) in focus or mixed and (precision != "float32"
                                                           or variant == "eager"):
            return None
        return (f"job {self.name!r} times the steady suite for seed 002's mixed precision and "
                "seed 004's claim; every row of the answer: python3 run.py bench")


@dataclass(frozen=True)
class Scale:
    """The sweep of where graph mode stops paying: the VGG at growing work per train step, eager
    against each backend's `graph`, paired in fresh processes."""
    points: tuple  # (width, side, batch, timed rounds per process), smallest work first
    processes: int = 3
    warmup_rounds: int = 1
    variants: tuple = ("graph",)  # each backend's default graph mode, paired with eager
    # (decoder spec config, batch, timed rounds per process): decoders where compute dominates
    decoder_points: tuple = ()
    # (model, spec config, batch, timed rounds per process): sizes that keep a GPU busy, timed
    # on a GPU only (`on_device`), each beside the sweep as a compute point of its own
    busy_points: tuple = ()

    @property
    def models(self):
        """{label: (model, spec config, batch)} of the points."""
        return {**{_label(w, s, b): ("vgg", {"width": w, "side": s}, b)
                   for w, s, b, _ in self.points},
                **{_decoder_label(c, b): ("decoder", c, b) for c, b, _ in self.decoder_points},
                **{_busy_label(m, c, b): (m, c, b) for m, c, b, _ in self.busy_points}}

    def rounds(self, label):
        """Timed rounds per process at point `label`: fewer where a step takes seconds."""
        return next(iter([r for w, s, b, r in self.points if _label(w, s, b) == label]
                         + [r for c, b, r in self.decoder_points
                            if _decoder_label(c, b) == label]
                         + [r for m, c, b, r in self.busy_points
                            if _busy_label(m, c, b) == label]))


def _label(width, side, batch):
    return f"vgg-s{side}-w{width if width >= 1 else f'1_{round(1 / width)}'}-b{batch}"


def _decoder_label(config, batch):
    return (f"decoder-d{config['width']}-h{config['heads']}-x{config['depth']}-t{config['tokens']}"
            f"-b{batch}")


def _busy_label(model, config, batch):
    """'busy-resnet-d50-s224-w1-b32', 'busy-decoder-d512-h8-x6-t256-b8': a GPU-busy point."""
    if model == "decoder":
        return f"busy-{_decoder_label(config, batch)}"
    return f"busy-{model}-" + "-".join(f"{k[0]}{v:g}" for k, v in sorted(config.items())) + f"-b{batch}"


@dataclass(frozen=True)
class Skip:
    """Runs left out of a profile for its time budget: None matches anything."""
    reason: str
    backend: str = None
    labels: tuple = None  # model names (retrace: its labels)
    variants: tuple = None
    phases: tuple = None
    suites: tuple = None  # for Profile.skips: the suites it applies to

    def matches(self, backend, label, variant, phase):
        return skip_matches(self, backend, label, variant, phase)


def first_reason(rules, backend, label, variant, phase=None):
    """The reason of the first Skip rule that matches, or None."""
    return next((rule.reason for rule in rules if rule.matches(backend, label, variant, phase)),
                None)


_DEEP = ("resnet101", "resnet152")
_DEFAULT_RETRACE_SKIPS = (  # measured compile costs on the 2-core CPU decide these
    Skip("default profile: inference retracing is left to --profile paper (the train step is the "
         "seeds' question; inference on vgg and resnet50 took 43 s of steps in tf, 105 in torch, "
         "42 in jax in runs 0021, 0023 and 0024 on a 2-core AMD EPYC Zen 4)", phases=("infer",)),
    Skip("default profile: an XLA compile per shape of ResNet-101/152 does not fit this "
         "CPU's budget (run --profile paper)", backend="tf", labels=_DEEP,
         variants=("xla", "xla_dynamic")),
    Skip("default profile: a torch.compile per shape of ResNet-101/152 takes minutes on "
         "this CPU (run --profile paper)", backend="torch", labels=_DEEP),
    Skip("default profile: JAX retracing of ResNet-152 took 4.7 min on a 2-core AMD EPYC Zen 4 "
         "(jit 109 + 52 s, op-by-op eager 75 + 44 s, at 7918aea); ResNet-50 shows the per-shape "
         "cost (run --profile paper)", backend="jax", labels=("resnet152",)),
    Skip("default profile: torch retracing is measured on vgg only: ResNet-50's cold compile per "
         "shape passed the 120 s budget in 5 of its 6 runs in run 0014, so it gave no complete "
         "figure (run --profile paper)", backend="torch", labels=("resnet50",)),
)
_CUT_MICRO = ("conv", "lstm_cell", "matmul10", "mlp_step", "sum_even", "square_if_positive",
              "square_vectorized")
_SAME_GRAPH = ("at one shape it compiles the graph its framework's default mode compiles (the same "
               "first-call time in run 0014), so the steady and micro suites time the default mode "
               "only and no headline picks the faster of two identical graphs; retrace and memory, "
               "where it differs, keep it")
_MICRO_CUT = Skip(  # a whole default run's; the seeds job lifts it
    "default profile: the micro suite keeps dispatch, fizzbuzz, train_loop and square_naive "
    "(per-op cost, seed 001's loops; first calls: the construction suite); the rest run in "
    "`run.py bench --job seeds` and --profile quick and paper (the suite took 11.4 min in torch, "
    "3.3 in tf, in runs 0023 and 0021 on a 2-core AMD EPYC Zen 4; conv, lstm_cell and mlp_step "
    "alone 3.4 min and matmul10 1.0 in torch)", suites=("micro",), labels=_CUT_MICRO)
_DEFAULT_SKIPS = (  # the job's 90 minutes: what runs 0014 and 0021-0024 paid for these
    Skip("default profile: torch graph_static's first call compiles the same static graph as "
         "graph's (run 0014: 155.6 vs 155.2 s on resnet, 70.1 vs 70.1 s on vgg), so only graph's "
         "is measured (mnist_cnn's three cold processes took 66 s in run 0023 on a 2-core AMD "
         "EPYC Zen 4; all in --profile paper)", suites=("construction",), backend="torch",
         variants=("graph_static",)),
    Skip("default profile: torch graph_dynamic's first call is not measured (its three cold "
         "processes took 7 min on resnet, 1.6 on vgg in run 0014, 69 s on mnist_cnn in run 0023; "
         "--profile paper)", suites=("construction",), backend="torch",
         variants=("graph_dynamic",)),
    Skip("default profile: memory is measured on mnist_cnn (vgg and resnet took at least 3.4 + "
         "2.6 min in tf, 3.0 + 1.7 in torch, 2.8 + 0.6 in jax, in runs 0021, 0023 and 0024 and "
         "at 7918aea on a 2-core AMD EPYC Zen 4; --profile paper)", suites=("memory",),
         labels=("vgg", "resnet")),
    Skip("default profile: torch graph_static " + _SAME_GRAPH, suites=("steady", "micro"),
         backend="torch", variants=("graph_static",)),
    Skip("default profile: tf graph_relaxed (reduce_retracing traces the concrete shape first) "
         + _SAME_GRAPH, suites=("steady", "micro"), backend="tf", variants=("graph_relaxed",)),
    Skip("default profile: resnet's inference step is left to --profile paper (its groups took "
         "120 s in tf, 131 in torch, 53 in jax, 58 in chainer, in runs 0021-0024 on a 2-core AMD "
         "EPYC Zen 4); resnet's train step and mnist_cnn's and vgg's two steps are timed",
         suites=("steady",), labels=("resnet",), phases=("infer",)),
    _MICRO_CUT,
)

PROFILES = {
    "quick": Profile(
        "quick",
        {"mnist_cnn": ({}, 8),
         "vgg": ({"width": 1 / 16, "side": 32}, 2),
         "resnet": ({"stages": (1, 1, 1, 1), "width": 1 / 16, "side": 64}, 4)},
        steady_rounds=3, warmup_rounds=1, cold_rounds=1, warm_rounds=1,
        steady_processes=2, steady_process_rounds=3,
        construction_models=("mnist_cnn",),  # a cold compile of each costs 10-110 s in CI
        # within 10 minutes: each framework's default graph mode (and XLA) against eager, the
        # train step only, and one child per process for all micro workloads (their first calls
        # then are not cold)
        variants={"tf": ("eager", "graph", "xla"), "torch": ("eager", "graph"),
                  "chainer": ("eager", "graph"), "jax": ("eager", "graph")},
        micro_shared_child=True,
        # a saved quick run answers the headline: step times, first calls, retracing, the sweep
        bench_suites=("construction", "peak", "retrace", "scale", "steady"),
        steady_phases=("train",),  # the infer step's parity: tests/test_parity.py
        notes="CI smoke sizes; resnet uses one block per stage to keep compiles short",
        retrace=Retrace({"vgg": ("vgg", {"width": 1 / 16, "side": 32}, 2)},
                        steps=3, sides=(32, 64), repeat_shapes=2, budget_s=120, cold=False,
                        # the sides tests/test_traces compiles: the test command reuses them
                        square_sides=(32, 48, 64),
                        skips=(Skip("profile 'quick' retraces the train step only",
                                    phases=("infer",)),)),
        precision_models=("mnist_cnn",), determinism_models=("mnist_cnn",),
        memory=Memory(models=("mnist_cnn",), steps=2, extra_batches=(9, 10), repeats=2,
                      warm_prime=True),
        pipeline=Pipeline({"mnist_cnn": ("mnist_cnn", {}, 8)}, examples=32, pad=4, workers=2,
                          rounds=1, warmup_rounds=0),
        # one point, the size of the steady suite's vgg: its compiles are cached (the test
        # command's time); --profile default sweeps four sizes
        scale=Scale(((1 / 16, 32, 2, 3),), processes=2),
        lengths=Lengths({"decoder": ("decoder", {"width": 16, "heads": 2, "depth": 1,
                                                 "tokens": 32}, 2)},
                        steps=3, lengths=(4, 32), median=10, sigma=0.8, budget_s=60)),
    "default": Profile(
        "default",
        {"mnist_cnn": ({}, 32),
         "vgg": ({"width": 1 / 8, "side": 32}, 16),
         "resnet": ({"depth": 50, "width": 1 / 4, "side": 64}, 8),
         "decoder": ({}, 8)},  # models/zoo.decoder's answer size: d128, 4 heads, 2 blocks, 64 tokens
        steady_rounds=30, warmup_rounds=3, cold_rounds=3, warm_rounds=3,  # a child process each
        steady_processes=3, steady_process_rounds=10,  # the 30 rounds of one process, split in 3
        # blocks of at least 50 ms for the fastest arm: the A/A half-width on the MNIST CNN went
        # from ±9.1% to ±6.2% (chainer) and ±9.3% to ±5.9% (torch) on an AMD EPYC Zen 4
        # (suites/noise_sources.py, docs/METHOD.md)
        steady_block=64, steady_block_s=0.05,
        construction_models=("mnist_cnn", "vgg", "resnet", "decoder"),
        notes="sized for a 2-core CPU: the whole job within 90 minutes",
        # the job's 90-minute budget leaves out: ResNet-101 retracing, torch ResNet retracing, VGG
        # at bfloat16, first calls at bfloat16, determinism and the input pipeline on VGG, memory
        # past three extra batch sizes, and _DEFAULT_SKIPS (all in --profile paper)
        retrace=Retrace({"vgg": ("vgg", {"width": 1 / 8, "side": 64}, 4),
                         **{f"resnet{d}": ("resnet", {"depth": d, "width": 1 / 16, "side": 64}, 2)
                            for d in (50, 152)}},
                        steps=4, sides=(64, 128), repeat_shapes=2, budget_s=120,
                        skips=_DEFAULT_RETRACE_SKIPS),
        precision_models=("mnist_cnn",), determinism_models=("mnist_cnn",),
        memory=Memory(models=("mnist_cnn", "vgg", "resnet"), steps=3,
                      extra_batches=(9, 10, 11), repeats=3),
        pipeline=Pipeline({"mnist_cnn": ("mnist_cnn", {}, 32)},
                          examples=512, pad=4, workers=2, rounds=3),
        # from the quick profile's VGG to the full-width VGG-16 at 224x224 (the headline vgg,
        # 1/8 width at 32x32, sits between the first two points); about 7 minutes in all
        scale=Scale(((1 / 16, 32, 2, 10), (1 / 4, 64, 8, 8), (1 / 2, 112, 4, 5), (1, 224, 1, 3)),
                    decoder_points=((DECODER_COMPUTE, 1, 3),),  # 31.6 GFLOP per train step
                    # issue 49: sizes where a GPU is busy, ResNet-50 at full width and 224² px,
                    # batch 32, and the decoder's compute point at batch 8 (on a GPU only)
                    busy_points=(("resnet", {"depth": 50, "width": 1.0, "side": 224}, 32, 5),
                                 ("decoder", DECODER_COMPUTE, 8, 5))),
        # the answer's decoder with positions for 256 tokens: 48 batches of 8 whose longest
        # sequence is log-normal around 40 tokens (8 to 256: 34 lengths, 6 powers of two, 6
        # multiples of 32)
        lengths=Lengths({"decoder": ("decoder", {"tokens": 256}, 8)}, steps=48,
                        lengths=(8, 256), median=40, sigma=0.8, budget_s=90),
        precision_phases=("train",),  # mixed precision is a training feature (seed 002)
        # seed 004's claim (Chainer @static_graph on this MNIST CNN, 1.12x) gets the time to
        # reach +-3%: 18 processes in the 60 s share gave +-4.5% in run 0026 (3.3 s a process)
        # later processes get up to 60 rounds where rounds are the cheaper repetition (issue 35)
        adaptive=Adaptive(max_rounds=60, focus=((("chainer", "mnist_cnn", "train"), 180.0, 60),)),
        skips=_DEFAULT_SKIPS),
    "paper": Profile(
        "paper",
        {"mnist_cnn": ({}, 32),
         "vgg": ({"width": 1.0, "side": 224}, 16),
         "resnet": ({"depth": 152, "width": 1.0, "side": 224}, 16)},
        steady_rounds=50, warmup_rounds=5, cold_rounds=3, warm_rounds=3,
        steady_processes=5, steady_process_rounds=10, steady_block=64, steady_block_s=0.05,
        notes="the seeds' scale (VGG16 and ResNet152V2 at 224x224, batch 16): meant for a GPU",
        retrace=Retrace({"vgg16": ("vgg", {"width": 1.0, "side": 224}, 16),
                         **{f"resnet{d}": ("resnet", {"depth": d, "width": 1.0, "side": 224}, 16)
                            for d in (50, 101, 152)}},
                        steps=300, sides=(64, 256), repeat_shapes=4, budget_s=4 * 3600),
        precision_models=("mnist_cnn", "vgg", "resnet"),
        construction_precisions=("float32", "bfloat16", "float16"),
        determinism_models=("mnist_cnn", "vgg", "resnet"),
        memory=Memory(models=("mnist_cnn", "vgg", "resnet"), steps=5,
                      extra_batches=tuple(range(17, 24)), repeats=5),  # under the recompile limit
        pipeline=Pipeline({"mnist_cnn": ("mnist_cnn", {}, 32),
                           "vgg16": ("vgg", {"width": 1.0, "side": 224}, 16)},
                          examples=2048, pad=32, workers=8, rounds=3),
        scale=Scale(((1 / 16, 32, 2, 10), (1 / 8, 32, 16, 10), (1 / 4, 64, 8, 10),
                     (1 / 2, 112, 4, 10), (1, 224, 2, 5), (1, 224, 16, 5)), processes=5,
                    decoder_points=((DECODER_COMPUTE, 8, 5),)),
        lengths=Lengths({"decoder": ("decoder", {"tokens": 256}, 8)}, steps=300,
                        lengths=(8, 256), median=40, sigma=0.8, budget_s=1800),
        adaptive=Adaptive(max_processes=15, budget_s=600)),
}

_AT_ONE_SHAPE = Skip(
    "job 'answer' leaves graph_dynamic and xla_dynamic: the answer's rows run at one input "
    "shape, where a shape-polymorphic trace is what the default mode compiles, less specialised "
    "(xla_dynamic: XLA still compiles per concrete shape), and no row chose one in the Zen 4 "
    "answer jobs 0054-0069; each arm costs every round a block (a torch process a compile), so "
    "the answer times eager, its A/A twin, the default "
    "mode and xla; the shape-polymorphic variants are timed where shapes vary: python3 run.py "
    "bench --job seeds (retrace, token lengths)", suites=("steady",),
    variants=("graph_dynamic", "xla_dynamic"))

JOBS = {
    # the README's answer table and advice: each row's steady train and infer steps with their
    # A/A pair, first calls cold and warm (break-even), the sweep and the matmul peak; its steady
    # groups get the time the seeds' suites left: 7 groups a backend (the decoder's two among
    # them) at 100 s each, 47 minutes at most, within 75 minutes on a 2-core CPU; blocks of equal
    # time per arm: a block's noise fell as if white with its length (runs 0050-0053: a 58 ms
    # graph block 8-13% a round, a 264-315 ms eager block 3-6%), so equal time per arm halves a
    # round's variance for its cost where eager's blocks took 5-10 times graph's (TF's groups at
    # 130 s, runs 0070-0077, were no narrower and took the job to 75.8 minutes)
    "answer": Job("answer", ("steady", "construction", "scale", "peak"), 75, mixed=False,
                  group_budget_s=100.0, equal_blocks=True,
                  skips=(_AT_ONE_SHAPE,)),
    # the seeds' experiments: 000 retracing (and its form today: token lengths that vary), 001
    # every micro workload, 002 mixed precision and deterministic ops, 003 the input pipeline,
    # 004's focus group, and memory, within 90 minutes
    "seeds": Job("seeds", ("retrace", "lengths", "micro", "determinism", "pipeline", "memory",
                           "steady"), 90,
                 mixed=True, lifts=(_MICRO_CUT,)),
}
