"""The source articles' own claims beside this run's figures (article 000's: report.views.retrace)."""
from machines import short_name
from report.build.ratios import decided, gain_limit, half_width, side
from report.views.text import interval_cell, label

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
        half = half_width(rec)
        return (f"no faster here (±{half:.0%}): the interval lies below {name} {figure:.2f}×")
    if not decided(rec):
        return (f"this run cannot tell {name} {figure:.2f}× from no gain: its interval allows "
                f"anything up to {gain_limit(rec['high'])}; a narrower one needs more rounds")
    return f"{name} {figure:.2f}× holds here: the interval contains it and excludes 1"


def seed_004_text(records, gpu_records=(), brief=False):
    """Whether source article 004's 1.12× for Chainer's `@static_graph` on the MNIST CNN holds on
    this machine and, the article's own kind of hardware, on a GPU measured (`gpu_records`: other
    machines' records); '' without a paired train speedup on either; `brief`: what it depends on
    as a link only."""
    found = [_seed_004_record(records), _seed_004_record(
        [r for r in gpu_records if r.get("device") not in (None, "cpu")])]
    if not any(found):
        return ""
    seed = SEED_004[0] / SEED_004[1]
    figures, said = [], None
    for rec in filter(None, found):
        figure, verdict = _figure(rec, seed, first=not figures)
        figures.append(figure + (": the same" if verdict == said else f": {verdict}"))
        said = verdict
    figures = "; ".join(figures)
    return (f"**Source article 004** (Chainer `@static_graph` on this MNIST CNN, five epochs on "
            f"the article's GPU: {SEED_004[0]:.1f} s → {SEED_004[1]:.1f} s, {seed:.2f}×): "
            f"{figures}." + (f" [What moves it]({SEED_004_DEPENDS})." if brief
                             else _depends(found[0]) if found[0] else ""))


def _seed_004_record(records):
    """The paired float32 train speedup of Chainer's `graph` on the MNIST CNN (the seeds job's
    focus group first), or None."""
    found = [r for r in records if r["kind"] in ("focus_speedup", "speedup")
             and r["backend"] == "chainer" and r["model"] == "mnist_cnn" and r["variant"] == "graph"
             and r["phase"] == "train" and r["precision"] == "float32" and r["interval"]]
    return min(found, key=lambda r: r["kind"] != "focus_speedup", default=None)


def _figure(rec, seed, first=True):
    """('on `machine` the train step is ...' (`first`; else without 'the train step is'), what
    it says of the article's)."""
    half = half_width(rec)
    machine = f" the {short_name(rec['machine'])}" if rec.get("machine") else " this machine"
    return (f"on{machine}{' the train step is' if first else ''} "
            f"{interval_cell(rec)} (±{half:.1%}, {rec['processes']} "
            f"processes × {rec['rounds']} rounds, {label(rec)})"), against(rec, seed, ARTICLE)


def _depends(rec):
    """What the figure depends on, from its own run: how far its processes scatter."""
    spread = rec.get("variance_components") or {}
    between, within = spread.get("process_sd"), spread.get("round_sd")
    if between is None:
        return ""
    # a pooled figure's spread is its newest job's, the one run whose processes it describes
    pooled = rec.get("pooled_runs")
    its = f"In `{rec['run']}` its" if pooled else f"Its {rec['processes']}"
    whose = f"the processes of `{rec['run']}`" if pooled else "its processes"
    if f"{between:.1%}" == "0.0%":  # the between-process component is estimated at (or near) zero
        return (f" {its} processes differ no more than their rounds explain "
                f"(the log ratio's sd between processes is estimated at 0; {within:.1%} between "
                f"rounds of one process; [what moved it in other runs]({SEED_004_DEPENDS})).")
    return (f" It depends on the process, how long it has run and how its memory is paged "
            f"([what moves it]({SEED_004_DEPENDS})), more than on how the chain is built: between "
            f"{whose} the log ratio scatters {between:.1%} (sd; {within:.1%} between rounds of one "
            f"process).")
