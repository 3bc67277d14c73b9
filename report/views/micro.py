"""Source article 001's claims, one table each, from the micro records."""
from report.views.text import aa_control, interval_cell

GUIDE = {"conv": 0.004799893 / 0.003768159, "lstm_cell": 0.006962984 / 0.003665485}  # source article 001


class Micro(dict):
    """{(backend, workload, variant): micro_time record}, with the speedup records."""

    def __init__(self, records):
        super().__init__({(r["backend"], r["case"], r["variant"]): r for r in records
                          if r["kind"] == "micro_time"})
        self.speedups = {(r["backend"], r["case"]): r for r in records
                         if r["kind"] == "micro_speedup"}
        self.claims = {(r["backend"], r["case"]): r for r in records
                       if r["kind"] == "claim" and r["phase"] == "micro"}

    def said(self, case):
        """The claim records of `case` ('granularity', 'pitfall:', ...: a prefix), by backend."""
        return [r for (b, c), r in self.claims.items() if c.startswith(case)]


def _speedup(idx, backend, workload):
    """(eager ÷ graph, its cell, (low, high) or None) from the micro_speedup record: paired with
    its 95% interval, else the ratio of medians with '~' where their IQRs overlap."""
    rec = idx.speedups.get((backend, workload))
    if rec is None or rec["estimate"] is None:
        return None, "—", None
    if rec["interval"]:
        return rec["estimate"], interval_cell(rec), (rec["low"], rec["high"])
    mark = " ~" if rec["mark"] else ""
    return rec["estimate"], f"{rec['estimate']:.2f}×{mark}", None


def _us(seconds):
    return f"{seconds * 1e6:,.1f}"


def granularity_table(idx, backends):
    """Claim 1: graph mode pays for many small ops (LSTM cell), little for one big conv."""
    lines = ["| workload | guide (TF 2.0) | " + " | ".join(backends) + " |",
             "|---|---|" + "---|" * len(backends)]
    for workload in ("conv", "mlp_step", "lstm_cell"):
        guide = f"{GUIDE[workload]:.2f}×" if workload in GUIDE else "—"
        lines.append(f"| {workload} speedup | {guide} | "
                     + " | ".join(_speedup(idx, b, workload)[1] for b in backends) + " |")
    per_op = []
    for b in backends:
        eager, graph = idx.get((b, "dispatch", "eager")), idx.get((b, "dispatch", "graph"))
        per_op.append(" / ".join(_us(r["estimate"] / r["ops_per_call"]) if r else "—"
                                 for r in (eager, graph)))
    lines.append("| dispatch µs per op (eager / graph) | — | " + " | ".join(per_op) + " |")
    verdicts = [f"{c['backend']}: {c['claim']} (LSTM cell {c['lstm']:.2f}× vs conv "
                f"{c['conv']:.2f}×)" for c in idx.said("granularity")]
    return "\n".join(lines), verdicts


def aa_line(records):
    """The micro groups' A/A control: how many eager ÷ second-eager intervals contain 1, and the
    widest; '' for older runs without it."""
    pairs = sorted((r for r in records if r["kind"] == "aa_ratio" and r["phase"] == "micro"),
                   key=lambda r: (r["backend"], r["case"]))
    if not pairs:
        return ""
    return aa_control(pairs, "eager ÷ a second eager of the same workload, timed like a real "
                      "pair", lambda w: f"{w['backend']}/{w['case']}", "these runs' noise floor")


def first_call_table(idx, backends):
    """Claim 2: the first call pays tracing / compiling; later calls do not."""
    lines = ["| backend | variant | first call ms | second call ms | steady ms | first ÷ second |",
             "|---|---|---|---|---|---|"]
    for b in backends:
        for v in ("eager", "graph"):
            r = idx.get((b, "matmul10", v))
            if r:
                first, second = r["first_call_s"], r["second_call_s"]
                lines.append(f"| {b} | {v} | {first * 1e3:.2f} | {second * 1e3:.3f} | "
                             f"{r['estimate'] * 1e3:.3f} | {first / second:,.0f} |")
    said = idx.said("first_call")
    verdicts = [f"{c['backend']}: {c['claim']} (graph first call {c['first_call_s'] * 1e3:.1f} "
                f"ms, {c['ratio']:,.0f}× the second)" for c in said]
    return "\n".join(lines), verdicts, said and said[0]["factor"]


def pair_table(idx, backends, workloads, note):
    """Steady times of eager and graph per workload, with graph's trace count."""
    lines = ["| workload | " + " | ".join(f"{b} eager µs | {b} graph µs (traces)" for b in backends)
             + " |", "|---|" + "---|---|" * len(backends)]
    for w in workloads:
        cells = []
        for b in backends:
            e, g = idx.get((b, w, "eager")), idx.get((b, w, "graph"))
            cells.append(_us(e["estimate"]) if e else "—")
            breaks = g.get("graph_breaks") if g else None
            extra = ("" if not breaks else ", no graph captured" if breaks < 0  # explain's -1
                     else f", {breaks} breaks")
            cells.append(f"{_us(g['estimate'])} ({g['traces']}{extra})" if g else "skipped")
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{note}"


def left_out(claim, workloads, others):
    """One line for a claim whose workloads this machine's runs left out, naming where its
    figures are: another machine's section ([(machine, records)]), else the profile that runs it."""
    where = [m for m, recs in others if any(r["kind"] == "micro_time" and r["case"] in workloads
                                            for r in recs)]
    return (f"**{claim}**: left out of this machine's runs by their profile; its figures: "
            + (", ".join(f"machine `{m}`'s section" for m in where) if where
               else "none yet (`--profile paper` measures them)") + ".")


def micro_section(records, others=()):
    """The micro section: one table per claim, each with its verdicts; a claim this machine's
    runs left out is one line saying where its figures are (others: [(machine, records)])."""
    idx = Micro(records)
    if not idx:
        return ""
    backends = sorted({b for b, _, _ in idx})
    parts = []
    table, verdicts = granularity_table(idx, backends)
    parts += ["Speedups are eager ÷ graph: paired (both timed in interleaved rounds in the same "
              "fresh processes) with their 95% interval, `~` where it includes 1; runs saved "
              "before pairing show the ratio of medians, `~` where the IQRs overlap.", ""]
    if line := aa_line(records):
        parts += [line, ""]
    parts += ["**1. Op granularity** — the guide: a big convolution gains little (1.27×), an "
              "LSTM cell of small ops a lot (1.90×).", "", table, "",
              "Verdict: " + "; ".join(verdicts) + "." if verdicts else left_out(
                  "Its verdict (conv against lstm_cell)", ("conv", "lstm_cell"), others), ""]
    table, verdicts, factor = first_call_table(idx, backends)
    parts += [f"**2. First vs later calls** of a 10×10 matmul (the claim holds where the graph "
              f"variant's first call costs at least {factor}× its second).", "", table, "",
              "Verdict: " + "; ".join(verdicts) + ".", ""] if verdicts else [
        left_out("2. First vs later calls", ("matmul10",), others), ""]
    if pitfalls := pitfall_table(idx, backends):
        parts += ["**3. Tracing pitfalls**: traces / compiles / schedules for a fixed call "
                  "sequence (time of the whole sequence, cold), and the same with the fix.", "",
                  pitfalls, "", "Verdict (the pitfall costs extra traces and the fix removes "
                  "them): " + "; ".join(pitfall_verdicts(idx)) + ".", ""]
    parts += ["**4. Data-dependent control flow** (TF: AutoGraph; PyTorch: dynamo, graph breaks "
              "allowed; Chainer: not capturable by @static_graph).", "",
              pair_table(idx, backends, ("square_if_positive", "sum_even", "fizzbuzz", "train_loop"),
                         "Graph results equal eager's (tests/test_micro.py). A graph count of 0 "
                         "means nothing was captured: the 'graph' variant ran eagerly."), "",
              "Verdict (graph mode runs the control flow, faster than eager): "
              + "; ".join(control_verdicts(idx)) + ".", ""]
    vector = [f"{c['backend']}: {c['claim']} ({c['ratio']:.0f}× faster)"
              for c in idx.said("vectorized")]
    parts += ["**5. Per-element loop vs one vectorized op.**", "",
              pair_table(idx, backends, ("square_naive", "square_vectorized"),
                         "Verdict (vectorized beats the per-element loop), best variant of each: "
                         + "; ".join(vector) + "." if vector else left_out(
                             "Its verdict (square_vectorized)", ("square_vectorized",), others)),
              ""]
    return "\n".join(parts)


PITFALL_FIXES = {
    "python_numbers": "pass tensors (tf.constant / torch.tensor / an array), not Python numbers",
    "function_in_loop": "create the graph function once, outside the loop",
    "changing_shapes": "an input signature with None dims (TF) / dynamic=True (PyTorch)",
}


def pitfall_table(idx, backends):
    """Claim 3: each pitfall's count and time, naive vs fixed, per backend."""
    rows = sorted({w.split(":", 1)[1] for _, w, _ in idx if w.startswith("pitfall:")})
    if not rows:
        return ""
    lines = ["| pitfall (fix) | " + " | ".join(f"{b} naive | {b} fixed" for b in backends) + " |",
             "|---|" + "---|---|" * len(backends)]
    for name in rows:
        cells = []
        for b in backends:
            for v in ("naive", "fixed"):
                r = idx.get((b, f"pitfall:{name}", v))
                cells.append(f"{r['traces']} ({r['estimate'] * 1e3:.1f} ms)" if r
                             else "refused / —")
        lines.append(f"| {name} ({PITFALL_FIXES.get(name, '')}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def pitfall_verdicts(idx):
    """Per backend and pitfall: holds when naive traces more than fixed."""
    return [f"{c['backend']}/{c['case'].split(':', 1)[1]}: {c['claim']} "
            + (f"({c['reason']})" if c.get("reason") else
               f"({c['naive_traces']} vs {c['fixed_traces']})") for c in idx.said("pitfall:")]


def control_verdicts(idx):
    """Per backend: which control-flow workloads were captured and run faster as a graph."""
    out = []
    for c in idx.said("control:"):
        if c.get("reason"):
            why = c["reason"]
        else:
            rec = c["speedup"]
            why = (interval_cell(rec) if rec["interval"]
                   else f"{rec['estimate']:.2f}×")
        out.append(f"{c['backend']}/{c['case'].split(':', 1)[1]}: {c['claim']} ({why})")
    return out
