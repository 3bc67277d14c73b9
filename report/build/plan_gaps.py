"""What a GPU machine's records still lack of the GPU job's plan (gpu/plan.py): decided here, once,
and named by the GPU table as not measured yet."""
from gpu.plan import BACKENDS, PARTS, PLAN


def _measured(step, records):
    """Whether some record shows `step`'s part measured: one of the part's kinds, of its backend,
    of its label (a model's prefix or a variant) where it has one."""
    kinds = PARTS[step.part][1]
    return any(r["kind"] in kinds and r["backend"] == step.backend and (
        not step.label or r["variant"] == step.label or (r["model"] or "").startswith(step.label))
        for r in records)


def not_measured(records):
    """The plan's answer rows with no run on this machine yet ('vgg (torch)'; a model or part
    alone: none of the three backends), then its other parts with a step not measured ('lengths
    that vary (torch)': some of torch's lengths variants)."""
    done = {(r["backend"], r["model"]) for r in records if r["kind"] == "speedup"
            or r["kind"] == "step_time" and r.get("known_wrong")}
    left = {}
    for step in PLAN:
        for backend, model, _, wait in step.keys[:1]:
            if step.kind == "run" and wait == "block" and (backend, model) not in done:
                left.setdefault(model, []).append(backend)
        if step.part and not _measured(step, records):
            backends = left.setdefault(PARTS[step.part][0], [])
            if step.backend not in backends:
                backends.append(step.backend)
    return [what if set(backends) == set(BACKENDS) else f"{what} ({', '.join(backends)})"
            for what, backends in left.items()]
