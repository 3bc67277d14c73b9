"""The answer's GPU table: per GPU machine timed as a training loop runs (--wait block), each row's
speedups with their intervals and runs, the same row on the answer's CPU, and what the GPU job
has not measured yet (gpu/plan.py)."""
from catalog import VARIANTS
from machines import gpu_model, short_name
from gpu.plan import ANSWER_MODELS as MODELS, BACKENDS, NOT_ON_THE_LEASE, PARTS, PLAN
from report.views.scale import gflop
from report.views.text import ms, speedup_text

HEADER = ("| model | backend | variant | train ms, eager → graph | train speedup | infer speedup "
          "| A/A, train | the CPU's train speedup | run |")


def _find(records, kind, backend, model, variant, phase="train"):
    return next((r for r in records if r["kind"] == kind and r["backend"] == backend
                 and r["model"] == model and r["variant"] == variant and r["phase"] == phase
                 and r["precision"] == "float32"), None)


def timed_as_a_loop(records):
    """Whether a machine's steady records were timed with one wait per block (a GPU's default)."""
    return any(r.get("wait") == "block" for r in records if r["kind"] == "step_time")


def _row(records, cpu, speedup):
    backend, model, variant = speedup["backend"], speedup["model"], speedup["variant"]
    eager = _find(records, "step_time", backend, model, "eager")
    graph = _find(records, "step_time", backend, model, variant)
    steps = (f"{ms(eager['estimate'])} → {ms(graph['estimate'])}"
             if eager and graph and graph["estimate"] else "—")
    on_cpu = _find(cpu, "speedup", backend, model, variant)
    aa = (f"[{speedup['aa_floor_low']:.3f}, {speedup['aa_floor_high']:.3f}]"
          if speedup.get("aa_floor_low") is not None else "—")
    return (f"| {model} | {backend} | `{variant}` | {steps} | {speedup_text(speedup)} | "
            f"{speedup_text(_find(records, 'speedup', backend, model, variant, 'infer'))} | "
            f"{aa} | {speedup_text(on_cpu) if on_cpu else 'GPU only'} | "
            f"`{speedup['run'].split('_')[0]}` |")


def not_measured(records):
    """The plan's answer rows with no run on this machine yet ('vgg (torch)'; a model or part
    alone: none of the three backends), then its other parts with none ('lengths that vary')."""
    done = {(r["backend"], r["model"]) for r in records if r["kind"] == "speedup"
            or r["kind"] == "step_time" and r.get("known_wrong")}
    seen = {(r["backend"], r["kind"]) for r in records}
    left = {}
    for step in PLAN:
        for backend, model, _, wait in step.keys[:1]:
            if step.kind == "run" and wait == "block" and (backend, model) not in done:
                left.setdefault(model, []).append(backend)
        if step.part:
            words, kinds = PARTS[step.part]
            if not any((step.backend, kind) in seen for kind in kinds):
                left.setdefault(words, [])
                if step.backend not in left[words]:
                    left[words].append(step.backend)
    return [what if set(backends) == set(BACKENDS) else f"{what} ({', '.join(backends)})"
            for what, backends in left.items()]


def known_wrong(records):
    """The rows a known wrong answer left without a speedup here ('resnet (chainer `graph`)')."""
    wrong = sorted({(r["model"], r["backend"], r["variant"]) for r in records
                    if r["kind"] == "step_time" and r.get("known_wrong")})
    return [f"{model} ({backend} `{variant}`)" for model, backend, variant in wrong]


def setting(shown):
    """The GPU machine's framework versions, as its steady runs recorded them (report.build.runs.
    shown)."""
    versions = shown["versions"]
    keep = ("torch", "jax", "chainer", "cupy-cuda13x")
    return ", ".join(f"{k} {versions[k]}" for k in keep if k in versions)


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
    return ("A wait after every step (on every output, as the suite timed GPU steps before) "
            "slows the MNIST CNN train step: " + "; ".join(parts)
            + " (gpu/step_cost.py); the table times one wait per block.")


def busy_line(records):
    """The sizes that keep the GPU busy (the sweep's busy points): each backend's eager ÷
    `graph` at ResNet-50, 224² px, batch 32 and the decoder's compute point, or ''."""
    found = sorted((r for r in records if r["kind"] == "busy_speedup"),
                   key=lambda r: (r["model"], r["backend"]))
    if not found:
        return ""
    return ("Where the GPU is busy (train step, eager ÷ `graph`): " + "; ".join(
        f"{r['model'].removeprefix('busy-')} {r['backend']} {speedup_text(r)} "
        f"({gflop(r):.3g} GFLOP a step, `{r['run']}`)" for r in found) + ".")


def gpu_table(machine, shown, records, cpu_machine, cpu):
    """The markdown lines of one GPU machine's table, or [] where it has no loop-timed rows."""
    if not timed_as_a_loop(records):
        return []
    rows = sorted((r for r in records if r["kind"] == "speedup" and r["phase"] == "train"
                   and r["precision"] == "float32" and r.get("wait") == "block"),
                  key=lambda r: (MODELS.index(r["model"]) if r["model"] in MODELS else 9,
                                 r["backend"], list(VARIANTS).index(r["variant"])))
    threads = next((r["threads"] for r in rows if r.get("threads")), "?")
    missing = not_measured(records)
    versions = setting(shown)
    return [f"**On the {short_name(machine)}** ({gpu_model(machine)}, {threads} threads; "
            f"{versions + '; ' if versions else ''}"
            "float32, TF32 convolutions as by default; [one wait per timed block]"
            "(docs/METHOD.md#the-step-a-gpu-user-runs), as a training loop waits)",
            "", HEADER, "|---" * 9 + "|", *(_row(records, cpu, r) for r in rows), "",
            *([line, ""] if (line := wait_line(records)) else []),
            *([f"Known wrong here, no speedup: {'; '.join(wrong)} ([findings]"
               "(#findings-wrong-answers-this-suite-found))."] if (wrong := known_wrong(records))
              else []),
            *([line, ""] if (line := busy_line(records)) else []),
            (f"Not yet on this GPU: {'; '.join(missing)} (gpu/plan.py's next steps). "
             if missing else "") + " ".join(f"{k}: {v}." for k, v in NOT_ON_THE_LEASE.items()),
            ""]
