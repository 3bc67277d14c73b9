"""What a GPU machine's records still lack of the GPU job's plan (gpu/plan.py): decided here, once,
and named by the GPU table as not measured yet."""
from gpu.plan import BACKENDS, PARTS, PLAN


def _measured(step, records):
    """Whether some record shows `step`'s part measured: one of the part's kinds, of its backend,
    of its label (a model's prefix or a variant) where it has one, of one of the variants it
    times besides eager (torch's ResNet first calls take two steps, each with eager), of its case
    where it has one (Chainer's lengths take a step a strategy)."""
    kinds, variants = PARTS[step.part][1], step.variants
    return any(r["kind"] in kinds and r["backend"] == step.backend and (
        not step.label or r["variant"] == step.label or (r["model"] or "").startswith(step.label))
        and (not variants or r["variant"] in variants)
        and (not step.case or r.get("case") == step.case) for r in records)


def _which(left, labels):
    """'torch; jax, chainer: resnet, decoder' for {backend: its labels not measured}: a backend
    missing all of its part's labels (or a part without labels) by its name alone, a label of
    several steps some of which are measured as 'part of' it (torch's first calls of a model,
    Chainer's lengths strategies of a variant)."""
    groups = {}
    for backend, missing in left.items():
        # a label once (torch's first calls take two steps a model); all: every step missing
        key = () if missing == labels[backend] else tuple(
            ("" if missing.count(x) == labels[backend].count(x) else "part of ")
            + x.removeprefix("busy-") for x in dict.fromkeys(missing))
        groups.setdefault(key, []).append(backend)
    return "; ".join(", ".join(bs) + (f": {', '.join(key)}" if key else "")
                     for key, bs in sorted(groups.items(), key=lambda item: len(item[0])))


def not_measured(records):
    """The plan's answer rows with no run on this machine yet ('vgg (torch)'; a model alone: none
    of the three backends), then its other parts with a step not measured ('lengths that vary
    (torch)': some of torch's lengths variants; 'first calls … (torch; jax: decoder)': the steps
    of each backend, and where only some, which models or variants); a backend's first calls on a
    first run where a kept cache made its cold rounds warm (report.build.load.KEPT_CACHES)."""
    done = {(r["backend"], r["model"]) for r in records if r["kind"] == "speedup"
            or r["kind"] == "step_time" and r.get("known_wrong")}
    rows, parts, labels = {}, {}, {}
    for step in PLAN:
        for backend, model, _, wait in step.keys[:1]:
            if step.kind == "run" and wait == "block" and (backend, model) not in done:
                rows.setdefault(model, []).append(backend)
        if step.part:
            labels.setdefault(step.part, {}).setdefault(step.backend, []).append(step.label)
            if not _measured(step, records):
                parts.setdefault(step.part, {}).setdefault(step.backend, []).append(step.label)
    out = [what if set(backends) == set(BACKENDS) else f"{what} ({', '.join(backends)})"
           for what, backends in rows.items()]
    for part, left in parts.items():
        whole = set(left) == set(BACKENDS) and all(left[b] == labels[part][b] for b in left)
        out.append(PARTS[part][0] if whole else f"{PARTS[part][0]} ({_which(left, labels[part])})")
    kept = {r["backend"]: r["kept_cache"] for r in records if r.get("kept_cache")}
    return out + [f"a first run's first calls ({backend}: {cache} kept)"
                  for backend, cache in sorted(kept.items())]  # report.build.load.KEPT_CACHES
