"""The answer first: per machine and backend, what graph mode gains, when it pays, what it costs."""
import re
from collections import defaultdict
from fractions import Fraction

from catalog import KNOWN_WRONG
from machines import gpu_model, naming_its_machines, short_name
from report.views.advice import advice, finding, get, no_cache_backends, steps_text
from report.build.best import RULE
from report.views.gpu import gpu_table
from report.views.headline import answer_lines, machines_line, your_case
from report.views.lengths import lengths_line
from report.build.ratios import NO_GAIN, NOISE, SAME, decided
from report.views.scale import answer_line, compute_line, gflop, point
from report.views.seeds import seed_004_text
from report.views.tables import chosen as best, spread_line
from report.views.text import (break_even_text, count, duration, label, precision_text, span,
                               speedup_text)

LEGEND = "\0machines"  # the README's legend, filled last: the machines its answer names

HEADER = ("| backend | model | best graph variant (train) | train step ms, eager → graph "
          "| train speedup | infer speedup | break-even steps, first run | break-even steps, later "
          "runs | first call s, cold → warm | run |")

SCALE_CHART = "docs/charts/scale.png"  # the README's, from the repository's root

NO_TABLE = ("no train-step table: no answer job has run here (`python3 run.py bench` times "
            "it); below, what the runs shown measured.")


@naming_its_machines
def answer_text(machines, front=None, more=None, gpu=None, job=False, scale=SCALE_CHART):
    """The README's summary block: its scope, then per machine ([(machine, view, records)]) one
    table with its workloads and one line per backend; with `front` (a machine), that machine's
    only, the others named with a link to their tables; with `more` (a link to the full answer),
    a short how-to-read, each backend's advice alone and of the GPUs only `gpu`'s table (the
    build's select.front_gpu), the others named; `scale`: the link to the sweep's chart."""
    if not machines:
        return "_No results yet: run the main job._"
    others = others_of(machines, front)
    elsewhere_gpus = gpus_elsewhere(machines, front, gpu) if more else []
    goal = next((f"±{r['target_half_width']:.0%} " for _, _, records in machines for r in records
                 if r.get("target_half_width")), "")
    parts = [scope(machines, job, scale=scale), ""]
    if more:
        parts = [*short_lines(machines, front, elsewhere_gpus), "", LEGEND, "",
                 scope(machines, where=" (RESULTS.md names each)", scale=scale), "",
                 "Paired 95% intervals (pooled over the runs under the table; step times, "
                 "first calls: the geometric mean of their medians); ±: the "
                 f"half-width, ✓ within the {goal}target; rank frameworks by step time, not by "
                 "speedup. Best graph "
                 "variant: `graph` unless another is faster past ±3%. "
                 f"[In full]({more}): start-up, shapes that vary, the sweep, memory, advice. "
                 "Terms: [glossary](#glossary).", ""]
    else:
        parts += ["Each framework against its own eager mode (a large speedup can mean a slow "
                  "eager mode, so these rows do not rank frameworks: compare the step times). "
                  "Speedups with a 95% interval are paired; `~` marks an interval that includes "
                  f"1; ± is its half-width, with ✓ where it reached the job's {goal}target "
                  "(else what stopped it; the job aims only where eager's step takes 5 ms or "
                  "more). Where several jobs ran the same timing code on the machine (the run "
                  "cell names them), the interval pools them, the job the outer level of the "
                  "bootstrap, so it covers what another job would find. Break-even counts train "
                  "steps until the graph variant's first call is paid "
                  "back: on a first run (cold compile caches) and on every later run on the same "
                  f"machine (warm caches). Best graph variant: {RULE}. The cold first call is timed "
                  "in a fresh process after "
                  "its start-up (interpreter, framework import), which each backend's line gives; "
                  "PyTorch's precompiled header, made once per install, is not in it "
                  "([METHOD](docs/METHOD.md#what-is-measured)). "
                  "Generated from `results/summary.json`'s records; every table is in "
                  "RESULTS.md; terms (A/A, paired, profile, tr, n.s.): the README's glossary.", ""]
    listed = [m for m, view, _ in machines if m in others and not view.get("timed_as_a_loop")
              and not more]  # the README's machine line names them
    if listed:  # a GPU timed as a training loop has its own table below
        parts += ["Also measured, each machine with its own tables in RESULTS.md (never a ratio "
                  "across machines): " + ", ".join(f"`{m}`" for m in listed) + ".", ""]
    # a GPU's, say: of those the answer shows, `gpu`'s first (article 004's figure is its table's)
    elsewhere = [r for m, _, found in sorted(machines, key=lambda shown: shown[0] != gpu)
                 if m in others and m not in elsewhere_gpus for r in found]
    for machine, view, records in machines:
        if machine in others:
            continue
        name = f"the {short_name(machine)}" if more else f"`{machine}`"
        header = HEADER.removesuffix(" run |") if more else HEADER
        if table_rows := rows(records, brief=bool(more)):
            parts += [f"**On {name}** ({hardware(records)})", "", header,
                      "|---" * header.count(" |") + "|", *table_rows, "",
                      *([line, ""] if (line := spread_line(view.get("job_spread"))) else []),
                      workloads(records) + no_cache(records), ""]
        else:
            parts += [f"**On {name}**: {NO_TABLE}", ""]
        parts += [] if more else [*backend_lines(records), ""]
        if seed := seed_004_text(records, elsewhere, brief=bool(more)):
            parts += [seed, ""]
        for other, shown, found in machines:
            parts += (gpu_table(other, shown, found, machine, records, brief=bool(more))
                      if other in others and other not in elsewhere_gpus else [])
    text = "\n".join(parts)
    if more:  # the README's block holds the legend; the machines it names are known only now
        text = text.replace(LEGEND, legend(machines, lead_of(machines, front)[0], text))
    return text


def others_of(machines, front):
    """The machines besides `front` (none without one: every machine has its own table)."""
    return [m for m, _, _ in machines if front is not None and m != front]


def lead_of(machines, front):
    """The machine the answer leads with, and its records: `front`, else the first listed."""
    return next(((m, found) for m, _, found in machines if m == front), machines[0][::2])


def gpus_elsewhere(machines, front, gpu):
    """The GPUs timed as a training loop that the README names only: all but `gpu`, its table's."""
    return [m for m, view, _ in machines if gpu and front is not None
            and m not in (front, gpu) and view.get("timed_as_a_loop")]


def legend(machines, lead, text):
    """The machines line for `text`: the lead and each machine whose short name it uses (outside
    a longer one: "Zen 4" in "H200 on Zen 4" names the H200's host, not the Zen 4)."""
    names = {m: short_name(m) for m, _, _ in machines}

    def uses(name):
        rest = text
        for longer in (n for n in names.values() if name in n and n != name):
            rest = rest.replace(longer, "")
        return re.search(rf"\b{re.escape(name)}\b", rest)
    return machines_line([m for m in names if m == lead or uses(names[m])], lead)


def short_lines(machines, front, elsewhere_gpus=()):
    """The README's first lines: per framework what graph mode gives on `front` and the GPUs
    (those in `elsewhere_gpus` named only where they disagree), then what to do in your case."""
    lead = lead_of(machines, front)
    others = others_of(machines, front)
    gpus = [(m, found) for m, view, found in machines if m in others
            and view.get("timed_as_a_loop") and m not in elsewhere_gpus]
    cpus = [(m, found) for m, _, found in machines if m in others and not gpu_model(m)]
    beside = [(m, found) for m, _, found in machines if m in elsewhere_gpus]
    return [*answer_lines(lead[0], lead[1], gpus, cpus, beside), "",
            *your_case(lead[1], gpus, KNOWN_WRONG, cpus)]


@naming_its_machines
def in_short(machines, front, gpu=None):
    """The README's first lines and the legend of the machines they name: what the results page
    opens on, before the answer in full."""
    if not machines:
        return ""
    text = "\n".join(short_lines(machines, front, gpus_elsewhere(machines, front, gpu)))
    return text + "\n\n" + legend(machines, lead_of(machines, front)[0], text)


def scope(machines, job=False, where="", scale=SCALE_CHART):
    """The answer's first sentence: what hardware and what size of network it speaks for; `job`:
    one job's own answer, which says nothing of the machines other jobs measured; `where`: where
    the machines it counts are named; `scale`: the link to the sweep's chart, that of the report
    being written (a quick job's charts-quick/scale.png), else the README's."""
    devices = sorted({r["device"] for _, _, records in machines for r in records
                      if r["kind"] == "step_time" and r.get("device")})
    gpu = any(d != "cpu" for d in devices)
    swept = [r for _, _, records in machines for r in records
             if r["kind"] == "scale_speedup" and r.get("flops")]
    where = f"{len(machines)} machine{'s' * (len(machines) > 1)}{where}, " + (
        "CPU and GPU." if gpu else "a CPU." if job else "CPU only; no GPU has been measured yet.")
    return (("**Scope**: this job's runs, on " if job else "**Scope**: measured on ") + where
            + " The networks are small (workloads under each table), so per-op overhead, which "
            "graph mode removes, dominates: read each speedup as its workload's, not the "
            "full-size network's."
            + (f" As the work per step grows, up to the VGG at {point(max(swept, key=gflop))}: "
               f"[chart]({scale})." if swept else ""))


def hardware(records):
    """The machine's setting in a few words: device, threads, vector ISA, precision."""
    steps = [r for r in records if r["kind"] == "step_time" and r.get("threads")]
    if not steps:
        return "setting not recorded"
    found = lambda key: "/".join(sorted({str(r[key]) for r in steps if r.get(key)})) or "?"
    device = found("device")
    return (f"{'a CPU' if device == 'cpu' else device}, {found('threads')} threads, "
            f"vector ISA {found('vector_isa')}, float32")


def workloads(records):
    """One line naming each model as this run measured it: layout, width, input, batch, size."""
    seen = {}
    for r in records:
        if r["kind"] == "step_time" and r["phase"] == "train" and r.get("batch"):
            seen.setdefault(r["model"], r)
    return "Workloads: " + "; ".join(f"**{m}** = {workload(r)}" for m, r in sorted(seen.items())) + "."


def no_cache(records):
    """A note naming the backends with no warm first call: nothing on disk to warm, so every run
    on the machine is a first run."""
    if not (uncached := no_cache_backends(records)):
        return ""
    return (f" {', '.join(sorted(uncached))}: no warm first call, since the framework keeps no "
            "compiled graph on disk between processes; every run is a first run.")


def break_even_cell(rec, uncached=False, brief=False):
    """A break-even cell with the wall time of its graph steps; a later run of a backend that
    caches nothing is its first run again (`brief`: shorter words)."""
    if rec is None and uncached:
        return "same" if brief else "same as first run"
    if brief and rec and rec.get("first_call_cheaper"):
        return f"{rec['estimate']:,} (cheaper first call)"
    took = rec and not rec.get("first_call_cheaper") and rec.get("seconds")
    return break_even_text(rec) + (f" ≈ {duration(rec['seconds'])}" if took else "")


def workload(rec):
    """A model as measured: 'pre-activation ResNet-50 at 1/4 width, 64² px input, batch 8, ...'."""
    config = rec.get("model_config") or {}
    if rec["model"] == "decoder":
        return (f"GPT-style decoder, d_model {config.get('width')}, {config.get('heads')} heads, "
                f"{config.get('depth')} blocks, {rec['input_shape'][-1]} tokens, batch "
                f"{rec['batch']}, {rec['params'] / 1e6:.2f} M parameters, "
                f"{rec['flops'] / 1e9:.2f} GFLOP per train step")
    name = {"mnist_cnn": "MNIST CNN", "vgg": "VGG-16 layout",
            "resnet": f"pre-activation ResNet-{config.get('depth', 50)}"}.get(rec["model"],
                                                                              rec["model"])
    width = config.get("width", 1)
    size = (f"{name}{'' if width == 1 else f' at {Fraction(width).limit_denominator()} width'}, "
            f"{rec['input_shape'][-1]}² px input ({rec['input_shape'][1]} channel"
            f"{'s' * (rec['input_shape'][1] > 1)}), batch {rec['batch']}")
    return (f"{size}, {rec['params'] / 1e6:.2f} M parameters, "
            f"{rec['flops'] / 1e9:.2f} GFLOP per train step")


def why_not(rec):
    """Why a row has no figure: the note, and the finding that explains a known wrong answer."""
    link = finding(rec.get("known_wrong"))
    wrong = "a known wrong answer" + (f", [{link}]({link})" if link else "")
    return (f"{rec['note']}: {wrong}" if rec["note"] else wrong) if rec.get("known_wrong") \
        else rec["note"]


def ratio_cell(rec, brief=False):
    """A speedup with its interval and, where its job aimed at a precision, its ± and whether it
    got there."""
    precision = precision_text(rec, brief)
    return speedup_text(rec) + (f" {precision}" if precision else "")


def run_cell(rec, records, brief=False):
    """The runs a row's figures come from: its ratio's (each pooled job's) and, where its first
    calls are a run of their own, that run (`brief`: run numbers only)."""
    even = get(records, rec, "break_even", case="cold")
    return label(rec, brief, [even["first_calls_run"]] if even and even.get("first_calls_run")
                 else [])


def rows(records, brief=False):
    """One row per (backend, model), sorted: the best graph variant's figures, all from one job,
    or the reason there is no figure (`brief`: shorter cells, the runs left to runs_line)."""
    found = row_cells(records, brief)
    return [text + ("" if brief else f" {run} |") for _, text, run in found] + (
        ["", runs_line(found)] if brief and found else [])


def runs_line(found):
    """'Runs: chainer `0168+0156` (resnet `0168`); …' of row_cells' rows: each backend's most
    common run cell once, a model whose cell differs by name."""
    cells = defaultdict(lambda: defaultdict(list))
    for (backend, model), _, run in found:
        cells[backend][run].append(model)
    parts = []
    for backend, by_run in sorted(cells.items()):
        main = max(by_run, key=lambda run: len(by_run[run]))
        rest = [f"{', '.join(models)} {run}" for run, models in by_run.items() if run != main]
        parts.append(f"{backend} {main}" + (f" ({', '.join(rest)})" if rest else ""))
    return "Runs: " + "; ".join(parts) + "."


def row_cells(records, brief=False):
    """[((backend, model), the row up to its run cell, its run cell)], sorted."""
    out, top, uncached = {}, best(records), no_cache_backends(records)
    for r in records:
        key = (r["backend"], r["model"])
        if r["kind"] in ("speedup", "step_time") and r["phase"] == "train" and r["variant"] != "eager" \
                and (r["estimate"] is None or r.get("known_wrong")) and key not in top \
                and key not in out:
            out[key] = (f"| {key[0]} | {key[1]} | — (`{r['variant']}`: {why_not(r)}) |"
                        + " — |" * 6, run_cell(r, records, brief))
    for (backend, model), rec in top.items():
        steps = [get(records, rec, "step_time", "train", v) for v in ("eager", None)]
        first = [get(records, rec, "first_call", case=c) for c in ("cold", "warm")]
        ms = " → ".join("—" if s is None or s["estimate"] is None else f"{s['estimate'] * 1e3:.1f}"
                        for s in steps)
        why = f" ({rec['best_note']})" if rec.get("best_note") else ""
        out[backend, model] = (
            f"| {backend} | {model} | `{rec['variant']}`{why} | {ms} | {ratio_cell(rec, brief)} | "
            f"{ratio_cell(get(records, rec, 'speedup', 'infer'), brief)} | "
            + " | ".join(break_even_cell(get(records, rec, "break_even", case=c),
                                         c == "warm" and backend in uncached, brief)
                         for c in ("cold", "warm")) + " | "
            + (f"{first[0]['estimate']:.2f} (no cache)" if backend in uncached and first[0]
               else " → ".join("—" if f is None else f"{f['estimate']:.2f}" for f in first))
            + " |", run_cell(rec, records, brief))
    return [(key, *out[key]) for key in sorted(out)]


def shapes_text(records, backend):
    """With input sizes changing every batch, on the network of the backend's headline run (the
    build's `headline`) with the most finished graph runs: their times and trace counts, and which
    variant to use (a run cut short by the budget is named, never quoted)."""
    found = defaultdict(dict)
    for r in records:  # an older run's figure is for its table, never for the headline
        if r["kind"] == "retrace_total" and r["backend"] == backend and r["headline"] \
                and r["case"] == "train-varying":
            found[r["model"]][r["variant"]] = r
    complete = lambda n: [r for v, r in found[n].items() if v != "eager" and not r["note"]]
    nets = [n for n in found if "eager" in found[n] and not found[n]["eager"]["note"]]
    if not nets:
        return None
    net = max(nets, key=lambda n: (len(complete(n)), found[n]["eager"].get("depth", 0), n))
    done = sorted(complete(net), key=lambda r: r["estimate"])
    cut = sorted(v for v, r in found[net].items() if r["note"])
    eager = found[net]["eager"]
    times = [f"eager took {eager['estimate']:.3g} s"] + [
        f"`{r['variant']}` {r['estimate']:.3g} s ({r['traces']} trace{'s' * (r['traces'] != 1)})"
        for r in done]
    text = (f"with input sizes changing every batch ({net}, {eager.get('distinct_shapes')} sizes "
            f"over {eager.get('steps_done')} steps), " + ", ".join(times)
            + (f"; {', '.join(f'`{v}`' for v in cut)} did not finish within the budget"
               if cut else ""))
    if done and done[0]["beats_eager"]:
        return text + f": use `{done[0]['variant']}` when sizes vary;"
    return text + ": no graph variant beat eager here, so bucket inputs to a few sizes (or stay " \
                  "eager) when they vary;"


def memory_cost(records, backend, variants):
    """The memory_ratio record (variant peak ÷ eager peak) of a named variant on the model with
    the largest eager peak, from the backend's headline memory run (the build's `headline`: its
    newest that measured memory), or None."""
    mine = [r for r in records if r["kind"] in ("memory_peak", "memory_ratio")
            and r["backend"] == backend and r["headline"]]
    eager = {r["model"]: r["estimate"] for r in mine if r["kind"] == "memory_peak"
             and r["variant"] == "eager"}
    found = [r for r in mine if r["kind"] == "memory_ratio"
             and r["variant"] in variants.get(r["model"], ()) and r["model"] in eager]
    return max(found, key=lambda r: eager[r["model"]], default=None)


def memory_cost_text(rec):
    """What the variant's peak train-step memory costs against eager's, as the summary says it."""
    what = f"`{rec['variant']}`"
    if rec["interval"] is None:
        return (f"{what} needs {rec['estimate']:.2f}× eager's peak train-step memory on "
                f"{rec['model']} (no interval: rerun with two or more child processes);")
    if not decided(rec):
        how = "within 3% of" if rec["verdict"] == SAME else f"{rec['verdict']} against"
        return (f"{what}: {how} eager's peak train-step memory on "
                f"{rec['model']} ({rec['estimate']:.2f}×, {span(rec['low'], rec['high'])});")
    return (f"{what} needs {rec['estimate']:.2f}× ({span(rec['low'], rec['high'])}) eager's "
            f"peak train-step memory on {rec['model']};")


def startup_text(records, backend):
    """A fresh process's start-up before its cold first call (the eager cold rounds' medians,
    over the models), or None where no run measured it."""
    found = sorted(r["estimate"] for r in records
                   if r["kind"] == "startup_time" and r["backend"] == backend)
    if not found:
        return None
    return (f"a fresh process takes {span(found[0], found[-1], '.1f')} s to start (import, set-up) "
            "before its cold first call;")


def backend_lines(records):
    """Per backend: process start-up, what varying sizes cost, memory cost and the advice."""
    lines, top = [], best(records)
    # a machine with no table rows (a seeds job alone): what its runs measured, with no advice
    for backend in sorted({b for b, _ in top} or {r["backend"] for r in records}):
        mine = {m: r for (b, m), r in top.items() if b == backend}
        lengths = lengths_line(records, backend)
        text = [f"- **{backend}**:"]
        if startup := startup_text(records, backend):
            text.append(startup)
        if shapes := shapes_text(records, backend):
            text.append(shapes)
        if curve := answer_line(records, backend):
            text.append(curve)
        if compute := compute_line(records, backend):
            text.append(compute)
        if cost := memory_cost(records, backend, {m: [r["variant"]] for m, r in mine.items()}):
            text.append(memory_cost_text(cost))
        if lengths:
            text.append(f"with {lengths};")
        if mine:
            text.append(advice(records, mine, with_sweep=not curve))
        if len(text) > 1:
            lines.append(" ".join(text).removesuffix(";"))
    return lines


def step_time_reading(records):
    """Per model: the slowest and fastest eager train step across backends, and each backend's
    step with its best graph variant (absolute times: speedups alone do not rank frameworks)."""
    top, parts = best(records), []
    for model in sorted({m for _, m in top}):
        steps = {}
        for (backend, m), rec in sorted(top.items()):
            eager, graph = (get(records, rec, "step_time", "train", v) for v in ("eager", None))
            if m == model and eager and graph and None not in (eager["estimate"], graph["estimate"]):
                steps[backend] = (eager["estimate"] * 1e3, graph["estimate"] * 1e3, rec["variant"])
        if len(steps) > 1:
            slow, fast = max(steps, key=lambda b: steps[b][0]), min(steps, key=lambda b: steps[b][0])
            parts.append(f"**{model}** with graph mode " + ", ".join(
                f"{b} {g:.1f}" + ("" if v == "graph" else f" (`{v}`)")
                for b, (_, g, v) in sorted(steps.items(), key=lambda item: item[1][1]))
                + f" ms; eager {steps[fast][0]:.1f} ({fast}) to {steps[slow][0]:.1f} ms ({slow})")
    if not parts:
        return "Fewer than two backends with both step times on any model."
    return ("Train step, fastest first (absolute times rank frameworks; speedups do not): "
            + "; ".join(parts) + ".")


def break_even_reading(records):
    """The quickest and slowest break-even of one machine's steady runs, and those that never
    pay or gain nothing beyond the interval (from the same records as the tables)."""
    rows = {(r["backend"], r["model"], r["variant"]) for r in best(records).values()}
    left_out = sorted({f"{r['backend']}/{r['variant']} on {r['model']}" for r in records
                       if r["kind"] == "break_even" and (r["note"] or "").endswith("in this run")
                       and (r["backend"], r["model"], r["variant"]) in rows})
    records = [r for r in records
               if r["kind"] == "break_even" and not (r["note"] or "").endswith("in this run")]
    if not records:
        return "No construction and steady results of one run to combine."
    name = lambda r: f"{r['backend']}/{r['variant']} on {r['model']}"
    paid = sorted((r for r in records if r["estimate"] is not None), key=lambda r: r["estimate"])
    text = ""
    if paid:
        text += (f"The quickest to pay off is {name(paid[0])} after {steps_text(paid[0])}; "
                 f"the slowest measured {name(paid[-1])} after {steps_text(paid[-1])}"
                 + (f" (not measured: {', '.join(left_out)}, whose first calls the profile left "
                    "out)" if left_out else "") + ". ")
    for what, one, many in (("never", "never pays off", "never pay off"),
                            (NO_GAIN, "gains too little to pay back (its speedup is not "
                             f"past ±{NOISE:.0%})", f"gain too little to pay back (not past "
                             f"±{NOISE:.0%})")):
        # once per variant: its first-run and later-run break-evens can both say so
        found = list(dict.fromkeys(name(r) for r in records
                                   if r["estimate"] is None and r["note"].startswith(what)))
        if found:
            text += f"{count(len(found), one, many)}: {', '.join(found)}. "
    return text.strip()
