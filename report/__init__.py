"""The report: one data flow, each step in one place, each importing only the steps before it.

load (saved JSON → Result, paired ratios normalised) → select (profile, machine, run, newest
result) → ratios (the one ratio, verdict and break-even rule) → records (every figure, once per
machine: summary.json) → renderers (text, tables, answer, readings, micro, retrace, memory,
precision, determinism, pipeline, provenance, charts, cost_charts, render: they read records) →
write (files staged, then moved). __main__ runs it; terminal is what a main job prints when it
ends; compare, merge and user/user_md are side doors for two saved runs, several machines' results
and a user's own model. A fourth backend needs nothing here: catalog.py says
what exists.
"""
