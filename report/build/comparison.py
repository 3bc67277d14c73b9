"""Two saved runs side by side (`python -m report --compare`): each shared benchmark's medians,
each run's speedups over eager with the ratio between them, and what makes the two unlike."""
from report.build.load import load_file, unfinished
from report.build.ratios import UNPAIRED, includes_one, ratio


def comparison(path_a, path_b):
    """What --compare prints of two saved runs; ValueError in one line when either is no saved
    run or the two share no benchmark."""
    runs = [load_file(path) for path in (path_a, path_b)]
    a, b = ({r.name: r for r in found} for found in runs)
    shared = sorted(set(a) & set(b))
    if not shared:
        raise ValueError(f"{path_a} and {path_b} have no benchmark in common (backends: "
                         f"{_backends(a)}; {_backends(b)}): nothing to compare")
    return {"paths": (path_a, path_b), "versions": versions(a, b),
            "rows": [{"name": name, "a": a[name].median, "b": b[name].median}
                     for name in shared],  # two runs' times: side by side, never divided
            "only": sorted(set(a) ^ set(b)), "speedups": speedups(a, b),
            "unfinished": [(path, unfinished(found[0])) for path, found
                           in zip((path_a, path_b), runs) if found and not found[0].complete],
            "profiles": list({found[0].profile_name for found in runs if found}),
            "machines": sorted({found[0].machine for found in runs if found})}


def _backends(results):
    return ", ".join(sorted({r.info["backend"] for r in results.values()})) or "none"


def versions(a, b):
    """[(framework, A's version, B's)] of the versions that differ (None: not installed)."""
    va, vb = (next(iter(run.values())).graphbench.get("versions") or {} for run in (a, b))
    return [(k, va.get(k), vb.get(k)) for k in sorted(set(va) | set(vb)) if va.get(k) != vb.get(k)]


def _eager_of(run, r):
    """The eager result of `r`'s own run for the same backend, model, phase and flags."""
    same = ("backend", "model", "phase", "precision", "deterministic", "cache")
    return next((e for e in run.values() if e.info["variant"] == "eager"
                 and all(e.info.get(k) == r.info.get(k) for k in same)), None)


def speedups(a, b):
    """Per shared graph train or infer step with an eager of its own in both runs: eager ÷ variant
    within A and within B (ratio records' fields), B's ÷ A's, and whether the two intervals
    overlap (None unless both runs saved paired rounds)."""
    rows = []
    for name in sorted(set(a) & set(b)):
        ra, rb = a[name], b[name]
        if ra.info["phase"] not in ("train", "infer") or ra.info["variant"] == "eager":
            continue
        ea, eb = _eager_of(a, ra), _eager_of(b, rb)
        if ea and eb:
            sa, sb = (_marked({"low": None, "high": None, "interval": None, "note": UNPAIRED,
                               **ratio(r.saved("speedup"), e, r, None)})
                      for e, r in ((ea, ra), (eb, rb)))
            both = sa["interval"] and sb["interval"]
            rows.append({"name": name, "a": sa, "b": sb,
                         "ratio": ratio_of_ratios(sa, sb, ea, ra, eb, rb),
                         "overlap": sa["low"] <= sb["high"] and sb["low"] <= sa["high"]
                         if both else None})
    return rows


def _marked(rec):
    """A ratio with its `~` mark, as records.record marks one: its interval includes 1."""
    return {**rec, "mark": "~" if rec["interval"] and includes_one(rec["low"], rec["high"])
            else ""}


def ratio_of_ratios(sa, sb, eager_a, graph_a, eager_b, graph_b):
    """B's speedup over A's: {estimate, low, high}, the interval (None without) when both runs
    carry paired rounds."""
    point = sb["estimate"] / sa["estimate"]
    rounds = [r.info.get("paired_rounds_s") for r in (eager_a, graph_a, eager_b, graph_b)]
    if not all(rounds):
        return {"estimate": point, "low": None, "high": None, "mark": None}
    import stats  # NumPy: only paired runs need it
    found = stats.ratio_of_ratios(*rounds)
    return {"estimate": point, "low": found.low, "high": found.high,
            "mark": "~" if includes_one(found.low, found.high) else ""}
