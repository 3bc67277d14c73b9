"""The retrace suite's tables, chart data and advice (seed 000's network x mode x time table)."""
from catalog import skip_matches
from report.views.text import span, variant_order

SEED_000 = {"eager": 3 * 60 + 36, "graph": 36 * 60 + 10, "graph_dynamic": 4 * 60 + 37}  # ResNet152
ADVICE = {
    ("tf", "graph_dynamic"): "give tf.function an input_signature with None dimensions",
    ("tf", "xla_dynamic"): "give the jit_compile function an input_signature with None dimensions",
    ("tf", "graph_relaxed"): "use tf.function(reduce_retracing=True)",
    ("torch", "graph_dynamic"): "compile with torch.compile(dynamic=True)",
    ("torch", "graph"): "keep torch.compile's default (it turns dynamic after one recompile)",
    ("chainer", "eager"): "stay define-by-run, or bucket input sizes so each shape repeats",
}
DEFAULT_ADVICE = "bucket input sizes so that each shape repeats, or stay eager"


def totals(records, pattern="varying"):
    """{(backend, network, variant): retrace_total record} of the train steps."""
    return {(r["backend"], r["model"], r["variant"]): r for r in records
            if r["kind"] == "retrace_total" and r["case"] == f"train-{pattern}"}


VGG_DEPTH = 16  # 13 convolutions + the classifier, counted as VGG16 is


def by_depth(found):
    """Sort key for network labels: their layer depth (VGG16 = 16, ResNet-N = N)."""
    depths = {r["model"]: r.get("depth", VGG_DEPTH) for r in found.values()}
    return lambda label: (depths.get(label, 0), label)


def cell(r):
    """Total seconds with the trace count; a cut-short run says so."""
    if r is None:
        return "—"
    text = f"{r['estimate']:.3g} s ({r['traces']} tr)"
    if r.get("cut_short"):
        text += f" cut at {r['steps_done']}/{r['steps_planned']}"
    return text


def skip_note(rules, backend, network, variant, step):
    """The profile's reason for leaving this case out (`rules`: select.retrace_rules), or None."""
    return next((rule["reason"] for rule in rules.get(backend, ())
                 if skip_matches(rule, backend, network, variant, step)), None)


def retrace_tables(records, rules, step="train"):
    """Per backend: network x variant, varying sides then the repeated-shape control; a missing
    cell gives the profile's reason for skipping it (from the runs' plans in `results`)."""
    lines, reasons = [], []
    for pattern in ("varying", "repeating"):
        found = totals(records, pattern)
        for backend in sorted({b for b, _, _ in found}):
            variants = sorted({v for b, _, v in found if b == backend}, key=variant_order)
            networks = sorted({n for _, n, _ in found}, key=by_depth(found))
            lines += [f"**{backend}, {step} steps, {pattern} sides**", "",
                      "| network | " + " | ".join(variants) + " |",
                      "|---|" + "---|" * len(variants)]
            for net in networks:
                cells = []
                for v in variants:
                    r = found.get((backend, net, v))
                    why = None if r else skip_note(rules, backend, net, v, step)
                    if why and why not in reasons:
                        reasons.append(why)
                    cells.append(f"skipped [{reasons.index(why) + 1}]" if why else cell(r))
                lines.append(f"| {net} | " + " | ".join(cells) + " |")
            lines.append("")
    lines += [f"[{i}] {why}" for i, why in enumerate(reasons, 1)]
    return "\n".join(lines)


def advice(records):
    """Per backend: the fastest variant on the deepest network with varying sides, and what to do."""
    found = totals(records)
    order = by_depth(found)
    lines = []
    for backend in sorted({b for b, _, _ in found}):
        deepest = sorted({n for b, n, _ in found if b == backend}, key=order)[-1]
        mine = {v: r for (b, n, v), r in found.items() if b == backend and n == deepest}
        runs = {v: r["estimate"] for v, r in mine.items() if not r["note"]}
        cut = sorted(set(mine) - set(runs), key=variant_order)
        left_out = (f" Left out of the ranking, cut short by the budget: "
                    f"{', '.join(f'`{v}`' for v in cut)}." if cut else "")
        if not runs:
            lines.append(f"- **{backend}** ({deepest}): every run was cut short; no ranking."
                         + left_out)
            continue
        best = min(runs, key=runs.get)
        versus = (f" against {runs['graph']:.1f} s for plain `graph`"
                  if "graph" in runs and best != "graph" else "")
        line = (f"- **{backend}** ({deepest}, sides changing every batch): fastest is "
                f"`{best}` at {runs[best]:.1f} s{versus} — "
                f"{ADVICE.get((backend, best), DEFAULT_ADVICE)}.")
        graphs = {v: t for v, t in runs.items() if v not in ("eager", best)}
        if best == "eager" and graphs:
            g = min(graphs, key=graphs.get)
            if (backend, g) in ADVICE:
                line += (f" If you keep graph mode, the fastest graph variant is `{g}` at "
                         f"{graphs[g]:.1f} s: {ADVICE[(backend, g)]}.")
        lines.append(line + left_out)
    return "\n".join(lines)


def seed_comparison(records):
    """Plain graph over signature on the deepest ResNet, next to seed 000's 36:10 / 4:37."""
    found = totals(records)
    tf_nets = sorted({n for b, n, _ in found if b == "tf" and n.startswith("resnet")},
                     key=by_depth(found))
    seed_ratio = SEED_000["graph"] / SEED_000["graph_dynamic"]
    if not tf_nets:
        return f"Source article 000's ratio (plain tf.function ÷ input_signature, ResNet152) is {seed_ratio:.2f}; no TF retrace run to compare."
    net = tf_nets[-1]
    plain, sig, eager = (found.get(("tf", net, v)) for v in ("graph", "graph_dynamic", "eager"))
    if not plain or not sig:
        return f"No plain/signature pair for {net}."
    ratio = plain["over_signature"]
    text = (f"On {net} (TF, {plain['steps_done']} training steps, {plain['distinct_shapes']} "
            f"distinct sides), plain `tf.function` ÷ `input_signature` = {ratio:.2f}, against the "
            f"article's {seed_ratio:.2f} (36:10 ÷ 4:37, ResNet152 at full width on a GPU, 64–256 px).")
    if eager:
        text += (f" Eager ÷ signature here is {eager['over_signature']:.2f} "
                 f"(article: {SEED_000['eager'] / SEED_000['graph_dynamic']:.2f}).")
    if plain.get("cut_short"):
        text += " The plain run was cut short by the budget, so its ratio is a lower bound."
    return text


def new_vs_seen_steps(records):
    """{(backend, network, variant): (new-shape step s, seen-shape step s, new ÷ seen)}, repeating
    sizes."""
    return {k: (r["new_shape_s"], r["seen_shape_s"], r["new_over_seen"])
            for k, r in totals(records, "repeating").items() if "new_shape_s" in r}


def retrace_step_reading(records):
    """Per backend: the largest cost of a new input size over a seen one, eager as control."""
    found, parts = new_vs_seen_steps(records), []
    for backend in sorted({b for b, _, _ in found}):
        mine = {k: over for k, (_, _, over) in found.items() if k[0] == backend}
        worst = max((k for k in mine if k[2] != "eager"), key=mine.get, default=None)
        eager = [v for k, v in mine.items() if k[2] == "eager"]
        if worst:
            parts.append(f"{backend}: a step at a new size costs up to {mine[worst]:.1f}× one at "
                         f"a seen size ({worst[2]} on {worst[1]})"
                         + (f"; eager {span(min(eager), max(eager), '.1f')}×" if eager else ""))
    return ("; ".join(parts) + ". Repeating sizes, after each run's first step; a variant that "
            "traces once but costs much more at a new size compiles per shape (XLA)."
            if parts else "No retrace runs with repeating sizes.")


def compile_per_shape(records):
    """Evidence from per-step times that a variant tracing once still compiles per shape (XLA)."""
    lines = []
    for (backend, net, variant), (new, seen, _) in sorted(new_vs_seen_steps(records).items()):
        if totals(records, "repeating")[backend, net, variant]["traces"] == 1 and variant != "eager":
            lines.append(f"{backend}/{variant} on {net}: new shape {new:.3f} s, "
                         f"seen shape {seen:.3f} s")
    return ("Variants that trace once, step time after the first step (repeating sides): a new "
            "shape that costs far more than a seen one is being compiled again (XLA compiles per "
            "concrete shape though it traces once): " + "; ".join(lines) + "." if lines else "")
