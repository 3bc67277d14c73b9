"""The report's own path for tests: results → each machine's chosen runs → its records; what the
results page embeds."""
from pathlib import Path

from report.build.machine_records import machine_records
from report.build.runs import for_views
from report.build.select import views
from report.views.page import unpacked


def machines_of(results, wanted=()):
    """[(machine, view, records)] as `python -m report` builds them."""
    return [(machine, view, machine_records(view)) for machine, view in views(results, wanted)]


def views_of(results, wanted=()):
    """[(machine, shown, records)]: what `python -m report` hands its views."""
    return for_views(machines_of(results, wanted))


def records_of(results, wanted=()):
    """Every record of `results`, all machines."""
    return [rec for _, _, found in machines_of(results, wanted) for rec in found]


def page_data(path):
    """The data the results page at `path` embeds, as its script reads it."""
    return unpacked(Path(path).read_text())


def tables_of(results):
    """The Markdown of every machine's tables, as the results page beside `results` shows it."""
    return page_data(Path(results) / "index.html")["tables"]
