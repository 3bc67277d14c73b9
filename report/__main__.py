"""`python -m report`: the summary, charts and every table from results/, written only once made."""
import argparse
import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from catalog import BACKENDS
from machines import named_among
from report.publish import stops
from report.views.answer import (SCALE_CHART, answer_text, break_even_reading, in_short,
                                  step_time_reading)
from report.views.compare import compare_text, compare_warnings
from report.build.comparison import comparison
from report import warn
from report.build.load import SUMMARY, load_dir
from report.views.memory import advice as memory_advice
from report.views.memory import memory_peaks
from report.views.page import PAGE, page_data, page_html
from report.build.page_data import PINS, page_links, release_sets, run_table
from report.views.readings import (overhead_reading, retrace_reading, speedup_reading,
                             throughput_reading)
from report.build.machine_records import machine_records
from report.build.records import FIELDS
from report.build.studies import capture_records, load_studies, parity_records, wait_records
from report.build.runs import (for_views, machine_notes, made_by, pooled_runs, provenance,
                               section_runs)
from report.views import render as views_render
from report.views.retrace import retrace_step_reading
from report.views.scale import scale_reading
from report.build.select import chart_context, front, front_gpu, names, one_profile, views
from report.views.terminal import answer_for, standalone
from report.views.text import chart_runs, rounded
from report.views.compared import compared_table
from report.publish.write import (COMPARED_END, COMPARED_START, END, START, SUMMARY_END,
                          SUMMARY_START, Mixed, chart_folders,
                          check_outputs, length_problem, publish, readme_text, rewrite_readme,
                          splice)

__all__ = ["END", "START", "details_text", "main", "render", "rewrite_readme"]


def _results(args):
    """The results to report, or ValueError with the one line that says why there are none."""
    if not Path(args.results).is_dir():
        raise ValueError(f"--results {args.results}: no such folder")
    damaged = []
    results = load_dir(args.results, incomplete=args.incomplete, damaged=damaged)
    if damaged and results and not args.skip_damaged:
        them, their = ("it", "its") if len(damaged) == 1 else ("them", "their")
        raise ValueError(f"{', '.join(damaged)}: cannot be read (above), and a report without "
                         f"{them} would lack {their} figures: move {them} out "
                         f"of {args.results} (or replace {them} by a new run), or pass "
                         f"--skip-damaged to publish without {them}")
    if args.machine:
        found = sorted({r.machine for r in results})
        results = [r for r in results if args.machine in r.machine]
        if not results:
            raise ValueError(f"--machine {args.machine!r} matches no run; machines: "
                             f"{'; '.join(found) or 'none'}")
    if not results:
        raise ValueError(f"{args.results}: no usable results")
    for wanted in args.run:
        if not any(wanted in names(r.run) for r in results):
            raise ValueError(f"--run {wanted!r} matches no run; runs: "
                             f"{', '.join(sorted({r.run for r in results}))}")
    shown, left_out = one_profile(results, args.profile)
    for wanted in args.run:
        if not any(wanted in names(r.run) for r in shown):
            other = next(r for r in results if wanted in names(r.run)).profile_name
            raise ValueError(f"--run {wanted!r} is a run of profile {other!r}, which this report "
                             f"does not show: --profile {other} shows it")
    if left_out:
        warn(left_out)
    return shown


def per_machine(results, wanted=(), studies=None):
    """[(machine, view, records)]: each machine's sections and its records (a GPU's with its
    studies', report.views.gpu.load_studies), built once."""
    studied = (wait_records, parity_records, capture_records)  # a GPU's studies and checks
    return [(machine, view, machine_records(view)
             + [r for records in studied for r in records(machine, studies or {})])
            for machine, view in views(results, wanted)]


def render(results, machines, charts=(), relative_to=".", wanted=(), details=None, page=None):
    """The README's results block (report.views.render.render) of `results` and their runs."""
    return views_render.render(provenance(results, machines, wanted), for_views(machines),
                               charts, relative_to, details, page)


def details_text(results, machines, wanted=(), *rest, **named):
    """RESULTS.md (report.views.render.details_text) of `results` and their runs."""
    return views_render.details_text(provenance(results, machines, wanted), for_views(machines),
                                     *rest, **named)


def summary_json(machines):
    """summary.json's text: every published figure of every machine as one record."""
    records = [rec for _, _, found in machines for rec in found]
    head = json.dumps({"schema": "graphbench.summary/1", "fields": list(FIELDS)})[:-1]
    # one record a line, without spaces after separators (365 kB less for a GPU call to carry)
    lines = ",\n".join(json.dumps(rounded(r), allow_nan=False, separators=(",", ":"))
                        for r in records)
    return f'{head}, "records": [\n{lines}\n]}}\n'


CHARTS = (  # (file stem, title, section, reading of the machine's records)
    ("speedup_train", "Steady-state speedup, train step", "steady",
     lambda rec: speedup_reading(rec, "train")),
    ("speedup_infer", "Steady-state speedup, inference step", "steady",
     lambda rec: speedup_reading(rec, "infer")),
    ("step_times", "Train step time, eager beside the best graph variant", "steady",
     lambda rec: step_time_reading(rec)),
    ("construction_overhead", "Construction overhead", "steady",
     lambda rec: overhead_reading(rec)),
    ("break_even", "Break-even", "steady", lambda rec: break_even_reading(rec)),
    ("throughput", "Throughput against the matmul peak", "peak",
     lambda rec: throughput_reading(rec)),
    ("retrace", "Retracing with changing input sizes", "retrace",
     lambda rec: retrace_reading(rec)),
    ("retrace_steps", "Retracing: a step at a new input size beside a seen one", "retrace",
     lambda rec: retrace_step_reading(rec)),
    ("memory", "Memory per variant", "memory",
     lambda rec: memory_advice(memory_peaks(rec)) or "No memory results."),
    ("scale", "Where graph mode stops paying", "scale", lambda rec: scale_reading(rec)),
)


README_CHARTS = ("step_times", "scale", "break_even", "retrace", "memory")  # the rest: RESULTS.md


def _charts(machines, outdir):
    """[(machine, title, path in outdir, reading)] of the charts drawn into `outdir`, per machine
    (a suffix per machine when there are several)."""
    from report.views import charts, cost_charts, scale_chart  # matplotlib: only when charts are drawn
    draw = {"speedup_train": lambda *a: charts.speedup_chart(*a[:2], "train", a[2]),
            "speedup_infer": lambda *a: charts.speedup_chart(*a[:2], "infer", a[2]),
            "step_times": charts.step_time_chart, "construction_overhead": charts.overhead_chart,
            "break_even": charts.break_even_chart, "throughput": charts.throughput_chart,
            "retrace": charts.retrace_chart, "retrace_steps": cost_charts.retrace_step_chart,
            "memory": cost_charts.memory_chart, "scale": scale_chart.scale_chart}
    outdir.mkdir(parents=True, exist_ok=True)
    drawn = []
    for n, (machine, view, records) in enumerate(machines, 1):
        suffix = f"_m{n}" if len(machines) > 1 else ""
        for stem, title, section, reading in CHARTS:
            context = chart_context(view(section), section, pooled_runs(view, section))
            if path := draw[stem](records, context, outdir / f"{stem}{suffix}.png"):
                runs = chart_runs(section_runs(view(section)), context["pooled"])
                drawn.append((machine, title, path, f"{reading(records)} {runs}",
                              stem in README_CHARTS))
    return drawn


def parser():
    """The command line of `python -m report`."""
    found = argparse.ArgumentParser(prog="python -m report", description=__doc__)
    add = found.add_argument
    add("--results", default="results", help="folder of saved runs")
    add("--readme", help="README to rewrite between its markers (summary, results); also writes "
                         "RESULTS.md beside it and summary.json into --results")
    add("--charts", help="folder for the PNG charts (none drawn without it)")
    add("--details", help="where to write every table (default: RESULTS.md beside --readme)")
    add("--summary", help="where to write the figures as JSON records (default: summary.json "
                          "in --results when --readme is given)")
    add("--page", help="where to write the results page, every figure filterable in a browser "
                       "(default: index.html in --results when --readme is given)")
    add("--machine", help="only runs whose machine description contains this")
    add("--run", action="append", default=[], metavar="RUN",
        help="show this saved run (name or number, e.g. 0009) for the sections it has, instead "
             "of the newest; repeatable")
    add("--profile", help="the profile to show (default: `default`, else the one with most "
                          "runs); profiles never meet in one ratio")
    add("--incomplete", action="store_true",
        help="include runs that did not finish (interrupted), marked as such")
    add("--skip-damaged", action="store_true",
        help="publish without the saved runs that cannot be read (each is named); without it, a "
             "damaged run stops the report and nothing is published")
    add("--compare", nargs=2, metavar=("RUN_A", "RUN_B"),
        help="print two saved runs (JSON files) side by side, then exit")
    add("--report", metavar="FILE", help="write the whole report (answer, runs and charts, every "
                                         "table) into this one Markdown file")
    add("--answer-for", action="append", default=[], metavar="RUN_FILE",
        help="end by printing the answer for the machine that saved this run, with the run shown "
             "(as --run); repeatable (what `run.py bench` shows when it ends)")
    return found


def main(argv=None):
    """Run the report (or --compare); 0 when made, 2 with one line on why not, 128 + the signal
    with one line on which files stand when stopped."""
    args = parser().parse_args(argv)
    if args.compare:
        return _compare(args.compare)
    kept = "README and charts not changed" if args.readme or args.charts else None
    published = []
    with stops.raised():
        try:
            return _report(args, published)
        except Mixed as error:
            problem, kept = str(error), None
        except OSError as error:  # e.g. a full disk while the charts are drawn
            problem = f"{error.filename or 'the report'}: {error.strerror or error}"
        except ValueError as error:
            problem = str(error)
        except stops.Stopped as error:
            signum = error.args[0]
            stands = ("the new README and charts stand, whole" if published
                      else kept or "no file written")
            warn(f"stopped by {signal.Signals(signum).name}; {stands}")
            return 128 + signum
    warn(f"{problem}; {kept}" if kept else problem)
    return 2


def _compare(paths):
    """`--compare`: print two runs side by side, then warn of what makes them unlike (a run that
    did not finish, two profiles, two machines); 2 and one line when they cannot be."""
    try:
        found = comparison(*paths)
    except ValueError as error:
        warn(str(error))
        return 2
    print(compare_text(found))
    for line in compare_warnings(found):
        warn(line)
    return 0


def _outputs(args):
    """[(option, path)] of the files the report writes (README, details, summary, page)."""
    base = Path(args.readme).parent if args.readme else Path(".")
    details = args.details or (base / "RESULTS.md" if args.readme else None)
    summary = args.summary or (Path(args.results) / SUMMARY if args.readme else None)
    page = args.page or (Path(args.results) / PAGE if args.readme else None)
    return [(o, p) for o, p in (("--readme", args.readme), ("--details", details),
                                ("--summary", summary), ("--report", args.report),
                                ("--page", page)) if p]


def _check(args):
    """The README's text (or None); ValueError when the report could not be written."""
    if args.charts and Path(args.charts).exists() and not Path(args.charts).is_dir():
        raise ValueError(f"--charts {args.charts}: not a folder")
    check_outputs(_outputs(args))
    text = readme_text(args.readme) if args.readme else None
    if text and not args.charts and (folders := chart_folders(text)):
        raise ValueError(f"{args.readme} has chart sections that --readme alone would drop: "
                         f"add --charts {folders[0]} to redraw them")
    return text


def _report(args, published=None):
    """Make the whole report first (charts in a temporary folder); then stage every file beside
    its target and move them all, or none."""
    text = _check(args)
    results = _results(args)
    if args.charts and importlib.util.find_spec("matplotlib") is None:
        raise ValueError("--charts needs matplotlib, which this Python lacks: run it in the "
                         "report env (`.tools/bin/tox -e report -- python -m report ...`) "
                         "or through `python3 run.py bench`")
    missing = sorted(set(BACKENDS) - {r.info["backend"] for r in results})
    if missing:
        warn(f"{args.results}: no results for backend(s) {', '.join(missing)}; drawing the rest")
    for path in args.answer_for:
        if not Path(path).is_file():
            raise ValueError(f"--answer-for {path}: no such saved run")
    args.run = [*args.run, *(Path(path).stem for path in args.answer_for)]
    base = Path(args.readme or args.report or "x").parent
    paths = dict(_outputs(args))
    details, summary = paths.get("--details"), paths.get("--summary")
    machines = per_machine(results, args.run, load_studies(args.results))
    lead = front(results, args.answer_for)  # the README's machine; RESULTS.md has every one
    shown = [found for found in machines if found[0] == lead]
    with tempfile.TemporaryDirectory() as tmp, named_among(m for m, _, _ in machines):
        drawn = _charts(shown, Path(tmp)) if args.charts else []
        final = Path(args.charts or ".")
        placed = [(m, t, final / p.name, r, readme) for m, t, p, r, readme in drawn]
        section = render([r for r in results if r.machine == lead], shown,
                         [c[:4] for c in placed if c[4] or not details], base, args.run, details,
                         paths.get("--page"))
        # the sweep's chart this report draws, from a folder (the README's where none is drawn)
        sweep = next((path for _, _, path, _, _ in placed if path.stem == "scale"), None)
        scale_from = lambda folder: os.path.relpath(sweep, folder) if sweep else SCALE_CHART
        scale = scale_from(base)
        answer = answer_text(for_views(machines), lead, gpu=front_gpu(results), scale=scale)
        short = answer_text(for_views(machines), lead, more=details and os.path.relpath(
            details, base) + "#the-answer-in-full", gpu=front_gpu(results), scale=scale)
        tables = details_text(results, machines, args.run,
                              [c[:4] for c in placed if not c[4]] if details else (),
                              Path(details).parent if details else ".", answer if text else None,
                              page=details and paths.get("--page") and os.path.relpath(
                                  paths["--page"], Path(details).parent))
        readme = text and splice(splice(splice(text, section), short, SUMMARY_START, SUMMARY_END),
                                 compared_table(), COMPARED_START, COMPARED_END)
        if readme and (problem := length_problem(args.readme, readme)):
            warn(problem)
        files = [(args.readme, readme),
                 (details, details and tables + "\n"),
                 (summary, summary and summary_json(machines)),
                 (paths.get("--page"), paths.get("--page") and results_page(
                     args, paths["--page"], results, machines, placed, in_short(
                         for_views(machines), lead, front_gpu(results)) + "\n\n" + answer,
                     base, lead)),
                 (args.report, args.report and standalone(args.profile or "default", answer,
                                                          section, tables, to_root(args.report)))]
        files = [(target, new) for target, new in files if target and new]
        _publish(files + [(final / path.name, path.read_bytes()) for _, _, path, _, _ in drawn],
                 final if drawn else None, [] if published is None else published)
    if args.answer_for:
        print(answer_for(for_views(machines), made_by(results, args.answer_for), scale_from(".")))
        print(f"report: the full report: {args.report or details}" if args.report or details
              else "report: nothing written (--report FILE writes the full report)")
    elif not (text or args.report):
        print("\n\n".join([answer, section, tables]))
    return 0


def to_root(path):
    """The path from the folder of the file at `path` up to the repository's ('' at its root)."""
    up = os.path.relpath(Path(__file__).resolve().parent.parent, Path(path).resolve().parent)
    return "" if up == "." else up + "/"


def results_page(args, path, results, machines, charts, answer, base, lead=None):
    """The results page's HTML: every record (summary.json's, then each other release's), the
    runs, the answer, each machine's tables and the charts, linked from the page's folder; the
    answer's machine (`lead`) first in its figure table."""
    folder = Path(path).parent
    prefix = os.path.relpath(base, folder) + "/"
    sets = [(PINS, [r for _, _, found in machines for r in found], run_table(results, base)),
            *release_sets(args.results, base, args.skip_damaged)]
    return page_html(page_data(
        sets, [(m, t, os.path.relpath(p, folder), r) for m, t, p, r, _ in charts], answer,
        views_render.every_table(for_views(machines), machine_notes(machines)),
        page_links(base), prefix, lead))


def _publish(files, charts, published):
    """Write every file or none (True appended to `published` once all are in place); a charts
    folder made for them goes again when they could not be."""
    made = charts is not None and not charts.exists()
    if made:
        charts.mkdir(parents=True)
    try:
        publish(files, published)
    except BaseException:
        if made and not published:
            shutil.rmtree(charts, ignore_errors=True)
        raise


if __name__ == "__main__":
    sys.exit(main())
