"""Figures of a user's model from its measurement (user/measure.py): speedups with intervals, first
call, break-even, retrace, memory, accuracy, as records built by figure.labelled (summary.json's
schema and verdicts), and the facts its report names beside them."""
import math
import statistics

from catalog import STEADY_AA as AA
from report.build import best
from report.build.ratios import CI
from report.build.ratios import break_even_range as ratio_break_even
from report.build.figure import labelled

MIB = 2 ** 20


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _times(m, phase, arm):
    return [child["times"][phase][arm] for child in m["steady"]]


def step_s(m, phase, arm):
    """Median step time of an arm over every round of every steady process."""
    return median([t for process in _times(m, phase, arm) for t in process])


def speedup(m, phase, arm):
    """eager ÷ arm (AA: eager ÷ the second eager), with its paired bootstrap interval."""
    import stats  # NumPy, imported when a figure needs it
    return stats.ratio(_times(m, phase, "eager"), _times(m, phase, arm))


def first_call(m, arm, cache="cold", phase="train"):
    """Median first train (or inference, after the train's) call over the fresh processes."""
    key = "first_call_s" if phase == "train" else "infer_first_call_s"
    return median([c.get(key) for c in m[cache].get(arm, [])])


def peak_bytes(m, arm):
    """Median peak RSS of the arm's cold first-call processes, in bytes."""
    return median([c["peak_rss_bytes"] for c in m["cold"].get(arm, [])])


def break_even_range(m, arm, found=None):
    """(steps, low, high, note): steps until the cold first call is paid back by the train gain
    (`found`: the arm's train speedup, when the caller has it)."""
    found = found or speedup(m, "train", arm)
    return ratio_break_even(first_call(m, arm), first_call(m, "eager"), step_s(m, "train", "eager"),
                            found.estimate, found.low, found.high)


def retrace(m, arm):
    """The retrace run of the first cold child: total, traces, new- vs seen-shape time, signals."""
    child = m["cold"][arm][0]
    steps, seen, new, old = child["retrace"], set(), 0.0, 0.0
    for s in steps:
        if tuple(s["shape"]) in seen:
            old += s["s"]
        else:
            new += s["s"]
        seen.add(tuple(s["shape"]))
    first = child["traces_after_first"]
    return {"total_s": sum(s["s"] for s in steps), "steps": len(steps), "distinct": len(seen),
            "traces": (steps[-1]["traces"] if steps else first) - first, "new_shape_s": new,
            "seen_shape_s": old, "held_mib": steps[-1]["held_bytes"] / MIB if steps else None,
            "signals": {k: v for k, v in child.get("log_signals", {}).items() if v},
            "cut": len(steps) < child["retrace_planned"] and f"cut at {len(steps)}/{child['retrace_planned']}"}


def accuracy(m, arm):
    """The worst accuracy check of the arm over the steady processes (None if it did not run)."""
    checks = [c["accuracy"][arm] for c in m["steady"] if arm in c["accuracy"]]
    if not checks:
        return None
    worst = max(checks, key=lambda c: (not c["match"], c["loss_max_abs_diff"]))
    return {**worst, "tolerance": m["steady"][0]["tolerance"],
            "steps": m["steady"][0]["accuracy_steps"]}


def ran(m):
    """The graph variants that produced steady times."""
    return [v for v in m["variants"] if v not in m["failed"]]


DIVERGED = 1e3  # a loss this many times its first step's has diverged, finite or not yet


def trail(m, arm):
    """Every train step's loss of the arm's first first-call process, in order ([] if none)."""
    child = next((c for cache in ("cold", "warm") for c in m[cache].get(arm, [])), {})
    return [*child.get("losses", []), *(s["loss"] for s in child.get("retrace", []))]


def diverged(m, arm):
    """Where the arm's loss grew past DIVERGED times its first step's, in words, or None: a loss
    that grows by orders of magnitude is no success even while it is finite (issue 52)."""
    losses = trail(m, arm)
    first = losses[0] if losses else None
    if not (isinstance(first, (int, float)) and math.isfinite(first) and first):
        return None
    for step, loss in enumerate(losses, 1):
        if math.isfinite(loss) and abs(loss) >= DIVERGED * abs(first):
            return f"loss grew from {first:.3g} to {loss:.3g} by train step {step}: it diverges"
    return None


def non_finite(m, arm):
    """Where the arm's loss (or inference outputs) stopped being finite, or grew by orders of
    magnitude, in words: a first-call process's (which keeps every step's loss), else a steady
    one's; None if none did (or the measurement predates the check)."""
    found = [c.get("non_finite") for cache in ("cold", "warm") for c in m[cache].get(arm, [])]
    found += [c.get("non_finite", {}).get(arm) for c in m["steady"]]
    return next((why for why in found if why), None) or diverged(m, arm)


def invalid(m, arm):
    """Why the arm's times are no figures: where its loss, or eager's, stopped being finite (they
    time NaN or inf arithmetic: shown as the suites show a non-finite loss, never as a figure);
    None while both stayed finite."""
    own, eager = non_finite(m, arm), non_finite(m, "eager")
    return own or (eager and f"eager's {eager}")


def shapes(m, arm="eager"):
    """The user's input shapes in the order the retrace run stepped through them."""
    return [tuple(s["shape"]) for s in m["cold"][arm][0]["retrace"]]


def retrace_fields(m, arm):
    """A retrace_total record's fields, named as sections.py names them: counts, the mean step at
    a new shape and at a seen one, the bytes held after, the log's signals."""
    r = retrace(m, arm)
    mean = lambda total, n: total / n if n else None
    new = len(set(shapes(m, arm)))
    return {"traces": r["traces"], "steps_done": r["steps"], "distinct_shapes": r["distinct"],
            "cut_short": bool(r["cut"]), "new_shape_s": mean(r["new_shape_s"], new),
            "seen_shape_s": mean(r["seen_shape_s"], r["steps"] - new),
            "held_after_bytes": None if r["held_mib"] is None else r["held_mib"] * MIB,
            "signals": r["signals"], "shapes": [list(x) for x in shapes(m, arm)]}


def wrong(m, arm):
    """Why an arm's answer is not to be used: its accuracy check failed (None if it passed)."""
    check = accuracy(m, arm)
    return "computes a different result from eager (accuracy check)" \
        if check is not None and not check["match"] else None


def cache_check(m, arm, cache):
    """"hit" where a cold first call of the arm hit the compile cache (in a run that cleared it),
    "missed" where a warm one missed it: not the call it stands for; None otherwise."""
    hits = [c.get("cache_hits") for c in m[cache].get(arm, []) if c.get("cache_hits") is not None]
    if cache == "cold" and any(hits) and m["plan"]["cold_cache"]:
        return "hit"
    if cache == "warm" and hits and not all(hits):
        return "missed"
    return None


# each profile's steady rounds, processes × rounds (suites/profiles.py, which needs numpy; a test
# keeps the two alike): an undecided run names the first profile that runs more
STEADY_ROUNDS = (("quick", 2 * 3), ("default", 3 * 10), ("paper", 5 * 10))
SHAPES_MARGIN = 1.1  # over the user's shapes, a variant this many times eager's total: pad them


def shapes_cost(m, arm):
    """True where the arm's run over two or more distinct user shapes took over SHAPES_MARGIN
    times eager's (padding or bucketing would pay); None while eager's loss is not finite."""
    if invalid(m, "eager"):
        return None
    found, eager = retrace(m, arm), retrace(m, "eager")
    return found["distinct"] > 1 and found["total_s"] > eager["total_s"] * SHAPES_MARGIN


def facts(m):
    """What the user report names beside the records of measurement `m`: framework, its Python
    (the jax env's differs from the others'), plan, the variants that ran or could not, why a
    loss was not finite, how many steps' losses were checked, the accuracy check's tolerance, the
    user's shapes, torch's graph breaks."""
    first, arms = m["steady"][0], ["eager", AA, *ran(m)]
    return {"framework": m["framework"], "framework_version": first["framework_version"],
            "python": (m.get("machine_info") or {}).get("python_version"),
            "threads": m["threads"], "device": m.get("device", "cpu"), "plan": m["plan"],
            "ran": ran(m), "failed": m["failed"],
            "invalid": {a: why for a in arms if (why := invalid(m, a))},
            "non_finite": {a: why for a in arms if (why := non_finite(m, a))},
            "losses_checked": len(trail(m, "eager")), "diverged": DIVERGED,
            "tolerance": first["tolerance"], "accuracy_steps": first["accuracy_steps"],
            "shapes": shapes(m), "graph_breaks": m["cold"]["eager"][0].get("graph_breaks")}


def measured(m, machine=None, run=None, commit=None, dirty=None):
    """(facts, records) of measurement `m`: what its report is drawn from; the facts carry the
    recommendation decided from the records."""
    found, recs = facts(m), records(m, machine, run, commit, dirty)
    return {**found, "recommendation": recommendation(found, recs)}, recs


def getter(recs):
    """get(kind, arm, phase, case) over one framework's records (None where there is none)."""
    found = {(r["kind"], r["variant"], r["phase"], r["case"]): r for r in recs}
    return lambda kind, arm, phase="train", case="steady": found.get((kind, arm, phase, case))


def recommendation(facts, recs):
    """What the user report answers, from the records' verdicts: `answer` ("no answer" where
    eager's loss is not finite, "undecided", "stay eager" or "compile"); `top`, the variant it
    names (undecided, stay eager) and `longer`, the profile that would run more rounds
    (undecided); `infer`, a variant faster for inference alone; `use`, the
    variant to compile with (over the user's shapes as they vary, the one that ran them fastest)
    and `per_step`, the one faster per step; `wrong`, the variants whose result differs."""
    get = getter(recs)
    if facts["non_finite"].get("eager"):
        return {"answer": "no answer"}
    train = {v: get("speedup", v) for v in facts["ran"] if get("speedup", v)}
    good = [v for v in train if not train[v]["known_wrong"]]
    out = {"wrong": [v for v in train if train[v]["known_wrong"]]}
    chosen = next((v for v in good if train[v]["best"]), None)
    undecided = [v for v in good if train[v]["verdict"] == "undecided"]
    if (chosen is None or train[chosen]["verdict"] != "faster") and undecided:
        ran = facts["plan"]["steady_processes"] * facts["plan"]["rounds"]
        return {**out, "answer": "undecided",
                "top": max(undecided, key=lambda v: train[v]["estimate"]),
                "longer": next((name for name, rounds in STEADY_ROUNDS if rounds > ran), None)}
    if chosen is None or train[chosen]["verdict"] != "faster":
        infer = [r for v in good if (r := get("speedup", v, "infer"))["verdict"] == "faster"]
        return {**out, "answer": "stay eager",
                "top": max(train, key=lambda v: train[v]["estimate"], default=None),
                "infer": max(infer, key=lambda r: r["estimate"])["variant"] if infer else None}
    retraced = lambda v: get("retrace_total", v, "retrace", "cold")
    # over varying shapes, the variant that ran the user's sequence fastest (complete runs)
    complete = [v for v in good if train[v]["verdict"] == "faster"
                and not retraced(v)["cut_short"]]
    varying = retraced("eager")["distinct_shapes"] > 1 and complete
    use = min(complete, key=lambda v: retraced(v)["estimate"]) if varying else chosen
    return {**out, "answer": "compile", "use": use, "per_step": chosen}


def records(m, machine, run, commit=None, dirty=None):
    """One record per figure, built by figure.labelled (summary.json's fields, the suites' record
    kinds and units); each bootstrap once."""
    base = {"machine": machine, "run": run, "commit": commit, "code": None, "dirty": dirty,
            "backend": m["framework"], "model": run, "precision": "float32",
            "processes": len(m["steady"]), "rounds": m["plan"]["rounds"]}
    floor = {}
    valid = [arm for arm in ["eager", *ran(m)] if not invalid(m, arm)]
    found = {(p, a): speedup(m, p, a) for p in ("train", "infer")
             for a in [AA, *ran(m)] if a in valid or a == AA and not invalid(m, AA)}
    if not invalid(m, AA):
        wide = max((found[p, AA] for p in ("train", "infer")), key=lambda r: r.high / r.low)
        floor = {"aa_floor_low": wide.low, "aa_floor_high": wide.high}
    out = []

    def add(variant, phase, kind, unit, estimate, low=None, high=None, interval=None,
            significant=None, note=None, case="steady", known_wrong=None, **fields):
        labels = {**base, "variant": variant, "phase": phase, "case": case,
                  "known_wrong": known_wrong}
        out.append(labelled(labels, kind, unit, estimate, low, high, interval, significant, note,
                            target=None, **floor, **fields))  # every FIELDS: a run sets no target
    for arm in ["eager", *ran(m)]:
        for phase in ("train", "infer") if arm not in valid else ():
            add(arm, phase, "step_time", "s", None, note=f"non-finite loss: {invalid(m, arm)}")
    for phase in ("train", "infer"):
        for arm in valid:
            add(arm, phase, "step_time", "s", step_s(m, phase, arm))
        for (p, arm), r in found.items():
            if p == phase:
                add(arm, phase, "aa_ratio" if arm == AA else "speedup", "x", r.estimate, r.low,
                    r.high, CI, r.significant, known_wrong=wrong(m, arm))
    for arm in valid:
        for cache in ("cold", "warm"):
            for phase in ("train", "infer"):
                if (s := first_call(m, arm, cache, phase)) is not None:
                    add(arm, phase, "first_call", "s", s, case=cache,
                        cache_check=cache_check(m, arm, cache))
        add(arm, "train", "memory_peak", "bytes", peak_bytes(m, arm), case="cold")
        add(arm, "retrace", "retrace_total", "s", retrace(m, arm)["total_s"], case="cold",
            note=retrace(m, arm)["cut"] or None, shapes_cost=shapes_cost(m, arm),
            **retrace_fields(m, arm))
    if (up := median([c.get("startup_s") for c in m["cold"].get("eager", [])])) is not None:
        add("eager", "construction", "startup_time", "s", up, case="cold")
    for arm in ran(m):
        if arm in valid:
            n, low, high, note = break_even_range(m, arm, found["train", arm])
            add(arm, "train", "break_even", "steps", n, low, high, CI if low else None, note=note,
                case="cold")
    for arm in [AA, *ran(m)]:
        if (check := accuracy(m, arm)) is not None:
            add(arm, "train", "accuracy_loss_diff", "abs", check["loss_max_abs_diff"],
                significant=not check["match"], note="mismatch" if not check["match"] else None,
                outputs_max_abs_diff=check["outputs_max_abs_diff"])
    for arm, reason in m["failed"].items():
        add(arm, "train", "failed", None, None, note=reason)
    rows = [r for r in out if r["kind"] == "speedup" and r["phase"] == "train"]
    times = lambda arm: _times(m, "train", arm)
    import stats  # NumPy, imported when a figure needs it
    best.flag(rows, *best.choose(rows, lambda a, b: best.as_ratio(stats.ratio(times(a),
                                                                              times(b)))))
    return out
