"""The report's text: the README's runs and charts, and RESULTS.md with every table."""
import os

from machines import naming_its_machines
from report.views.determinism import determinism_text
from report.views.lengths import HOW as LENGTHS_HOW, lengths_table
from report.views.memory import memory_section
from report.views.micro import micro_section
from report.views.page import page_pointer
from report.views.pipeline import pipeline_section
from report.views.noise import noise_reading, noise_table
from report.views.precision import precision_section
from report.views.provenance import known_wrong_notes, runs_block
from report.views.retrace import advice, compile_per_shape, retrace_tables, seed_comparison
from report.views.scale import scale_reading, scale_table
from report.views.tables import signals_line, spread_line, summary_table
from report.views.text import from_runs


def per_machine(machines, body):
    """`body(machine, shown, records, heading)` per machine ([(machine, shown, records)]), under a
    heading of its own when there are several."""
    parts, several = [], len(machines) > 1
    for machine, shown, records in machines:
        text = body(machine, shown, records, "####" if several else "###")
        if several and text:
            parts += [f"### Machine `{machine}`", "", "Its own figures: no ratio here divides one "
                      "machine's time by another's.", ""]
        parts += text
    return parts


@naming_its_machines
def render(runs, machines, charts=(), relative_to=".", details=None, page=None):
    """The README's results block: runs (report.build.runs.provenance), a link to the tables (on
    the results `page` where there is one), and each machine's charts."""
    if not runs["runs"]:
        return "_No results yet: run the main job._"
    parts = runs_block(runs, brief=True)
    if details and page:
        link, to = os.path.relpath(details, relative_to), os.path.relpath(page, relative_to)
        parts += [f"Every figure, table and chart: [{to}]({to}); the runs: [{link}]({link}).", ""]
    elif details:
        link = os.path.relpath(details, relative_to)
        parts += [f"Every table (per machine and section, each naming its run), and the other "
                  f"charts: [{link}]({link}).", ""]
    return "\n".join(parts + per_machine(machines, chart_body(charts, relative_to)))


def chart_body(charts, relative_to):
    """A per_machine body: one machine's charts ([(machine, title, path, reading)]) with their
    readings, linked from `relative_to`."""
    def body(machine, _shown, records, h):
        out = []
        for m, title, path, reading in charts:
            if m == machine:
                link = os.path.relpath(path, relative_to)
                out += [f"{h} {title}", "", f"![{title}]({link})", "", reading, ""]
        return out
    return body


@naming_its_machines
def details_text(runs, machines, charts=(), relative_to=".", answer=None, page=None):
    """RESULTS.md: the answer in full, the runs (report.build.runs.provenance), the charts the
    README leaves out, then every table of every machine, each section from its own run; with the
    results `page` (its path from here), the answer, the runs and links into the page, which has
    the tables and charts."""
    if not runs["runs"]:
        return "_No results yet: run the main job._"
    parts = [f"# graphbench: {'the runs' if page else 'every table'}", "", "The answer in short, the main charts and how each "
             "figure is measured are in the [README](README.md).", ""]
    if answer:
        parts += ["## The answer in full", "", answer, ""]
    parts += ["## Runs", "", *runs_block(runs)]
    if page:
        return "\n".join(parts + page_pointer(page, [m for m, _, _ in machines]))
    if charts:
        parts += ["## More charts", "", *per_machine(
            [m for m in machines if any(c[0] == m[0] for c in charts)],
            chart_body(charts, relative_to)), "## Tables", ""]
    return "\n".join(parts + [every_table(machines, runs["tables"])] if machines else parts)


def every_table(machines, notes):
    """Every table of every machine (`notes`: each one's report.build.runs.table_notes), under a
    heading per machine where there are several."""
    return "\n".join(per_machine(machines, lambda m, shown, records, h: tables(
        shown, records, h, notes[m], [(o, recs) for o, _, recs in machines if o != m])))


def tables(shown, records, h, notes, others=()):
    """One machine's tables from its records, each section naming its runs (`shown`:
    report.build.runs.shown) and what the build noted beside them (runs.table_notes)."""
    runs = lambda name: from_runs(shown["runs"][name], shown["pooled"][name])
    parts = [f"{h} All figures", "", runs("steady"), "", summary_table(records),
             *([line, ""] if (line := spread_line(shown.get("job_spread"))) else []),
             *([line, ""] if (line := signals_line(records)) else [])]
    if text := retrace_tables(records, notes["retrace_rules"]):
        parts += [f"{h} Retracing (source article 000)", "", runs("retrace"), "",
                  "Total time of one cold run of the whole sequence, with traces/compiles "
                  "(tr) at its end: one sample per cell and job (one process; the profiles' "
                  "time budgets allow no repeats; where jobs of one code repeat it, their "
                  "geometric mean), so no interval — read only large differences.", "", text,
                  seed_comparison(records), "", compile_per_shape(records), "",
                  "What to do, from these runs:", "", advice(records), ""]
    if text := lengths_table(records):
        parts += [f"{h} Token lengths that vary (the decoder: compile, pad or bucket?)", "",
                  runs("lengths"), "", LENGTHS_HOW, "", text, ""]
    if text := noise_table(records):
        parts += [f"{h} Where the noise is (the A/A pairs)", "", noise_reading(records), "", text, ""]
    if text := scale_table(records):
        parts += [f"{h} Where graph mode stops paying (the VGG sweep)", "",
                  runs("scale"), "", scale_reading(records), "", text, ""]
    if text := micro_section(records, others):
        parts += [f"{h} Micro workloads (source article 001, the tf.function / AutoGraph guide)", "",
                  runs("micro"), "",
                  "Steady medians; `~` marks a ratio whose 95% interval includes 1 (results "
                  "saved before pairing: overlapping interquartile spreads).", "",
                  text]
    if text := memory_section(records):
        parts += [f"{h} Memory: peak per train step and what cached graphs hold", "",
                  runs("memory"), "", text, ""]
    for title, section, name in (
            ("Mixed precision (source article 002)", precision_section,
             shown["precision_from"]),
            ("Deterministic ops (source article 002)", determinism_text, "determinism"),
            ("Input pipeline (source article 003)", pipeline_section, "pipeline")):
        if text := section(records):
            parts += [f"{h} {title}", "", runs(name), "", text, ""]
    if wrong := known_wrong_notes(notes):
        parts += ["Known-wrong results (their parity tests xfail strictly):", "", wrong]
    return parts
