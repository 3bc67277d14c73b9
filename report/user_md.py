"""The Markdown report of a user's model: the recommendation first, then one table per figure."""
import math

from report import user as U
from catalog import STEADY_AA as AA

CALLS = {"graph": "`tf.function`", "graph_dynamic": "`tf.function` with a None-dim input_signature",
         "graph_relaxed": "`tf.function(reduce_retracing=True)`",
         "xla": "`tf.function(jit_compile=True)`",
         "xla_dynamic": "`tf.function(jit_compile=True)` with a None-dim input_signature"}
TORCH = {"graph": "`torch.compile()`", "graph_dynamic": "`torch.compile(dynamic=True)`",
         "graph_static": "`torch.compile(dynamic=False)`"}


def how(framework, variant):
    """The call a variant stands for, in the user's framework."""
    if framework == "chainer":
        return "`@static_graph` on the forward"
    if framework == "jax":
        return "`jax.jit` of the whole step"
    return (TORCH if framework == "torch" else CALLS)[variant]


def _x(r):
    mark = "" if r.significant else " ~"
    return f"{r.estimate:.2f}× ({r.low:.2f}–{r.high:.2f}){mark}"


def _buckets(shapes):
    """Dims that vary over the user's shapes and the power-of-two sizes that would cover them."""
    out = []
    for dim in range(min(len(s) for s in shapes)):
        values = sorted({s[dim] for s in shapes})
        if len(values) > 1:
            sizes = sorted({2 ** math.ceil(math.log2(max(v, 1))) for v in values})
            out.append((dim, values, sizes))
    return out


def _mismatch(m, arm):
    check = U.accuracy(m, arm)
    return check is not None and not check["match"]


def recommend(m):
    """One paragraph: which variant to compile with (or stay eager), and what to do about shapes."""
    fw, shown = m["framework"], [v for v in U.ran(m) if not U.invalid(m, v)]
    if why := U.non_finite(m, "eager"):
        return (f"**{fw}: no answer: the loss is not finite.** Eager's {why}: every time measured "
                "is of NaN or inf arithmetic, so no variant gets a speedup. Make the model train "
                "stably (a lower learning rate, gradient clipping, a loss that cannot overflow) "
                "and run again.")
    good, wrong = [v for v in shown if not _mismatch(m, v)], [v for v in shown if _mismatch(m, v)]
    lines = []
    faster = [v for v in good if U.speedup(m, "train", v).low > 1]
    if not faster:
        best = max(shown, key=lambda v: U.speedup(m, "train", v).estimate, default=None)
        lines.append(f"**{fw}: stay eager.** No graph variant makes a train step significantly "
                     "faster with a matching result" + (
                         f" (best: `{best}` {_x(U.speedup(m, 'train', best))})." if best else "."))
        infer = [v for v in good if U.speedup(m, "infer", v).low > 1]
        if infer:  # an inference-only user may still gain
            top = max(infer, key=lambda v: U.speedup(m, "infer", v).estimate)
            lines.append(f"For inference alone, `{top}` is faster: "
                         f"{_x(U.speedup(m, 'infer', top))}.")
    else:
        per_step = max(faster, key=lambda v: U.speedup(m, "train", v).estimate)
        # over varying shapes, the variant that ran the user's sequence fastest (complete runs)
        complete = [v for v in faster if not U.retrace(m, v)["cut"]]
        varying = U.retrace(m, "eager")["distinct"] > 1 and complete
        best = min(complete, key=lambda v: U.retrace(m, v)["total_s"]) if varying else per_step
        n, low, high, note = U.break_even_range(m, best)
        pays = note or (f"after {n:,} steps ({low:,}–{high:,})" if low != high else f"after {n:,} steps")
        lines.append(
            f"**{fw}: compile with {how(fw, best)}** (`{best}`): train step "
            f"{_x(U.speedup(m, 'train', best))}, inference {_x(U.speedup(m, 'infer', best))} "
            f"faster than eager; its first call costs {U.first_call(m, best):.2f} s cold "
            f"(eager {U.first_call(m, 'eager'):.2f} s) and pays off {pays}.")
        lines.append(_shape_advice(m, best))
        if best != per_step:
            lines.append(
                f"If you pad or bucket your shapes to a few sizes, `{per_step}` is faster per step "
                f"({_x(U.speedup(m, 'train', per_step))}), but over your shapes as they are it "
                f"took {U.retrace(m, per_step)['total_s']:.2f} s.")
    if wrong:
        lines.append(f"⚠ **{', '.join(wrong)} compute a different result from eager** (see "
                     "Accuracy): do not use them without checking why.")
    lines += [f"✗ **{v}: the loss is not finite** ({U.invalid(m, v)}) where eager's stays finite: "
              "do not use it without checking why." for v in U.ran(m) if U.invalid(m, v)]
    if m["failed"]:
        lines.append(f"Could not run: {', '.join(m['failed'])} (see Skipped).")
    return " ".join(lines)


def _shape_advice(m, best):
    """Retrace cost of the chosen variant over the user's shapes, against eager's."""
    r, eager = U.retrace(m, best), U.retrace(m, "eager")
    shapes = [tuple(s["shape"]) for s in m["cold"][best][0]["retrace"]]
    if not shapes:
        return "No retrace run (smoke run)."
    if r["total_s"] <= eager["total_s"] * 1.1 or r["distinct"] < 2:
        return (f"Over your {r['steps']} shapes ({r['distinct']} distinct) it took "
                f"{r['total_s']:.2f} s against eager's {eager['total_s']:.2f} s, with "
                f"{r['traces']} more trace(s).")
    dims = "; ".join(f"dimension {d} ({v[0]}–{v[-1]}) to {len(s)} bucket(s): {', '.join(map(str, s))}"
                     for d, v, s in _buckets(shapes))
    return (f"But your shapes vary: over {r['steps']} steps ({r['distinct']} distinct shapes) "
            f"`{best}` traced {r['traces']} more time(s) and took {r['total_s']:.2f} s against "
            f"eager's {eager['total_s']:.2f} s{' (' + r['cut'] + ')' if r['cut'] else ''}: pad or "
            f"bucket {dims}; or stay eager if you cannot.")


def tables(m):
    """The figures of one framework as Markdown tables."""
    fw, arms = m["framework"], ["eager", *U.ran(m)]
    out = [f"### {fw}", "", "| variant | train ms | train speedup | infer ms | infer speedup | "
           "first call s cold | warm | break-even steps | peak MiB | accuracy |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for arm in arms:
        if U.invalid(m, arm):  # as the suites show a non-finite loss: never as a figure
            out.append(_row(arm, ["non-finite ✗"] * 8 + [_accuracy(m, arm)]))
            continue
        row = []
        for phase in ("train", "infer"):
            row.append(f"{U.step_s(m, phase, arm) * 1e3:.2f}")
            row.append("1" if arm == "eager" else _x(U.speedup(m, phase, arm)))
        warm = U.first_call(m, arm, "warm")
        row += [f"{U.first_call(m, arm):.2f}{_hits(m, arm, 'cold')}",
                "—" if warm is None else f"{warm:.2f}{_hits(m, arm, 'warm')}"]
        n, low, high, note = U.break_even_range(m, arm) if arm != "eager" else (None,) * 3 + ("—",)
        row.append(note or (f"{n:,} ({low:,}–{high:,})"))
        peak = U.peak_mib(m, arm)
        row.append("—" if peak is None else f"{peak:.1f}")
        out.append(_row(arm, row + [_accuracy(m, arm)]))
    aa = "non-finite ✗" if U.invalid(m, AA) else ", ".join(
        f"{p} {_x(U.speedup(m, p, AA))}" for p in ("train", "infer"))
    tol = m["steady"][0]["tolerance"]
    out += ["", f"A/A control (eager ÷ a second eager runner): {aa}; "
                f"`~` marks an interval that includes 1. Accuracy: outputs before "
                f"training and losses over {m['steady'][0]['accuracy_steps']} train steps against "
                f"eager, `allclose(rtol={tol['rtol']}, atol={tol['atol']})`; eager vs a second "
                f"eager: loss Δ {U.accuracy(m, AA)['loss_max_abs_diff']:.1e}.", ""]
    if bad := [a for a in ["eager", AA, *U.ran(m)] if U.non_finite(m, a)]:
        out += ["Not finite (their times are left out):", ""]
        out += [f"- ✗ `{a}`: {U.non_finite(m, a)}" for a in bad] + [""]
    out += _retrace_table(m, arms)
    if "graph_breaks" in m["cold"]["eager"][0]:
        g = m["cold"]["eager"][0]["graph_breaks"]
        out += [f"`torch._dynamo.explain` of the train step: {g['graphs']} graph(s), "
                f"{g['graph_breaks']} graph break(s)" +
                (": " + "; ".join(g["break_reasons"]) if g["break_reasons"] else "."), ""]
    if m["failed"]:
        out += ["Skipped (the framework's reason):", ""]
        out += [f"- `{arm}`: {reason}" for arm, reason in m["failed"].items()] + [""]
    return out


def _row(arm, cells):
    return "| " + " | ".join([f"`{arm}`", *cells]) + " |"


def _accuracy(m, arm):
    """The accuracy cell: ✓ or ⚠ **MISMATCH** with the largest differences from eager."""
    check = U.accuracy(m, arm)
    return ("reference" if arm == "eager" else "—" if check is None else
            ("✓" if check["match"] else "⚠ **MISMATCH**") +
            f" (loss Δ {check['loss_max_abs_diff']:.1e}, outputs Δ "
            f"{check['outputs_max_abs_diff']:.1e})")


def _hits(m, arm, cache):
    """A warning when a cold first call hit the compile cache, or a warm one did not."""
    hits = [c.get("cache_hits") for c in m[cache].get(arm, []) if c.get("cache_hits") is not None]
    if cache == "cold" and any(hits) and m["plan"]["cold_cache"]:
        return " ⚠ hit the cache: not cold"
    if cache == "warm" and hits and not all(hits):
        return " ⚠ no cache hit: not warm"
    return ""


def _retrace_table(m, arms):
    out = ["Retrace run: one train step per shape of yours, in order, from a fresh process after "
           "the first call.", "", "| variant | total s | new-shape s | seen-shape s | traces | "
           "MiB held after | warnings |", "|---|---|---|---|---|---|---|"]
    if not m["cold"]["eager"][0]["retrace"]:
        return ["No retrace run (smoke run).", ""]
    for arm in arms:
        if U.invalid(m, arm):
            out.append(_row(arm, ["non-finite ✗"] * 6))
            continue
        r = U.retrace(m, arm)
        signals = ", ".join([f"{k}: {v}" for k, v in r["signals"].items()]
                            + ([r["cut"]] if r["cut"] else [])) or "—"
        out.append(f"| `{arm}` | {r['total_s']:.2f} | {r['new_shape_s']:.2f} | "
                   f"{r['seen_shape_s']:.2f} | {r['traces']} | {r['held_mib']:.1f} | {signals} |")
    shapes = [tuple(s["shape"]) for s in m["cold"]["eager"][0]["retrace"]]
    out += ["", f"Shapes: {', '.join(map(str, shapes))}."]
    if hit := [a for a in arms if U.retrace(m, a)["signals"].get("recompile_limit_hits")]:
        out.append(f"⚠ {', '.join(f'`{a}`' for a in hit)} hit torch's recompile limit "
                   "(`torch._dynamo.config.recompile_limit`): past it the frame runs eagerly, "
                   "so later shapes got eager speed, not compiled speed.")
    if m["framework"] == "tf":
        out.append("XLA with a None-dim signature traces once but compiles once per concrete "
                   "shape: its traces undercount its compiles, its new-shape time shows them.")
    startup = U.median([c["startup_s"] for c in m["cold"]["eager"]])
    return out + [f"Process start-up (interpreter, {m['framework']} import and set-up), paid "
                  f"before any first call: {startup:.1f} s.", ""]


def render(name, measurements, machine):
    """The whole report of the file `name` over its frameworks' measurements."""
    head = [f"# Should I compile `{name}`?", "", *(recommend(m) + "\n" for m in measurements)]
    plan = measurements[0]["plan"]
    head += [f"Machine `{machine}`; {', '.join(m['framework'] + ' ' + m['steady'][0]['framework_version'] for m in measurements)}; "
             f"{measurements[0]['threads']} thread(s); {plan['steady_processes']} steady "
             f"process(es) × {plan['rounds']} interleaved rounds; speedups are eager ÷ variant "
             "with a 95% paired hierarchical-bootstrap interval."
             + ("" if plan["cold_cache"] else " Smoke run (--benchmark-disable): first calls "
                "taken in the steady process, in the session's compile cache, so not cold; no "
                "memory or retrace run.")
             + " Generated by `python3 run.py bench --user`; do not edit by hand.", ""]
    return "\n".join(head + [line for m in measurements for line in tables(m)])
