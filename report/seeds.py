"""The source articles' own claims beside this run's figures (article 000's: report.retrace)."""
from report.ratios import SAME, gain_limit, side
from report.text import interval_cell

ARTICLE = "the article's"
SEED_004 = (63.7166, 56.6426)  # five epochs of the MNIST CNN, eager then @static_graph (GPU)
SEED_004_DEPENDS = "docs/METHOD.md#seed-004-what-moves-the-static-arm"


def against(rec, figure, name):
    """What a run's interval says of a published ratio `figure`: which side of it the interval
    lies on, and whether this run gains at all."""
    where = side(rec, figure)
    if where == "above":
        return f"a larger gain than {name} {figure:.2f}×: the interval lies above it"
    if where == "below" and rec["verdict"] == "faster":
        return f"a smaller gain than {name} {figure:.2f}×: the interval lies below it"
    if where == "below":
        half = (rec["high"] - rec["low"]) / 2 / rec["estimate"]
        return (f"no faster here (±{half:.0%}): the interval lies below {name} {figure:.2f}×")
    if rec["verdict"] == SAME:
        return (f"this run cannot tell {name} {figure:.2f}× from no gain: its interval allows "
                f"anything up to {gain_limit(rec['high'])}; a narrower one needs more rounds")
    return f"{name} {figure:.2f}× holds here: the interval contains it and excludes 1"


def seed_004_text(records):
    """Whether source article 004's 1.12× for Chainer's `@static_graph` on the MNIST CNN holds in
    this run ('' without the paired train speedup)."""
    found = [r for r in records if r["kind"] in ("focus_speedup", "speedup")
             and r["backend"] == "chainer" and r["model"] == "mnist_cnn" and r["variant"] == "graph"
             and r["phase"] == "train" and r["precision"] == "float32" and r["interval"]]
    rec = min(found, key=lambda r: r["kind"] != "focus_speedup", default=None)  # the seeds job's
    if rec is None:
        return ""
    seed = SEED_004[0] / SEED_004[1]
    low, high = rec["low"], rec["high"]
    half = (high - low) / 2 / rec["estimate"]
    machine = f" `{rec['machine']}`" if rec.get("machine") else " this machine"
    return (f"**Source article 004** (Chainer `@static_graph` on this MNIST CNN, five epochs on "
            f"the article's GPU: {SEED_004[0]:.1f} s → {SEED_004[1]:.1f} s, {seed:.2f}×): on the "
            f"CPU of{machine} the train step is {interval_cell(rec['estimate'], low, high)} "
            f"(±{half:.1%}, {rec['processes']} processes × {rec['rounds']} rounds, "
            f"`{rec['run']}`): {against(rec, seed, ARTICLE)}.{_depends(rec)}")


def _depends(rec):
    """What the figure depends on, from its own run: how far its processes scatter."""
    spread = rec.get("variance_components") or {}
    if spread.get("process_sd") is None:
        return ""
    return (f" It depends on the process, how long it has run and how its memory is paged "
            f"([what moves it]({SEED_004_DEPENDS})), more than on how the chain is built: between "
            f"its processes the log ratio scatters {spread['process_sd']:.1%} (sd; "
            f"{spread['round_sd']:.1%} between rounds of one process).")
