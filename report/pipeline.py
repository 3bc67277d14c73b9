"""Seed 003's input-pipeline claim: one table per model and a verdict, from the pipeline suite."""
from collections import Counter, defaultdict
from statistics import median

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


def _per_step(r):
    """(input wait, the rest of the step) in seconds per step."""
    wait = r.info["input_wait_s_per_step"]
    return wait, r.info["step_s"] - wait


def _claim_part(idx, backend, name):
    """One loader against the baseline over every model × variant pair, or None."""
    pairs = [(idx[(backend, m, v, BASELINE)], idx[(backend, m, v, name)])
             for m, v in _pairs(idx, backend)
             if (backend, m, v, BASELINE) in idx and (backend, m, v, name) in idx]
    if not pairs:
        return None, 0
    found = [_compare(base, other) for base, other in pairs]
    counts, ratios = Counter(kind for kind, _ in found), [ratio for _, ratio in found]
    wait, rest = ([1e3 * (_per_step(o)[i] - _per_step(b)[i]) for b, o in pairs] for i in (0, 1))
    return (f"`{name}` slower in {counts['slower']} of {len(found)}, faster in "
            f"{counts['faster']}, n.s. in {counts['n.s.']} (throughput {min(ratios):.2f}×–"
            f"{max(ratios):.2f}× `{BASELINE}`'s; per step: input wait {median(wait):+.2f} ms, "
            f"train step {median(rest):+.2f} ms, medians)"), counts["slower"] / len(found)


def claim_verdicts(idx):
    """Per backend: does 'parallel map and caching are slower than the baseline' hold here?"""
    lines = []
    for backend in sorted({k[0] for k in idx}):
        found = [_claim_part(idx, backend, name) for name in CLAIMED_SLOWER]
        parts, shares = [p for p, _ in found if p], [s for p, s in found if p]
        if not parts:
            continue
        verdict = ("holds" if min(shares) == 1 else "does not hold" if max(shares) == 0
                   else "holds in part")
        waits = [_per_step(r)[0] / r.info["step_s"]
                 for (b, _, _, n), r in idx.items() if b == backend and n == BASELINE]
        lines.append(f"- {backend}: the claim {verdict} — " + "; ".join(parts) + f". `{BASELINE}` "
                     f"waits for input {min(waits):.0%}–{max(waits):.0%} of its epoch: the most "
                     "a loader can save.")
    return lines and lines + ["", "The train step is the same computation under every loader: a change in "
                        "its time is background workers competing for the cores (or noise), "
                        "not the loader's own speed."]


def advice(idx):
    """One line: per backend, the loader fastest in most model × variant pairs, else naive."""
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
        if count * 2 <= len(pairs):  # no loader best in most pairs: keep the simplest
            picks.append(f"{backend} `{BASELINE}` (no loader best in most of {len(pairs)})")
            continue
        gain = (f", {max(gains[name]):.2f}× `{BASELINE}` at best"
                if gains[name] and name != BASELINE else "")
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
