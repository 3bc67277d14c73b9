"""One generated paragraph per chart, read from the same records as the tables and summary.json."""
from report.build.ratios import NOISE, SAME, UNDECIDED
from report.views.text import aa_control, count, span


def _speedups(records, phase):
    """(ratio, backend, model, variant, verdict) of each speedup record of `phase`, known wrong
    answers left out (the tables and charts show them no figure), and how many those were."""
    found = [r for r in records
             if r["kind"] == "speedup" and r["phase"] == phase and r["estimate"] is not None]
    right = [r for r in found if not r.get("known_wrong")]
    return sorted((r["estimate"], r["backend"], r["model"], r["variant"],
                   r["verdict"] if r["interval"] else "unpaired") for r in right), \
        len(found) - len(right)


def aa_reading(records, phase):
    """The run's A/A control: how many eager-vs-eager intervals contain 1, and the widest."""
    pairs = [r for r in records if r["kind"] == "aa_ratio" and r["phase"] == phase and r["low"]]
    if not pairs:
        return "No A/A control in these runs (saved before paired timing)."
    return aa_control(pairs, "eager against a second eager runner, timed like a real pair",
                      lambda w: f"{w['backend']} on {w['model']}", "this run's noise floor")


def speedup_reading(records, phase):
    """Best, worst, how many graph variants are significantly slower, and the A/A control."""
    found, wrong = _speedups(records, phase)
    if not found:
        return "No steady-state results for this phase."
    best, worst = found[-1], found[0]
    slower = [f for f in found if f[4] == "slower"]
    unclear = [f for f in found if f[4] in (SAME, UNDECIDED)]
    unpaired = [f for f in found if f[4] == "unpaired"]
    left_out = f" ({count(wrong, 'known wrong answer', 'known wrong answers')} left out)" if wrong \
        else ""
    text = (f"Of {len(found)} graph variants{left_out}, the largest {phase} speedup is "
            f"{best[0]:.2f}× "
            f"({best[1]}/{best[3]} on {best[2]}) and the smallest {worst[0]:.2f}× "
            f"({worst[1]}/{worst[3]} on {worst[2]}). ")
    text += (count(len(slower), f"is slower than its eager mode beyond ±{NOISE:.0%}",
                   f"are slower than their eager mode beyond ±{NOISE:.0%}")
             + (": " + ", ".join(f"{b}/{v} on {m} ({r:.2f}×)" for r, b, m, v, _ in slower)
                if slower else "") + ". ")
    text += count(len(unclear), "is", "are") + f" within ±{NOISE:.0%} of eager or undecided."
    if unpaired:
        text += " " + count(len(unpaired), "was", "were") + " saved without a paired interval " \
                                                              "(no verdict)."
    return text + " " + aa_reading(records, phase)


def overhead_reading(records):
    """Largest first-call overheads above the same run's steady train step, cold and warm."""
    records = [r for r in records if r["precision"] == "float32"]
    steps = {(r["run"], r["backend"], r["model"], r["variant"]): r["estimate"] for r in records
             if r["kind"] == "step_time" and r["phase"] == "train" and r["estimate"] is not None}
    over = sorted((r["estimate"] - steps[key], r["backend"], r["model"], r["variant"], r["case"])
                  for r in records if r["kind"] == "first_call"
                  and (key := (r["run"], r["backend"], r["model"], r["variant"])) in steps)
    if not over:
        return "No construction results."
    top = over[-1]
    per_backend = {}
    for value, backend, model, variant, cache in over:
        if variant != "eager" and cache == "cold":
            per_backend.setdefault(backend, []).append(value)
    parts = [f"{b}: {span(min(v), max(v))} s" for b, v in sorted(per_backend.items())]
    return (f"The costliest first call is {top[1]}/{top[3]} on {top[2]} ({top[4]} cache): "
            f"{top[0]:.2f} s above its steady step. Cold graph-variant overheads by backend: "
            + "; ".join(parts) + ".")


def throughput_reading(records):
    """Peak per backend and the best share of it a train step of the same run reaches."""
    peaks = {r["backend"]: r for r in records if r["kind"] == "matmul_peak"}
    if not peaks:
        return "No matmul peak in these runs."
    parts = []
    for backend, peak in sorted(peaks.items()):
        best = max(((r["estimate"], r["model"], r["variant"]) for r in records
                    if r["kind"] == "throughput_share" and r["backend"] == backend),
                   default=None)
        parts.append(f"{backend}: matmul peak {peak['estimate']:.1f} GFLOP/s"
                     + (f", best train step {100 * best[0]:.0f}% of it ({best[2]} on {best[1]})"
                        if best else ""))
    return "; ".join(parts) + ". FLOPs count convolutions and linears only (3× forward per train step)."


def retrace_reading(records):
    """The slowest and fastest variant on sizes that vary every step, per backend, of the runs
    that finished."""
    found = [r for r in records if r["kind"] == "retrace_total" and r["case"] == "train-varying"]
    parts = []
    for backend in sorted({r["backend"] for r in found}):
        runs = {(r["model"], r["variant"]): r["estimate"] for r in found
                if r["backend"] == backend and not r["note"]}  # a cut-short total is no figure
        if not runs:
            continue
        worst = max(runs, key=runs.get)
        best = min(runs, key=runs.get)
        parts.append(f"{backend}: slowest {worst[1]} on {worst[0]} ({runs[worst]:.1f} s), "
                     f"fastest {best[1]} on {best[0]} ({runs[best]:.1f} s)")
    cut = [r for r in found if r.get("cut_short")]
    return ("; ".join(parts) + " (runs that finished)."
            + (f" Grey cross-hatched cells ({len(cut)}) were cut short by the profile's time budget."
               if cut else "") if parts else "No retrace results.")
