"""The Markdown report of a user's model, from its facts and records (report.build.user.measured):
the recommendation first, then one table per figure."""
import math

from catalog import STEADY_AA as AA
from catalog import call_name
from report.views.text import three_digits, took

MIB = 2 ** 20
CACHE_CHECKS = {"hit": " ⚠ hit the cache: not cold", "missed": " ⚠ no cache hit: not warm"}

def how(framework, variant):
    """The call a variant stands for, in the user's framework (catalog.CALLS)."""
    return call_name(framework, variant)


def _x(rec):
    mark = " ~" if rec["mark"] else ""
    return f"{rec['estimate']:.2f}× ({rec['low']:.2f}–{rec['high']:.2f}){mark}"


VERSUS_EAGER = {"faster": "faster than eager", "slower": "slower than eager",
                "undecided": "undecided against eager"}  # else "within 3% of eager"


def _versus(rec):
    """A speedup with the build's verdict on it, in the recommendation's words."""
    verdict = rec["verdict"]
    return f"{_x(rec)} {VERSUS_EAGER.get(verdict, f'{verdict} of eager')}"


def _getter(recs):
    """get(kind, arm, phase, case) over one framework's records (None where there is none)."""
    found = {(r["kind"], r["variant"], r["phase"], r["case"]): r for r in recs}
    return lambda kind, arm, phase="train", case="steady": found.get((kind, arm, phase, case))


def _buckets(shapes):
    """Dims that vary over the user's shapes and the power-of-two sizes that would cover them."""
    out = []
    for dim in range(min(len(s) for s in shapes)):
        values = sorted({s[dim] for s in shapes})
        if len(values) > 1:
            sizes = sorted({2 ** math.ceil(math.log2(max(v, 1))) for v in values})
            out.append((dim, values, sizes))
    return out


def recommend(facts, recs):
    """One paragraph: which variant to compile with (or stay eager), and what to do about shapes,
    from one framework's facts and records."""
    fw, get, said = facts["framework"], _getter(recs), facts["recommendation"]
    if said["answer"] == "no answer":
        why = facts["non_finite"]["eager"]
        grows = why.endswith("it diverges")
        return (f"**{fw}: no answer: the loss {'diverges' if grows else 'is not finite'}.** "
                f"Eager's {why}: every time measured is of "
                f"{'a model that does not train' if grows else 'NaN or inf arithmetic'}, so no "
                "variant gets a speedup. Make the model train stably (a lower learning rate, "
                "gradient clipping, a loss that cannot overflow) and run again.")
    train = lambda v: get("speedup", v)
    lines, top, wrong = [], said.get("top"), said["wrong"]
    if said["answer"] == "undecided":
        lines.append(f"**{fw}: undecided.** This run cannot tell whether a graph variant "
                     f"makes a train step faster: `{top}` {_x(train(top))}, "
                     f"{train(top)['verdict_note']} (" + (
                         f"a longer profile, `--profile {said['longer']}`" if said.get("longer")
                         else "more steady processes than the longest profile runs") +
                     ", on an otherwise idle machine).")
    elif said["answer"] == "stay eager":
        lines.append(f"**{fw}: stay eager.** No graph variant makes a train step faster past "
                     "±3% with a matching result" + (
                         f" (best: `{top}` {_x(train(top))})." if top else "."))
        if said["infer"]:  # inference-only users
            faster = get("speedup", said["infer"], "infer")
            lines.append(f"For inference alone, `{said['infer']}` is faster: {_x(faster)}.")
    else:
        retraced = lambda v: get("retrace_total", v, "retrace", "cold")
        best, chosen = said["use"], said["per_step"]
        even = get("break_even", best, case="cold")
        n, low, high = even["estimate"], even["low"], even["high"]
        steps = "step" if n == 1 else "steps"
        pays = even["note"] or (f"after {n:,} {steps} ({low:,}–{high:,})" if low != high
                                else f"after {n:,} {steps}")
        lines.append(
            f"**{fw}: compile with {how(fw, best)}** (`{best}`): train step "
            f"{_versus(train(best))}, inference {_versus(get('speedup', best, 'infer'))}; its "
            f"first call costs {took(get('first_call', best, case='cold')['estimate'])} "
            f"cold (eager {took(get('first_call', 'eager', case='cold')['estimate'])}) and pays "
            f"off {pays}.")
        lines.append(_shape_advice(retraced(best), retraced("eager"), best))
        if best != chosen:
            lines.append(
                f"If you pad or bucket your shapes to a few sizes, `{chosen}` is faster per step "
                f"({_x(train(chosen))}), but over your shapes as they are it took "
                f"{took(retraced(chosen)['estimate'])}.")
    if wrong:
        lines.append(f"⚠ **{', '.join(wrong)} compute a different result from eager** (see "
                     "Accuracy): do not use them without checking why.")
    lines += [f"✗ **{v}: the loss is not finite** ({facts['invalid'][v]}) where eager's stays "
              "finite: do not use it without checking why." for v in facts["ran"]
              if v in facts["invalid"]]
    if facts["failed"]:
        lines.append(f"Could not run: {', '.join(facts['failed'])} (see Skipped).")
    if checked := facts["losses_checked"]:
        lines.append(f"Losses checked over {checked} train steps per variant (finite, and not "
                     f"{facts['diverged']:g} times the first): a model that fails later is not "
                     "seen; a longer profile checks more.")
    return " ".join(lines)


def _shape_advice(r, eager, best):
    """Retrace cost of the chosen variant over the user's shapes (its retrace_total record),
    against eager's; padding advised where the build found the shapes cost it (shapes_cost)."""
    if not r["shapes"]:
        return "No retrace run (smoke run)."
    if not r["shapes_cost"]:
        return (f"Over your {r['steps_done']} shapes ({r['distinct_shapes']} distinct) it took "
                f"{took(r['estimate'])} against eager's {took(eager['estimate'])}, with "
                f"{r['traces']} more trace(s).")
    dims = "; ".join(f"dimension {d} ({v[0]}–{v[-1]}) to {len(s)} bucket(s): "
                     f"{', '.join(map(str, s))}"
                     for d, v, s in _buckets([tuple(x) for x in r["shapes"]]))
    note = f" ({r['note']})" if r["note"] else ""
    return (f"But your shapes vary: over {r['steps_done']} steps ({r['distinct_shapes']} distinct "
            f"shapes) `{best}` traced {r['traces']} more time(s) and took {took(r['estimate'])} "
            f"against eager's {took(eager['estimate'])}{note}: "
            f"pad or bucket {dims}; or stay eager if you cannot.")


def tables(facts, recs):
    """The figures of one framework as Markdown tables, from its facts and records."""
    fw, arms, get = facts["framework"], ["eager", *facts["ran"]], _getter(recs)
    out = [f"### {fw}", "", "| variant | train ms | train speedup | infer ms | infer speedup | "
           "first call s cold | warm | break-even steps | peak MiB | accuracy |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for arm in arms:
        if arm in facts["invalid"]:  # as the suites show a non-finite loss: never as a figure
            out.append(_row(arm, ["non-finite ✗"] * 8 + [_accuracy(get, arm)]))
            continue
        row = []
        for phase in ("train", "infer"):
            row.append(three_digits(get('step_time', arm, phase)['estimate'] * 1e3))
            row.append("1" if arm == "eager" else _x(get("speedup", arm, phase)))
        cold, warm = (get("first_call", arm, case=c) for c in ("cold", "warm"))
        row += [f"{three_digits(cold['estimate'])}{_hits(cold)}",
                "—" if warm is None else f"{three_digits(warm['estimate'])}{_hits(warm)}"]
        even = get("break_even", arm, case="cold")
        row.append("—" if even is None else even["note"] or
                   f"{even['estimate']:,} ({even['low']:,}–{even['high']:,})")
        peak = get("memory_peak", arm, case="cold")["estimate"]
        row.append("—" if peak is None else f"{peak / MIB:.1f}")
        out.append(_row(arm, row + [_accuracy(get, arm)]))
    aa = "non-finite ✗" if AA in facts["invalid"] else ", ".join(
        f"{p} {_x(get('aa_ratio', AA, p))}" for p in ("train", "infer"))
    tol = facts["tolerance"]
    out += ["", f"A/A control (eager ÷ a second eager runner): {aa}; "
                f"`~` marks an interval that includes 1. Accuracy: outputs before "
                f"training and losses over {facts['accuracy_steps']} train steps against "
                f"eager, `allclose(rtol={tol['rtol']}, atol={tol['atol']})`; eager vs a second "
                f"eager: loss Δ {get('accuracy_loss_diff', AA)['estimate']:.1e}.", ""]
    if bad := facts["non_finite"]:
        out += ["Not finite (their times are left out):", ""]
        out += [f"- ✗ `{a}`: {why}" for a, why in bad.items()] + [""]
    out += _retrace_table(facts, arms, get)
    if (g := facts["graph_breaks"]) is not None:
        out += [f"`torch._dynamo.explain` of the train step: {g['graphs']} graph(s), "
                f"{g['graph_breaks']} graph break(s)" +
                (": " + "; ".join(g["break_reasons"]) if g["break_reasons"] else "."), ""]
    if facts["failed"]:
        out += ["Skipped (the framework's reason):", ""]
        out += [f"- `{arm}`: {reason}" for arm, reason in facts["failed"].items()] + [""]
    return out


def _row(arm, cells):
    return "| " + " | ".join([f"`{arm}`", *cells]) + " |"


def _accuracy(get, arm):
    """The accuracy cell: ✓ or ⚠ **MISMATCH** with the largest differences from eager."""
    check = get("accuracy_loss_diff", arm)
    return ("reference" if arm == "eager" else "—" if check is None else
            ("⚠ **MISMATCH**" if check["note"] == "mismatch" else "✓") +
            f" (loss Δ {check['estimate']:.1e}, outputs Δ "
            f"{check['outputs_max_abs_diff']:.1e})")


def _hits(rec):
    """A warning when a cold first call hit the compile cache, or a warm one did not."""
    return CACHE_CHECKS.get(rec["cache_check"], "")


def _retrace_table(facts, arms, get):
    out = ["Retrace run: one train step per shape of yours, in order, from a fresh process after "
           "the first call.", "", "| variant | total s | mean step ms, new shape | mean step ms, "
           "seen shape | traces | MiB held after | warnings |", "|---|---|---|---|---|---|---|"]
    found = {arm: get("retrace_total", arm, "retrace", "cold") for arm in arms}
    if not facts["shapes"]:
        return ["No retrace run (smoke run).", ""]
    cell = lambda seconds: "—" if seconds is None else three_digits(seconds * 1e3)
    for arm in arms:
        if arm in facts["invalid"]:
            out.append(_row(arm, ["non-finite ✗"] * 6))
            continue
        r = found[arm]
        signals = ", ".join([f"{k}: {v}" for k, v in r["signals"].items()]
                            + ([r["note"]] if r["note"] else [])) or "—"
        held = "—" if r["held_after_bytes"] is None else f"{r['held_after_bytes'] / MIB:.1f}"
        out.append(f"| `{arm}` | {three_digits(r['estimate'])} | {cell(r['new_shape_s'])} | "
                   f"{cell(r['seen_shape_s'])} | {r['traces']} | {held} | {signals} |")
    out += ["", f"Shapes: {', '.join(map(str, facts['shapes']))}."]
    if hit := [a for a in arms if found[a] and found[a]["signals"].get("recompile_limit_hits")]:
        out.append(f"⚠ {', '.join(f'`{a}`' for a in hit)} hit torch's recompile limit "
                   "(`torch._dynamo.config.recompile_limit`): past it the frame runs eagerly, "
                   "so later shapes got eager speed, not compiled speed.")
    if facts["framework"] == "tf":
        out.append("XLA with a None-dim signature traces once but compiles once per concrete "
                   "shape: its traces undercount its compiles, its new-shape time shows them.")
    startup = get("startup_time", "eager", "construction", "cold")["estimate"]
    return out + [f"Process start-up (interpreter, {facts['framework']} import and set-up), "
                  f"paid before any first call: {startup:.1f} s.", ""]


def _blocks(plan):
    """What a round times of each arm, by the plan's block rule (user.measure.Plan)."""
    if plan.get("block_s") and plan["block"] > 1:
        lasting = f"{plan['block_s'] * 1000:g} ms"
        lasting += (" or the slowest arm's step, whichever is longer" if plan.get("equal_blocks")
                    else " for the fastest arm")
        return f"a round times each arm's block of steps lasting {lasting} (at most " \
            f"{plan['block']} steps)"
    return f"a round times {plan['block']} step(s) of each arm"


def render(name, found, machine):
    """The whole report of the file `name` over its frameworks' [(facts, records)]
    (report.build.user.measured)."""
    head = [f"# Should I compile `{name}`?", "",
            *(recommend(facts, recs) + "\n" for facts, recs in found)]
    first = found[0][0]
    plan = first["plan"]
    versions = ", ".join(f"{facts['framework']} {facts['framework_version']}"
                         + (f" (Python {facts['python']})" if facts.get("python") else "")
                         for facts, _ in found)
    on = (" on its GPU, each timed block of steps waited on once, as a training loop waits (peak "
          "MiB: the host process's)" if first.get("device") == "cuda" else "")
    head += [f"Machine `{machine}`{on}; {versions}; {first['threads']} thread(s); "
             f"{plan['steady_processes']} steady process(es) × {plan['rounds']} interleaved "
             f"rounds; {_blocks(plan)}; speedups are eager ÷ variant with a 95% paired "
             "hierarchical-bootstrap interval."
             + ("" if plan["cold_cache"] else " Smoke run (--benchmark-disable): first calls "
                "taken in the steady process, in the session's compile cache, so not cold; no "
                "memory or retrace run.")
             + " Generated by `python3 run.py bench --user`; do not edit by hand.", ""]
    return "\n".join(head + [line for facts, recs in found for line in tables(facts, recs)])
