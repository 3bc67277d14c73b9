"""One generated paragraph per chart: what the saved figures say, with no number typed by hand."""
from report.tables import _paired, break_even, index, interval_cell


def _speedups(idx, phase):
    """(ratio, backend, model, variant, verdict): 'n.s.' when the paired interval includes 1,
    'slower'/'faster' when it excludes it, 'unpaired' for results saved without one."""
    out = []
    for (backend, model, variant, p, cache), graph in idx.items():
        eager = idx.get((backend, model, "eager", phase, None))
        if p != phase or variant == "eager" or not eager:
            continue
        if _paired(eager, graph):
            i = graph.info
            verdict = ("n.s." if not i["significant"] else "slower" if i["ci_high"] < 1
                       else "faster")
            out.append((i["speedup"], backend, model, variant, verdict))
        else:
            out.append((eager.stats["median"] / graph.stats["median"], backend, model, variant,
                        "unpaired"))
    return sorted(out)


def aa_reading(results, phase):
    """The run's A/A control: how many eager-vs-eager intervals contain 1, and the widest."""
    pairs = [r.info for key, r in index(results).items()
             if key[2] == "eager" and key[3] == phase and "aa_ratio" in r.info]
    if not pairs:
        return "No A/A control in these runs (saved before paired timing)."
    holding = [i for i in pairs if i["aa_ci_low"] <= 1 <= i["aa_ci_high"]]
    widest = max(pairs, key=lambda i: i["aa_ci_high"] / i["aa_ci_low"])
    return (f"A/A control (eager against a second eager runner, timed like a real pair): "
            f"{len(holding)} of {len(pairs)} intervals contain 1; the widest, "
            f"{interval_cell(widest['aa_ratio'], widest['aa_ci_low'], widest['aa_ci_high'])} "
            f"({widest['backend']} on {widest['model']}), is this run's noise floor.")


def speedup_reading(results, phase):
    """Best, worst, how many graph variants are significantly slower, and the A/A control."""
    found = _speedups(index(results), phase)
    if not found:
        return "No steady-state results for this phase."
    best, worst = found[-1], found[0]
    slower = [f for f in found if f[4] == "slower"]
    unclear = [f for f in found if f[4] == "n.s."]
    unpaired = [f for f in found if f[4] == "unpaired"]
    text = (f"Of {len(found)} graph variants, the largest {phase} speedup is {best[0]:.2f}× "
            f"({best[1]}/{best[3]} on {best[2]}) and the smallest {worst[0]:.2f}× "
            f"({worst[1]}/{worst[3]} on {worst[2]}). ")
    text += (f"{len(slower)} are significantly slower than their eager mode"
             + (": " + ", ".join(f"{b}/{v} on {m} ({r:.2f}×)" for r, b, m, v, _ in slower)
                if slower else "") + ". ")
    text += f"{len(unclear)} have a 95% interval that includes 1 (n.s.)."
    if unpaired:
        text += f" {len(unpaired)} were saved without a paired interval (no verdict)."
    return text + " " + aa_reading(results, phase)


def overhead_reading(results):
    """Largest first-call overheads, cold and warm."""
    idx = index(results)
    cold = []
    for (backend, model, variant, phase, cache), first in idx.items():
        steady = idx.get((backend, model, variant, "train", None))
        if phase == "construction" and steady:
            cold.append((first.stats["median"] - steady.stats["median"], backend, model, variant, cache))
    if not cold:
        return "No construction results."
    cold.sort()
    top = cold[-1]
    per_backend = {}
    for value, backend, model, variant, cache in cold:
        if variant != "eager" and cache == "cold":
            per_backend.setdefault(backend, []).append(value)
    parts = [f"{b}: {min(v):.2f}–{max(v):.2f} s" for b, v in sorted(per_backend.items())]
    return (f"The costliest first call is {top[1]}/{top[3]} on {top[2]} ({top[4]} cache): "
            f"{top[0]:.2f} s above its steady step. Cold graph-variant overheads by backend: "
            + "; ".join(parts) + ".")


def break_even_reading(results):
    """How many steps each backend's graph variants need before they pay off."""
    idx = index(results)
    rows = []
    for (backend, model, variant, phase, cache), cold in idx.items():
        if phase != "construction" or cache != "cold" or variant == "eager":
            continue
        parts = (cold, idx.get((backend, model, variant, "train", None)),
                 idx.get((backend, model, "eager", "construction", "cold")),
                 idx.get((backend, model, "eager", "train", None)))
        if all(parts):
            rows.append((break_even(*(p.stats["median"] for p in parts)), backend, model, variant))
    if not rows:
        return "No construction and steady results to combine."
    never = [f"{b}/{v} on {m}" for n, b, m, v in rows if n is None]
    paid = sorted((n, b, m, v) for n, b, m, v in rows if n is not None)
    text = ""
    if paid:
        text += (f"The quickest to pay off is {paid[0][1]}/{paid[0][3]} on {paid[0][2]} after "
                 f"{paid[0][0]:,} steps; the slowest {paid[-1][1]}/{paid[-1][3]} on {paid[-1][2]} "
                 f"after {paid[-1][0]:,}. ")
    text += (f"{len(never)} never pay off because their steady step is not faster than eager"
             + (": " + ", ".join(never) if never else "") + ".")
    return text


def throughput_reading(results):
    """Peak per backend and the best share of it a train step reaches."""
    from report.records import gflops
    idx = index(results)
    peaks = {k[0]: r for k, r in idx.items() if k[3] == "peak"}
    if not peaks:
        return "No matmul peak in these runs."
    parts = []
    for backend, peak in sorted(peaks.items()):
        steps = [(gflops(r) / gflops(peak), k[1], k[2]) for k, r in idx.items()
                 if k[0] == backend and k[3] == "train"]
        best = max(steps, default=None)
        parts.append(f"{backend}: matmul peak {gflops(peak):.1f} GFLOP/s"
                     + (f", best train step {100 * best[0]:.0f}% of it ({best[2]} on {best[1]})"
                        if best else ""))
    return "; ".join(parts) + ". FLOPs count convolutions and linears only (3× forward per train step)."


def retrace_reading(results):
    """How many times slower plain graph mode is than the best variant, per backend."""
    from report.retrace import retrace_results
    found = retrace_results(results, "train", "varying")
    parts = []
    for backend in sorted({b for b, _, _ in found}):
        runs = {(n, v): r.stats["median"] for (b, n, v), r in found.items() if b == backend}
        worst = max(runs, key=runs.get)
        best = min(runs, key=runs.get)
        parts.append(f"{backend}: slowest {worst[1]} on {worst[0]} ({runs[worst]:.1f} s), "
                     f"fastest {best[1]} on {best[0]} ({runs[best]:.1f} s)")
    return ("; ".join(parts) + ". Hatched bars were cut short by the profile's time budget."
            if parts else "No retrace results.")
