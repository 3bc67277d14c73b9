"""The one rule for every ratio, verdict and break-even the report prints (statistics: stats.py)."""
import math

CI = "95% paired bootstrap"
UNPAIRED = "unpaired (saved before paired timing): no interval"


def includes_one(low, high):
    """True when an interval cannot tell the ratio from 1 (no measurable difference)."""
    return low <= 1 <= high


def gain_limit(high):
    """The largest gain an interval with upper end `high` leaves open, as a percentage (under
    1%, one significant digit: an upper end of 1.0004 leaves 0.04%, not '0.0%')."""
    gain = max(0.0, high - 1)
    return f"{gain:.0%}" if gain >= 0.01 else f"{gain * 100:.1g}%"


def gain_bound(high):
    """The smallest gain a run could have detected: 'no gain larger than 4%'."""
    return f"no gain larger than {gain_limit(high)}"


def spread_overlaps(a, b):
    """True when two results' interquartile ranges overlap: for an unpaired ratio, no verdict."""
    return a.stats["q1"] <= b.stats["q3"] and b.stats["q1"] <= a.stats["q3"]


def ratio(saved, base, other, missing):
    """base ÷ other as record fields: the paired ratio `saved` with its interval, else the ratio
    of the two results' medians (unpaired: no interval), else no figure with `missing`."""
    if saved is not None:
        return {"estimate": saved.estimate, "low": saved.low, "high": saved.high,
                "interval": CI, "significant": significant(saved)}
    if base is None or other is None:
        return {"estimate": None, "note": missing}
    return {"estimate": base.median / other.median, "note": UNPAIRED,
            "unpaired_significant": not spread_overlaps(base, other)}


def significant(saved):
    """Whether a saved paired ratio excludes 1: as its suite said, else from its interval."""
    return saved.significant if saved.significant is not None else not includes_one(saved.low,
                                                                                    saved.high)


def clear(rec):
    """True when a ratio record differs from 1 beyond chance: its paired interval excludes 1, or
    (unpaired) the two interquartile ranges do not overlap."""
    return rec["significant"] if rec["interval"] else rec.get("unpaired_significant", False)


# the noise threshold: a ratio within ±3% of 1 (the jobs' precision target) is no difference to
# report, as criterion.rs calls a change inside its ±2% threshold "no change"
NOISE = 0.03
SAME = f"within {NOISE:.0%}"
BOTTOM, TOP = 1 / (1 + NOISE), 1 + NOISE  # the noise band's ends
UNDECIDED = "undecided"


def beyond(low, high):
    """Where an interval lies against the noise band [1/(1+NOISE), 1+NOISE]: "above" or "below"
    it entirely, "inside" it, "both" (past each end), or "one" (past one end only)."""
    if low > TOP:
        return "above"
    if high < BOTTOM:
        return "below"
    if low >= BOTTOM and high <= TOP:
        return "inside"
    return "both" if low < BOTTOM and high > TOP else "one"


def undecided_by(rec):
    """Why a paired ratio cannot be told apart from 1 by more or less than NOISE, and what would
    decide it; None where it can."""
    if not rec["interval"]:
        return None if clear(rec) else ("unpaired: the two spreads overlap; a paired rerun would "
                                        "decide it")
    low, high, aa_low, aa_high = rec["low"], rec["high"], rec.get("aa_low"), rec.get("aa_high")
    if aa_low is not None and beyond(aa_low, aa_high) != "inside" \
            and low <= aa_high and aa_low <= high:
        return (f"its A/A control [{aa_low:.3f}, {aa_high:.3f}] reaches as far: a quieter "
                "machine would decide it")
    where = beyond(low, high)
    if where == "both":
        return (f"its interval [{low:.3g}, {high:.3g}] spans the ±{NOISE:.0%} band: more "
                "processes or rounds would decide it")
    if where == "one" and not BOTTOM <= rec["estimate"] <= TOP:
        return (f"its estimate lies past ±{NOISE:.0%} and its interval reaches inside: a narrower "
                "interval would decide it")
    return None


def rules_out(found, low, high):
    """Whether an interval [low, high] leaves no room for a verdict `found` of the same row on
    another machine ("faster" needs a figure past 1 + NOISE, "slower" one below the band, SAME
    one inside it); False without an interval."""
    if low is None or high is None:
        return False
    return {"faster": high <= TOP, "slower": low >= BOTTOM,
            SAME: low > TOP or high < BOTTOM}.get(found, False)


def verdict(rec, above="faster", below="slower"):
    """The one verdict of a ratio record, saved on it for every view: `above` (its interval past
    1 + NOISE), `below`, SAME (within the band), UNDECIDED (ratios.undecided_by says why), or
    None without a figure. An unpaired ratio: by its interquartile ranges (ratios.clear)."""
    if rec.get("estimate") is None:
        return None
    if not rec["interval"]:
        return (below if rec["estimate"] < 1 else above) if clear(rec) else UNDECIDED
    if undecided_by(rec):
        return UNDECIDED
    where = beyond(rec["low"], rec["high"])
    return above if where == "above" else below if where == "below" else SAME


def meaning(rec, above="faster", below="slower"):
    """A ratio record's verdict fields: its verdict and, where undecided, what would decide it."""
    found = verdict(rec, above, below)
    return {"verdict": found, "verdict_note": undecided_by(rec) if found == UNDECIDED else None,
            "mark": "~" if rec["interval"] and includes_one(rec["low"], rec["high"]) else ""}


NO_MEANING = {"verdict": None, "verdict_note": None, "mark": None}  # a figure that is no ratio


def decided(rec):
    """True when a ratio record's verdict names a direction (faster, slower, more, less)."""
    return rec.get("verdict") not in (None, SAME, UNDECIDED)


def pays(verdicts):
    """Whether one choice pays over the ratios that measured it (mixed precision over a backend's
    train steps): more of them clearly faster than clearly slower."""
    return sum(v == "faster" for v in verdicts) > sum(v == "slower" for v in verdicts)


def break_even(graph_first, graph_step, eager_first, eager_step):
    """Fewest steps n with graph_first + (n-1) graph_step <= eager_first + (n-1) eager_step.

    None when the graph step is not faster (it never catches up)."""
    extra = graph_first - eager_first
    if extra <= 0:
        return 1
    gain = eager_step - graph_step
    return None if gain <= 0 else 1 + math.ceil(extra / gain)


NO_GAIN = f"no gain past ±{NOISE:.0%}"
SLOW_PAYBACK = 100  # train steps: a graph variant paid back only later is no choice for a short run


def break_even_range(cold, eager_cold, eager_step, speedup, low=None, high=None, jobs=()):
    """(steps, fewest, most, note) until a first call of `cold` s is paid back by a train step
    `speedup`× eager's; the range from the speedup's 95% interval (low, high) where there is one,
    widened to each repeat job's own break-even (`jobs`, None where one never paid: then no
    upper end, and the note counts those jobs). No steps
    where the interval does not lie past 1 + NOISE ('no gain past ±3%', the verdict's threshold)
    or lies below 1 / (1 + NOISE) ('never (slower)', the verdict "slower")."""
    steps = lambda s: break_even(cold, eager_step / s, eager_cold, eager_step)
    if low is None:
        n = steps(speedup)
        return n, None, None, "never (graph step not faster)" if n is None else "unpaired"
    if cold > eager_cold and beyond(low, high) == "below":  # the verdict "slower"
        return None, None, None, "never (slower)"
    if cold > eager_cold and beyond(low, high) != "above":
        return None, None, None, f"{NO_GAIN}: " + (f"at most {gain_limit(high)}" if high > 1
                                                   else "its interval lies below 1")
    paid = [n for n in jobs if n is not None]
    never = len(jobs) - len(paid)  # a job whose own graph step was not faster: no upper end
    return (steps(speedup), min([steps(high), *paid]),
            None if never else max([steps(low), *paid]),
            f"{never} of {len(jobs)} jobs never paid back" if never else None)


def side(rec, figure):
    """Where a ratio's interval lies against a published figure: 'above' it (a larger ratio),
    'below' it, or 'contains' it; None without an interval."""
    if not rec.get("interval"):
        return None
    return "above" if rec["low"] > figure else "below" if rec["high"] < figure else "contains"


def half_width(rec):
    """Half the width of a ratio record's 95% interval, relative to its estimate; None without."""
    if not rec.get("interval") or not rec.get("estimate"):
        return None
    return (rec["high"] - rec["low"]) / 2 / rec["estimate"]


def target(rec):
    """Whether a paired ratio reached its job's precision target, decided once for every view:
    "reached", why it did not ("time budget", "process cap"), "eager step under 5 ms" (the job
    does not aim at it), or None where its run set no target."""
    goal, half = rec.get("target_half_width"), half_width(rec)
    if goal is None or half is None:
        return None
    if half <= goal:
        return "reached"
    if rec.get("half_width") is None:  # the job left it out of the target: a short eager step
        return f"eager step under {rec.get('min_step_s', 0.005) * 1e3:.0f} ms"
    if rec.get("pooled_runs") and rec.get("stopped_by") == "target":
        return "jobs differ"  # each job reached it; the spread between them did not
    return rec.get("stopped_by") or "not reached"


def target_minutes(rec):
    """The minutes a ratio that missed its target by time would need at its group's rate (an
    interval narrows as 1/sqrt(time), processes and rounds alike); None otherwise."""
    half, goal = half_width(rec), rec.get("target_half_width")
    if not (rec.get("group_seconds") and goal and half and half > goal) or rec.get("pooled_runs"):
        return None
    return rec["group_seconds"] * (half / goal) ** 2 / 60
