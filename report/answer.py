"""The answer first: per machine and backend, what graph mode gains, when it pays, what it costs."""
from collections import defaultdict

from report.text import break_even_text, label, speedup_text

HEADER = ("| backend | model | best graph variant (train) | train step ms, eager → graph "
          "| train speedup | infer speedup | break-even steps | first call s, cold | run |")


def answer_text(machines):
    """The README's summary block: one table per machine ([(machine, view, records)]), then one
    line per backend."""
    if not machines:
        return "_No results yet: run the main job._"
    parts = ["Each framework against its own eager mode (a large speedup can mean a slow eager "
             "mode, so these rows do not rank frameworks: compare the step times). Speedups "
             "with a 95% interval are paired; `~` marks an interval that includes 1; "
             "\"(unpaired)\" ratios come from older runs without one. The cold first call is "
             "timed in a fresh process after its start-up (interpreter, framework import), "
             "which each backend's line gives where the run measured it. Generated from "
             "`results/summary.json`'s records; every table is in RESULTS.md.", ""]
    for machine, _, records in machines:
        parts += [f"**On `{machine}`**", "", HEADER, "|---" * 9 + "|",
                  *rows(records), "", *backend_lines(records), ""]
    return "\n".join(parts)


def best(records):
    """{(backend, model): the train speedup record of the fastest graph variant}; of variants
    whose intervals overlap the fastest's (not told apart), one with a measured cold first call
    (so its row can give a break-even) is preferred."""
    speedups = defaultdict(list)
    for r in records:
        if r["kind"] == "speedup" and r["phase"] == "train" and r["estimate"] is not None:
            speedups[r["backend"], r["model"]].append(r)
    found = {}
    for key, found_here in speedups.items():
        top = max(found_here, key=lambda r: r["estimate"])
        tied = [r for r in found_here if r is top or _overlap(r, top)]
        timed = [r for r in tied if (first := _get(records, r, "first_call", case="cold"))
                 and first["estimate"] is not None]
        found[key] = max(timed or [top], key=lambda r: r["estimate"])
    return found


def _overlap(a, b):
    """True when both speedups carry an interval and the two intervals share a point."""
    return bool(a["interval"] and b["interval"]) and a["low"] <= b["high"] and b["low"] <= a["high"]


def _get(records, rec, kind, phase=None, variant=None, case=None):
    """The record of `kind` for `rec`'s backend and model (and its variant unless one is named)."""
    return next((r for r in records if r["kind"] == kind and r["backend"] == rec["backend"]
                 and r["precision"] == rec["precision"]
                 and r["model"] == rec["model"] and r["variant"] == (variant or rec["variant"])
                 and (phase is None or r["phase"] == phase) and r["case"] == case), None)


def rows(records):
    """One row per (backend, model), sorted: the best graph variant's figures, all from one run,
    or the reason there is no figure."""
    out, top = {}, best(records)
    for r in records:
        key = (r["backend"], r["model"])
        if r["kind"] in ("speedup", "step_time") and r["phase"] == "train" and r["estimate"] is None \
                and r["variant"] != "eager" and key not in top and key not in out:
            out[key] = f"| {key[0]} | {key[1]} | — ({r['note']}) |" + " — |" * 5 + f" {label(r)} |"
    for (backend, model), rec in top.items():
        steps = [_get(records, rec, "step_time", "train", v) for v in ("eager", None)]
        first = _get(records, rec, "first_call", case="cold")
        first_s = "—" if first is None else f"{first['estimate']:.2f}"
        ms = " → ".join("—" if s is None or s["estimate"] is None else f"{s['estimate'] * 1e3:.1f}"
                        for s in steps)
        out[backend, model] = (
            f"| {backend} | {model} | `{rec['variant']}` | {ms} | {speedup_text(rec)} | "
            f"{speedup_text(_get(records, rec, 'speedup', 'infer'))} | "
            f"{break_even_text(_get(records, rec, 'break_even', case='cold'))} | {first_s} | "
            f"{label(rec)} |")
    return [out[key] for key in sorted(out)]


def retrace_penalty(records, backend):
    """(plain graph ÷ eager, network, cut short) where sizes change every batch, worst network."""
    totals = defaultdict(dict)
    for r in records:
        if r["kind"] == "retrace_total" and r["backend"] == backend and r["case"] == "train-varying":
            totals[r["model"]][r["variant"]] = r
    found = [(t["graph"]["estimate"] / t["eager"]["estimate"], net, bool(t["graph"]["note"]))
             for net, t in totals.items() if "graph" in t and "eager" in t]
    return max(found, default=None)


def memory_cost(records, backend, variants):
    """The memory_ratio record (variant peak ÷ eager peak) of a named variant on the model with
    the largest eager peak, or None."""
    eager = {r["model"]: r["estimate"] for r in records if r["kind"] == "memory_peak"
             and r["backend"] == backend and r["variant"] == "eager" and r["estimate"] is not None}
    found = [r for r in records if r["kind"] == "memory_ratio" and r["backend"] == backend
             and r["estimate"] is not None and r["variant"] in variants.get(r["model"], ())
             and r["model"] in eager]
    return max(found, key=lambda r: eager[r["model"]], default=None)


def memory_cost_text(rec):
    """What the variant's peak train-step memory costs against eager's, as the summary says it."""
    what = f"`{rec['variant']}`"
    if rec["interval"] is None:
        return (f"{what} needs {rec['estimate']:.2f}× eager's peak train-step memory on "
                f"{rec['model']} (no interval: rerun with two or more child processes);")
    if not rec["significant"]:
        return (f"{what}: no measurable difference from eager's peak train-step memory on "
                f"{rec['model']} ({rec['estimate']:.2f}×, {rec['low']:.2f}–{rec['high']:.2f});")
    return (f"{what} needs {rec['estimate']:.2f}× ({rec['low']:.2f}–{rec['high']:.2f}) eager's "
            f"peak train-step memory on {rec['model']};")


def startup_text(records, backend):
    """A fresh process's start-up before its cold first call (the eager cold rounds' medians,
    over the models), or None where no run measured it."""
    found = sorted(r["estimate"] for r in records
                   if r["kind"] == "startup_time" and r["backend"] == backend)
    if not found:
        return None
    low, high = f"{found[0]:.1f}", f"{found[-1]:.1f}"
    span = low if low == high else f"{low}–{high}"
    return f"a fresh process takes {span} s to start (import, set-up) before its cold first call;"


def backend_lines(records):
    """Per backend: process start-up, retrace penalty, memory cost and one line of advice."""
    lines, top = [], best(records)
    for backend in sorted({b for b, _ in top}):
        mine = {m: r for (b, m), r in top.items() if b == backend}
        text = [f"- **{backend}**:"]
        if startup := startup_text(records, backend):
            text.append(startup)
        if penalty := retrace_penalty(records, backend):
            text.append(f"with input sizes changing every batch, plain `graph` took "
                        f"{penalty[0]:.1f}× eager's time on {penalty[1]}"
                        + (" (cut short, so at least)" if penalty[2] else "") + ";")
        if cost := memory_cost(records, backend, {m: [r["variant"]] for m, r in mine.items()}):
            text.append(memory_cost_text(cost))
        text.append(advice(records, mine, penalty))
        lines.append(" ".join(text))
    return lines


def advice(records, mine, penalty):
    """One line of advice: where the best variant gains (and after how many steps), where not."""
    gains, unpaired = [], False
    for model, r in sorted(mine.items()):
        if r["significant"] and r["estimate"] > 1 or r["interval"] is None and r["estimate"] > 1:
            unpaired |= r["interval"] is None
            even = break_even_text(_get(records, r, "break_even", case="cold"))
            gains.append(f"`{r['variant']}` on {model}"
                         + (f" (pays back after {even} steps)" if even[0].isdigit() else ""))
    if not gains:
        return "**advice**: stay eager here: no graph variant is faster beyond its interval."
    text = "**advice**: use " + "; ".join(gains)
    if rest := sorted(m for m, r in mine.items() if f"on {m}" not in text):
        text += f"; eager on {', '.join(rest)} (no gain beyond the interval)"
    if penalty and penalty[0] > 1:
        text += "; bucket input sizes (or use a dynamic-shape variant) when they vary"
    if unpaired:
        text += " (from unpaired ratios of older runs: no interval, rerun to confirm)"
    return text + "."


def step_time_reading(records):
    """Per model: the slowest and fastest eager train step across backends, and each backend's
    step with its best graph variant (absolute times: speedups alone do not rank frameworks)."""
    top, parts = best(records), []
    for model in sorted({m for _, m in top}):
        steps = {}
        for (backend, m), rec in sorted(top.items()):
            eager, graph = (_get(records, rec, "step_time", "train", v) for v in ("eager", None))
            if m == model and eager and graph and None not in (eager["estimate"], graph["estimate"]):
                steps[backend] = (eager["estimate"] * 1e3, graph["estimate"] * 1e3, rec["variant"])
        if len(steps) > 1:
            slow, fast = max(steps, key=lambda b: steps[b][0]), min(steps, key=lambda b: steps[b][0])
            parts.append(f"{model}: eager {steps[slow][0]:.1f} ms ({slow}) against "
                         f"{steps[fast][0]:.1f} ms ({fast}); with graph mode "
                         + ", ".join(f"{b} {g:.1f} ms (`{v}`)" for b, (_, g, v) in sorted(steps.items())))
    if not parts:
        return "Fewer than two backends with both step times on any model."
    return ("; ".join(parts) + ". Speedups compare each framework with its own eager mode: a "
            "large one can mean a slow eager mode, so rank frameworks by these times, not by "
            "speedup.")


def break_even_reading(records):
    """The quickest and slowest break-even of one machine's steady runs, and those that never
    pay or gain nothing beyond the interval (from the same records as the tables)."""
    records = [r for r in records
               if r["kind"] == "break_even" and not (r["note"] or "").endswith("in this run")]
    if not records:
        return "No construction and steady results of one run to combine."
    name = lambda r: f"{r['backend']}/{r['variant']} on {r['model']}"
    paid = sorted((r for r in records if r["estimate"] is not None), key=lambda r: r["estimate"])
    text = ""
    if paid:
        text += (f"The quickest to pay off is {name(paid[0])} after {break_even_text(paid[0])} "
                 f"steps; the slowest {name(paid[-1])} after {break_even_text(paid[-1])}. ")
    for what, says in (("never", "never pay off"), ("no significant gain", "gain nothing beyond "
                                                    "their speedup's interval")):
        found = [name(r) for r in records if r["estimate"] is None and r["note"].startswith(what)]
        if found:
            text += f"{len(found)} {says}: {', '.join(found)}. "
    return text.strip()
