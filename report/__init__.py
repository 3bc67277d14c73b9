"""The report: build → views → publish, one folder each, each importing only the steps before it.

build/ reads saved runs and decides, once, what each number means (load → conform → select →
ratios, the one verdict rule → records, every figure once per machine, summary.json's → best);
views/ are functions of those records (the answer, tables, charts, the page, readings, the
terminal and a user's report); publish/ stages every output and moves them all or nothing.
__main__ runs it. compare, merge and user are side doors (two saved runs, several machines'
results, a user's own model). tests/test_report_folders.py checks that no view imports the
build beyond the verdicts' words, and that neither build nor publish imports a view.
"""
import sys


def warn(message):
    """One line on stderr, as every layer of the report warns."""
    print(f"report: {message}", file=sys.stderr)
