"""The chart of where graph mode stops paying: speedup against work per train step."""
import math

import matplotlib.ticker

from report.views.charts import COLORS, OTHER, _finish, plt, subtitle
from report.views.tables import chosen
from report.views.scale import gflop, sweep


def _rows_of(records, backend):
    """The answer table's train-step rows of `backend` (its chosen variant) with their work."""
    return [r for (b, _), r in sorted(chosen(records).items())
            if b == backend and r["estimate"] is not None and r.get("flops")]


def scale_chart(records, context, path):
    """Per backend, eager ÷ graph along the VGG sweep (intervals as bars) on one log-log axis,
    with the answer table's rows (each row's variant) as hollow marks."""
    found = sweep(records)
    if not found:
        return None
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    fig.suptitle("Where graph mode stops paying: speedup over eager against work per step",
                 fontsize=12, fontweight="bold")
    fig.text(0.5, 0.005, subtitle(context), ha="center", va="bottom", fontsize=7, color="#555")
    ax.axhline(1, color="black", lw=1)
    ax.text(1.02, 1, " eager", transform=ax.get_yaxis_transform(), va="center", fontsize=8)
    marks = []  # (GFLOP, speedup, colour, label) of the answer's rows
    for backend, rows in found.items():
        color, variant = COLORS.get(backend, OTHER), rows[0]["variant"]
        done = [r for r in rows if r["estimate"] is not None]
        x, y = [gflop(r) for r in done], [r["estimate"] for r in done]
        err = [[r["estimate"] - (r["low"] or r["estimate"]) for r in done],
               [(r["high"] or r["estimate"]) - r["estimate"] for r in done]]
        ax.errorbar(x, y, yerr=err, color=color, marker="o", capsize=3,
                    label=f"{backend} `{variant}`, VGG sweep")
        own = _rows_of(records, backend)
        ax.scatter([gflop(r) for r in own], [r["estimate"] for r in own], facecolors="none",
                   edgecolors=color, s=60, zorder=3)
        marks += [(gflop(r), r["estimate"], color, r["model"] + (
            f" `{r['variant']}`" if r["variant"] != variant else "")) for r in own]
    ax.scatter([], [], facecolors="none", edgecolors="grey", s=60,
               label="the answer table's rows (their network and variant)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("GFLOP per train step (log)")
    ax.set_ylabel("eager time ÷ graph time (log; above 1: graph faster)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="best")
    _label(ax, marks)
    return _finish(fig, path, bottom=0.09)


def _label(ax, marks, gap_px=9):
    """Each mark's label above and right of it; labels of one network (one x) are pushed up until
    `gap_px` apart, so that none covers another."""
    ax.autoscale_view()
    dpi, groups = ax.figure.dpi, {}
    for mark in marks:
        groups.setdefault(round(math.log10(mark[0]), 2), []).append(mark)
    for group in groups.values():
        placed = -math.inf
        for x, y, color, text in sorted(group, key=lambda m: m[1]):
            at = ax.transData.transform((x, y))[1]
            placed = max(at + 3 * dpi / 72, placed + gap_px)
            ax.annotate(text, (x, y), fontsize=6, color=color, textcoords="offset points",
                        xytext=(4, (placed - at) * 72 / dpi))
