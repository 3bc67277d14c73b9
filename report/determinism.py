"""Deterministic ops: the step-time cost of the switch and whether same-seed runs repeat."""
from backends import DETERMINISM_UNSUPPORTED
from report.tables import (VARIANT_ORDER, interval_cell, latest, speedup, spread_overlaps,
                           step_cell)

PAIRED = ("determinism_ratio", "determinism_ci_low", "determinism_ci_high",
          "determinism_significant")  # what a paired `on` result saves of off ÷ on


def paired_ratio(on):
    """(off ÷ on, its 95% interval's low and high, significant) saved by a paired `on` result,
    else None (saved before the suite was paired)."""
    return tuple(on.info[k] for k in PAIRED) if on and PAIRED[0] in on.info else None


def _cost(off, on):
    """On ÷ off when deterministic ops make the step slower beyond the noise, else None: a paired
    result's interval excludes 1; an unpaired one's IQRs do not overlap."""
    if paired := paired_ratio(on):
        ratio, _, _, significant = paired
        return 1 / ratio if significant and ratio < 1 else None
    if off and on and not spread_overlaps(off, on) and on.stats["median"] > off.stats["median"]:
        return on.stats["median"] / off.stats["median"]
    return None


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
    slower, reasons, basis = [], [], set()
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
                slower.append(f"{backend}/{model}/{variant} {cost:.2f}×")
        lines.append("| " + " | ".join([backend, model, variant, step_cell(off), *cells]) + " |")
    repeat_off = all(r.info["repeat_identical"] for (_, _, _, d), r in runs.items() if not d)
    lines += [""] + [f"[{i}] {why}" for i, why in enumerate(reasons, 1)]
    lines += ["", "What to do, from these runs: " + (
        "on this CPU every run repeated bit for bit even with the switch off, so the switch buys "
        "nothing here" if repeat_off else "some runs differed with the switch off: turn it on "
        "where reproducibility matters") + "; it costs " + (
        ", ".join(slower) if slower else "no measurable step time (within "
        + " or ".join(sorted(basis)) + ")") + "."]
    return "\n".join(lines)
