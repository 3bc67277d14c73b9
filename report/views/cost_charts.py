"""Charts of what graph mode costs: memory per variant, and a step at a new shape vs a seen one."""
import textwrap

import matplotlib.patches
import matplotlib.ticker
import matplotlib.transforms

from report.views.charts import COLORS, OTHER, PANEL_IN, _figure, _finish, by_model, dots, \
    known_wrong, plt, row_label, rows_axis
from report.views.retrace import by_depth, new_vs_seen_steps, totals
from report.views.text import variant_order

MIB = 2 ** 20


def memory_chart(records, context, path):
    """Peak train-step RSS above the post-import baseline per variant, per model (MiB)."""
    wrong = known_wrong(records)
    records = [r for r in records if r["kind"] == "memory_peak" and r["estimate"] is not None]
    models = by_model({r["model"] for r in records})
    if not models:
        return None
    fig, axes = _figure(models, "Memory: peak train-step RSS above the post-import baseline",
                        context, "MiB")
    for ax, model in zip(axes, models):
        rows = sorted((r for r in records if r["model"] == model), key=lambda r: (
            r["backend"], variant_order(r["variant"])))
        for row, r in enumerate(rows):
            mib = r["estimate"] / MIB
            ax.barh(row, mib, color=COLORS.get(r["backend"], OTHER),
                    hatch="//" if r["variant"] == "eager" else None, edgecolor="white")
            ax.text(mib, row, f" {mib:.1f}", va="center", fontsize=6)
        ax.set_yticks(range(len(rows)), [row_label(r["backend"], model, r["variant"], wrong)
                                         for r in rows], fontsize=7)
        ax.set_title(model)
        ax.invert_yaxis()
    fig.legend(handles=[matplotlib.patches.Patch(fc="#999", hatch="//", ec="white",
                                                 label="eager (hatched)")],
               fontsize=7, loc="upper right", frameon=False)  # placed by _finish
    lines = 0
    if gaps := context["gaps"]:  # wrapped to the figure's width, never cut off
        note = textwrap.fill("Left out of the newest runs by their profile (--profile paper "
                             "measures them; a bar there comes from an earlier run of the same "
                             "framework release, named below): " + "; ".join(gaps),
                             width=int(fig.get_figwidth() * 16))
        lines = note.count("\n") + 1
        fig.text(0.5, 0.085 * PANEL_IN[1], note, ha="center", va="bottom", fontsize=7,
                 color="#555", transform=matplotlib.transforms.blended_transform_factory(
                     fig.transFigure, fig.dpi_scale_trans))  # inches up: _finish fits the height
    return _finish(fig, path, bottom=0.11 + 0.025 * lines if gaps else 0.07)


def retrace_step_chart(records, context, path):
    """Per backend: the mean step at a shape not seen before beside one at a seen shape
    (repeating sizes, after the first step), for every variant and network."""
    found = new_vs_seen_steps(records)
    backends = sorted({b for b, _, _ in found})
    if not backends:
        return None
    fig, axes = _figure(backends, "Retracing: a step at a new input size (●) beside one at a "
                        "size seen before (○)", context, "seconds per step (log scale)")
    order = by_depth(totals(records, "repeating"))
    for ax, backend in zip(axes, backends):
        keys = sorted((k for k in found if k[0] == backend), key=lambda k: (
            order(k[1]), variant_order(k[2])))
        for row, key in enumerate(keys):
            new, seen, over = found[key]
            color = COLORS.get(backend, OTHER)
            ax.plot([seen, new], [row, row], color=color, lw=1, alpha=0.5)
            ax.plot(new, row, "o", ms=5, color=color)
            ax.plot(seen, row, "o", ms=5, color=color, mfc="white")
            ax.text(max(new, seen) * 1.15, row, f" {over:.1f}×", va="center", fontsize=6)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        rows_axis(ax, [f"{net}/{variant}" for _, net, variant in keys])
        ax.set_title(backend)
    plt.setp(axes, xlabel="s per step (log scale); label: new ÷ seen")
    dots(axes[-1], [("new input size", None), ("size seen before", "white")])
    return _finish(fig, path)
