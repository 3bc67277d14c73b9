"""Child process: one (backend, model, variant) of the pipeline suite, every loader's whole training
epochs timed in interleaved rounds, printed as one JSON line.

python -m suites.pipeline_child --backend B --model M --config JSON --batch N --variant V
    --loaders naive,parallel,cache --folder DIR --examples E --pad P --workers K --rounds R
    --warmup W --seed S --threads T [--case-seed C]

Each loader is an arm with a runner of its own; when the baseline loader is one of them, a second
instance of it with its own runner (`naive_aa`) is the A/A control. The seeded PNG files are read
from DIR, or written there first when it holds no finished set. Everything but the JSON line goes
to stderr."""
import contextlib
import json
import math
import os
import sys
import time
from pathlib import Path

from catalog import LOADER_BASELINE as BASELINE  # the loader every other is compared with
from suites import child
from suites.paired import interleave

AA = f"{BASELINE}_aa"  # a second, independent baseline loader and runner: the A/A control
VARIANTS = ("eager", "graph")  # the train steps the suite compares
MANIFEST = "labels.json"  # written last: the folder holds a finished set of files
SETTLE_S = 2.0  # the longest wait for a loader's background work after an epoch


def parse(argv):
    parser = child.parser("pipeline_child", __doc__, device=False)
    for name in ("--variant", "--loaders", "--folder"):
        parser.add_argument(name, required=True)
    for name in ("--examples", "--pad", "--workers"):
        parser.add_argument(name, type=int, required=True)
    child.add_rounds(parser, rounds=3, warmup=1, block=False)
    parser.add_argument("--case-seed", type=int, default=0,
                        help="the case's seed: images, crops and weights (--seed: the order)")
    args = parser.parse_args(argv)
    args.loaders = list(dict.fromkeys(a for a in args.loaders.split(",") if a))
    return args


def arms(loaders):
    """The loaders, then the A/A arm when the baseline is among them."""
    return loaders + ([AA] if BASELINE in loaders else [])


def loader_of(arm):
    return BASELINE if arm == AA else arm


def command(backend, model, config, batch, variant, loaders, folder, plan, rounds, warmup,
            seed=0, threads=1, case_seed=0):
    """The command line of one child timing `loaders` (a profile's Pipeline `plan`)."""
    return child.command("pipeline_child", backend=backend, model=model, config=config,
                         batch=batch, variant=variant, loaders=loaders, folder=folder,
                         examples=plan.examples, pad=plan.pad, workers=plan.workers,
                         rounds=rounds, warmup=warmup, seed=seed, threads=threads,
                         case_seed=case_seed)


def check(args):
    """Raise a one-line error for a backend, model, variant or loader not runnable here."""
    from backends import BACKENDS, check_choice, load, unsupported_reason
    import models  # NumPy loads here: after the thread variables are set
    from backends.pipeline import UNSUPPORTED, check_loader
    check_choice("backend", args.backend, BACKENDS)
    check_choice("model", args.model, models.MODELS)
    if not args.loaders:
        raise ValueError("--loaders names no loader")
    for name in args.loaders:
        check_loader(name)
        if reason := UNSUPPORTED.get((args.backend, name)):
            raise ValueError(f"{args.backend}/{name} is not supported: {reason}")
    if args.variant not in VARIANTS:
        raise ValueError(f"variant {args.variant!r}: the pipeline suite compares "
                         f"{' and '.join(VARIANTS)} steps only")
    if reason := unsupported_reason(args.backend, args.variant):
        raise ValueError(f"{args.backend}/{args.variant} is not supported: {reason}")
    for name in ("rounds", "examples", "batch"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name} {getattr(args, name)}: must be 1 or more")
    if args.batch > args.examples:
        raise ValueError(f"--batch {args.batch} is more than --examples {args.examples}: "
                         "an epoch of no whole batch")
    load(args.backend)  # a missing framework: BackendUnavailable, naming the tox env


def image_files(folder, examples, stored, channels, seed, classes):
    """(paths, int32 labels) of the seeded PNG files in `folder`: written there unless a finished
    set (MANIFEST, written last) is present, which must be for the same settings."""
    import numpy as np
    from backends.pipeline import write_images
    folder, want = Path(folder), {"examples": examples, "stored_side": stored,
                                  "channels": channels, "seed": seed, "classes": classes}
    manifest = folder / MANIFEST
    if manifest.exists():
        found = json.loads(manifest.read_text())
        if {k: found.get(k) for k in want} != want:
            raise ValueError(f"{folder} holds images written with {found}, not {want}")
        return [str(folder / name) for name in found["files"]], np.asarray(found["labels"],
                                                                          np.int32)
    folder.mkdir(parents=True, exist_ok=True)
    paths, labels = write_images(folder, examples, stored, channels, seed, classes)
    partial = manifest.with_suffix(".partial")
    partial.write_text(json.dumps({**want, "files": [Path(p).name for p in paths],
                                   "labels": labels.tolist()}))
    os.replace(partial, manifest)
    return paths, labels


def run_epoch(runner, loader, record):
    """Train through one epoch; appends (epoch s, input-wait s, steps, last loss) to `record`."""
    start = time.perf_counter()
    iterator = iter(loader)  # counted as input wait: a DataLoader wakes its workers here
    wait, steps, loss = time.perf_counter() - start, 0, math.nan
    while True:
        asked = time.perf_counter()
        batch = next(iterator, None)
        wait += time.perf_counter() - asked
        if batch is None:
            break
        loss = runner.train_step(*batch)
        steps += 1
    record.append((time.perf_counter() - start, wait, steps, loss))


def settle(loader):
    """Wait (outside the clock) for the batch a Chainer iterator prepares past the epoch's end:
    in interleaved rounds it would otherwise run during the next arm's epoch. tf.data and
    DataLoader iterators stop at the epoch's end. Reads Chainer 7.8.1's private state."""
    iterator, deadline = getattr(loader, "iterator", None), time.perf_counter() + SETTLE_S
    pending = getattr(iterator, "_next", None)  # MultithreadIterator: the next batch's map_async
    if pending is not None:
        pending.wait(SETTLE_S)
    comm, loop = getattr(iterator, "_comm", None), getattr(iterator, "_prefetch_loop", None)
    pool = getattr(loop, "_pool", None)  # MultiprocessIterator: its prefetch thread's workers
    while (comm is not None and pool is not None and time.perf_counter() < deadline
           and (len(comm._batch_queue) < iterator.n_prefetch or pool._cache)):
        time.sleep(0.001)


@contextlib.contextmanager
def settled(loader):
    yield
    settle(loader)


def measure(args):
    """Build every arm's loader and runner, pay each first step (its epoch's other batches read,
    untrained), warm up, then time interleaved epochs."""
    import models
    from backends.pipeline import close, crop_offsets, load_pipeline, workers_used
    backend, device, spec = child.start(args.backend, args.threads, "cpu", args.model,
                                        json.loads(args.config))
    channels, side, _ = spec.input_chw
    stored = side + args.pad
    paths, labels = image_files(args.folder, args.examples, stored, channels, args.case_seed,
                                spec.classes)
    offsets = crop_offsets(args.examples, stored, side, args.case_seed)
    pipeline, names = load_pipeline(args.backend), arms(args.loaders)
    loaders, runners, build_s, records = {}, {}, {}, {arm: [] for arm in names}
    try:
        for arm in names:
            start = time.perf_counter()
            loaders[arm] = pipeline.loader(loader_of(arm), paths, labels, offsets, side,
                                           args.batch, args.workers)
            build_s[arm] = time.perf_counter() - start  # the cache loader decodes every file here
        for arm in names:  # every runner before any first call: a torch Runner resets dynamo
            runners[arm] = backend.Runner(spec, models.init_params(spec, args.case_seed),
                                          args.variant, device)
        start = time.perf_counter()
        for arm in names:
            batches = iter(loaders[arm])
            runners[arm].train_step(*next(batches))  # trace / compile / schedule build
            for _ in batches:  # the rest of the epoch's input, so no worker is left busy
                pass
            settle(loaders[arm])
        first_steps_s = time.perf_counter() - start
        epochs = {arm: (lambda a=arm: run_epoch(runners[a], loaders[a], records[a]))
                  for arm in names}
        contexts = {arm: (lambda a=arm: settled(loaders[a])) for arm in names}
        interleave(epochs, args.warmup, seed=args.seed, contexts=contexts)
        for record in records.values():
            record.clear()
        times, settings = interleave(epochs, args.rounds, seed=args.seed, contexts=contexts)
    finally:
        for loader in loaders.values():
            close(loader)
    loss = {a: r[-1][3] for a, r in records.items()}
    return {"arms": names, "times": times,
            "input_wait_s_per_step": {a: [w / max(n, 1) for _, w, n, _ in r]
                                      for a, r in records.items()},
            "steps": {a: r[-1][2] for a, r in records.items()},
            "loss": loss, "loss_finite": all(math.isfinite(v) for v in loss.values()),
            "build_s": build_s, "first_steps_s": first_steps_s,
            "workers": {a: workers_used(args.backend, loader_of(a), args.workers) for a in names},
            "traces": {a: r.traces() for a, r in runners.items()},
            "settings": {**settings, "warmup_rounds": args.warmup}, "stored_side": stored,
            "framework_version": backend.version()}


def main(argv=None):
    """Run one group; the JSON line goes to the real stdout, everything else to stderr."""
    args = parse(argv)
    return child.run("pipeline_child", args.threads, lambda: check(args), lambda: measure(args))


if __name__ == "__main__":
    sys.exit(main())
