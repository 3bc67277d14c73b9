"""The answer's GPU table: per GPU machine timed as a training loop runs (--wait block), each row's
speedups with their intervals and runs, the same row on the answer's CPU, and what the GPU job
has not measured yet (report.build.plan_gaps, gpu/plan.py)."""
from catalog import VARIANTS
from machines import gpu_model, short_name
from gpu.plan import ANSWER_MODELS as MODELS, NOT_ON_THE_GPU_MACHINE
from gpu.cudagraph_capture import SKIPPING
from report.views.advice import finding, no_cache_backends
from report.views.lengths import STRATEGIES, lengths_line
from report.views.scale import gflop, point
from report.views.tables import signals_line
from report.views.text import ms, speedup_text

COLUMNS = ("model", "backend", "variant", "train ms, eager → graph", "train speedup",
           "infer speedup", "A/A, train", "break-even steps, first run / later",
           "first call s, cold → warm", "the CPU's train speedup", "run")
BRIEF = ("A/A, train",)  # the README's table leaves these to RESULTS.md's


def _find(records, kind, backend, model, variant, phase="train", case=None):
    return next((r for r in records if r["kind"] == kind and r["backend"] == backend
                 and r["model"] == model and r["variant"] == variant and r["phase"] == phase
                 and r["precision"] == "float32" and r.get("case") == case), None)


def _paid_back(rec):
    """A break-even cell's part: steps, 'never (slower)', '— (no gain …)', or '—' where a first
    call or step is missing (the line under the table names what is not measured)."""
    if rec is None or not rec.get("timed"):
        return "—"
    if rec["estimate"] is None:
        return rec["note"] if rec["note"].startswith("never") else f"— ({rec['note']})"
    return f"{rec['estimate']:,}"


def _first_calls(records, backend, model, variant):
    """The break-even and first-call cells of one row (a backend with no warm first call keeps
    nothing on disk: every run is its first)."""
    even = [_find(records, "break_even", backend, model, variant, case=c) for c in ("cold", "warm")]
    first = [_find(records, "first_call", backend, model, variant, "construction", c)
             for c in ("cold", "warm")]
    if not any(first):
        return "—", "—"
    if first[0] and backend in no_cache_backends(records):
        return f"{_paid_back(even[0])} / same", f"{first[0]['estimate']:.2f} (no cache)"
    return " / ".join(map(_paid_back, even)), " → ".join(
        f"{f['estimate']:.2f}" if f else "—" for f in first)


def _row(records, cpu, speedup, columns, brief=False):
    """One row's cells (`brief`: the CPU's speedup without the interval its own table gives)."""
    backend, model, variant = speedup["backend"], speedup["model"], speedup["variant"]
    eager = _find(records, "step_time", backend, model, "eager")
    graph = _find(records, "step_time", backend, model, variant)
    on_cpu = _find(cpu, "speedup", backend, model, variant)
    evens = (_find(records, "break_even", backend, model, variant, case=c) for c in ("cold", "warm"))
    first_calls = next((e["first_calls_run"] for e in evens if e and e.get("first_calls_run")), None)
    runs = [speedup["run"], *([first_calls] if first_calls else [])]
    paid, first = _first_calls(records, backend, model, variant)
    cells = {"model": model, "backend": backend, "variant": f"`{variant}`",
             "train ms, eager → graph": f"{ms(eager['estimate'])} → {ms(graph['estimate'])}"
             if eager and graph and graph["estimate"] else "—",
             "train speedup": speedup_text(speedup),
             "infer speedup": speedup_text(_find(records, "speedup", backend, model, variant,
                                                 "infer")),
             "A/A, train": f"[{speedup['aa_floor_low']:.3f}, {speedup['aa_floor_high']:.3f}]"
             if speedup.get("aa_floor_low") is not None else "—",
             "break-even steps, first run / later": paid, "first call s, cold → warm": first,
             "the CPU's train speedup": "GPU only" if not on_cpu else
             "— (a known wrong answer there)" if on_cpu.get("known_wrong") else (
                 f"{on_cpu['estimate']:.2f}×" if brief and on_cpu["estimate"] is not None
                 else speedup_text(on_cpu)),
             "run": ", ".join(f"`{run.split('_')[0]}`" for run in runs)}
    return "| " + " | ".join(cells[c] for c in columns) + " |"


def kept_line(records):
    """Which backends' cold first calls read a cache the suite does not empty (the build reads
    them as warm: report.build.load.KEPT_CACHES), with the round that compiled, or ''."""
    kept = {}
    for r in records:
        if r["kind"] == "first_call" and r.get("kept_cache") and r["estimate"]:
            kept.setdefault((r["backend"], r["kept_cache"]), []).append(r)
    said = []
    for (backend, cache), found in sorted(kept.items()):
        most = max(found, key=lambda r: r["high"] / r["estimate"])
        said.append(f"On this GPU, {backend}'s first calls read {cache}, which cold rounds do "
                    "not empty: only the first process to need a kernel compiles it "
                    f"({most['model']} {most['variant']}: slowest round {most['high']:.2f} s, "
                    f"median {most['estimate']:.2f} s), so they are a later run's (warm); a first "
                    "run's are not measured ([why](docs/METHOD.md#chainers-first-calls-on-a-gpu)).")
    return " ".join(said)


def known_wrong(records):
    """The rows a known wrong answer left without a speedup here, each linked to its finding's
    file where its record names one: a link by path works in the README and RESULTS.md alike
    ('resnet (chainer `graph`, [finding](findings/chainer_static_graph_bn.md))')."""
    wrong = sorted({(r["model"], r["backend"], r["variant"], finding(r["known_wrong"]))
                    for r in records if r["kind"] == "step_time" and r.get("known_wrong")},
                   key=lambda w: w[:3])
    return [f"{model} ({backend} `{variant}`" + (f", [finding]({path}))" if path else ")")
            for model, backend, variant, path in wrong]


def setting(shown):
    """The GPU machine's framework versions, as its steady runs recorded them (report.build.runs.
    shown)."""
    versions, notes = shown["versions"], shown.get("version_notes", {})
    keep = ("torch", "jax", "chainer", "cupy-cuda13x")
    return ", ".join(f"{k} {versions[k]}" + (f" ({notes[k]})" if k in notes else "")
                     for k in keep if k in versions)


def process_line(spread, brief=False):
    """How far one eager train step moved between a run's processes (the build's
    runs.process_spread), or '' (`brief`: the README's, in fewer words)."""
    if not spread:
        return ""
    few, most = spread["processes"][0], spread["processes"][-1]
    n = f"{few}–{most}" if most > few else f"{few}"
    if brief:
        return (f"Step times move between a run's {n} processes (slowest ÷ fastest eager step: "
                f"median {spread['median']:.2f}×, up to {spread['widest']:.2f}×); speedups pair "
                "within a process.")
    return (f"Between one run's {n} processes, one eager train step took {spread['median']:.2f}× "
            f"as long in the slowest as in the fastest (the median of {spread['rows']} rows; up "
            f"to {spread['widest']:.2f}×, {spread['backend']} {spread['model']}): the ms columns "
            "carry that spread; each speedup is paired within a process.")


def wait_line(records):
    """What a wait after every step changes, from the machine's wait_cost records, or ''."""
    costs = [r for r in records if r["kind"] == "wait_cost"]
    if not costs:
        return ""
    names = {("jax", "graph"): "`jax.jit`", ("jax", "eager"): "op-by-op JAX",
             ("torch", "eager"): "torch eager", ("torch", "cuda_graph"): "`cuda_graph`"}
    most = max(costs, key=lambda r: r["estimate"])
    parts = [f"{names.get((r['backend'], r['variant']), r['variant'])} {speedup_text(r)}"
             + (f" ({r['step_ms']:.2f} ms against {r['block_ms']:.2f})" if r is most else "")
             for r in costs]
    return ("A wait on every output after each step slows the MNIST CNN train step: "
            + "; ".join(parts)
            + " (gpu/step_cost.py): the table waits once a block.")


def parity_line(records):
    """Per backend, the parity tests that passed on the GPU (of the models checked, named until
    every answer model is) and the ones that failed, or ''."""
    by = {}
    for r in sorted((r for r in records if r["kind"] == "parity_check"),
                    key=lambda r: (r["backend"], MODELS.index(r["model"]))):
        by.setdefault(r["backend"], []).append(r)
    if not by:
        return ""
    said = []
    for backend, found in by.items():
        passed, failed = sum(r["estimate"] for r in found), sum(r["failed"] for r in found)
        failing = [f.split("::")[-1] for r in found for f in r["failures"]]
        notes = ([] if len(found) == len(MODELS) else [", ".join(r["model"] for r in found)]) \
            + ([f"failing: {', '.join(failing)}"] if failed else [])
        said.append(f"{backend} {passed} of {passed + failed}"
                    + (f" ({'; '.join(notes)})" if notes else ""))
    return ("Parity with the float64 reference (TF32 tolerance, every variant), tests passed: "
            f"{'; '.join(said)}.")


def capture_line(records):
    """Whether `reduce-overhead` ran each model's steps as CUDA graphs: the graphs inductor left
    out and its reasons, a model that failed, or that it left none; '' before
    gpu/cudagraph_capture.py ran."""
    found = sorted((r for r in records if r["kind"] == "cudagraph_capture"),
                   key=lambda r: (MODELS.index(r["model"]), r["phase"] != "train"))
    if not found:
        return ""
    why = lambda r: "; ".join(x.removeprefix(f"{SKIPPING} due to ") for x in r["reasons"]) \
        or "no reason logged"
    out = [f"{r['model']}: failed ({r['error']})" if r.get("error") else
           f"{r['model']} {r['phase']}: {r['estimate']} left out ({why(r)})"
           for r in found if r["estimate"] or r.get("error")]
    models = ", ".join(dict.fromkeys(r["model"] for r in found))
    return ("Graphs left out of CUDA graphs under `reduce-overhead` (gpu/cudagraph_capture.py): "
            + ("; ".join(out) if out else f"none, train and infer ({models})") + ".")


def busy_line(records):
    """The sizes that keep the GPU busy (the sweep's busy points): per point, each backend's eager
    ÷ `graph` with its run, or ''."""
    points = {}
    for r in sorted((r for r in records if r["kind"] == "busy_speedup"),
                    key=lambda r: (r["model"], r["backend"])):
        points.setdefault(r["model"], []).append(r)
    if not points:
        return ""
    return ("Where the GPU is busy (train step, eager ÷ `graph`): " + "; ".join(
        f"{_busy_point(found[0])}, {gflop(found[0]):.3g} GFLOP a step: " + ", ".join(
            f"{r['backend']} {speedup_text(r)} (`{r['run'].split('_')[0]}`)" for r in found)
        for found in points.values()) + ".")


def lengths_gpu_line(records):
    """Token lengths that vary on this GPU, per backend: what finishes first (report.views.lengths)
    or, where the build decided none (`undecided`), its totals so far and why; '' without any."""
    found = [r for r in records if r["kind"] == "lengths_total"]
    parts = []
    for backend in sorted({r["backend"] for r in found}):
        mine = sorted((r for r in found if r["backend"] == backend),
                      key=lambda r: (r["variant"], list(STRATEGIES).index(r["case"])))
        runs = ", ".join(f"`{run.split('_')[0]}`" for run in dict.fromkeys(r["run"] for r in mine))
        why = next((r["undecided"] for r in mine if r.get("undecided")), None)
        parts.append(f"{backend}'s " + (f"{lengths_line(records, backend)} ({runs})" if not why
                                        else f"{_totals(mine)} ({runs}); none is first: {why}"))
    return ("On this GPU (one cold run each, every compile in its total): " + "; ".join(parts)
            + ".") if parts else ""


def _totals(mine):
    """'token lengths that vary (48 batches), totals: `eager` at exact lengths 26.00 s, at …'."""
    return f"token lengths that vary ({mine[0]['steps_planned']} batches), totals: " + ", ".join(
        ("" if r["variant"] == before.get("variant") else f"`{r['variant']}` ")
        + f"at {STRATEGIES[r['case']]} {r['estimate']:.2f} s" for before, r in zip([{}] + mine, mine))


def _busy_point(rec):
    """'ResNet-50 at full width, 224² px, batch 32' or 'decoder d_model 512, batch 8'."""
    config = rec.get("model_config") or {}
    if rec["model"].startswith("busy-decoder"):
        return f"decoder d_model {config.get('width')}, batch {rec.get('batch')}"
    return f"ResNet-{config.get('depth')} at {point(rec)}"


def gpu_table(machine, shown, records, cpu_machine, cpu, brief=False):
    """The markdown lines of one GPU machine's table, or [] where it has no loop-timed rows
    (`brief`: the README's, without the BRIEF columns and the CPU's intervals, which the CPU's
    table above it gives)."""
    if not shown.get("timed_as_a_loop"):  # the build's (report.build.runs.for_views)
        return []
    rows = sorted((r for r in records if r["kind"] == "speedup" and r["phase"] == "train"
                   and r["precision"] == "float32" and r.get("wait") == "block"),
                  key=lambda r: (MODELS.index(r["model"]) if r["model"] in MODELS else 9,
                                 r["backend"], list(VARIANTS).index(r["variant"])))
    threads = next((r["threads"] for r in rows if r.get("threads")), "?")
    columns = [c for c in COLUMNS if not (brief and c in BRIEF)]
    missing = shown.get("not_measured", [])  # the build's (report.build.plan_gaps)
    versions = setting(shown)
    return [f"**On the {short_name(machine)}** ({gpu_model(machine)}, {threads} threads; "
            f"{versions + '; ' if versions else ''}"
            "float32, TF32 convolutions as by default; [one wait per timed block]"
            "(docs/METHOD.md#the-step-a-gpu-user-runs), as a training loop waits)",
            "", "| " + " | ".join(c.replace("the CPU's", f"the {short_name(cpu_machine)}'s")
                                  for c in columns) + " |", "|---" * len(columns) + "|",
            *(_row(records, cpu, r, columns, brief) for r in rows), "",
            *([line, ""] if (line := process_line(shown.get("process_spread"), brief)) else []),
            *([line, ""] if (line := wait_line(records)) else []),
            *([line, ""] if not brief and (line := kept_line(records)) else []),
            *([line, ""] if not brief and (line := signals_line(
                [r for r in records if r.get("wait") == "block"])) else []),
            *([f"Known wrong here, no speedup: {'; '.join(wrong)}.", ""]
              if (wrong := known_wrong(records)) else []),
            *([line, ""] if (line := busy_line(records)) else []),
            *([line, ""] if not brief and (line := lengths_gpu_line(records)) else []),
            *([line, ""] if (line := parity_line(records)) else []),
            *([line, ""] if (line := capture_line(records)) else []),
            (f"Not yet on this GPU: {'; '.join(missing)}. " if missing else "")
            + " ".join(f"{k}: {v}." for k, v in NOT_ON_THE_GPU_MACHINE.items()),
            ""]
