"""Mixed precision beside float32: step time, first call and the loss after the same steps."""
from catalog import PRECISIONS, precision_skip
from report.ratios import clear
from report.records import STEP_PHASES, precision_index
from report.select import latest
from report.text import s as _s
from report.text import speedup_text, step_cell, variant_order


def _loss_cell(mixed, full):
    if not mixed or not full or mixed.info.get("steps_taken") != full.info.get("steps_taken"):
        return "—", None
    a, b = mixed.info["loss"], full.info["loss"]
    diff = abs(a - b) / abs(b)
    return f"{a:.4f} vs {b:.4f} ({diff:.1%}) after {mixed.info['steps_taken']}", diff


def _rows(idx, model, precision):
    found = {(b, v) for (b, m, v, _, _, p) in idx if m == model and p == precision}
    return sorted(found, key=lambda bv: (bv[0], variant_order(bv[1])))


def precision_section(results, records):
    """Tables per model and precision, the precisions skipped with their reasons, and advice."""
    idx = precision_index(results)
    mixed = [p for p in PRECISIONS if p != "float32" and any(k[5] == p for k in idx)]
    if not mixed:
        return ""
    lines, found = [], {}
    ratios = {(r["backend"], r["model"], r["variant"], r["phase"], r["precision"]): r
              for r in records if r["kind"] == "precision_speedup"}
    for precision in mixed:
        for model in sorted({k[1] for k in idx if k[5] == precision}):
            lines += [f"**{model}, {precision}** (speedups over the same variant in float32; loss: "
                      f"{precision} vs float32 on the same batch after the same steps)", "",
                      f"| backend | variant | train step ms (IQR) | train speedup | infer speedup "
                      f"| first call s, cold | loss {precision} vs float32 |", "|---|---|---|---|---|---|---|"]
            for backend, variant in _rows(idx, model, precision):
                get = lambda phase, p, cache=None: idx.get((backend, model, variant, phase, cache, p))
                loss, diff = _loss_cell(get("train", precision), get("train", "float32"))
                full, low = get("train", "float32"), get("train", precision)
                rec = ratios.get((backend, model, variant, "train", precision))
                if full and low:
                    found.setdefault(backend, []).append(
                        (rec["estimate"], clear(rec), f"{model}/{variant}", diff))
                cold = get("construction", precision, "cold")
                lines.append(f"| {backend} | {variant} | {step_cell(get('train', precision))} | "
                             f"{speedup_text(rec)} | "
                             f"{speedup_text(ratios.get((backend, model, variant, 'infer', precision)))} | "
                             f"{_s(cold.stats['median'] if cold else None)} | {loss} |")
            lines.append("")
    lines += ["Clearly faster or slower: the paired 95% interval excludes 1 (for ratios saved "
              "before paired timing, marked unpaired: the interquartile ranges do not overlap). "
              "The loss column compares the two precisions after the same number of SGD steps on "
              "one repeated batch (the steady suite's warm-up and timed steps): per-step rounding "
              "differences compound along the trajectory, so it shows drift, not held-out "
              "accuracy.", ""]
    lines += _skips(results) + ["", "What to do, from these runs: " + _advice(found)]
    return "\n".join(lines)


def _skips(results):
    """Precisions a backend could not run on the runs' devices, with the reason."""
    seen = sorted({(r.info["backend"], r.graphbench.get("device", "cpu")) for r in latest(results)
                   if r.info["phase"] in STEP_PHASES})
    return [f"- {backend} {p} on {device}: skipped: {why}" for backend, device in seen
            for p in PRECISIONS if (why := precision_skip(backend, p, device))]


def _advice(found):
    """Per backend: how many variants the mixed precision sped up beyond the spread, and the loss."""
    if not found:
        return "no backend has both precisions measured."
    parts = []
    for backend, runs in sorted(found.items()):
        faster = sorted((r for r in runs if r[0] > 1 and r[1]), reverse=True)
        slower = [r for r in runs if r[0] < 1 and r[1]]
        diffs = [r[3] for r in runs if r[3] is not None]
        loss = (f"; the loss after the same steps differs from float32's by up to {max(diffs):.1%}"
                if diffs else "")
        counts = (f"clearly faster in {len(faster)} of {len(runs)} train steps"
                  + (f" (best {faster[0][0]:.2f}×, {faster[0][2]})" if faster else "")
                  + f", slower in {len(slower)}{loss}")
        verdict = (f"{counts}: worth it where the loss difference is acceptable"
                   if len(faster) > len(slower) else f"{counts}: keep float32")
        parts.append(f"{backend}: {verdict}")
    return "; ".join(parts) + "."
