"""How far the host moves inside one process on a GPU, from the saved runs: each graph variant's
block-timed rounds beside its eager arm's, per process, the slowest round ÷ the fastest of each arm
and of their per-round ratio, and the ratio's variance as a share of the two arms' summed (1:
pairing removed nothing; 0: the arms moved as one). A whole step in one CUDA graph, one launch a
step, is counted apart from the variants that launch many kernels (or graphs) a step.

python3 gpu/round_levels.py [--results results] [--rounds RUN] prints a line per GPU and kind of
arm; --rounds, each process's rounds of one run (ms). docs/METHOD.md, The step a GPU user runs."""
import argparse
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from report.build.load import load_dir  # noqa: E402

ONE_GRAPH = "cuda_graph"  # the variant whose step the host launches once


def _spread(logs):
    """The largest of `logs` over the smallest, as a ratio of their exponentials."""
    return math.exp(max(logs) - min(logs))


def _eager_key(r):
    """The key of `r`'s eager row in its own run, as the report pairs them (records.repeated)."""
    return r.run, r.flags, (*r.key[:2], "eager", *r.key[3:])


def process_rows(results):
    """One dict per process of each block-timed GPU graph row that has its eager arm's rounds."""
    timed = [r for r in results if r.graphbench.get("gpu") and r.info.get("wait") == "block"
             and r.info.get("paired_rounds_s")]
    eager = {(r.run, r.flags, r.key): r.info["paired_rounds_s"]
             for r in timed if r.info["variant"] == "eager"}
    for r in timed:
        base = eager.get(_eager_key(r))
        if r.info["variant"] == "eager" or not base:
            continue
        for process, (e, g) in enumerate(zip(base, r.info["paired_rounds_s"])):
            if len(e) != len(g) or len(e) < 4:
                continue
            le, lg = [math.log(x) for x in e], [math.log(x) for x in g]
            lr = [a - b for a, b in zip(le, lg)]
            moved = statistics.pvariance(le) + statistics.pvariance(lg)
            yield {"gpu": r.graphbench["gpu"].split(",")[0], "run": r.run,
                   "backend": r.info["backend"], "model": r.info["model"],
                   "phase": r.info["phase"], "variant": r.info["variant"], "process": process,
                   "eager": _spread(le), "arm": _spread(lg), "ratio": _spread(lr),
                   "share": statistics.pvariance(lr) / moved if moved else None}


def summary(rows):
    """{(gpu, kind): counts, medians and widest spreads, the median variance share}."""
    groups = {}
    for row in rows:
        kind = "one CUDA graph" if row["variant"] == ONE_GRAPH else "host-driven"
        groups.setdefault((row["gpu"], kind), []).append(row)
    found = {}
    for key, group in sorted(groups.items()):
        shares = [r["share"] for r in group if r["share"] is not None]
        found[key] = {"processes": len(group),
                      **{f"{arm}_median": statistics.median(r[arm] for r in group)
                         for arm in ("eager", "arm", "ratio")},
                      **{f"{arm}_widest": max(r[arm] for r in group) for arm in ("eager", "arm")},
                      "share_median": statistics.median(shares) if shares else None}
    return found


def round_lines(results, run):
    """Each process's rounds of `run` (ms), eager then each graph variant, a line each."""
    lines = []
    for r in results:
        if r.run == run and r.info.get("paired_rounds_s"):
            for process, rounds in enumerate(r.info["paired_rounds_s"]):
                lines.append(f"{r.info['model']} {r.info['phase']} {r.info['variant']} "
                             f"process {process}: " + " ".join(f"{x * 1e3:.3f}" for x in rounds))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(ROOT / "results"))
    parser.add_argument("--rounds", help="a run's name (0227_gpu-jax-mnist_cnn): its rounds")
    args = parser.parse_args(argv)
    results = load_dir(args.results)
    if args.rounds:
        lines = round_lines(results, args.rounds)
        if not lines:
            print(f"gpu/round_levels.py: no run named {args.rounds} with rounds under "
                  f"{args.results}", file=sys.stderr)
            return 2
        print("\n".join(lines))
        return 0
    found = summary(process_rows(results))
    if not found:
        print(f"gpu/round_levels.py: no block-timed GPU run under {args.results}", file=sys.stderr)
        return 2
    for (gpu, kind), s in found.items():
        share = "—" if s["share_median"] is None else f"{s['share_median']:.2f}"
        print(f"{gpu}, {kind}: {s['processes']} processes; slowest round ÷ fastest, eager "
              f"{s['eager_median']:.2f}× (up to {s['eager_widest']:.2f}×), graph arm "
              f"{s['arm_median']:.2f}× (up to {s['arm_widest']:.2f}×), their ratio "
              f"{s['ratio_median']:.2f}×; the ratio's variance ÷ the arms' summed {share}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
