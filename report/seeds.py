"""The seeds' own claims beside this run's figures (seed 000's retracing ratio: report.retrace)."""
from report.ratios import SAME, gain_limit
from report.text import interval_cell

SEED_004 = (63.7166, 56.6426)  # five epochs of the MNIST CNN, eager then @static_graph (GPU)


def seed_004_text(records):
    """Whether seed 004's 1.12× for Chainer's `@static_graph` on the MNIST CNN holds in this run
    ('' without the paired train speedup)."""
    rec = next((r for r in records if r["kind"] == "speedup" and r["backend"] == "chainer"
                and r["model"] == "mnist_cnn" and r["variant"] == "graph" and r["phase"] == "train"
                and r["precision"] == "float32" and r["interval"]), None)
    if rec is None:
        return ""
    seed = SEED_004[0] / SEED_004[1]
    low, high = rec["low"], rec["high"]
    if not low <= seed <= high:
        verdict = f"the seed's {seed:.2f}× does not hold here: it lies outside the interval"
    elif rec["verdict"] == SAME:
        verdict = (f"this run cannot tell the seed's {seed:.2f}× from no gain: its interval "
                   f"allows anything up to {gain_limit(high)}; a narrower one needs more rounds")
    else:
        verdict = f"the seed's {seed:.2f}× holds here: it lies inside the interval, which excludes 1"
    half = (high - low) / 2 / rec["estimate"]
    return (f"**Seed 004** (Chainer `@static_graph` on this MNIST CNN, five epochs on a GPU: "
            f"{SEED_004[0]:.1f} s → {SEED_004[1]:.1f} s, {seed:.2f}×): on this CPU the train step "
            f"is {interval_cell(rec['estimate'], low, high)} (±{half:.1%}, "
            f"{rec['processes']} processes × {rec['rounds']} rounds, `{rec['run']}`): {verdict}.")
