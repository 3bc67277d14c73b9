"""The source articles' claims decided once, beside their figures: article 001's five micro
claims and article 003's loaders, one `claim` record each (views only word them)."""
from collections import Counter, defaultdict
from statistics import median

from catalog import LOADER_BASELINE as BASELINE
from catalog import LOADERS
from report.build.ratios import beyond, decided

FIRST_CALL_FACTOR = 10  # "the first call is expensive": at least 10x the second
CONTROL = ("square_if_positive", "sum_even", "fizzbuzz", "train_loop")
CLAIMED_SLOWER = ("parallel", "cache")  # seed 003: both came out slower than its baseline
PIPELINE_KINDS = ("epoch_time", "examples_per_s", "input_wait_per_step", "loader_step_time",
                  "loader_ratio", "aa_ratio")


def claim(anchor, case, words, **fields):
    """A claim record: `anchor`'s run and machine, the claim's name (`case`, its suite the phase)
    and its verdict in words (`claim`); no estimate of its own (its figures are its fields)."""
    phase = "pipeline" if anchor["phase"] == "pipeline" else "micro"
    return {**anchor, "phase": phase, "kind": "claim", "unit": None, "estimate": None, "low": None, "high": None,
            "interval": None, "significant": None, "verdict": None, "verdict_note": None,
            "mark": None, "target": None, "best": None, "case": case, "claim": words, "note": f"the claim {words}",
            "model": None, **fields}


def micro_index(records):
    """({(backend, workload, variant): micro_time record}, {(backend, workload): micro_speedup})."""
    times = {(r["backend"], r["case"], r["variant"]): r for r in records
             if r["kind"] == "micro_time"}
    return times, {(r["backend"], r["case"]): r for r in records if r["kind"] == "micro_speedup"}


def micro_claims(records):
    """Article 001's claims per backend: granularity, first call, pitfalls, control flow,
    vectorized."""
    times, speedups = micro_index(records)
    out = []
    for b in sorted({b for b, _, _ in times}):
        out += _granularity(speedups, b) + _first_call(times, b) + _pitfalls(times, b)
        out += _control(times, speedups, b) + _vectorized(times, b)
    return out


def _figure(rec):
    """(estimate, (low, high) or None) of a speedup record; None without an estimate."""
    if rec is None or rec["estimate"] is None:
        return None
    return rec["estimate"], (rec["low"], rec["high"]) if rec["interval"] else None


def _granularity(speedups, b):
    conv, lstm = _figure(speedups.get((b, "conv"))), _figure(speedups.get((b, "lstm_cell")))
    if not (conv and lstm):
        return []
    (c, ci), (l, li) = conv, lstm
    if not (li and ci):
        words = "holds" if l > c else "does not hold"
    else:
        words = ("holds" if li[0] > ci[1] else "does not hold" if li[1] < ci[0]
                 else "not shown (the intervals overlap)")
    return [claim(speedups[b, "lstm_cell"], "granularity", words, lstm=l, conv=c)]


def _first_call(times, b):
    g = times.get((b, "matmul10", "graph"))
    if not g:
        return []
    ratio = g["first_call_s"] / g["second_call_s"]
    return [claim(g, "first_call", "holds" if ratio >= FIRST_CALL_FACTOR else "differs",
                  factor=FIRST_CALL_FACTOR, ratio=ratio, first_call_s=g["first_call_s"])]


def _pitfalls(times, b):
    out = []
    for name in sorted({w.split(":", 1)[1] for bb, w, _ in times
                        if bb == b and w.startswith("pitfall:")}):
        naive, fixed = (times.get((b, f"pitfall:{name}", v)) for v in ("naive", "fixed"))
        if naive and fixed:
            n, f = naive["traces"], fixed["traces"]
            out.append(claim(fixed, f"pitfall:{name}", "holds" if n > f else "does not hold",
                             naive_traces=n, fixed_traces=f))
        elif fixed:
            out.append(claim(fixed, f"pitfall:{name}", "differs",
                             reason="the naive form is refused"))
    return out


BY_VERDICT = {"faster": "holds", "slower": "differs"}  # else the verdict's own words


def _control(times, speedups, b):
    out = []
    for w in CONTROL:
        e, g = times.get((b, w, "eager")), times.get((b, w, "graph"))
        if not e:
            continue
        if not g:
            out.append(claim(e, f"control:{w}", "does not hold", reason="not capturable"))
        elif g["traces"] == 0:
            out.append(claim(g, f"control:{w}", "does not hold",
                             reason="nothing captured, runs eagerly"))
        else:
            rec = speedups[b, w]
            out.append(claim(g, f"control:{w}", BY_VERDICT.get(rec["verdict"], rec["verdict"]),
                             speedup=rec))
    return out


def _vectorized(times, b):
    best = {w: min((r["estimate"] for (bb, ww, _), r in times.items() if bb == b and ww == w),
                   default=None) for w in ("square_naive", "square_vectorized")}
    if None in best.values():
        return []
    ratio = best["square_naive"] / best["square_vectorized"]
    anchor = next(r for (bb, w, _), r in sorted(times.items()) if bb == b and w == "square_naive")
    # two best times, no interval: the ratio as a point against the noise band
    return [claim(anchor, "vectorized", "holds" if beyond(ratio, ratio) == "above"
                  else "does not hold", ratio=ratio)]


def pipeline_index(records):
    """{(backend, model, variant, loader): {kind: record}} of the pipeline records."""
    idx = {}
    for r in records:
        if r["phase"] == "pipeline" and r["kind"] in PIPELINE_KINDS:
            idx.setdefault((r["backend"], r["model"], r["variant"], r["case"]), {})[r["kind"]] = r
    return idx


def loader_against_baseline(found):
    """('slower', 'faster' or 'n.s.', baseline ÷ this loader) of a loader's loader_ratio record."""
    rec = found["loader_ratio"]
    return rec["verdict"] if decided(rec) else "n.s.", rec["estimate"]


def per_step(found):
    """(input wait, the rest of the step) in seconds per step."""
    wait = found["input_wait_per_step"]["estimate"]
    return wait, found["loader_step_time"]["estimate"] - wait


def pipeline_claims(records):
    """Per backend: article 003's claim (`parallel` and `cache` slower than the baseline) and the
    loader to use, each a claim record."""
    idx = pipeline_index(records)
    out = []
    for backend in sorted({k[0] for k in idx}):
        pairs = sorted({(m, v) for b, m, v, _ in idx if b == backend})
        parts = [p for name in CLAIMED_SLOWER if (p := _slower_part(idx, backend, pairs, name))]
        anchor = next(found["epoch_time"] for k, found in sorted(idx.items()) if k[0] == backend)
        if parts:
            shares = [p["counts"]["slower"] / len(p["pairs"]) for p in parts]
            words = ("holds" if min(shares) == 1 else "does not hold" if max(shares) == 0
                     else "holds in part")
            waits = [per_step(found)[0] / found["loader_step_time"]["estimate"]
                     for (b, _, _, n), found in idx.items() if b == backend and n == BASELINE]
            out.append(claim(anchor, "loaders_slower", words, parts=parts,
                             wait_share=(min(waits), max(waits))))
        name, fields = _pick(idx, backend, pairs)
        out.append(claim(anchor, "loader_to_use", name, **fields))
    return out


def _slower_part(idx, backend, pairs, name):
    """One loader against the baseline over every model × variant pair, or None."""
    keys = [(m, v) for m, v in pairs
            if (backend, m, v, BASELINE) in idx and (backend, m, v, name) in idx]
    if not keys:
        return None
    both = [(idx[(backend, m, v, BASELINE)], idx[(backend, m, v, name)]) for m, v in keys]
    found = [loader_against_baseline(other) for _, other in both]
    wait, rest = ([1e3 * (per_step(o)[i] - per_step(b)[i]) for b, o in both] for i in (0, 1))
    return {"loader": name, "counts": Counter(kind for kind, _ in found),
            "pairs": [(m, v, {k: other["loader_ratio"][k]
                             for k in ("estimate", "low", "high", "interval", "mark")})
                      for (m, v), (_, other) in zip(keys, both)],
            "wait_ms": median(wait), "rest_ms": median(rest)}


def _pick(idx, backend, pairs):
    """(the loader, its fields): the one fastest in most model × variant pairs, where it is
    faster than the baseline beyond the paired interval; else the baseline, the simplest."""
    wins, gains = Counter(), defaultdict(list)
    for m, v in pairs:
        runs = {n: idx[(backend, m, v, n)] for n in LOADERS if (backend, m, v, n) in idx}
        best = min(runs, key=lambda n: runs[n]["epoch_time"]["estimate"])
        base = runs.get(BASELINE)
        if base and best != BASELINE and loader_against_baseline(runs[best])[0] != "faster":
            best = BASELINE  # not beyond the interval (or spread): keep the simplest loader
        wins[best] += 1
        if base and best != BASELINE:
            gains[best].append(loader_against_baseline(runs[best])[1])
    name, count = wins.most_common(1)[0]
    if count * 2 <= len(pairs):  # no loader best in most pairs: keep the simplest
        return BASELINE, {"wins": None, "pairs": len(pairs), "gain": None}
    gain = max(gains[name]) if gains[name] and name != BASELINE else None
    return name, {"wins": count, "pairs": len(pairs), "gain": gain}
