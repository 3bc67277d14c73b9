"""Deterministic ops: the step-time cost of the switch and whether same-seed runs repeat."""
import math

from catalog import determinism_skip
from machines import gpu_model
from report.build.ratios import SAME, decided
from report.views.text import interval_cell, speedup_text, step_text, variant_order


def agreement_line(records):
    """The same float32 train step timed by the determinism suite (`off`) and the steady suite in
    one run: whether the two figures agree (from the suite_agreement records)."""
    pairs = [r for r in records if r["kind"] == "suite_agreement"]
    if not pairs:
        return ""
    agree = sum(r["verdict"] == SAME for r in pairs)
    worst = max(pairs, key=lambda r: abs(math.log(r["estimate"])))
    return (f"One step, two suites: the steady suite's float32 train step ÷ this suite's `off` "
            f"step of the same run (separate processes; interval over their processes' medians) "
            f"agree in {agree} of {len(pairs)} cases; the largest gap: "
            f"{worst['backend']}/{worst['model']}/{worst['variant']} "
            f"{interval_cell(worst)}.")


def _yes(flag):
    return {True: "yes", False: "no"}.get(flag, "—")


def _vs_eager(r):
    if not r or r["variant"] == "eager":
        return "—"
    if r["identical_to_eager"]:
        return "bitwise"
    return f"to {r['max_rel_diff_to_eager']:.1e} rel."


def determinism_section(records):
    """One table: cost of deterministic ops and the bitwise answers, per backend/model/variant."""
    runs = {(r["backend"], r["model"], r["variant"], r["deterministic"]): r for r in records
            if r["kind"] == "determinism_step"}
    if not runs:
        return ""
    ratios = {(r["backend"], r["model"], r["variant"]): r for r in records
              if r["kind"] == "determinism_ratio"}
    steps = next(iter(runs.values()))["compared_steps"]
    lines = [f"Train step with the deterministic-ops switch off and on; same-seed runs compare the "
             f"losses of {steps} steps bit for bit, and each variant's against eager's.", "",
             "| backend | model | variant | step ms off (IQR) | step ms on (IQR) | off ÷ on | "
             "repeats bitwise, off | repeats bitwise, on | vs eager, on |",
             "|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({k[:3] for k in runs}, key=lambda k: (k[0], k[1], variant_order(k[2])))
    slower, faster, reasons, basis = [], [], [], set()
    for backend, model, variant in keys:
        off, on = runs.get((backend, model, variant, False)), runs.get((backend, model, variant, True))
        why = determinism_skip(backend, variant, "cuda" if gpu_model((off or on)["machine"])
                               else "cpu")
        repeat_off = _yes(off and off["repeat_identical"])
        if on is None and why:
            reasons += [why] if why not in reasons else []
            cells = [f"refused [{reasons.index(why) + 1}]", "—", repeat_off, "—", "—"]
        else:
            rec = ratios.get((backend, model, variant))
            cells = [step_text(on), speedup_text(rec),
                     repeat_off, _yes(on and on["repeat_identical"]), _vs_eager(on)]
            if rec and rec["estimate"] is not None:
                basis.add("the interval" if rec["interval"] else "the spread")
                if decided(rec):  # off ÷ on, below 1: the switch makes the step slower
                    (slower if rec["verdict"] == "slower" else faster).append(
                        f"{backend}/{model}/{variant} {1 / rec['estimate']:.2f}×")
        lines.append("| " + " | ".join([backend, model, variant, step_text(off), *cells]) + " |")
    repeat_off = all(r["repeat_identical"] for (_, _, _, d), r in runs.items() if not d)
    lines += [""] + [f"[{i}] {why}" for i, why in enumerate(reasons, 1)]
    lines += ["", "What to do, from these runs: " + (
        "on this CPU every run repeated bit for bit even with the switch off, so the switch buys "
        "nothing here" if repeat_off else "some runs differed with the switch off: turn it on "
        "where reproducibility matters") + "; it costs " + (
        ", ".join(slower) if slower else "no measurable step time (within "
        + " or ".join(sorted(basis)) + ")") + (
        f"; it makes the step faster (on ÷ off): {', '.join(faster)}" if faster else "") + "."]
    return "\n".join(lines)


def determinism_text(records):
    """The section's table followed by the check against the steady suite's figure."""
    table = determinism_section(records)
    return table and "\n\n".join(filter(None, [table, agreement_line(records)]))
