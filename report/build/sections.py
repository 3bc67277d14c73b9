"""The records of the other suites' sections: micro workloads, deterministic ops, the input
pipeline, retracing, token lengths, the work-per-step sweep and memory."""
import statistics
from collections import defaultdict

from catalog import LOADER_BASELINE
from gpu.plan import LENGTHS_PER_STRATEGY, LENGTHS_VARIANTS, lengths_totals
from report.build.lengths import mark_first, why_undecided
from report.build.load import BASELINE
from report.build.records import (SETTING_FACTS, facts, pooled, pooled_facts, pooled_time,
                                  ratio_record, record, repeated_arms, saved_record,
                                  spread_record)
from report.build.select import latest, of_phase

MICRO_FACTS = ("traces", "graph_breaks", "ops_per_call", "first_call_s", "second_call_s")
LENGTHS_FACTS = ("steps_done", "steps_planned", "distinct_shapes", "traces", "compiles",
                 "padding_waste", "real_tokens", "padded_tokens",
                 "recompile_limit_hits", "tokens")
RETRACE_FACTS = ("cut_short", "steps_done", "steps_planned", "distinct_shapes")
DETERMINISM_FACTS = ("repeat_identical", "identical_to_eager", "max_rel_diff_to_eager",
                     "compared_steps")
PIPELINE_FACTS = ("batch", "examples_per_epoch", "stored_side", "input_shape")
MEMORY_FACTS = ("params", "steps", "device", "peak_source", "traces", "peak_memory_bytes_rounds",
                "first_call_peak_bytes", "first_call_peak_bytes_rounds", "held_after_first_bytes",
                "held_after_steady_bytes", "cache_growth")
MEMORY_CI = "95% bootstrap over child processes (unpaired)"
MEMORY_POOLED = ("95% bootstrap over jobs (their scatter scaled by sqrt(n/(n-1))), then child "
                 "processes (unpaired, pooled)")


def micro_records(results, repeats=()):
    """Per micro workload: each variant's steady time; eager ÷ graph, paired with its interval
    where the graph result saved one (else the ratio of medians); eager's A/A control; each
    paired ratio pooled over the jobs of one code that repeat it (`repeats`)."""
    found = of_phase(results, "micro", "workload", "variant", valid=False)
    out = []
    for (backend, workload, variant), r in sorted(found.items()):
        out.append(spread_record(r, "micro_time", case=workload, **facts(r, MICRO_FACTS)))
        eager = found.get((backend, workload, "eager"))
        if variant == "graph" and (r.saved("speedup") or eager):
            out.append(ratio_record(r, "micro_speedup", eager, r.saved("speedup"), case=workload,
                                    **pooled(r, eager, "speedup", repeats)))
        if aa := r.saved("aa"):
            out.append(saved_record(r, "aa_ratio", aa, case=workload,
                                    **pooled(r, r, "aa", repeats)))
    return out


def determinism_records(results, repeats=()):
    """Per case: the step with deterministic ops off and on, whether same-seed runs repeated, and
    off ÷ on, paired with its interval where the `on` result saved one, else the ratio of the two
    results' medians; pooled over the jobs of one code that repeat it (`repeats`)."""
    runs = of_phase(results, "determinism", "model", "variant", "deterministic")
    out = [spread_record(r, "determinism_step", deterministic=key[3],
                         **facts(r, DETERMINISM_FACTS)) for key, r in runs.items()]
    return out + [ratio_record(on, "determinism_ratio", runs.get((*key[:3], False)),
                               on.saved("determinism"),
                               **pooled(on, runs.get((*key[:3], False)), "speedup", repeats))
                  for key, on in sorted(runs.items()) if key[3]
                  and (on.saved("determinism") or (*key[:3], False) in runs)]


def agreement_records(determinism, steady):
    """The steady suite's float32 train step ÷ the determinism suite's `off` step of the same run
    and case (separate processes: unpaired interval over their processes' medians)."""
    step = {(r.machine, r.run, *r.key[:3]): r for r in latest(steady)
            if r.valid and r.info["phase"] == "train" and r.flags == BASELINE
            and "paired_rounds_s" in r.info}
    import stats  # NumPy, imported when a figure needs it: `python -m report --help` needs none
    medians = lambda r: [statistics.median(rounds) for rounds in r.info["paired_rounds_s"]]
    out = []
    for r in latest(determinism):
        twin = step.get((r.machine, r.run, *r.key[:3]))
        if (twin and r.valid and r.info["phase"] == "determinism" and not r.info["deterministic"]
                and "paired_rounds_s" in r.info):
            found = stats.ratio_of_medians(medians(twin), medians(r))
            out.append(record(r, "suite_agreement", "x", found.estimate, found.low, found.high,
                              "95% bootstrap over processes (unpaired)", found.significant))
    return out


def pipeline_records(results, repeats=()):
    """Per loader: the epoch time (IQR), examples per second, input wait per step and baseline
    epoch ÷ this loader's (on the baseline: ÷ its A/A twin's); each paired ratio pooled over the
    jobs of one code that repeat it (`repeats`)."""
    found = of_phase(results, "pipeline", "model", "variant", "loader")
    out = []
    for (backend, model, variant, loader), r in found.items():
        i = r.info
        out += [spread_record(r, "epoch_time", **facts(r, PIPELINE_FACTS)),
                record(r, "examples_per_s", "1/s", i["examples_per_s"]),
                record(r, "input_wait_per_step", "s", i["input_wait_s_per_step"]),
                record(r, "loader_step_time", "s", i["step_s"])]
        if loader != LOADER_BASELINE:
            base = found.get((backend, model, variant, LOADER_BASELINE))
            out.append(ratio_record(r, "loader_ratio", base, r.saved("loader"),
                                    missing=f"no {LOADER_BASELINE} loader in this run",
                                    **pooled(r, base, "speedup", repeats)))
        elif aa := r.saved("aa"):
            out.append(saved_record(r, "aa_ratio", aa, **pooled(r, r, "aa", repeats)))
    return out


def retrace_records(results, repeats=()):
    """Total time of each published retrace sequence (case = step-pattern), its counts, the mean
    step at a new shape and at a seen one, and its total over eager's; a cut-short one says so;
    a whole one is the geometric mean over the jobs of one code that ran it whole (`repeats`)."""
    found = [record(r, "retrace_total", "s", traces=r.info.get("traces"),
                    note="cut short by the profile's budget" if r.info.get("cut_short") else None,
                    **whole_total(r, repeats), **facts(r, RETRACE_FACTS),
                    **facts(r.info.get("model_config") or {}, ("depth",)), **new_and_seen(r))
             for r in latest(results) if r.info["phase"] == "retrace" and r.valid
             and r.info.get("step") == "train"]  # the tables show train steps only
    return beats_eager(over_signature(over_eager(found)))


def whole_total(r, repeats):
    """The estimate of one cold run's total: r's own, or, where r and other jobs of its code ran
    the whole sequence, pooled_time's geometric mean with their range (a cut run pools with none)."""
    whole = lambda x: x.valid and not x.info.get("cut_short")
    return {"estimate": r.median, **(pooled_time(r, [x for x in repeats if whole(x)])
                                     if whole(r) else {})}


def over_eager(records):
    """Sets `over_eager` on each retrace_total record: its total ÷ eager's of the same network and
    sequence, None where eager's is missing or was cut short (one cold run each: no interval)."""
    return _over(records, "eager", "over_eager", lambda base: not base["note"])


def beats_eager(records):
    """Sets `beats_eager` on each retrace_total record: whether its whole sequence, run to the
    end, took less than eager's run to the end (one cold run each: read only large differences);
    None where either was cut short."""
    for r in records:
        r["beats_eager"] = None if r["note"] or r["over_eager"] is None else r["over_eager"] < 1
    return records


def over_signature(records):
    """Sets `over_signature` on each retrace_total record: its total ÷ the shape-polymorphic
    `graph_dynamic`'s (tf: input_signature) of the same network and sequence, as source article
    000 divides them (36:10 ÷ 4:37); None without one."""
    return _over(records, "graph_dynamic", "over_signature", lambda base: True)


def _over(records, variant, field, usable):
    """Sets `field` on each record: its estimate ÷ `variant`'s of the same backend, network,
    sequence and precision, where that one is `usable`."""
    bases = {(r["backend"], r["model"], r["case"], r["precision"]): r for r in records
             if r["variant"] == variant}
    for r in records:
        base = bases.get((r["backend"], r["model"], r["case"], r["precision"]))
        r[field] = r["estimate"] / base["estimate"] if base and usable(base) else None
    return records


def lengths_records(results, repeats=()):
    """One `lengths_total` record per (backend, variant, strategy) run, case = strategy; a run cut
    short by its budget keeps its time and says so; a whole run that other jobs of the same code
    ran whole too (`repeats`) reads the geometric mean of the jobs' totals with their range
    (pooled_time); lengths.mark_first marks what finishes first, on a GPU only where the GPU
    job's plan is all measured (gpu/plan.py: one step a variant, or a strategy)."""
    found = [record(r, "lengths_total", "s", note=(
        "cut short by the profile's budget" if r.info.get("cut_short") else None),
        **whole_total(r, repeats), **facts(r, LENGTHS_FACTS), steady_step_s=_seen_step(r))
        for r in latest(results) if r.info["phase"] == "lengths" and r.valid]
    on_gpu = any(r.graphbench.get("device") == "cuda" for r in results)
    plan = {b: lengths_totals(b) for b in LENGTHS_VARIANTS} if on_gpu else {}
    return mark_first(found, why_undecided(found, plan, LENGTHS_PER_STRATEGY if on_gpu else ()))


def _seen_step(r):
    """The median step at a length seen before, from the saved step times and lengths (the rule
    the suite saves since; its first runs read trace counters, which miss TF's XLA compiles)."""
    import stats  # NumPy, imported when a figure needs it
    times = r.info.get("step_times") or []
    return stats.seen_shape_median(times, (r.info.get("tokens") or [])[:len(times)])


def scale_records(results, repeats=()):
    """The sweep: each point's train step of eager and `graph` (with its setting) and eager ÷ graph,
    paired with its interval, pooled over the jobs of one code that repeat it (`repeats`); a point
    whose loss went non-finite says so."""
    found = of_phase(results, "scale", "model", "variant", valid=False)
    out = []
    for (backend, label, variant), r in sorted(found.items()):
        if not r.valid:
            out.append(record(r, "scale_step_time", "s", None, note="non-finite loss",
                              **facts(r, SETTING_FACTS)))
            continue
        kind = ("busy_" if label.startswith("busy-") else "compute_" if label.startswith(
            "decoder") else "scale_")  # compute and busy points: not on the VGG's curve
        out.append(spread_record(r, kind + "step_time", **facts(r, SETTING_FACTS)))
        eager = found.get((backend, label, "eager"))
        if variant != "eager":
            eager = eager if eager and eager.valid else None
            out.append(ratio_record(r, kind + "speedup", eager, r.saved("speedup"),
                                    **facts(r, SETTING_FACTS),
                                    **pooled_facts(r, eager, "speedup", repeats)))
    return out


def new_and_seen(r):
    """{new_shape_s, seen_shape_s, new_over_seen}: the mean step at a shape not seen before and at
    a seen one, after the first step (which also traces), and the first ÷ the second; {} without
    both kinds of step."""
    seen, new, old = set(), [], []
    for i, (side, t) in enumerate(zip(r.info.get("sides") or (), r.info.get("step_times") or ())):
        if i:
            (old if tuple(side) in seen else new).append(t)
        seen.add(tuple(side))
    if not (new and old):
        return {}
    new_s, seen_s = sum(new) / len(new), sum(old) / len(old)
    return {"new_shape_s": new_s, "seen_shape_s": seen_s, "new_over_seen": new_s / seen_s}


def memory_records(results, repeats=()):
    """Each memory case's train-step RSS peak above its post-import baseline (none where the loss
    was not finite) with its first call and growth, and each variant's peak ÷ the eager peak of
    the same run (above 1: more), with the unpaired interval over the child processes' peaks
    where both arms saved two or more, pooled with the jobs of the same code (`repeats`)."""
    found = of_phase(results, "memory", "model", "variant", "precision", "deterministic",
                     valid=False)
    out = [record(r, "memory_peak", "bytes", r.info["peak_memory_bytes"] if r.valid else None,
                  note=None if r.valid else "non-finite loss", **facts(r, MEMORY_FACTS))
           for r in found.values()]
    for (backend, model, variant, *flags), r in found.items():
        eager = found.get((backend, model, "eager", *flags))
        if variant != "eager" and r.valid:
            out.append(memory_ratio_record(r, eager if eager and eager.valid else None, repeats))
    return mark_smallest(out)


def mark_smallest(out):
    """`smallest` on the memory_peak record of each run and model's least peak among eager and
    its other variants, a variant whose ratio has an interval only where its verdict is "less"
    (an undecided lower peak is no smaller; one without an interval goes by its estimate)."""
    key = lambda r, *also: (r["run"], r["backend"], r["model"], r["precision"], *also)
    not_less = {key(r, r["variant"]) for r in out
                if r["kind"] == "memory_ratio" and r["interval"] and r["verdict"] != "less"}
    groups = defaultdict(list)
    for r in out:
        if r["kind"] == "memory_peak" and r["estimate"] is not None \
                and key(r, r["variant"]) not in not_less:
            groups[key(r)].append(r)
    for found in groups.values():
        min(found, key=lambda r: r["estimate"])["smallest"] = True
    return out


def memory_ratio_record(r, eager, repeats=()):
    """Variant peak ÷ the eager peak saved in the same run (never another run's); with repeat
    jobs of the same code, each job's ratio pooled (pool.pooled_medians)."""
    if eager is None or (eager.machine, eager.file) != (r.machine, r.file):
        return record(r, "memory_ratio", "x", None, note="no eager in this run")
    children = lambda x: x.info.get("peak_memory_bytes_rounds") or []
    rounds = [children(r), children(eager)]
    if min(map(len, rounds)) < 2:
        return record(r, "memory_ratio", "x", r.info["peak_memory_bytes"]
                      / eager.info["peak_memory_bytes"],
                      note="no interval (one child per case, or saved without each child's peak)")
    jobs, timed = repeated_arms(r, eager, repeats, lambda same, base: base and min(
        len(children(same)), len(children(base))) >= 2 and [children(same), children(base)])
    import stats
    if len(jobs) < 2:
        found = stats.ratio_of_medians(*rounds)
        return record(r, "memory_ratio", "x", found.estimate, found.low, found.high, MEMORY_CI,
                      found.significant)
    from report.build.pool import pooled_medians
    found = pooled_medians(jobs)
    return record(r, "memory_ratio", "x", found.estimate, found.low, found.high, MEMORY_POOLED,
                  found.significant, pooled_runs=[same.run for same in timed],
                  processes=sum(len(a) for a, _ in jobs))
