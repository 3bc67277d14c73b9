"""Seed 003's input-pipeline claim: one table per model and a verdict, from the pipeline suite."""
from collections import Counter, defaultdict

from backends.pipeline import LOADERS
from report.tables import _ms, _order, latest, spread_overlaps

BASELINE = "naive"
CLAIMED_SLOWER = ("parallel", "cache")  # seed 003: both came out slower than its baseline


def pipeline_index(results):
    """{(backend, model, variant, loader): result} of the newest pipeline runs with a valid loss."""
    return {(r.info["backend"], r.info["model"], r.info["variant"], r.info["loader"]): r
            for r in latest(results) if r.info["phase"] == "pipeline" and r.valid}


def _cell(r):
    """Examples/s, input wait per step, and the epoch time's median with its interquartile range."""
    if r is None:
        return "—"
    s = r.stats
    return (f"{r.info['examples_per_s']:,.0f}/s · wait {_ms(r.info['input_wait_s_per_step'])} · "
            f"epoch {_ms(s['median'])} ({_ms(s['q1'])}–{_ms(s['q3'])})")


def _tables(idx):
    by_model = defaultdict(set)
    for backend, model, variant, _ in idx:
        by_model[model].add((backend, variant))
    lines = []
    for model in sorted(by_model):
        info = next(r.info for k, r in idx.items() if k[1] == model)
        lines += [f"**{model}** (batch {info['batch']}, {info['examples_per_epoch']} examples "
                  f"per epoch, PNG {info['stored_side']}² cropped to {info['input_shape'][-1]}²)",
                  "", "| backend | variant | " + " | ".join(LOADERS) + " |",
                  "|---|---|" + "---|" * len(LOADERS)]
        for backend, variant in sorted(by_model[model], key=_order):
            cells = (_cell(idx.get((backend, model, variant, name))) for name in LOADERS)
            lines.append(f"| {backend} | {variant} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def _compare(base, other):
    """'slower', 'faster' or 'n.s.' (overlapping epoch-time spreads), and naive ÷ other."""
    ratio = base.stats["median"] / other.stats["median"]
    if spread_overlaps(base, other):
        return "n.s.", ratio
    return ("faster" if ratio > 1 else "slower"), ratio


def _pairs(idx, backend):
    return sorted({(m, v) for b, m, v, _ in idx if b == backend})


def claim_verdicts(idx):
    """Per backend: does 'parallel map and caching are slower than the baseline' hold here?"""
    lines = []
    for backend in sorted({k[0] for k in idx}):
        parts, slower, total = [], 0, 0
        for name in CLAIMED_SLOWER:
            found = [_compare(idx[(backend, m, v, BASELINE)], idx[(backend, m, v, name)])
                     for m, v in _pairs(idx, backend)
                     if (backend, m, v, BASELINE) in idx and (backend, m, v, name) in idx]
            if not found:
                continue
            counts = Counter(kind for kind, _ in found)
            ratios = [ratio for _, ratio in found]
            slower, total = slower + counts["slower"], total + len(found)
            parts.append(f"`{name}` slower in {counts['slower']} of {len(found)}, faster in "
                         f"{counts['faster']}, n.s. in {counts['n.s.']} "
                         f"(throughput {min(ratios):.2f}×–{max(ratios):.2f}× of `{BASELINE}`)")
        waits = [r.info["input_wait_s_per_step"] / r.info["step_s"]
                 for (b, _, _, n), r in idx.items() if b == backend and n == BASELINE]
        if waits:
            parts.append(f"`{BASELINE}` spends {min(waits):.0%}–{max(waits):.0%} of its epoch "
                         "waiting for input, the most any loader could save")
        if total:
            verdict = ("holds" if slower == total else "does not hold" if slower == 0
                       else "holds in part")
            lines.append(f"- {backend}: the claim {verdict} — " + "; ".join(parts)
                         + " (model × variant pairs)")
    return lines


def advice(idx):
    """One line: per backend, the loader that was fastest most often, or naive if none beat it."""
    picks = []
    for backend in sorted({k[0] for k in idx}):
        wins, gains = Counter(), defaultdict(list)
        pairs = _pairs(idx, backend)
        for m, v in pairs:
            runs = {n: idx[(backend, m, v, n)] for n in LOADERS if (backend, m, v, n) in idx}
            best = min(runs, key=lambda n: runs[n].stats["median"])
            base = runs.get(BASELINE)
            if base and best != BASELINE and spread_overlaps(base, runs[best]):
                best = BASELINE  # not beyond the spread: keep the simplest loader
            wins[best] += 1
            if base:
                gains[best].append(base.stats["median"] / runs[best].stats["median"])
        name, count = wins.most_common(1)[0]
        gain = f", {max(gains[name]):.2f}× `{BASELINE}` at best" if gains[name] and name != BASELINE else ""
        picks.append(f"{backend} `{name}` (best in {count} of {len(pairs)}{gain})")
    return ("What to do: use " + "; ".join(picks) + ". Loaders within the epoch-time spread of "
            f"`{BASELINE}` count as `{BASELINE}`: the simplest loader is the default.")


def pipeline_section(results):
    """Markdown for the pipeline suite ('' without pipeline results)."""
    idx = pipeline_index(results)
    if not idx:
        return ""
    lines = ["Cells: examples/s · input wait ms per step · epoch ms, median (IQR). One epoch = "
             "reading, decoding and cropping every file plus the train steps.", ""]
    lines += _tables(idx)
    lines += [f"Seed 003 found `parallel` and `cache` slower than its baseline. Here, comparing "
              f"median epoch times with `{BASELINE}` (n.s.: interquartile ranges overlap):", ""]
    lines += claim_verdicts(idx) + ["", advice(idx)]
    return "\n".join(lines)
