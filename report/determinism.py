"""Deterministic ops: the step-time cost of the switch and whether same-seed runs repeat."""
import math
import statistics

import stats
from backends import DETERMINISM_UNSUPPORTED
from report.tables import (BASELINE, VARIANT_ORDER, flags, interval_cell, latest, speedup,
                           spread_overlaps, step_cell)

PAIRED = ("determinism_ratio", "determinism_ci_low", "determinism_ci_high",
          "determinism_significant")  # what a paired `on` result saves of off ÷ on


def paired_ratio(on):
    """(off ÷ on, its 95% interval's low and high, significant) saved by a paired `on` result,
    else None (saved before the suite was paired)."""
    return tuple(on.info[k] for k in PAIRED) if on and PAIRED[0] in on.info else None


def _cost(off, on):
    """On ÷ off when deterministic ops change the step time beyond the noise (above 1: slower),
    else None: a paired result's interval excludes 1; an unpaired one's IQRs do not overlap."""
    if paired := paired_ratio(on):
        ratio, _, _, significant = paired
        return 1 / ratio if significant else None
    if off and on and not spread_overlaps(off, on):
        return on.stats["median"] / off.stats["median"]
    return None


def _per_process_medians(r):
    return [statistics.median(rounds) for rounds in r.info["paired_rounds_s"]]


def agreement_line(determinism, steady):
    """The same float32 train step timed by the determinism suite (`off`) and the steady suite in
    one run: whether the two figures agree (unpaired interval over their processes' medians)."""
    step = {(r.machine, r.run, *r.key[:3]): r for r in latest(steady)
            if r.valid and r.info["phase"] == "train" and flags(r) == BASELINE
            and "paired_rounds_s" in r.info}
    pairs = []
    for r in latest(determinism):
        twin = step.get((r.machine, r.run, *r.key[:3]))
        if (twin and r.valid and r.info["phase"] == "determinism" and not r.info["deterministic"]
                and "paired_rounds_s" in r.info):
            pairs.append((r.key[:3], stats.ratio_of_medians(_per_process_medians(twin),
                                                            _per_process_medians(r))))
    if not pairs:
        return ""
    agree = sum(not found.significant for _, found in pairs)
    key, worst = max(pairs, key=lambda p: abs(math.log(p[1].estimate)))
    return (f"One step, two suites: the steady suite's float32 train step ÷ this suite's `off` "
            f"step of the same run (separate processes; interval over their processes' medians) "
            f"agree in {agree} of {len(pairs)} cases; the largest gap: {'/'.join(key)} "
            f"{interval_cell(worst.estimate, worst.low, worst.high)}.")


def _yes(flag):
    return {True: "yes", False: "no"}.get(flag, "—")


def _vs_eager(r):
    if not r or r.info["variant"] == "eager":
        return "—"
    if r.info["identical_to_eager"]:
        return "bitwise"
    return f"to {r.info['max_rel_diff_to_eager']:.1e} rel."


def determinism_section(results):
    """One table: cost of deterministic ops and the bitwise answers, per backend/model/variant."""
    runs = {(r.info["backend"], r.info["model"], r.info["variant"], r.info["deterministic"]): r
            for r in latest(results) if r.info["phase"] == "determinism" and r.valid}
    if not runs:
        return ""
    steps = next(iter(runs.values())).info["compared_steps"]
    lines = [f"Train step with the deterministic-ops switch off and on; same-seed runs compare the "
             f"losses of {steps} steps bit for bit, and each variant's against eager's.", "",
             "| backend | model | variant | step ms off (IQR) | step ms on (IQR) | off ÷ on | "
             "repeats bitwise, off | repeats bitwise, on | vs eager, on |",
             "|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({k[:3] for k in runs}, key=lambda k: (k[0], k[1], VARIANT_ORDER.index(k[2])))
    slower, faster, reasons, basis = [], [], [], set()
    for backend, model, variant in keys:
        off, on = runs.get((backend, model, variant, False)), runs.get((backend, model, variant, True))
        why = DETERMINISM_UNSUPPORTED.get((backend, variant))
        repeat_off = _yes(off and off.info["repeat_identical"])
        if on is None and why:
            reasons += [why] if why not in reasons else []
            cells = [f"refused [{reasons.index(why) + 1}]", "—", repeat_off, "—", "—"]
        else:
            paired = paired_ratio(on)
            cells = [step_cell(on), interval_cell(*paired[:3]) if paired else speedup(off, on),
                     repeat_off, _yes(on and on.info["repeat_identical"]), _vs_eager(on)]
            basis.add("the interval" if paired else "the spread")
            if cost := _cost(off, on):
                (slower if cost > 1 else faster).append(f"{backend}/{model}/{variant} {cost:.2f}×")
        lines.append("| " + " | ".join([backend, model, variant, step_cell(off), *cells]) + " |")
    repeat_off = all(r.info["repeat_identical"] for (_, _, _, d), r in runs.items() if not d)
    lines += [""] + [f"[{i}] {why}" for i, why in enumerate(reasons, 1)]
    lines += ["", "What to do, from these runs: " + (
        "on this CPU every run repeated bit for bit even with the switch off, so the switch buys "
        "nothing here" if repeat_off else "some runs differed with the switch off: turn it on "
        "where reproducibility matters") + "; it costs " + (
        ", ".join(slower) if slower else "no measurable step time (within "
        + " or ".join(sorted(basis)) + ")") + (
        f"; it makes the step faster (on ÷ off): {', '.join(faster)}" if faster else "") + "."]
    return "\n".join(lines)


def determinism_text(determinism, steady):
    """The section's table followed by the check against the steady suite's figure."""
    table = determinism_section(determinism)
    return table and "\n\n".join(filter(None, [table, agreement_line(determinism, steady)]))
