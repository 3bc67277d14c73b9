"""Mixed precision beside float32: step time, first call and the loss after the same steps."""
from catalog import PRECISIONS, precision_skip
from machines import gpu_model
from report.views.text import s as _s
from report.views.text import speedup_text, step_text, variant_order


def _loss_cell(rec):
    if rec is None or "loss" not in rec:
        return "—", None
    a, b = rec["loss"], rec["float32_loss"]
    diff = abs(a - b) / abs(b)
    return f"{a:.4f} vs {b:.4f} ({diff:.1%}) after {rec['loss_steps']}", diff


def precision_section(records):
    """Tables per model and precision, the precisions skipped with their reasons, and advice, from
    one machine's records."""
    cells = {(r["backend"], r["model"], r["variant"], r["kind"], r["phase"], r["case"],
              r["precision"]): r for r in records if r["precision"] != "float32"
             and r["kind"] in ("step_time", "first_call", "precision_speedup")}
    mixed = [p for p in PRECISIONS if p != "float32" and any(k[6] == p for k in cells)]
    if not mixed:
        return ""
    lines, found, pays = [], {}, {}
    for precision in mixed:
        for model in sorted({k[1] for k in cells if k[6] == precision}):
            lines += [f"**{model}, {precision}** (speedups over the same variant in float32; loss: "
                      f"{precision} vs float32 on the same batch after the same steps)", "",
                      f"| backend | variant | train step ms (IQR) | train speedup | infer speedup "
                      f"| first call s, cold | loss {precision} vs float32 |", "|---|---|---|---|---|---|---|"]
            rows = {(b, v) for (b, m, v, *_, p) in cells if m == model and p == precision}
            for backend, variant in sorted(rows, key=lambda bv: (bv[0], variant_order(bv[1]))):
                get = lambda kind, phase, case=None: cells.get((backend, model, variant, kind,
                                                                phase, case, precision))
                rec = get("precision_speedup", "train")
                loss, diff = _loss_cell(rec)
                if rec and rec["estimate"] is not None:
                    found.setdefault(backend, []).append(
                        (rec["estimate"], rec["verdict"], f"{model}/{variant}", diff))
                    pays[backend] = rec["backend_pays"]
                cold = get("first_call", "construction", "cold")
                lines.append(f"| {backend} | {variant} | {step_text(get('step_time', 'train'))} | "
                             f"{speedup_text(rec)} | "
                             f"{speedup_text(get('precision_speedup', 'infer'))} | "
                             f"{_s(cold and cold['estimate'])} | {loss} |")
            lines.append("")
    lines += ["Clearly faster or slower: the paired 95% interval excludes 1 (for ratios saved "
              "before paired timing, marked unpaired: the interquartile ranges do not overlap). "
              "The loss column compares the two precisions after the same number of SGD steps on "
              "one repeated batch (the steady suite's warm-up and timed steps): per-step rounding "
              "differences compound along the trajectory, so it shows drift, not held-out "
              "accuracy.", ""]
    lines += _skips(records) + ["", "What to do, from these runs: " + _advice(found, pays)]
    return "\n".join(lines)


def _skips(records):
    """Precisions a backend could not run on the device of its steady records (a machine's name
    carries the GPU it ran on), with the reason."""
    seen = sorted({(r["backend"], "cuda" if gpu_model(r["machine"]) else "cpu") for r in records
                   if r["kind"] in ("step_time", "first_call")})
    return [f"- {backend} {p} on {device}: skipped: {why}" for backend, device in seen
            for p in PRECISIONS if (why := precision_skip(backend, p, device))]


def _advice(found, pays):
    """Per backend: how many variants the mixed precision sped up beyond the spread, the loss, and
    whether it is worth it (`pays`: the build's `backend_pays`)."""
    if not found:
        return "no backend has both precisions measured."
    parts = []
    for backend, runs in sorted(found.items()):
        faster = sorted((r for r in runs if r[1] == "faster"), reverse=True)
        slower = [r for r in runs if r[1] == "slower"]
        diffs = [r[3] for r in runs if r[3] is not None]
        loss = (f"; the loss after the same steps differs from float32's by up to {max(diffs):.1%}"
                if diffs else "")
        counts = (f"clearly faster in {len(faster)} of {len(runs)} train steps"
                  + (f" (best {faster[0][0]:.2f}×, {faster[0][2]})" if faster else "")
                  + f", slower in {len(slower)}{loss}")
        verdict = (f"{counts}: worth it where the loss difference is acceptable"
                   if pays[backend] else f"{counts}: keep float32")
        parts.append(f"{backend}: {verdict}")
    return "; ".join(parts) + "."
