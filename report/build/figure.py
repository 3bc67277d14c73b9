"""The one record builder: every figure record of summary.json, from a saved result
(records.record), a user's measurement (user.records) or a comparison of two (best.flag)."""
from report.build.ratios import NO_MEANING, meaning, target, target_minutes

WORDS = {"memory_ratio": ("more", "less")}  # a ratio's verdict where above 1 is not "faster"
LABELS = ("machine", "run", "commit", "code", "dirty", "backend", "model", "variant", "phase",
          "precision", "case")  # what a figure is of, first in every record


def labelled(labels, kind, unit, estimate, low=None, high=None, interval=None, significant=None,
             note=None, **fields):
    """The record of figure `kind` with `labels` (LABELS, processes, rounds, known_wrong): a saved
    result's (record) or a user's measurement's (report.build.user), a ratio's verdict by the one
    rule."""
    found = {**{k: labels[k] for k in LABELS}, "kind": kind, "unit": unit, "estimate": estimate,
             "low": low, "high": high, "interval": interval, "significant": significant,
             "processes": labels["processes"], "rounds": labels["rounds"],
             "aa_floor_low": None, "aa_floor_high": None,
             "known_wrong": labels["known_wrong"], "note": note, "best": None, **fields}
    ratio_meaning = {**meaning(found, *WORDS.get(kind, ())), "target": target(found),
                     "target_minutes": target_minutes(found)} if unit == "x" else NO_MEANING
    return {**found, **ratio_meaning}
