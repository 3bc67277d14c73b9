"""Comparison charts (matplotlib, PNG): speedup over eager, construction overhead, break-even."""
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

from report.answer import best  # noqa: E402
from report.retrace import by_depth, totals  # noqa: E402
from report.records import STEP_PHASES  # noqa: E402
from report.select import latest  # noqa: E402
from report.tables import lookup  # noqa: E402
from report.text import VARIANT_ORDER, variant_order  # noqa: E402

COLORS = {"tf": "#e8710a", "torch": "#c0392b", "chainer": "#2e86c1"}


def subtitle(results):
    """Machine, device, threads and framework versions behind a chart."""
    machines, versions = set(), {}
    for r in latest(results):
        g = r.graphbench
        machines.add(f"{r.machine} · {g.get('device')} · {g.get('threads')} threads · "
                     f"profile {g.get('profile')}")
        for k, v in g.get("versions", {}).items():
            if k in ("tensorflow-cpu", "tensorflow", "torch", "chainer"):
                versions[k] = v
    runs = sorted({f"{r.info['backend']} {r.run}{'†' if r.dirty else ''}" for r in results})
    return (" | ".join(sorted(machines)) + "\n" + ", ".join(f"{k} {v}" for k, v in sorted(versions.items()))
            + "\nruns: " + ", ".join(runs) + (" († uncommitted changes)" if "†" in str(runs) else ""))


def _index(records, kinds=("step_time", "first_call")):
    """{(backend, model, variant, phase, case): record} of the float32 figures of `kinds`."""
    return {(r["backend"], r["model"], r["variant"], r["phase"], r["case"]): r for r in records
            if r["kind"] in kinds and r["precision"] == "float32" and r["estimate"] is not None}


def _rows(idx, model, with_eager=False):
    pairs = {(b, v) for (b, m, v, p, _) in idx
             if m == model and p in STEP_PHASES and (with_eager or v != "eager")}
    return sorted(pairs, key=lambda p: (p[0], variant_order(p[1])))


def _figure(models, title, results, xlabel):
    fig, axes = plt.subplots(1, len(models), figsize=(max(7.5, 4.4 * len(models)), 4.6),
                             squeeze=False)
    fig.suptitle(title, fontsize=12, fontweight="bold")
    fig.text(0.5, 0.005, subtitle(results), ha="center", va="bottom", fontsize=7, color="#555")
    for ax in axes[0]:
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
    return fig, axes[0]


def _finish(fig, path, bottom=0.07):
    fig.tight_layout(rect=(0, bottom, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _models(idx):
    order = ("mnist_cnn", "vgg", "resnet")
    found = {m for (_, m, _, p, _) in idx if p in STEP_PHASES}
    return [m for m in order if m in found] + sorted(found - set(order))


def speedup_chart(records, results, phase, path):
    """Speedup records per variant: paired ones with their 95% interval as whiskers, the run's
    A/A noise floor as a grey band around 1; unpaired ones as bars without whiskers."""
    cells, idx = lookup(records), _index(records)
    models = _models(idx)
    fig, axes = _figure(models, f"Steady-state {phase} step: speedup over the backend's own eager "
                        "(whiskers: 95% interval; grey: the run's A/A noise floor)",
                        results, "speedup (×, log scale; <1 is a slowdown)")
    for ax, model in zip(axes, models):
        labels, spans = [], [0.8, 1.25]
        for row, (backend, variant) in enumerate(_rows(idx, model)):
            labels.append(f"{backend}/{variant}")
            rec = cells.get((backend, model, variant, "speedup", phase, None))
            if rec is None or rec["estimate"] is None:
                ax.text(1.02, row, f"no figure ({rec['note'] if rec else 'see the table'})",
                        va="center", fontsize=6, color="#900")
                continue
            ratio, low, high = rec["estimate"], rec["low"] or rec["estimate"], rec["high"] or rec["estimate"]
            if rec["aa_floor_low"] is not None:
                ax.fill_betweenx([row - 0.45, row + 0.45], rec["aa_floor_low"],
                                 rec["aa_floor_high"], color="#999", alpha=0.3, lw=0)
            ax.barh(row, ratio - 1, left=1, color=COLORS.get(backend, "grey"))  # from 1: no change
            if rec["interval"]:
                ax.errorbar(ratio, row, xerr=[[ratio - low], [high - ratio]], color="black",
                            capsize=2, lw=0.8)
            spans += [low, high]
            note = (" ~" if not rec["significant"] else "") if rec["interval"] else " (unpaired)"
            ax.text(max(ratio, high) * 1.04, row, f"{ratio:.2f}×{note}", va="center", fontsize=7)
        _ratio_axis(ax, min(spans) / 1.3, max(spans) * 2.2)
        ax.axvline(1.0, color="black", lw=0.8)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(model)
        ax.invert_yaxis()
    return _finish(fig, path)


def step_time_chart(records, results, path):
    """Absolute train step times, eager beside each backend's best graph variant, per model:
    a large speedup can mean a slow eager mode."""
    cells, top = lookup(records), best(records)
    models = [m for m in ("mnist_cnn", "vgg", "resnet") if any(k[1] == m for k in top)]
    models += sorted({m for _, m in top} - set(models))
    if not models:
        return None
    fig, axes = _figure(models, "Train step time: eager beside the best graph variant "
                        "(median; whiskers: interquartile range)", results, "ms per step (log scale)")
    for ax, model in zip(axes, models):
        labels = []
        for row, backend in enumerate(sorted(b for b, m in top if m == model)):
            variant = top[(backend, model)]["variant"]
            labels.append(f"{backend}\neager | {variant}")
            for v, offset, hatch in (("eager", -0.2, "//"), (variant, 0.2, None)):
                rec = cells.get((backend, model, v, "step_time", "train", None))
                if rec is None or rec["estimate"] is None:
                    continue
                ms, low, high = (rec[k] * 1e3 for k in ("estimate", "low", "high"))
                ax.barh(row + offset, ms, height=0.4, color=COLORS.get(backend, "grey"),
                        hatch=hatch, edgecolor="white",
                        xerr=[[ms - low], [high - ms]], capsize=2)
                ax.text(high, row + offset, f" {ms:.1f} ms {v}", va="center", fontsize=6)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(model)
        ax.invert_yaxis()
    return _finish(fig, path)


def _ratio_axis(ax, low, high):
    """Log-scaled ratio axis with plain tick labels (0.5×, 1×, 2×, ...)."""
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ticks = [t for t in (0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32) if low <= t <= high]
    ax.set_xticks(ticks, [f"{t:g}×" for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def overhead_chart(records, results, path):
    """First call minus steady train step, cold and (where measured) warm, in seconds, from the
    first_call and step_time records of one run."""
    cells, idx = lookup(records), _index(records)
    models = [m for m in _models(idx) if any(k[1] == m and k[3] == "construction" for k in idx)]
    if not models:
        return None
    fig, axes = _figure(models, "Graph construction overhead: first train step minus steady step "
                        "(bars: median; whiskers: min–max of rounds; hatched: warm cache)",
                        results, "seconds (log scale)")
    ax_floor = 1e-4
    for ax, model in zip(axes, models):
        labels = []
        for row, (backend, variant) in enumerate(_rows(idx, model, with_eager=True)):
            labels.append(f"{backend}/{variant}")
            steady = cells.get((backend, model, variant, "step_time", "train", None))
            for cache, offset, hatch in (("cold", -0.2, None), ("warm", 0.2, "//")):
                first = cells.get((backend, model, variant, "first_call", "construction", cache))
                if not (first and steady and steady["estimate"] is not None):
                    continue
                base = steady["estimate"]
                value = first["estimate"] - base
                if value <= 0:  # a log axis cannot show it: say it
                    ax.text(ax_floor, row + offset, f" {cache}: first call not slower",
                            va="center", fontsize=6)
                    continue
                low, high = max(first["low"] - base, ax_floor), first["high"] - base
                ax.barh(row + offset, value, height=0.4, color=COLORS.get(backend, "grey"),
                        hatch=hatch, edgecolor="white", label=cache,
                        xerr=[[max(value - low, 0)], [max(high - value, 0)]], capsize=2)
                ax.text(max(value, high) * 1.15, row + offset, f"{value:.3g}s {cache}",
                        va="center", fontsize=6)
        ax.set_xscale("log")
        ax.set_xlim(left=ax_floor)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(model)
        ax.invert_yaxis()
    return _finish(fig, path)


def break_even_chart(records, results, path):
    """Steps until construction + n graph steps cost less than n eager steps, from the records:
    whiskers span the steps at the two ends of the speedup's interval."""
    cells, idx = lookup(records), _index(records)
    models = [m for m in _models(idx) if any(k[1] == m and k[3] == "construction" for k in idx)]
    if not models:
        return None
    fig, axes = _figure(models, "Break-even: train steps before the graph variant pays off "
                        "(whiskers: from the speedup's 95% interval)", results,
                        "steps (log scale)")
    for ax, model in zip(axes, models):
        labels = []
        for row, (backend, variant) in enumerate(_rows(idx, model)):
            labels.append(f"{backend}/{variant}")
            rec = cells.get((backend, model, variant, "break_even", "train", "cold"))
            if rec is None or (rec["estimate"] is None and "in this run" in rec["note"]):
                continue
            n = rec["estimate"]
            if n is None:
                ax.text(1, row, f" {rec['note']}", va="center", fontsize=7, color="#900")
                continue
            ax.barh(row, n, color=COLORS.get(backend, "grey"))
            high = n
            if rec["interval"]:
                high = rec["high"]
                ax.errorbar(n, row, xerr=[[n - rec["low"]], [high - n]], color="black",
                            capsize=2, lw=0.8)
            ax.text(high, row, f" {n:,}", va="center", fontsize=7)
        ax.set_xscale("log")
        ax.set_xlim(left=0.8)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(model)
        ax.invert_yaxis()
    return _finish(fig, path)


def throughput_chart(records, results, path):
    """Train-step GFLOP/s as a share of the same run's matmul peak, from the throughput records."""
    idx = _index(records, ("throughput_share",))
    peaks = {r["backend"]: r["estimate"] for r in records if r["kind"] == "matmul_peak"}
    shares = {(r["backend"], r["model"], r["variant"]): r["estimate"] for r in records
              if r["kind"] == "throughput_share"}
    models = [m for m in _models(idx) if not m.startswith("matmul")]
    if not peaks or not models:
        return None
    fig, axes = _figure(models, "Achieved train-step throughput against the dense matmul peak",
                        results, "% of the backend's float32 matmul GFLOP/s")
    for ax, model in zip(axes, models):
        labels = []
        for row, (backend, variant) in enumerate(_rows(idx, model, with_eager=True)):
            labels.append(f"{backend}/{variant}")
            if (share := shares.get((backend, model, variant))) is not None:
                ax.barh(row, 100 * share, color=COLORS.get(backend, "grey"))
                ax.text(100 * share, row, f" {share * peaks[backend]:.1f} GFLOP/s", va="center",
                        fontsize=6)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_title(model)
        ax.invert_yaxis()
    return _finish(fig, path)


def retrace_chart(records, results, path):
    """Total time of the varying-size training sequence per network depth, traces annotated."""
    found = totals(records)
    if not found:
        return None
    backends = sorted({b for b, _, _ in found})
    fig, axes = _figure(backends, "Retracing: training on inputs whose size changes every batch",
                        results, "seconds for the whole sequence (log scale)")
    labelled = set()
    for ax, backend in zip(axes, backends):
        nets = sorted({n for b, n, _ in found if b == backend}, key=by_depth(found))
        variants = sorted({v for b, _, v in found if b == backend}, key=VARIANT_ORDER.index)
        height = 0.8 / len(variants)
        for j, variant in enumerate(variants):
            for i, net in enumerate(nets):
                r = found.get((backend, net, variant))
                if r is None:
                    continue
                y = i + (j - (len(variants) - 1) / 2) * height
                ax.barh(y, r["estimate"], height=height,
                        color=plt.cm.tab10(VARIANT_ORDER.index(variant)),
                        label=variant if variant not in labelled else None,
                        hatch="xx" if r.get("cut_short") else None)
                labelled.add(variant)
                ax.text(r["estimate"], y, f" {r['traces']} tr", va="center", fontsize=6)
        ax.set_xscale("log")
        ax.set_yticks(range(len(nets)), nets, fontsize=8)
        ax.set_title(backend)
        ax.invert_yaxis()
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    fig.legend(loc="lower center", bbox_to_anchor=(0.5, 0.055), fontsize=7, ncol=len(labelled),
               title="hatched: cut short by the budget", title_fontsize=7, frameon=False)
    return _finish(fig, path, bottom=0.17)
