"""Where a steady comparison's noise comes from: one group (eager, the A/A arm and `graph`) timed
under each setting in fresh children, interleaved setting by setting, and each setting's A/A and
speedup interval widths, per-round and between-process spread.

python -m suites.noise_sources --backend chainer --model mnist_cnn --batch 32 [--phase train]
    [--processes 4] [--rounds 10] [--json FILE]

Run it in the backend's env on a quiet machine (`.tools/bin/tox -e chainer -- python -m
suites.noise_sources ...`); docs/METHOD.md, repeat runs, reports what it found."""
import argparse
import json
import os
import sys

SETTINGS = {  # name -> (child flags, CPUs it may run on: None for every one)
    "baseline (block 1, every thread)": ({"block": 1}, None),
    "block of 50 ms (at most 64 steps)": ({"block": 64, "block_s": 0.05}, None),
    "one thread, pinned to one core": ({"block": 1, "threads": 1}, 1),
    "every thread, pinned to all cores": ({"block": 1}, "all"),
}


def _command(args, flags, seed, cpus):
    from suites.paired import child_command
    plan = {"rounds": args.rounds, "warmup": 3, "block": flags["block"],
            "block_s": flags.get("block_s")}
    command = child_command(args.backend, args.model, json.loads(args.config), args.batch,
                            args.phase, ["eager", "eager_aa", "graph"], plan, seed,
                            threads=flags.get("threads", os.cpu_count()))
    if cpus is None:
        return command
    cores = sorted(os.sched_getaffinity(0))
    return ["taskset", "-c", ",".join(map(str, cores if cpus == "all" else cores[-cpus:])),
            *command]


def measure(args):
    """{setting: {"aa": Ratio, "speedup": Ratio, "noise": Noise, "blocks": [...]}}; the settings'
    processes alternate (process p of every setting, then p + 1) so drift hits each alike."""
    import stats
    from suites import child
    found = {name: [] for name in SETTINGS}
    for seed in range(args.processes):
        for name, (flags, cpus) in SETTINGS.items():
            found[name].append(child.result(_command(args, flags, seed, cpus)))
            print(f"noise_sources: process {seed + 1}/{args.processes}: {name}", file=sys.stderr)
    out = {}
    for name, children in found.items():
        times = {arm: [c["times"][arm] for c in children] for arm in ("eager", "eager_aa", "graph")}
        out[name] = {"aa": stats.ratio(times["eager"], times["eager_aa"]),
                     "speedup": stats.ratio(times["eager"], times["graph"]),
                     "noise": stats.noise(times["eager"], times["eager_aa"]),
                     "blocks": [c["settings"]["block"] for c in children],
                     "eager_step_s": sorted(t for p in times["eager"] for t in p)[
                         len(times["eager"]) * args.rounds // 2]}
    return out


def table(found):
    """The settings side by side: half-widths, spreads, the speedup."""
    width = lambda r: f"±{(r.high - r.low) / 2 / r.estimate:.1%}"
    lines = ["| setting | eager step ms | A/A | A/A half-width | per-round sd | between-process sd "
             "| speedup | speedup half-width | blocks |", "|---" * 9 + "|"]
    for name, f in found.items():
        lines.append(f"| {name} | {f['eager_step_s'] * 1e3:.1f} | {f['aa'].estimate:.3f} | "
                     f"{width(f['aa'])} | {f['noise'].within:.1%} | {f['noise'].between:.1%} | "
                     f"{f['speedup'].estimate:.3f} [{f['speedup'].low:.3f}, {f['speedup'].high:.3f}]"
                     f" | {width(f['speedup'])} | {min(f['blocks'])}–{max(f['blocks'])} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m suites.noise_sources",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--config", default="{}")
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--phase", choices=("train", "infer"), default="train")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    found = measure(args)
    print(table(found))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({name: {"aa": vars(f["aa"]), "speedup": vars(f["speedup"]),
                              "noise": vars(f["noise"]), "blocks": f["blocks"],
                              "eager_step_s": f["eager_step_s"]} for name, f in found.items()},
                      out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
