"""Two saved runs side by side (two versions, CPU and GPU, two machines): times, and each run's
speedups with the ratio between them."""
from report.load import load_file
from report.tables import _ms, _paired, interval_cell, speedup

RESAMPLES, LEVEL = 2000, 0.95


def compare_runs(path_a, path_b):
    """Markdown: every benchmark present in both runs (medians and b / a), then every speedup
    over eager within each run and the ratio of the two speedups."""
    a = {r.name: r for r in load_file(path_a)}
    b = {r.name: r for r in load_file(path_b)}
    shared = sorted(set(a) & set(b))
    lines = [f"| benchmark | {path_a} median ms | {path_b} median ms | b / a |",
             "|---|---|---|---|"]
    for name in shared:
        ma, mb = a[name].stats["median"], b[name].stats["median"]
        overlap = a[name].stats["q1"] <= b[name].stats["q3"] and b[name].stats["q1"] <= a[name].stats["q3"]
        lines.append(f"| {name} | {_ms(ma)} | {_ms(mb)} | {mb / ma:.2f}{' ~' if overlap else ''} |")
    only = sorted(set(a) ^ set(b))
    if only:
        lines += ["", f"In one run only: {', '.join(only)}"]
    return "\n".join(lines + speedup_table(a, b))


def _eager_of(run, r):
    """The eager result of `r`'s own run for the same backend, model, phase and flags."""
    same = ("backend", "model", "phase", "precision", "deterministic", "cache")
    return next((e for e in run.values() if e.info["variant"] == "eager"
                 and all(e.info.get(k) == r.info.get(k) for k in same)), None)


def speedup_table(a, b):
    """Rows of eager ÷ variant within run A and within run B, and B's speedup ÷ A's."""
    rows, overlaps = [], []
    for name in sorted(set(a) & set(b)):
        ra, rb = a[name], b[name]
        if ra.info["phase"] not in ("train", "infer") or ra.info["variant"] == "eager":
            continue
        ea, eb = _eager_of(a, ra), _eager_of(b, rb)
        if ea and eb:
            rows.append(f"| {name} | {speedup(ea, ra)} | {speedup(eb, rb)} | "
                        f"{ratio_of_ratios(ea, ra, eb, rb)} |")
            if _paired(ea, ra) and _paired(eb, rb):
                overlaps.append(ra.info["ci_low"] <= rb.info["ci_high"]
                                and rb.info["ci_low"] <= ra.info["ci_high"])
    if not rows:
        return []
    if overlaps:  # two invocations of the same command should overlap on every ratio
        rows.append(f"\nThe two runs' 95% intervals overlap for {sum(overlaps)} of "
                    f"{len(overlaps)} paired speedups.")
    return ["", "Speedup over eager within each run (never one run's time over the other's), "
            "and B's speedup ÷ A's: with a 95% interval when both runs saved paired rounds "
            "(each run's bootstrap drawn on its own), `~` when it includes 1.", "",
            "| benchmark | speedup in A | speedup in B | B ÷ A |", "|---|---|---|---|", *rows]


def ratio_of_ratios(eager_a, graph_a, eager_b, graph_b):
    """B's speedup over A's, with an interval when both runs carry paired rounds."""
    point = _point(eager_b, graph_b) / _point(eager_a, graph_a)
    rounds = [r.info.get("paired_rounds_s") for r in (eager_a, graph_a, eager_b, graph_b)]
    if not all(rounds):
        return f"{point:.2f}× (unpaired)"
    import numpy as np  # only paired runs need it: the report itself runs without NumPy
    draws = _draws(*rounds[2:], seed=1) / _draws(*rounds[:2], seed=0)
    low, high = np.quantile(draws, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return interval_cell(point, low, high)


def _point(eager, graph):
    """The speedup the tables show: the saved paired estimate, else the ratio of medians."""
    return graph.info["speedup"] if _paired(eager, graph) else (
        eager.stats["median"] / graph.stats["median"])


def _draws(eager, graph, seed):
    """Bootstrap draws of one run's eager ÷ graph: processes, then rounds within each, paired."""
    import numpy as np
    eager, graph = np.asarray(eager, dtype=float), np.asarray(graph, dtype=float)
    processes, rounds = eager.shape
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, processes, (RESAMPLES, processes))[:, :, None]
    within = rng.integers(0, rounds, (RESAMPLES, processes, rounds))
    flat = lambda x: np.median(x[pick, within].reshape(RESAMPLES, -1), axis=1)
    return flat(eager) / flat(graph)
