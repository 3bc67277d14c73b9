"""The report's own path for tests: results → each machine's chosen runs → its records."""
from report.records import machine_records
from report.select import views


def machines_of(results, wanted=()):
    """[(machine, view, records)] as `python -m report` builds them."""
    return [(machine, view, machine_records(view)) for machine, view in views(results, wanted)]


def records_of(results, wanted=()):
    """Every record of `results`, all machines."""
    return [rec for _, _, found in machines_of(results, wanted) for rec in found]
