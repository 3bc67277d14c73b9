"""The memory suite's tables: train-step peak (× eager's, with its interval), first-call peak,
cache growth."""
from report.views.text import interval_cell, variant_order

MIB = 2 ** 20


def memory_peaks(records):
    """{(backend, model, variant): memory_peak record} (estimate None: a non-finite loss)."""
    return {(r["backend"], r["model"], r["variant"]): r for r in records
            if r["kind"] == "memory_peak"}


def _value(r, key):
    return r["estimate"] if key == "peak_memory_bytes" else r[key]


def _rows(found):
    """(model, backend, variant) keys: models by size, then backend, then variant order."""
    params = {m: r.get("params", 0) for (_, m, _), r in found.items()}
    return sorted(((m, b, v) for b, m, v in found), key=lambda k: (params[k[0]], k[0], k[1],
                                                                     variant_order(k[2])))


def _mib(n):
    return "—" if n is None else f"{n / MIB:.1f}"


def _ratio(eager, this, variant):
    """this ÷ eager: above 1 the variant needs more memory than eager."""
    if variant == "eager":
        return "1"
    if not eager or not this:
        return "—"
    return f"{this / eager:.2f}×"


def ratio_text(rec):
    """A memory_ratio record as its cell: with its interval, or marked as having none."""
    if rec is None or rec["estimate"] is None:
        return "—"
    if rec["interval"] is None:
        return f"{rec['estimate']:.2f}× (no interval)"
    return interval_cell(rec)


def memory_ratios(records):
    """{(backend, model, variant): memory_ratio record}."""
    return {(r["backend"], r["model"], r["variant"]): r for r in records
            if r["kind"] == "memory_ratio"}


def _cell(r, key):
    """Median MiB with the range over the repeated child processes, when there were several."""
    if r["estimate"] is None:
        return "non-finite ✗"
    rounds = r.get(f"{key}_rounds") or []
    spread = f" ({_mib(min(rounds))}–{_mib(max(rounds))})" if len(rounds) > 1 else ""
    return _mib(_value(r, key)) + spread


def _label(r, variant):
    return variant + (" ⚠" if r.get("known_wrong") else "")


def _figures(found, figure):
    """Per row: (result, its figure or None when its loss was not finite, eager's figure)."""
    for model, backend, variant in _rows(found):
        r, eager = found[(backend, model, variant)], found.get((backend, model, "eager"))
        value = figure(r) if r["estimate"] is not None else None
        yield model, backend, variant, r, value, figure(eager) if eager and eager["estimate"] is not None else None


def peak_table(found, ratios):
    """Table 1: peak train-step memory per case, with its peak over eager's of the same run."""
    lines = ["| model | backend | variant | peak MiB (range) | × eager's peak (95% interval) |",
             "|---|---|---|---|---|"]
    for model, backend, variant in _rows(found):
        r = found[(backend, model, variant)]
        ratio = "1" if variant == "eager" else ratio_text(ratios.get((backend, model, variant)))
        lines.append(f"| {model} | {backend} | {_label(r, variant)} | "
                     f"{_cell(r, 'peak_memory_bytes')} | {ratio} |")
    if any(r["interval"] is None and r["estimate"] is not None for r in ratios.values()):
        lines += ["", "(no interval): one child process per case, or a run saved before each "
                  "child's peak was kept; rerun with two or more (`profile.memory.repeats`)."]
    return "\n".join(lines)


def first_call_table(found):
    """Table 2: the first train step's peak (building and tracing/compiling) and what it leaves."""
    lines = ["| model | backend | variant | first-call peak MiB (range) | × eager's | "
             "held after first call MiB |", "|---|---|---|---|---|---|"]
    for model, backend, variant, r, peak, eager in _figures(
            found, lambda r: r["first_call_peak_bytes"]):
        held = _mib(r["held_after_first_bytes"]) if r["estimate"] is not None else "non-finite ✗"
        lines.append(f"| {model} | {backend} | {_label(r, variant)} | "
                     f"{_cell(r, 'first_call_peak_bytes')} | "
                     f"{_ratio(eager, peak, variant)} | {held} |")
    return "\n".join(lines)


def growth_per_shape(r):
    """MiB more held per extra batch size (a new shape) than after the steady steps, or None."""
    growth = r.get("cache_growth") or []
    if r["estimate"] is None or not growth or r.get("held_after_steady_bytes") is None:
        return None
    return (growth[-1]["held_bytes"] - r["held_after_steady_bytes"]) / len(growth) / MIB


def growth_table(found):
    """Table 3: memory held after each new batch size, with the traces so far."""
    batches = []
    for r in found.values():
        batches += [g["batch"] for g in r.get("cache_growth") or [] if g["batch"] not in batches]
    lines = ["| model | backend | variant | after the steps | "
             + " | ".join(f"batch {b}" for b in batches) + " | MiB per new shape |",
             "|---|---|---|---|" + "---|" * len(batches) + "---|"]
    for model, backend, variant in _rows(found):
        r = found[(backend, model, variant)]
        if r["estimate"] is None:
            cells = ["non-finite ✗"] * (len(batches) + 2)
        else:
            held = {g["batch"]: f"{_mib(g['held_bytes'])} ({g['traces']} tr)"
                    for g in r.get("cache_growth") or []}
            steady = r.get("held_after_steady_bytes")
            per_shape = growth_per_shape(r)
            cells = [f"{_mib(steady)} ({r['traces']} tr)",
                     *(held.get(b, "—") for b in batches),
                     "—" if per_shape is None else f"{per_shape:.2f}"]
        lines.append(f"| {model} | {backend} | {_label(r, variant)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def advice(found):
    """One line: the variant the build marked `smallest` per backend (a peak below eager's only
    past its interval), and the one to avoid when shapes vary, on the largest model measured."""
    valid = {k: r for k, r in found.items() if r["estimate"] is not None}
    if not valid:
        return ""
    largest = max(valid.values(), key=lambda r: r.get("params", 0))["model"]
    picks, growth = [], {}
    for backend in sorted({b for b, m, _ in valid if m == largest}):
        mine = {v: r for (b, m, v), r in valid.items() if b == backend and m == largest}
        best = next((v for v, r in mine.items() if r.get("smallest")), None)
        if best is None:
            continue
        eager = mine.get("eager")
        ratio = (f" ({_ratio(eager['estimate'], mine[best]['estimate'], best)}"
                 " eager's peak)" if eager and best != "eager" else "")
        picks.append(f"{backend} `{best}`{ratio}")
        growth.update({(backend, v): g for v, r in mine.items()
                       if (g := growth_per_shape(r)) is not None})
    line = (f"What to do: for the smallest training-step memory on {largest}, use "
            + ", ".join(picks) + ".")
    graphs = {k: g for k, g in growth.items() if k[1] != "eager"}
    if graphs:
        worst = max(graphs, key=graphs.get)
        control = growth.get((worst[0], "eager"))
        if control is None or graphs[worst] > control:
            same = {v: g for (b, v), g in graphs.items() if b == worst[0]}
            least = min(same, key=same.get)
            fix = (f"use `{least}` ({same[least]:.1f} MiB) or bucket input sizes"
                   if least != worst[1] else "bucket input sizes so that shapes repeat")
            line += (f" Where input shapes vary, {worst[0]} `{worst[1]}` keeps "
                     f"{graphs[worst]:.1f} MiB more per new shape"
                     + (f" (eager: {control:.1f})" if control is not None else "")
                     + f": {fix}.")
    return line


def memory_section(records):
    """The memory section: three tables and one line of advice ("" without records)."""
    found = memory_peaks(records)
    if not found:
        return ""
    steps = sorted({r.get("steps") for r in found.values()} - {None})
    devices = sorted({str(r.get("device")) for r in found.values()})
    sources = sorted({r.get("peak_source", "rss") for r in found.values()})
    gpu = "" if sources == ["rss"] else (" On a GPU the peak is the framework's peak-allocation "
                                         "counter (" + ", ".join(s for s in sources if s != "rss")
                                         + ").")
    intro = ("Each case ran in a child process of its own on "
             f"{', '.join(devices)}; MiB are above that process's baseline (its resident memory "
             "after the framework's imports and start-up). The peak is over "
             f"{' or '.join(map(str, steps))} train steps after the first, at the profile's batch."
             + gpu + " Child-process wall times are not shown: they are not step times.")
    return "\n".join([
        intro, "",
        "**Peak memory of a training step** (× eager's peak: this variant's peak ÷ eager's in "
        "the same run, so above 1 the variant needs more; its 95% interval is a bootstrap over "
        "the child processes, unpaired, with the job as the outer level where jobs of one code "
        "repeat it; `~` marks one that includes 1)", "",
        peak_table(found, memory_ratios(records)), "",
        "**First call** (build, trace/compile and run the first step): its peak, × eager's "
        "(this ÷ eager's first-call peak, no interval), and what it leaves held", "",
        first_call_table(found), "",
        "**Memory held as traced shapes grow**: one train step at each further batch size, in "
        "order; MiB held (traces/compiles so far). Eager is the control: what the allocator "
        "keeps without any graph cache.", "", growth_table(found), "",
        advice(found)])
