"""Measure a user's model in one framework: cold (and warm) first-call children per variant, then
paired steady children; a variant that fails is kept as a skip with the framework's reason."""
import math
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass

from backends import VARIANTS, load_part, unsupported_reason
from backends.user import BUILDERS, LOSS_CALL, load, one_line
from suites.child import command as child_command
from suites.paired import AA, run_child
from suites.progress import _minutes as minutes


@dataclass(frozen=True)
class Plan:
    """How much to run: the variants (None: every one the framework has), processes and rounds."""
    steady_processes: int
    rounds: int
    warmup: int
    block: int = 1  # steps per arm per round: the most, with block_s
    block_s: float = 0.0  # grow each arm's block until it lasts this long (the suites' rule)
    equal_blocks: bool = True  # each arm's block as long as the others' (the answer job's rule)
    cold_processes: int = 1  # 0 (smoke): first calls taken from the steady child
    warm: bool = True  # a second child per variant reusing the cold child's compile cache
    shapes: int = -1  # retrace shapes taken from the file's list (-1: all, 0: no retrace run)
    accuracy_steps: int = 3
    memory_steps: int = 2
    variants: tuple = None
    budget_s: float = 120  # a retrace run past this stops after its current step (cut short)
    cold_cache: bool = True  # False (smoke): first calls in the session's compile cache


def plan_for(profile, smoke=False):
    """The profile's steady settings; `smoke` (--benchmark-disable): one short pass of `graph`."""
    if smoke:
        return Plan(1, 2, 0, cold_processes=0, warm=False, shapes=0, accuracy_steps=2,
                    memory_steps=1, variants=("graph",), budget_s=30, cold_cache=False)
    quick = profile.name == "quick"  # a preview: no warm children, a short retrace budget
    return Plan(profile.steady_processes, profile.steady_process_rounds, profile.warmup_rounds,
                profile.steady_block, profile.steady_block_s, cold_processes=1 if quick else 2,
                warm=not quick,
                budget_s=30 if quick else profile.retrace.budget_s)


def variants_of(framework, plan, device="cpu"):
    """The graph variants to run on `device`: the framework's (the suite's registry), or the plan's
    subset."""
    found = [v for v in VARIANTS if v != "eager" and not unsupported_reason(framework, v, device)]
    return [v for v in found if plan.variants is None or v in plan.variants]


def keeps_compiled(backend, threads, device="cpu"):
    """Whether `backend` keeps compiled code in an on-disk cache that warm children reuse (its
    `cache_hits` counts), asked of it configured on a GPU: Chainer's CuPy counts there only. On a
    CPU it is not configured here (its children are)."""
    if device == "cuda":
        backend.configure(threads, device)
    return backend.cache_hits() is not None


def _command(path, framework, mode, arms, threads, device="cpu", **options):
    flags = child_command("", file=str(path), framework=framework, mode=mode, arms=arms,
                          threads=threads, device=device, **options)[3:]  # the suites' spelling
    return [sys.executable, "-m", "user.child", *flags]


def _first_calls(path, framework, arm, plan, threads, has_cache, steady_cache, device="cpu"):
    """Cold children (each in an empty compile cache) and, with a cache, warm ones after them;
    what they compiled is copied into `steady_cache` for the steady children."""
    cold, warm = [], []
    for _ in range(plan.cold_processes):
        with tempfile.TemporaryDirectory(prefix="graphbench-user-") as cache:
            options = {"memory_steps": plan.memory_steps, "shapes": plan.shapes,
                       "budget": plan.budget_s, **({"cache_dir": cache} if plan.cold_cache else {})}
            cold.append(run_child(_command(path, framework, "cold", [arm], threads, device,
                                           **options)))
            if plan.warm and has_cache and arm != "eager":
                warm.append(run_child(_command(path, framework, "cold", [arm], threads, device,
                                               **{**options, "shapes": 0})))
            if has_cache and plan.cold_cache:
                shutil.copytree(cache, steady_cache, dirs_exist_ok=True)
    return cold, warm


def progress(log, framework, parts, clock=time.monotonic):
    """`say(what, left_s=None, until="")`: a line for each part measure() starts, `part k of
    parts`, with the time so far and, where known, about how long the parts left take (`until`
    names where that estimate ends)."""
    start, started = clock(), []

    def say(what, left_s=None, until=""):
        started.append(clock())
        left = "" if left_s is None else f", about {minutes(left_s)} left{until}"
        log(f"user: {framework}: part {len(started)} of {parts}, {what}; "
            f"{minutes(started[-1] - start)} so far{left}")
    return say


def measure(path, framework, plan, threads, has_cache=False, log=print, device="cpu",
            clock=time.monotonic):
    """All of one framework's figures for the file on `device`, as a JSON-ready dict; a GPU's
    steady steps waited on once per block, as a training loop runs them (the suites' rule).
    `log` gets a line as each part starts: each arm's first calls, then each steady process,
    with the time the parts of its kind left take at the pace of those done."""
    from conftest import default_wait  # the suites' rule: in the pytest process that calls this
    variants, wait = variants_of(framework, plan, device), default_wait(device)
    out = {"file": str(path), "framework": framework, "plan": asdict(plan), "threads": threads,
           "device": device, "wait": wait, "variants": variants, "failed": {}, "cold": {},
           "warm": {}}
    say = progress(log, framework, 1 + len(variants) + plan.steady_processes, clock)
    with tempfile.TemporaryDirectory(prefix="graphbench-user-steady-") as steady_cache:
        compiled = []  # each graph variant's first-call part, in seconds (eager's compiles nothing)
        for arm in ["eager", *variants]:
            left = sum(compiled) / len(compiled) * (len(variants) - len(compiled)) \
                if compiled else None
            say(f"{arm}: first calls and the retrace run in fresh processes", left,
                " before the steady rounds")
            began = clock()
            try:
                out["cold"][arm], out["warm"][arm] = _first_calls(
                    path, framework, arm, plan, threads, has_cache, steady_cache, device)
            except RuntimeError as error:
                if arm == "eager":
                    raise
                out["failed"][arm] = str(error)
            if arm != "eager":
                compiled.append(clock() - began)
        arms = ["eager", AA, *(v for v in variants if v not in out["failed"])]
        cache = {"cache_dir": steady_cache} if has_cache and plan.cold_cache else {}
        out["steady"] = []
        steady_start = clock()
        for seed in range(plan.steady_processes):
            mean = (clock() - steady_start) / seed if seed else None  # they are alike
            say(f"steady rounds of every arm, process {seed + 1} of {plan.steady_processes}",
                None if mean is None else mean * (plan.steady_processes - seed))
            out["steady"].append(run_child(_command(
                path, framework, "steady", arms, threads, device, rounds=plan.rounds,
                warmup=plan.warmup, block=plan.block, block_s=plan.block_s,
                equal_blocks=plan.equal_blocks, seed=seed,
                accuracy_steps=plan.accuracy_steps, wait=wait, **cache)))
    for child in out["steady"]:
        out["failed"].update(child["failed"])
    if not plan.cold_processes:
        _first_calls_from_steady(out)
    return out


def _first_calls_from_steady(out):
    """Smoke: each arm's first calls as the steady child took them (after the arms before it, in
    the session's cache: not cold), no memory or retrace figures."""
    child = out["steady"][0]
    for arm, first in child["first_calls"].items():
        out["cold"][arm] = [{"first_call_s": first.get("train_s"), "startup_s": child["startup_s"],
                             "infer_first_call_s": first.get("infer_s"), "peak_rss_bytes": None,
                             "retrace": [], "retrace_planned": 0, "traces_after_first": 0,
                             "log_signals": {}, "cache_hits": None}]


def check(path, framework):
    """Load the file and take one eager train and infer step in this process: whatever is wrong
    raises UserFileError naming the file and the function, before any child starts."""
    user = load(path)
    builder = BUILDERS[framework]
    if not hasattr(user.module, builder):
        user.fail(builder, "not defined")
    shape, _ = user.shape(), user.shapes()
    example = user.batch(shape, 0)
    runner = load_part(framework, "user").Runner(user, "eager", example=example)
    xs, target = runner.to_device(*example)
    for what, step in ((f"a train step (model, then {LOSS_CALL[framework]})",
                        lambda: runner.train_step(xs, target)),
                       ("an inference step (model)", lambda: runner.infer_step(xs))):
        try:
            step()
        except Exception as error:
            user.fail(f"{builder}()", f"{what} raised {one_line(error)}", error)
    if not math.isfinite(float(runner.train_step(xs, target))):
        user.fail(f"{builder}()", "the loss is not finite after an eager train step")
    return user
