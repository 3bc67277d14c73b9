"""Every chart draws figure records: a number a chart labels or marks is its record's."""
import json
import re
import sys
from pathlib import Path

import pytest

from report.views.tables import chosen
from report.views.scale import gflop

SUMMARY = Path(__file__).resolve().parent.parent / "results" / "summary.json"
CONTEXT = {"machines": [], "versions": {}, "runs": [], "gaps": [], "retrace_rules": {}}
ANSWER = "vm (AMD EPYC, family 25 model 17, AVX-512+VNNI+BF16, 2 cores)"


@pytest.fixture(autouse=True)
def _closed():
    """Every figure a test kept open is closed after it (by pyplot's figure manager: a test's
    pyplot.close may still be its stand-in that keeps figures)."""
    yield
    if (helpers := sys.modules.get("matplotlib._pylab_helpers")) is not None:
        helpers.Gcf.destroy_all()


@pytest.fixture(scope="module")
def records():
    found = [r for r in json.loads(SUMMARY.read_text())["records"] if r["machine"] == ANSWER]
    assert chosen(found), "the answer machine's records have no chosen rows"
    return found


def drawn(monkeypatch, module, draw, *args):
    """The figure a chart function draws, kept open instead of saved (matplotlib: report env)."""
    kept = []
    monkeypatch.setattr(module, "_finish", lambda fig, path, bottom=0.07: kept.append(fig) or path)
    draw(*args)
    return kept[0]


def test_the_step_time_chart_labels_each_rows_paired_speedup(monkeypatch, records, tmp_path):
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    fig = drawn(monkeypatch, charts, charts.step_time_chart, records, CONTEXT, tmp_path / "s.png")
    rows = chosen(records)
    checked = 0
    for ax in fig.axes:
        backends = [t.get_text().split("\n")[0] for t in ax.get_yticklabels()]
        for text in ax.texts:
            backend = backends[round(text.get_position()[1])]
            rec = rows[backend, ax.get_title()]
            assert re.search(r"\((\d+\.\d+)×", text.get_text())[1] == f"{rec['estimate']:.2f}", (
                backend, ax.get_title(), text.get_text())
            checked += 1
    assert checked == len([r for r in rows.values() if r["estimate"] is not None])


def test_the_sweep_chart_marks_the_tables_variant_of_each_row(monkeypatch, records, tmp_path):
    scale_chart = pytest.importorskip("report.views.scale_chart", reason="charts: the tox "
                                      "`report` env")
    fig = drawn(monkeypatch, scale_chart, scale_chart.scale_chart, records, CONTEXT, tmp_path / "c.png")
    hollow = {tuple(map(float, xy)) for c in fig.axes[0].collections
              if type(c).__name__ == "PathCollection" and len(c.get_facecolors()) == 0
              for xy in c.get_offsets()}
    rows = [r for r in chosen(records).values() if r["estimate"] is not None and r.get("flops")]
    assert hollow == {(gflop(r), r["estimate"]) for r in rows}


def test_the_retrace_chart_labels_each_cell_with_its_records_ratio(monkeypatch, records, tmp_path):
    """A cell's '× eager' is its record's `over_eager` (the build's), never two records divided."""
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    kept = []
    monkeypatch.setattr(charts.plt, "close", kept.append)
    charts.retrace_chart(records, CONTEXT, tmp_path / "r.png")
    cells = {(r["backend"], r["model"], r["variant"]): r for r in records
             if r["kind"] == "retrace_total" and r["case"] == "train-varying"}
    checked = 0
    for ax in kept[0].axes[:-1]:  # the last: the colour bar
        nets = [t.get_text() for t in ax.get_yticklabels()]
        variants = [t.get_text() for t in ax.get_xticklabels()]
        for text in ax.texts:
            if said := re.search(r"\n([\d.]+)× eager$", text.get_text()):
                j, i = text.get_position()
                ratio = cells[ax.get_title(), nets[round(i)], variants[round(j)]]["over_eager"]
                assert said[1] == (f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.2g}")
                checked += 1
    assert checked == sum(r["variant"] != "eager" and r["over_eager"] is not None
                          and not r.get("cut_short") for r in cells.values())


@pytest.mark.parametrize("phase", ["train", "infer"])
def test_the_speedup_chart_has_a_row_per_speedup_of_its_phase(monkeypatch, records, tmp_path,
                                                               phase):
    """A panel's rows are the variants with a speedup of that phase, each labelled with its
    record's estimate, and a known wrong one; a variant with only first calls is no row, and a
    model with no speedup of the phase no panel."""
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    fig = drawn(monkeypatch, charts, charts.speedup_chart, records, CONTEXT, phase,
                tmp_path / "p.png")
    speedups = {(r["backend"], r["model"], r["variant"]): r for r in records
                if (r["kind"], r["phase"], r["precision"]) == ("speedup", phase, "float32")}
    wrong = charts.known_wrong(records)
    panels = {ax.get_title(): ax for ax in fig.axes}
    assert set(panels) == {m for _, m, _ in speedups}
    for model, ax in panels.items():
        labels = [t.get_text().split("\n")[0] for t in ax.get_yticklabels()]
        assert sorted(labels) == sorted({f"{b}/{v}" for b, m, v in {*speedups, *wrong}
                                         if m == model and v != "eager"})
        for text in ax.texts:
            b, v = labels[round(text.get_position()[1])].split("/")
            if (found := re.match(r"([\d.]+)×", text.get_text())):
                assert found[1] == f"{speedups[b, model, v]['estimate']:.2f}"


@pytest.mark.parametrize("chart", ["break_even_chart", "overhead_chart"])
def test_a_first_call_charts_rows_are_the_variants_with_a_train_step(monkeypatch, records,
                                                                     tmp_path, chart):
    """Break-even and construction overhead need a steady train step: a variant timed for its
    first calls only (tf's graph_dynamic in the answer job) is no row; a known wrong one is."""
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    fig = drawn(monkeypatch, charts, getattr(charts, chart), records, CONTEXT, tmp_path / "c.png")
    wrong = charts.known_wrong(records)
    key = lambda r: (r["backend"], r["model"], r["variant"])
    steady = {key(r) for r in records
              if (r["kind"], r["phase"], r["precision"]) == ("step_time", "train", "float32")}
    timed = {key(r) for r in records if r["kind"] in ("step_time", "first_call")
             and r["precision"] == "float32" and r["estimate"] is not None}
    for ax in fig.axes:
        model = ax.get_title()
        labels = {tuple(t.get_text().split("\n")[0].split("/")) for t in ax.get_yticklabels()}
        expected = {(b, v) for b, m, v in timed & (steady | set(wrong)) if m == model
                    and (v != "eager" or chart == "overhead_chart")}
        assert labels == expected, (model, labels ^ expected)
    assert timed - steady - set(wrong)  # the records hold variants with first calls only


def laid_out(monkeypatch, records, tmp_path, draws=None):
    """Every README chart of `records` (or `draws`' charts), laid out as for a PNG and kept open,
    none written (encoding eight of them took a quarter of the time)."""
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    from matplotlib.figure import Figure
    from report.views import cost_charts
    kept = []
    monkeypatch.setattr(charts.plt, "close", kept.append)
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: fig.draw_without_rendering())
    draws = draws or [(charts.speedup_chart, "train"), (charts.step_time_chart,),
                      (charts.break_even_chart,), (charts.overhead_chart,),
                      (charts.throughput_chart,), (charts.retrace_chart,),
                      (cost_charts.retrace_step_chart,), (cost_charts.memory_chart,)]
    for draw, *phase in draws:
        draw(records, CONTEXT, *phase, tmp_path / f"{draw.__name__}.png")
    return kept


def test_every_readme_chart_fits_a_readme_column_with_every_panels_scale(monkeypatch, records,
                                                                          tmp_path):
    """A README column is about 830 px: four panels a row (1936 px) showed their labels at 43%,
    too small to read. Two a row fit at 85%; each panel keeps its own x tick labels, its
    labels end inside it (the step-time chart's '318.5 → 22.8 ms (13.98×)' crossed its edge),
    and its rows' names do not overlap (a panel's height follows its rows)."""
    kept = laid_out(monkeypatch, records, tmp_path)
    assert len(kept) >= 7 and max(len(fig.axes) for fig in kept) >= 4
    for fig in kept:
        assert fig.get_figwidth() * 110 <= 1000, fig.get_suptitle()
        renderer = fig.canvas.get_renderer()
        for ax in (ax for ax in fig.axes if ax.get_title()):  # a panel, not a colour bar
            assert [t for t in ax.get_xticklabels() if t.get_text()], fig.get_suptitle()
            edge = ax.get_window_extent(renderer).x1 + 1  # each label ends inside its panel
            assert all(t.get_window_extent(renderer).x1 <= edge for t in ax.texts), (
                fig.get_suptitle(), [t.get_text() for t in ax.texts
                                     if t.get_window_extent(renderer).x1 > edge])
            boxes = sorted((t.get_window_extent(renderer) for t in ax.get_yticklabels()
                            if t.get_text()), key=lambda box: box.y0)  # rows' names apart
            assert all(low.y1 <= high.y0 + 1 for low, high in zip(boxes, boxes[1:])), (
                fig.get_suptitle(), ax.get_title())


def test_a_panels_height_follows_its_rows(monkeypatch, records, tmp_path):
    """A version report's charts (one backend: a row or two a panel) kept the four backends'
    panel height: one bar 4 inches tall. A panel is as tall as its rows need (that its row labels
    never overlap in a full panel: the README charts' test)."""
    one = [r for r in records if r["backend"] == "jax"]
    grid = "Retracing: training on inputs"  # a backend's cells a row, not a bar a row
    for fig in laid_out(monkeypatch, one, tmp_path):
        if fig.get_suptitle().startswith(grid):
            continue
        renderer = fig.canvas.get_renderer()
        for ax in (ax for ax in fig.axes if ax.get_title() and len(ax.get_yticks()) <= 2):
            assert ax.get_window_extent(renderer).height <= 100, (fig.get_suptitle(),
                                                                   ax.get_title())
    from report.views import cost_charts  # a row of 4 and 6 rows over one of 4 and 16
    fig, = laid_out(monkeypatch, records, tmp_path, [(cost_charts.retrace_step_chart,)])
    renderer = fig.canvas.get_renderer()
    tall = {ax.get_title(): ax.get_window_extent(renderer).height for ax in fig.axes}
    assert tall["chainer"] < 0.8 * tall["tf"], tall  # each row of panels as its fullest needs


def test_a_known_wrong_variant_with_a_figure_is_drawn_as_the_tables_show_it(monkeypatch, records,
                                                                            tmp_path):
    """A quick job on an AVX2 CPU ended before the loss went wrong: its known wrong variants kept
    a finite speedup, which the table showed as "—" and the charts drew as bars (1.26×, 1.38×),
    and the reading counted among the graph variants. Now no bar, no dot, not counted."""
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    from report.views.readings import speedup_reading
    key = ("jax", "vgg", "graph")
    marked = [{**r, "known_wrong": "findings/x.md"}
              if (r["backend"], r["model"], r["variant"]) == key else r for r in records]
    assert any(r["kind"] == "speedup" and r["estimate"] for r in marked if r.get("known_wrong"))
    for draw, *phase in ((charts.speedup_chart, "train"), (charts.throughput_chart,),
                         (charts.overhead_chart,), (charts.break_even_chart,)):
        fig = drawn(monkeypatch, charts, draw, marked, CONTEXT, *phase, tmp_path / "k.png")
        ax = next(ax for ax in fig.axes if ax.get_title() == "vgg")
        labels = [t.get_text().split("\n")[0] for t in ax.get_yticklabels()]
        row = labels.index("jax/graph")
        said = [t.get_text() for t in ax.texts if abs(t.get_position()[1] - row) < 0.5]
        assert said == [" known wrong answer: no figure"], (draw.__name__, said)
        drawn_at = [p for p in ax.patches if abs(p.get_y() + p.get_height() / 2 - row) < 0.3]
        assert not drawn_at and not [line for line in ax.lines
                                     if abs(line.get_ydata()[0] - row) < 0.5], draw.__name__
    before, after = speedup_reading(records, "train"), speedup_reading(marked, "train")
    total = int(re.match(r"Of (\d+) graph variants", before)[1])
    assert after.startswith(f"Of {total - 1} graph variants (1 known wrong answer left out), ")


def test_an_overhead_under_the_axis_is_said_inside_it(monkeypatch, records, tmp_path):
    """Chainer's eager first call of a quick job came 1.92e-05 s above its steady step: the dot
    and its label fell left of the log axis's 0.1 ms floor, over the row's name."""
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    key = ("chainer", "mnist_cnn", "eager")
    steady = next(r for r in records if (r["backend"], r["model"], r["variant"]) == key
                  and (r["kind"], r["phase"]) == ("step_time", "train"))["estimate"]
    tiny = [{**r, "estimate": steady + 2e-5, "low": steady + 1e-5, "high": steady + 3e-5}
            if (r["backend"], r["model"], r["variant"], r["kind"], r["case"]) == (*key,
                                                                                "first_call", "cold")
            else r for r in records]
    fig = drawn(monkeypatch, charts, charts.overhead_chart, tiny, CONTEXT, tmp_path / "o.png")
    ax = next(ax for ax in fig.axes if ax.get_title() == "mnist_cnn")
    floor = ax.get_xlim()[0]
    assert all(t.get_position()[0] >= floor for t in ax.texts)
    assert " cold: 2e-05s, under the axis" in [t.get_text() for t in ax.texts]


def test_a_throughput_label_a_peak_line_crosses_covers_it(monkeypatch, records, tmp_path):
    """A quick job's "known wrong answer: no figure" ran across the dashed peak lines, which
    struck through its letters. Each label a line crosses has its own opaque box above it."""
    charts = pytest.importorskip("report.views.charts", reason="charts: the tox `report` env")
    key = ("jax", "vgg", "graph")
    marked = [{**r, "known_wrong": "findings/x.md"}
              if (r["backend"], r["model"], r["variant"]) == key else r for r in records]
    marked = [{**r, "estimate": r["estimate"] * 4} if r["kind"] == "throughput_share" else r
              for r in marked]  # bars near the peak lines, so that labels meet them
    fig, = laid_out(monkeypatch, marked, tmp_path, [(charts.throughput_chart,)])
    renderer = fig.canvas.get_renderer()
    crossed = []
    for ax in (ax for ax in fig.axes if ax.get_title()):
        lines = [line for line in ax.lines if line.get_linestyle() == "--"]
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            over = [line for line in lines if box.x0 < ax.transData.transform(
                (line.get_xdata()[0], 0))[0] < box.x1]
            crossed += [text.get_text()] if over else []
            patch = text.get_bbox_patch()
            assert not over or (patch is not None and patch.get_facecolor()[3] == 1
                                and all(text.get_zorder() > line.get_zorder() for line in over)), (
                ax.get_title(), text.get_text())
    assert " known wrong answer: no figure" in crossed and len(crossed) > 1, crossed
