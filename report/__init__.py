"""The report: build → views → publish, one folder each, each importing only the steps before it.

build/ reads saved runs and decides, once, what each number means (load → conform → select →
ratios, the one verdict rule → records, every figure once per machine, summary.json's → best);
views/ are functions of those records (the answer, tables, charts, the page, readings, the
terminal and a user's report); publish/ stages every output and moves them all or nothing.
__main__ runs it. compare, merge and user are side doors (two saved runs, several machines'
results, a user's own model). tests/test_report_layers.py holds the views' remaining imports
of the build to a list that may only shrink.
"""
