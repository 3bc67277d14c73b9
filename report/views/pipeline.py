"""Seed 003's input-pipeline claim: one table per model and a verdict, from the pipeline records."""
from collections import Counter, defaultdict
from statistics import median

from catalog import LOADER_BASELINE as BASELINE
from catalog import LOADERS
from report.build.ratios import decided
from report.views.text import interval_cell, ms, variant_order

CLAIMED_SLOWER = ("parallel", "cache")  # seed 003: both came out slower than its baseline
KINDS = ("epoch_time", "examples_per_s", "input_wait_per_step", "loader_step_time",
         "loader_ratio", "aa_ratio")


class Pipeline(dict):
    """{(backend, model, variant, loader): {kind: record}} of the pipeline records."""

    def __init__(self, records):
        super().__init__()
        for r in records:
            if r["phase"] == "pipeline" and r["kind"] in KINDS:
                self.setdefault((r["backend"], r["model"], r["variant"], r["case"]),
                                {})[r["kind"]] = r


def _cell(found):
    """Examples/s, input wait per step, the epoch time's median with its interquartile range and,
    when paired, the baseline's epoch ÷ this one's (on the baseline, ÷ its A/A twin's)."""
    if found is None:
        return "—"
    epoch = found["epoch_time"]
    cell = (f"{found['examples_per_s']['estimate']:,.0f}/s · wait "
            f"{ms(found['input_wait_per_step']['estimate'])} · "
            f"epoch {ms(epoch['estimate'])} ({ms(epoch['low'])}–{ms(epoch['high'])})")
    if (rec := found.get("loader_ratio")) and rec["interval"]:
        return f"{cell} · {interval_cell(rec['estimate'], rec['low'], rec['high'])}"
    if rec := found.get("aa_ratio"):
        return f"{cell} · A/A {interval_cell(rec['estimate'], rec['low'], rec['high'])}"
    return cell


def _tables(idx):
    by_model = defaultdict(set)
    for backend, model, variant, _ in idx:
        by_model[model].add((backend, variant))
    lines = []
    for model in sorted(by_model):
        info = next(found["epoch_time"] for k, found in idx.items() if k[1] == model)
        lines += [f"**{model}** (batch {info['batch']}, {info['examples_per_epoch']} examples "
                  f"per epoch, PNG {info['stored_side']}² cropped to {info['input_shape'][-1]}²)",
                  "", "| backend | variant | " + " | ".join(LOADERS) + " |",
                  "|---|---|" + "---|" * len(LOADERS)]
        for backend, variant in sorted(by_model[model], key=lambda bv: (bv[0], variant_order(bv[1]))):
            cells = (_cell(idx.get((backend, model, variant, name))) for name in LOADERS)
            lines.append(f"| {backend} | {variant} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def _compare(other):
    """('slower', 'faster' or 'n.s.', baseline ÷ other, that ratio as text) of a loader's
    loader_ratio record, from its verdict; unpaired ones marked so."""
    rec = other["loader_ratio"]
    ratio = rec["estimate"]
    kind = rec["verdict"] if decided(rec) else "n.s."
    if rec["interval"]:
        return kind, ratio, interval_cell(ratio, rec["low"], rec["high"])
    return kind, ratio, f"{ratio:.2f}× (unpaired)"


def _pairs(idx, backend):
    return sorted({(m, v) for b, m, v, _ in idx if b == backend})


def _per_step(found):
    """(input wait, the rest of the step) in seconds per step."""
    wait = found["input_wait_per_step"]["estimate"]
    return wait, found["loader_step_time"]["estimate"] - wait


def _claim_part(idx, backend, name):
    """One loader against the baseline over every model × variant pair, or None."""
    keys = [(m, v) for m, v in _pairs(idx, backend)
            if (backend, m, v, BASELINE) in idx and (backend, m, v, name) in idx]
    if not keys:
        return None, 0
    pairs = [(idx[(backend, m, v, BASELINE)], idx[(backend, m, v, name)]) for m, v in keys]
    found = [_compare(other) for _, other in pairs]
    counts = Counter(kind for kind, _, _ in found)
    each = ", ".join(f"{m} {v} {text}" for (m, v), (_, _, text) in zip(keys, found))
    wait, rest = ([1e3 * (_per_step(o)[i] - _per_step(b)[i]) for b, o in pairs] for i in (0, 1))
    return (f"`{name}` slower in {counts['slower']} of {len(found)}, faster in "
            f"{counts['faster']}, n.s. in {counts['n.s.']} (throughput × `{BASELINE}`'s: {each}; "
            f"per step: input wait {median(wait):+.2f} ms, train step {median(rest):+.2f} ms, "
            "medians)"), counts["slower"] / len(found)


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
        waits = [_per_step(found)[0] / found["loader_step_time"]["estimate"]
                 for (b, _, _, n), found in idx.items() if b == backend and n == BASELINE]
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
            best = min(runs, key=lambda n: runs[n]["epoch_time"]["estimate"])
            base = runs.get(BASELINE)
            if base and best != BASELINE and _compare(runs[best])[0] != "faster":
                best = BASELINE  # not beyond the interval (or spread): keep the simplest loader
            wins[best] += 1
            if base and best != BASELINE:
                gains[best].append(_compare(runs[best])[1])
        name, count = wins.most_common(1)[0]
        if count * 2 <= len(pairs):  # no loader best in most pairs: keep the simplest
            picks.append(f"{backend} `{BASELINE}` (no loader best in most of {len(pairs)})")
            continue
        gain = (f", {max(gains[name]):.2f}× `{BASELINE}` at best"
                if gains[name] and name != BASELINE else "")
        picks.append(f"{backend} `{name}` (best in {count} of {len(pairs)}{gain})")
    return ("What to do: use " + "; ".join(picks) + f". A loader not faster than `{BASELINE}` "
            f"beyond the paired interval (unpaired results: beyond the epoch-time spread) counts "
            f"as `{BASELINE}`: the simplest loader is the default.")


def pipeline_section(records):
    """Markdown for the pipeline suite ('' without pipeline records)."""
    idx = Pipeline(records)
    if not idx:
        return ""
    lines = ["Cells: examples/s · input wait ms per step · epoch ms, median (IQR) · where paired, "
             f"`{BASELINE}`'s epoch ÷ this loader's (on `{BASELINE}`: ÷ its A/A twin's) with its "
             "95% interval, `~` when it includes 1. One epoch = reading, decoding and cropping "
             "every file plus the train steps.", ""]
    lines += _tables(idx)
    lines += [f"Source article 003 found `parallel` and `cache` slower than its baseline. Here, `{BASELINE}`'s "
              "epoch time ÷ each loader's (its throughput × the baseline's), paired: both timed in "
              "interleaved rounds in the same fresh child processes; slower or faster only when "
              "the 95% interval excludes 1, else n.s. Results saved before the pairing: the ratio "
              "of medians, n.s. when interquartile ranges overlap, marked (unpaired).", ""]
    lines += claim_verdicts(idx) + ["", advice(idx)]
    return "\n".join(lines)
