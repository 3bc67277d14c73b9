"""Comparison charts (matplotlib, PNG): speedup over eager, construction overhead, break-even."""
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.colors  # noqa: E402
import matplotlib.ticker  # noqa: E402

from catalog import COLORS  # noqa: E402
from report.views.retrace import by_depth, skip_note, totals  # noqa: E402
from report.views.tables import chosen, lookup  # noqa: E402
from report.views.text import run_spans, variant_order  # noqa: E402

OTHER = "#444"  # a backend the catalog gives no colour: never the A/A band's grey
# A label's own white box, over the panel's lines: a dashed peak line crossed its letters
OVER_LINES = {"facecolor": "white", "edgecolor": "none", "pad": 0.3}



def by_model(names):
    """The spec's networks smallest first (mnist_cnn, vgg, resnet), then any other name: the
    panel order of every chart."""
    known = [m for m in ("mnist_cnn", "vgg", "resnet") if m in names]
    return known + sorted(set(names) - set(known))


def subtitle(context):
    """Machine, device, threads, profile and framework versions behind a chart, and its runs
    (`context`: the build's select.chart_context)."""
    machines = [f"{m} · {device} · {threads} threads · profile {profile}"
                for m, device, threads, profile in context["machines"]]
    runs = [f"{backend} {run}{'†' if dirty else ''}" for backend, run, dirty in context["runs"]]
    if context.get("pooled"):  # every job a pooled figure draws on, as spans of run numbers
        runs = [run_spans(context["pooled"]["runs"]).replace("`", "") + " (repeat jobs pooled)"]
    versions = context["versions"]
    return (" | ".join(machines) + "\n" + ", ".join(f"{k} {v}" for k, v in sorted(versions.items()))
            + "\nruns: " + ", ".join(runs)
            + (" († uncommitted changes)" if any(d for *_, d in context["runs"]) else ""))


def _index(records, kinds=("step_time", "first_call")):
    """{(backend, model, variant, phase, case): record} of the float32 figures of `kinds` (the
    steady table's train, infer and construction figures unless other kinds are named)."""
    return {(r["backend"], r["model"], r["variant"], r["phase"], r["case"]): r for r in records
            if r["kind"] in kinds and r["precision"] == "float32" and r["estimate"] is not None}


def _rows(idx, model, with_eager=False):
    pairs = {(b, v) for (b, m, v, _, _) in idx if m == model and (with_eager or v != "eager")}
    return sorted(pairs, key=lambda p: (p[0], variant_order(p[1])))


def _steady_rows(idx, cells, model, phase, wrong, with_eager=False, kind="step_time"):
    """A steady chart's rows: the variants with a `kind` record of `phase`, and a known wrong one
    (a variant the job timed for first calls only, as tf's graph_dynamic, has none)."""
    return [(b, v) for b, v in _rows(idx, model, with_eager)
            if (b, model, v) in wrong or (b, model, v, kind, phase, None) in cells]


PANEL_IN = (4.4, 4.6)  # one panel's width and its largest height, inches
ROW_IN, PANEL_FRAME_IN, PANEL_LEAST_IN = 0.32, 0.9, 1.5  # a row; a panel's title and x axis; least
TITLES_IN = 1.1  # the figure's title above the panels and runs below them
COLUMNS = 2  # panels a row: a README column (about 830 px) shows the chart at 85%, not 43%


def _figure(models, title, context, xlabel, sharex=False):
    """A figure of one panel per model, two a row, under a title wrapped to its width."""
    columns = min(COLUMNS, len(models))
    rows = -(-len(models) // columns)
    fig, grid = plt.subplots(rows, columns, squeeze=False, sharex=sharex, figsize=(
        max(7.5, PANEL_IN[0] * columns), PANEL_IN[1] * rows))
    axes = list(grid.flat)
    for spare in axes[len(models):]:
        spare.remove()
    axes = axes[:len(models)]
    fig.fit_rows = True  # _finish fits each row of panels to its rows
    _titles(fig, title, context)
    for ax in axes:
        ax.set_xlabel(xlabel)
        ax.xaxis.set_tick_params(labelbottom=True)  # shared: every panel keeps its own scale
        ax.grid(axis="x", alpha=0.3)
    return fig, axes


def _titles(fig, title, context):
    """The title wrapped to the figure's width, and the runs' subtitle at its foot."""
    fig.suptitle(textwrap.fill(title, int(fig.get_figwidth() * 10), break_on_hyphens=False),
                 fontsize=12, fontweight="bold")
    fig.text(0.5, 0.005, subtitle(context), ha="center", va="bottom", fontsize=7, color="#555")


def fitted_heights(rows):
    """Each row of panels' height (inches), `rows` the most rows a panel of it has: a bar no
    taller than its label needs, and the figure no taller than with its largest panels."""
    most = PANEL_IN[1] - TITLES_IN / len(rows)
    return [min(most, max(PANEL_LEAST_IN, PANEL_FRAME_IN + ROW_IN * n)) for n in rows]


def _fit_rows(fig):
    """Sets each row of _figure's panels as tall as its fullest panel's rows need."""
    most = {}
    for ax in fig.axes:
        row = ax.get_subplotspec().rowspan.start
        most[row] = max(most.get(row, 0), len(ax.get_yticks()))
    heights = fitted_heights([most[row] for row in sorted(most)])
    fig.axes[0].get_gridspec().set_height_ratios(heights)
    fig.set_figheight(TITLES_IN + sum(heights))


def _finish(fig, path, bottom=0.07):
    """Lay out and save; `bottom`: the footnotes' share of one row of the largest panels'
    height. A figure of _figure's panels is as tall as its panels' rows need."""
    if getattr(fig, "fit_rows", False):
        _fit_rows(fig)
    height = fig.get_figheight()
    rect = (0, bottom * PANEL_IN[1] / height, 1, 1)  # the panels below the title
    fig.tight_layout(rect=rect)
    if _labels_inside(fig):  # the layout had narrowed the panels for labels past their edge
        fig.tight_layout(rect=rect)
    if fig.legends:  # a band of its own between the title and the panels: it covers no panel
        fig.subplots_adjust(top=fig.subplotpars.top - 0.25 / height)
        renderer = fig.canvas.get_renderer()
        panels_top = max(fig.transFigure.inverted().transform(ax.get_tightbbox(renderer))[1, 1]
                         for ax in fig.axes)
        for legend in fig.legends:
            legend.set_loc("lower right")
            legend.set_bbox_to_anchor((0.99, panels_top + 0.02 / height), transform=fig.transFigure)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _labels_inside(fig, tries=3):
    """Widen each panel's x axis (shared ones together) until every label ends inside it;
    whether any was widened."""
    renderer, any_widened = fig.canvas.get_renderer(), False
    for _ in range(tries):
        widened = False
        for ax in fig.axes:
            box = ax.get_window_extent(renderer)
            over = max((text.get_window_extent(renderer).x1 - box.x1 for text in ax.texts),
                       default=0)
            if over > 0:
                left, right = ax.get_xlim()
                share = (over + 4) / box.width  # of the axis's width, in its own scale
                ax.set_xlim(right=right * (right / left) ** share if ax.get_xscale() == "log"
                            else right + (right - left) * share)
                widened = any_widened = True
        if not widened:
            break
    return any_widened


def _models(idx):
    return by_model({m for (_, m, *_) in idx})


def speedup_chart(records, context, phase, path):
    """Speedup records per variant: paired ones with their 95% interval as whiskers, the run's
    A/A noise floor as a grey band around 1; unpaired ones as bars without whiskers."""
    cells, idx, wrong = lookup(records), _index(records), known_wrong(records)
    rows = {m: _steady_rows(idx, cells, m, phase, wrong, kind="speedup") for m in _models(idx)}
    # no panel for a model none of whose variants has a speedup of this phase (ResNet's infer)
    if not (models := [m for m, found in rows.items()
                       if any((b, m, v, "speedup", phase, None) in cells for b, v in found)]):
        return None
    fig, axes = _figure(models, f"Steady-state {phase} step: speedup over the backend's own eager "
                        "(whiskers: 95% interval; grey: the run's A/A noise floor)",
                        context, "speedup (×, log scale, shared; <1 is a slowdown)", sharex=True)
    spans = [0.8, 1.25]
    for ax, model in zip(axes, models):
        labels = []
        for row, (backend, variant) in enumerate(rows[model]):
            labels.append(row_label(backend, model, variant, wrong))
            rec = cells.get((backend, model, variant, "speedup", phase, None))
            if (backend, model, variant) in wrong:  # its figure is no speedup, as in the table
                no_figure(ax, 1.02, row)
                continue
            if rec is None or rec["estimate"] is None:
                ax.text(1.02, row, f"no figure ({rec['note'] if rec else 'see the table'})",
                        va="center", fontsize=6, color="#900")
                continue
            ratio, low, high = rec["estimate"], rec["low"] or rec["estimate"], rec["high"] or rec["estimate"]
            if rec["aa_floor_low"] is not None:
                ax.fill_betweenx([row - 0.45, row + 0.45], rec["aa_floor_low"],
                                 rec["aa_floor_high"], color="#999", alpha=0.3, lw=0)
            ax.barh(row, ratio - 1, left=1, color=COLORS.get(backend, OTHER))  # from 1: no change
            if rec["interval"]:
                ax.errorbar(ratio, row, xerr=[[ratio - low], [high - ratio]], color="black",
                            capsize=2, lw=0.8)
            spans += [low, high]
            note = (" ~" if rec["mark"] else "") if rec["interval"] else " (unpaired)"
            ax.text(max(ratio, high) * 1.04, row, f"{ratio:.2f}×{note}", va="center", fontsize=7)
        ax.axvline(1.0, color="black", lw=0.8)
        rows_axis(ax, labels)  # a first row with no bar stays inside the panel
        ax.set_title(model)
    _ratio_axis(axes[0], min(spans) / 1.3, max(spans) * 2.2)  # one axis: 15× longer than 4×
    return _finish(fig, path)


def known_wrong(records):
    """{(backend, model, variant): finding} of the variants whose records carry a known wrong
    answer."""
    return {(r["backend"], r["model"], r["variant"]): r["known_wrong"] for r in records
            if r.get("known_wrong")}


def no_figure(ax, x, row):
    """A known wrong variant's row: no bar or dot, as the tables show no figure for it (its
    records may hold one where a short run ended before the loss went wrong)."""
    ax.text(x, row, " known wrong answer: no figure", va="center", fontsize=6, color="#900",
            bbox=OVER_LINES)


def row_label(backend, model, variant, wrong):
    """A chart row's label; a known wrong variant says so."""
    return f"{backend}/{variant}" + ("\n✗ known wrong answer" if (backend, model, variant) in wrong
                                     else "")


def dots(ax, handles):
    """A legend above the panels of what each dot means: [(label, marker face)]."""
    found = [ax.plot([], [], "o", color="#555", mfc=face, mec="#555", label=text)[0]
             for text, face in handles]
    ax.figure.legend(handles=found, fontsize=7, ncol=len(found), loc="upper right",
                     frameon=False)  # placed under the title by _finish


def rows_axis(ax, labels):
    """One tick per row, first row on top, every row in view (dots do not widen the axis)."""
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_ylim(len(labels) - 0.5, -0.5)


def step_time_chart(records, context, path):
    """Absolute train step times per model: one dumbbell per backend from its eager step (open
    circle) to its best graph variant's (filled), on one shared log axis, labelled with the
    table's paired speedup (a large speedup can mean a slow eager mode)."""
    cells, top = lookup(records), chosen(records)
    models = by_model({m for _, m in top})
    if not models:
        return None
    pooled = any(r.get("pooled_runs") for r in records if r["kind"] == "step_time")
    spread = ("the jobs' medians: geometric mean and range" if pooled
              else "median with its interquartile range")
    fig, axes = _figure(models, "Train step time: eager (○) → the best graph variant (●), "
                        f"{spread}; the table's paired speedup", context,
                        "ms per step (log scale, shared)", sharex=True)
    for ax, model in zip(axes, models):
        labels = []
        for row, backend in enumerate(sorted(b for b, m in top if m == model)):
            variant = top[(backend, model)]["variant"]
            labels.append(f"{backend}\n→ {variant}")
            found = [cells.get((backend, model, v, "step_time", "train", None))
                     for v in ("eager", variant)]
            if any(r is None or r["estimate"] is None for r in found):
                continue
            (eager, low_e, high_e), (graph, low_g, high_g) = (
                [r[k] * 1e3 for k in ("estimate", "low", "high")] for r in found)
            color = COLORS.get(backend, OTHER)
            ax.plot([eager, graph], [row, row], color=color, lw=2, zorder=1)
            for ms, low, high, face in ((eager, low_e, high_e, "white"),
                                        (graph, low_g, high_g, color)):
                ax.errorbar(ms, row, xerr=[[ms - low], [high - ms]], fmt="o", ms=7, color=color,
                            mfc=face, mec=color, capsize=2, zorder=2)
            speedup = top[(backend, model)]
            said = (f"{speedup['estimate']:.2f}×{' ~' if speedup['mark'] else ''}"
                    if speedup["estimate"] is not None else "no speedup")
            ax.text(max(eager, graph) * 1.15, row, f"{eager:.1f} → {graph:.1f} ms ({said})",
                    va="center", fontsize=7)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_title(model)
    return _finish(fig, path)


def _ratio_axis(ax, low, high):
    """Log-scaled ratio axis with plain tick labels (0.5×, 1×, 2×, ...)."""
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ticks = [t for t in (0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32) if low <= t <= high]
    ax.set_xticks(ticks, [f"{t:g}×" for t in ticks])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def overhead_chart(records, context, path):
    """First call minus steady train step, cold and (where measured) warm, in seconds, from the
    first_call and step_time records of one run."""
    cells, idx = lookup(records), _index(records)
    models = [m for m in _models(idx) if any(k[1] == m and k[3] == "construction" for k in idx)]
    if not models:
        return None
    pooled = any(r.get("pooled_runs") for r in records if r["kind"] == "first_call")
    fig, axes = _figure(models, "Graph construction overhead: first train step minus steady step "
                        + ("(dot: the jobs' geometric mean; whiskers: their range"
                           if pooled else "(dot: median; whiskers: min–max of rounds")
                        + "; ● cold, ○ warm cache)",
                        context, "seconds (log scale, shared)", sharex=True)
    ax_floor, top, wrong = 1e-4, 1.0, known_wrong(records)
    for ax, model in zip(axes, models):
        labels = []
        for row, (backend, variant) in enumerate(_steady_rows(idx, cells, model, "train", wrong,
                                                              with_eager=True)):
            labels.append(row_label(backend, model, variant, wrong))
            if (backend, model, variant) in wrong:
                no_figure(ax, ax_floor, row)
                continue
            steady = cells.get((backend, model, variant, "step_time", "train", None))
            if not (steady and steady["estimate"] is not None and cells.get(
                    (backend, model, variant, "first_call", "construction", "cold"))):
                why = "non-finite loss" if steady and steady["estimate"] is None else \
                    "no first call and steady step of one run here"
                ax.text(ax_floor, row, f" {why}", va="center", fontsize=6, color="#777")
            for cache, offset, face in (("cold", -0.2, None), ("warm", 0.2, "white")):
                first = cells.get((backend, model, variant, "first_call", "construction", cache))
                if not (first and steady and steady["estimate"] is not None):
                    continue
                base = steady["estimate"]
                value = first["estimate"] - base
                if value < ax_floor:  # left of the axis (a log axis has no 0): say it
                    said = f"{value:.2g}s, under the axis" if value > 0 else "first call not slower"
                    ax.text(ax_floor, row + offset, f" {cache}: {said}", va="center", fontsize=6)
                    continue
                low, high = max(first["low"] - base, ax_floor), first["high"] - base
                color = COLORS.get(backend, OTHER)
                ax.errorbar(value, row + offset, xerr=[[max(value - low, 0)],
                                                       [max(high - value, 0)]],
                            fmt="o", ms=5, color=color, mfc=face or color, mec=color, capsize=2)
                ax.text(max(value, high) * 1.15, row + offset, f"{value:.3g}s {cache}",
                        va="center", fontsize=6)
                top = max(top, high)
        ax.set_xscale("log")
        ax.set_xlim(ax_floor, top * 30)  # room for the labels on the shared axis
        rows_axis(ax, labels)
        ax.set_title(model)
    dots(axes[-1], [("cold cache (a first run)", None), ("warm cache (later runs)", "white")])
    return _finish(fig, path)


def break_even_chart(records, context, path):
    """Steps until construction + n graph steps cost less than n eager steps, from the records:
    a first run (cold caches, filled dot) and every later run (warm cache, open dot) on one shared log
    axis; whiskers span the steps at the two ends of the speedup's interval (and, pooled, each
    job's own break-even); a row with no figure says why."""
    cells, idx = lookup(records), _index(records)
    models = [m for m in _models(idx) if any(k[1] == m and k[3] == "construction" for k in idx)]
    if not models:
        return None
    jobs = any("each job" in (r["interval"] or "") for r in records
               if r["kind"] == "break_even")
    fig, axes = _figure(models, "Break-even: train steps before the graph variant pays off, first "
                        "run (●) and later runs on a warm cache (○);\nwhiskers: from the "
                        "speedup's 95% interval" + (" and each job's own break-even"
                                                    if jobs else ""),
                        context, "steps (log scale, shared)", sharex=True)
    wrong = known_wrong(records)
    for ax, model in zip(axes, models):
        labels = []
        for row, (backend, variant) in enumerate(_steady_rows(idx, cells, model, "train", wrong)):
            labels.append(row_label(backend, model, variant, wrong))
            if (backend, model, variant) in wrong:
                no_figure(ax, 1, row)
                continue
            found = [(cells.get((backend, model, variant, "break_even", "train", cache)), offset,
                      face) for cache, offset, face in (("cold", -0.2, None), ("warm", 0.2, "white"))]
            for rec, offset, face in found:
                if rec is None or rec["estimate"] is None:
                    continue
                n, color = rec["estimate"], COLORS.get(backend, OTHER)
                high = rec["high"] if rec["interval"] else n
                low = rec["low"] if rec["interval"] else n
                never = high is None  # a job never paid back: the whisker has no upper end
                high = n if never else high
                ax.errorbar(n, row + offset, xerr=[[n - low], [high - n]], fmt="o", ms=5,
                            color=color, mfc=face or color, mec=color, capsize=2, lw=0.8)
                label = f" {n:,}" + (f" ({rec['note']})" if never else "")
                ax.text(high * 1.1, row + offset, label, va="center", fontsize=6)
            cold = found[0][0]
            if cold is None or cold["estimate"] is None:
                ax.text(1, row, f" {cold['note'] if cold else 'no figure in this run'}",
                        va="center", fontsize=6, color="#900" if cold and not
                        cold["note"].endswith("in this run") else "#777")
        ax.set_xscale("log")
        ax.set_xlim(left=0.8)
        rows_axis(ax, labels)
        ax.set_title(model)
    dots(axes[-1], [("first run (cold cache)", None), ("later runs (warm cache)", "white")])
    return _finish(fig, path)


def throughput_chart(records, context, path):
    """Train-step GFLOP/s of each variant on one shared axis, beside its backend's float32 matmul
    peak of the same run (a dashed line in the backend's colour)."""
    idx = _index(records, ("throughput_share",))
    peaks = {r["backend"]: r["estimate"] for r in records if r["kind"] == "matmul_peak"}
    shares = {(r["backend"], r["model"], r["variant"]): r["estimate"] for r in records
              if r["kind"] == "throughput_share"}
    models = [m for m in _models(idx) if not m.startswith("matmul")]
    if not peaks or not models:
        return None
    fig, axes = _figure(models, "Train-step throughput beside the backend's dense matmul peak "
                        "(dashed)", context, "GFLOP/s (shared; label: % of the peak)", sharex=True)
    wrong = known_wrong(records)
    for ax, model in zip(axes, models):
        labels = []
        for row, (backend, variant) in enumerate(_rows(idx, model, with_eager=True)):
            labels.append(row_label(backend, model, variant, wrong))
            if (backend, model, variant) in wrong:
                no_figure(ax, 0, row)
            elif (share := shares.get((backend, model, variant))) is not None:
                ax.barh(row, share * peaks[backend], color=COLORS.get(backend, OTHER))
                ax.text(share * peaks[backend], row, f" {share * peaks[backend]:.1f} "
                        f"({100 * share:.0f}%)", va="center", fontsize=6, bbox=OVER_LINES)
        for backend, peak in sorted(peaks.items()):
            ax.axvline(peak, color=COLORS.get(backend, OTHER), ls="--", lw=1,
                       label=f"{backend} matmul peak {peak:.0f} GFLOP/s")
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_title(model)
    # above the panels, as the dots' legends: inside one it covered that panel's bars
    fig.legend(*axes[-1].get_legend_handles_labels(), fontsize=7, ncol=len(peaks),
               loc="upper right", frameon=False)  # placed under the title by _finish
    return _finish(fig, path)


def retrace_chart(records, context, path):
    """Per backend, a network × variant grid of the varying-size training sequence: each cell its
    total time and traces, coloured by that time over eager's on the same network (the record's
    `over_eager`); a run cut short by the budget or skipped by the profile says so in its cell."""
    found = totals(records)
    if not found:
        return None
    backends = sorted({b for b, _, _ in found})
    widths = [len({v for b, _, v in found if b == x}) for x in backends]
    # a backend a row, each cell as wide in every row: a README column shows it at 85%
    height = 2.1 + 2.0 * len(backends)
    fig = plt.figure(figsize=(2 * PANEL_IN[0], height))
    grid = fig.add_gridspec(len(backends), max(widths), left=0.12, right=0.86,
                            top=1 - 0.9 / height, bottom=1.2 / height, hspace=0.7)
    axes = [fig.add_subplot(grid[row, :width]) for row, width in enumerate(widths)]
    _titles(fig, "Retracing: training on inputs whose size changes every batch (each cell: "
            "total time, traces)", context)
    norm = matplotlib.colors.LogNorm(1 / 30, 30)
    for ax, backend in zip(axes, backends):
        variants = sorted({v for b, _, v in found if b == backend}, key=variant_order)
        skipped = {n for _, n, _ in found  # a network the profile leaves out whole: its row says so
                   if all(skip_note(context["retrace_rules"], backend, n, v, "train") for v in variants)}
        nets = sorted({n for b, n, _ in found if b == backend} | skipped, key=by_depth(found))
        for i, net in enumerate(nets):
            for j, variant in enumerate(variants):
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="#ccc"))
                r = found.get((backend, net, variant))
                if r is None:
                    why = skip_note(context["retrace_rules"], backend, net, variant, "train")
                    ax.text(j, i, "skipped\n(profile)" if why else "—", ha="center",
                            va="center", fontsize=6, color="#777")
                    continue
                ratio = r["over_eager"]
                cut = r.get("cut_short")
                color = "#ddd" if cut or ratio is None else plt.cm.RdYlGn_r(norm(ratio))
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fc=color,
                                           hatch="xx" if cut else None,
                                           ec="#aaa" if cut else "white"))
                text = f"{r['estimate']:.3g} s\n{r['traces']} trace{'s' * (r['traces'] != 1)}"
                if cut:
                    text += f"\ncut at {r['steps_done']}/{r['steps_planned']}"
                elif ratio is not None and variant != "eager":
                    text += f"\n{ratio:.0f}× eager" if ratio >= 10 else f"\n{ratio:.2g}× eager"
                dark = sum(w * c for w, c in zip((0.299, 0.587, 0.114),
                                                 matplotlib.colors.to_rgb(color))) < 0.5
                ax.text(j, i, text, ha="center", va="center", fontsize=6,
                        color="white" if dark else "black")
        ax.set_xlim(-0.5, len(variants) - 0.5)
        ax.set_ylim(len(nets) - 0.5, -0.5)
        ax.set_xticks(range(len(variants)), variants, fontsize=7, rotation=30, ha="right")
        ax.set_yticks(range(len(nets)), nets, fontsize=8)
        ax.set_title(backend)
    bar = fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap="RdYlGn_r"),
                       cax=fig.add_axes((0.885, 0.3, 0.015, 0.4)))
    cut = any(r.get("cut_short") for r in found.values())
    bar.set_label("time ÷ eager's on the same network" + ("\n(grey, cross-hatched: cut short by "
                  "the budget, no ratio)" if cut else ""), fontsize=7)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
