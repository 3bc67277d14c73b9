"""Seed 003's input-pipeline claim: one table per model and a verdict, from the pipeline records."""
from collections import defaultdict

from catalog import LOADER_BASELINE as BASELINE
from catalog import LOADERS
from report.views.text import interval_cell, ms, variant_order

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
        return f"{cell} · {interval_cell(rec)}"
    if rec := found.get("aa_ratio"):
        return f"{cell} · A/A {interval_cell(rec)}"
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


def _ratio_text(rec):
    """Baseline ÷ loader, with its interval, else marked unpaired."""
    return interval_cell(rec) if rec["interval"] else f"{rec['estimate']:.2f}× (unpaired)"


def _part_text(part):
    """One loader against the baseline over every model × variant pair (a claim's part)."""
    counts = part["counts"]
    each = ", ".join(f"{m} {v} {_ratio_text(rec)}" for m, v, rec in part["pairs"])
    return (f"`{part['loader']}` slower in {counts['slower']} of {len(part['pairs'])}, faster in "
            f"{counts['faster']}, n.s. in {counts['n.s.']} (throughput × `{BASELINE}`'s: {each}; "
            f"per step: input wait {part['wait_ms']:+.2f} ms, train step {part['rest_ms']:+.2f} "
            "ms, medians)")


def claim_verdicts(claims):
    """Per backend: does 'parallel map and caching are slower than the baseline' hold here?"""
    lines = []
    for c in claims:
        if c["case"] != "loaders_slower":
            continue
        low, high = c["wait_share"]
        lines.append(f"- {c['backend']}: the claim {c['claim']} — "
                     + "; ".join(map(_part_text, c["parts"])) + f". `{BASELINE}` "
                     f"waits for input {low:.0%}–{high:.0%} of its epoch: the most "
                     "a loader can save.")
    return lines and lines + ["", "The train step is the same computation under every loader: a change in "
                        "its time is background workers competing for the cores (or noise), "
                        "not the loader's own speed."]


def advice(claims):
    """One line: per backend, the loader the build picked (else naive)."""
    picks = []
    for c in claims:
        if c["case"] != "loader_to_use":
            continue
        if c["wins"] is None:
            picks.append(f"{c['backend']} `{BASELINE}` (no loader best in most of {c['pairs']})")
            continue
        gain = f", {c['gain']:.2f}× `{BASELINE}` at best" if c["gain"] else ""
        picks.append(f"{c['backend']} `{c['claim']}` (best in {c['wins']} of {c['pairs']}{gain})")
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
    claims = [r for r in records if r["kind"] == "claim" and r["phase"] == "pipeline"]
    lines += claim_verdicts(claims) + ["", advice(claims)]
    return "\n".join(lines)
