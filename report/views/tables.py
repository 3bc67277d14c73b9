"""The main tables (per model: steps, speedups, first calls, break-even), drawn from records."""
from collections import defaultdict

from report.views.text import (break_even_text, label, s, speedup_text, step_text, variant_order)

HEADER = ("| backend | variant | train step ms (IQR) | train speedup | infer step ms (IQR) "
          "| infer speedup | first call s, cold | first call s, warm | break-even steps, first run "
          "| break-even steps, later runs | run |")


def lookup(records):
    """{(backend, model, variant, kind, phase, case): record} of float32 records, for table
    cells."""
    return {(r["backend"], r["model"], r["variant"], r["kind"], r["phase"], r["case"]): r
            for r in records if r["precision"] == "float32"}


def chosen(records):
    """{(backend, model): the train speedup record of the row's variant}: the records the build's
    best.mark set `best` on."""
    return {(r["backend"], r["model"]): r for r in records if r.get("best")}


def summary_table(records):
    """One markdown table per model: every backend and variant against its own eager."""
    steady = [r for r in records if r["kind"] in ("step_time", "speedup", "first_call",
                                                  "break_even") and r["precision"] == "float32"]
    cells, rows = lookup(steady), defaultdict(set)
    for rec in steady:
        rows[rec["model"]].add((rec["backend"], rec["variant"]))
    lines = []
    for model in sorted(rows):
        lines += [f"**{model}**", "", HEADER, "|---" * 11 + "|"]
        for backend, variant in sorted(rows[model], key=lambda bv: (bv[0], variant_order(bv[1]))):
            get = lambda kind, phase, cache=None: cells.get((backend, model, variant, kind, phase,
                                                             cache))
            mine = [r for r in steady if (r["backend"], r["model"], r["variant"]) ==
                    (backend, model, variant)]
            flag = " ⚠" if any(r["known_wrong"] for r in mine) else ""
            eager = variant == "eager"
            first = [get("first_call", "construction", c) for c in ("cold", "warm")]
            lines.append("| " + " | ".join([
                backend, variant + flag, step_text(get("step_time", "train")),
                "1" if eager else speedup_text(get("speedup", "train")),
                step_text(get("step_time", "infer")),
                "1" if eager else speedup_text(get("speedup", "infer")),
                *(s(r and r["estimate"]) for r in first),
                *("—" if eager else break_even_text(get("break_even", "train", c))
                  for c in ("cold", "warm")),
                ", ".join(sorted({label(r) for r in mine}))]) + " |")
        lines.append("")
    return "\n".join(lines)


SIGNALS = {"cudagraph_skips": "graphs left out of CUDA graphs",  # what each backend's LOG_SIGNALS
           "recompile_limit_hits": "recompile-limit hits (the frame runs eagerly after)",  # count
           "retrace_warnings": "tf.function retracing warnings"}


def spread_line(spread):
    """How far its jobs' eager train steps spread (the build's runs.job_spread), or None."""
    if not spread:
        return None
    hardware = "a GPU and CPU whose names read" if spread["gpu"] else "a CPU whose name reads"
    return (f"Between this machine's {spread['jobs']} jobs, one eager train step took "
            f"{spread['median']:.2f}× as long in the slowest as in the fastest (the median of "
            f"{spread['rows']} rows; up to {spread['widest']:.2f}×, {spread['backend']} "
            f"{spread['model']}), on {hardware} the same: step times (their geometric "
            "mean) carry that spread; each speedup is paired within its job, then pooled."
            + _host_said(spread["host"]))


def _host_said(host):
    """What the host's reference loop (host.py, around each framework's suites) did between the
    same jobs; '' for jobs saved before run.py timed it."""
    if not host:
        return ""
    stolen = ("" if host["stolen"] is None else
              f"; the hypervisor took at most {host['stolen']:.1%} of the CPU time around any run")
    return (f" Between the same two jobs a fixed pure-Python loop, timed before and after each "
            f"framework's suites, took {host['median']:.2f}× as long (the median of "
            f"{host['rows']} rows){stolen}.")


def signals_line(records):
    """What the backends logged or counted while the steady steps ran (the build's `signals_*`
    facts: a graph left out of CUDA graphs, a recompile limit hit), per model, variant and phase
    at its first calls or in its group's timed rounds; '' where nothing was."""
    said = []
    steady = [r for r in records if r["kind"] == "speedup" and r["precision"] == "float32"]
    for r in sorted(steady, key=lambda r: (r["model"], r["backend"], variant_order(r["variant"]),
                                           r["phase"])):
        for where, at in (("first_call", "at its first calls"), ("timed", "in its group's timed "
                                                                 "rounds")):
            counts = r.get(f"signals_{where}") or {}
            said += [f"{r['backend']} {r['model']} `{r['variant']}` {r['phase']}: {n} "
                     f"{SIGNALS.get(name, name)} {at}" for name, n in counts.items()]
    return ("Counted while the steps ran (the backend's log and counters, summed over processes): "
            + "; ".join(said) + ".") if said else ""
