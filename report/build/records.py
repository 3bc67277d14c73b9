"""One record per published figure, built once per machine from the selected results: summary.json
holds them, and every table, chart, reading and verdict reads them."""
import json
import math
import statistics
from collections import defaultdict
from pathlib import Path

from catalog import LOADER_BASELINE
from machines import gpu_model
from report.build.load import BASELINE
from report.build import best, claims
from report.build.figure import WORDS, labelled
from report.build.lengths import mark_first
from report.build.ratios import (CI, SLOW_PAYBACK, break_even, break_even_range, meaning, pays,
                                 ratio, significant)
from report.build.select import (code, index, invalid, job_kind, latest, mark_headlines,
                                  of_phase, profile_skip)

FIELDS = ("machine", "run", "commit", "code", "dirty", "backend", "model", "variant", "phase",
          "precision", "case", "kind", "unit", "estimate", "low", "high", "interval",
          "significant", "verdict", "verdict_note", "mark", "target", "best", "processes", "rounds",
          "aa_floor_low", "aa_floor_high", "known_wrong", "note")
IQR = "interquartile range of rounds"
POOLED_TIME = "range of the jobs' medians (pooled: their geometric mean)"
MEMORY_CI = "95% bootstrap over child processes (unpaired)"
MEMORY_POOLED = ("95% bootstrap over jobs (their scatter scaled by sqrt(n/(n-1))), then child "
                 "processes (unpaired, pooled)")
STEP_PHASES = ("train", "infer", "construction")
SETTING_FACTS = ("model_config", "input_shape", "batch", "params", "flops", "threads", "device",
                 "vector_isa", "wait")  # what a step time was measured on
ADAPTIVE_FACTS = ("target_half_width", "reached_target", "half_width", "stopped_by",
                  "min_step_s", "group_seconds", "variance_components")  # how repetition stopped
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


def record(r, kind, unit, estimate, low=None, high=None, interval=None, significant=None,
           note=None, **fields):
    """The record of figure `kind` of result `r` (its run, commit and flags travel with it)."""
    i = r.info
    labels = {"machine": r.machine, "run": r.run, "commit": (r.commit or {}).get("id"),
              "code": code(r), "dirty": r.dirty, "backend": i["backend"], "model": i.get("model"),
              "variant": i["variant"], "phase": i["phase"], "precision": r.flags[0],
              "case": r.key[4], "processes": i.get("processes", 1),
              "rounds": i.get("rounds", r.stats.get("rounds")), "known_wrong": i.get("known_wrong")}
    return labelled(labels, kind, unit, estimate, low, high, interval, significant, note, **fields)


def ratio_record(r, kind, base, saved, missing="no eager in this run", **fields):
    """base ÷ r as record `kind` by the one ratio rule (ratios.ratio); pooled `fields` replace
    one job's."""
    return record(r, kind, "x", **{**ratio(saved, base, r, missing), **fields})


def saved_record(r, kind, saved, **fields):
    """A paired ratio as its suite saved it (load.Saved), with its 95% interval; pooled `fields`
    replace one job's."""
    return record(r, kind, "x", **{"estimate": saved.estimate, "low": saved.low,
                                   "high": saved.high, "interval": CI,
                                   "significant": significant(saved), **fields})


def spread_record(r, kind, **fields):
    """A median time with its interquartile range (`fields` may replace both: pooled_time)."""
    return record(r, kind, "s", **{"estimate": r.median, "low": r.stats["q1"],
                                   "high": r.stats["q3"], "interval": IQR, **fields})


def pooled_time(r, repeats):
    """A step time's fields over `r`'s job and the `repeats` that timed it: the geometric mean of
    the jobs' medians and their range, so that its eager ÷ graph reads as the pooled speedup does,
    and how fast the host ran in each job (host_readings); {} with one job."""
    found = [r, *(same for same, _ in _repeated(r, r, repeats))]
    if len(found) < 2:
        return {}
    medians = [x.median for x in found]
    return {"estimate": math.exp(statistics.fmean(map(math.log, medians))), "low": min(medians),
            "high": max(medians), "interval": POOLED_TIME, "pooled_runs": [x.run for x in found],
            **host_readings(found, medians)}


def host_readings(found, medians):
    """Each pooled job's median (`medians`) beside the host's reference loop and stolen share
    around its run (run.py's graphbench_host), in pooled_runs' order; {} unless every job has
    them, from one Python and one loop (another runs the loop at another speed)."""
    if not all(x.host for x in found) or len({(x.host.get("python"), x.host.get("loop"))
                                              for x in found}) > 1:
        return {}
    return {"pooled_medians": medians,
            "pooled_reference_ms": [x.reference_ms for x in found],
            "pooled_stolen": [x.host.get("stolen") for x in found]}


def signals(r):
    """What the backend logged or counted while a steady arm ran (suites.paired._signals), each
    summed over its processes where not zero: `signals_first_call` at the arm's first calls,
    `signals_timed` in its group's warm-up and timed rounds (every arm's); {} where none."""
    out = {}
    for where in ("first_call", "timed"):
        totals = {}
        for counts in r.info.get(f"signals_{where}") or ():
            for name, n in counts.items():
                totals[name] = totals.get(name, 0) + n
        if found := {name: n for name, n in sorted(totals.items()) if n}:
            out[f"signals_{where}"] = found
    return out


def facts(r, names):
    """The counts and seconds of `names` that result `r` (or a dict) saved, for a record's extra
    fields."""
    info = r if isinstance(r, dict) else r.info
    return {name: info[name] for name in names if name in info}


def aa_floors(results):
    """{(machine, run): (low, high)} of the widest steady-step A/A interval saved in each run
    (the micro and pipeline suites' own A/A pairs are shown in their sections)."""
    widest = {}
    for r in results:
        aa = r.saved("aa")
        if aa and aa.low > 0 and r.info.get("phase") in ("train", "infer"):
            key, width = (r.machine, r.run), aa.high / aa.low
            if key not in widest or width > widest[key][0]:
                widest[key] = (width, aa.low, aa.high)
    return {k: (low, high) for k, (_, low, high) in widest.items()}


def break_even_record(parts, variant, cache="cold", speedup=None, repeats=(), kept=None):
    """Steps until the graph variant's first call (`cache`: cold, or warm for every later run on
    this machine) is paid back by its train `speedup` record: from four figures of one job (one
    run's, or the steps' run and the first calls' run of one GPU job: select.same_job, named in
    `first_calls_run`), each the geometric mean over the jobs that repeat it (`repeats`); the
    range spans the speedup's interval and each job's own break-even (jobs_break_even). `kept`:
    the cache that made the cold first calls warm (load.KEPT_CACHES)."""
    names = (f"{cache} first call", "train step", f"eager {cache} first call", "eager train step")
    if not all(parts):
        missing = ", ".join(n for n, p in zip(names, parts) if p is None)
        anchor = next(p for p in parts if p)
        skipped = parts[0] is None and profile_skip(anchor, "construction", anchor.info["model"],
                                                    variant)
        if skipped:
            note = f"first calls left out by profile `{anchor.profile_name}` in this run"
        elif kept and parts[0] is None:
            note = f"no cold first call: {kept} was kept between processes"
        elif parts[0] is None and parts[2] is None:  # the run timed no first call at all
            note = "no first calls timed in this run"
        else:
            note = f"no {missing} in this run"
        return record(anchor, "break_even", "steps", None, note=note, timed=False,
                      variant=variant, phase="train", case=cache, known_wrong=None)
    cold, train, eager_cold, eager_train = parts
    first, eager_first, eager_step, graph_step = (
        pooled_median(p, repeats) for p in (cold, eager_cold, eager_train, train))
    if speedup and speedup["estimate"]:
        gain = speedup["estimate"]
        bounds = (speedup["low"], speedup["high"]) if speedup["interval"] else ()
    else:
        saved = train.saved("speedup")
        gain, bounds = _gain(train, eager_train), tuple(saved[1:3]) if saved else ()
    jobs = jobs_break_even(parts, repeats)
    steps, low, high, note = break_even_range(first, eager_first, eager_step, gain, *bounds,
                                              jobs=jobs)
    interval = low and "from the speedup's 95% interval" + (
        " and each job's own break-even" if len(jobs) > 1 else "")
    return record(train, "break_even", "steps", steps, low, high, interval, note=note, case=cache,
                  timed=True,  # all four figures: the steps, or why it never pays, are known
                  first_calls_run=None if cold.file == train.file else cold.run,
                  slow=steps is not None and steps >= SLOW_PAYBACK,  # a short run stays eager
                  first_call_cheaper=first <= eager_first,  # paid at step 1
                  seconds=steps and steps * graph_step)  # the graph steps until it pays


def pooled_median(r, repeats):
    """r's median over its job and the `repeats` that timed it: pooled_time's geometric mean,
    else r's own."""
    return pooled_time(r, repeats).get("estimate", r.median)


def jobs_break_even(parts, repeats):
    """Each job's own break-even from its own four figures (cold first call, train step, eager's
    first call and step: `parts` and their twins in the `repeats` run of the same file), with its
    own speedup; [] with one job. A slow job is slow in all four, so this spread is not the
    first calls' and steps' extremes taken together."""
    cold, train, eager_cold, eager_train = parts
    firsts = {same.file: (same, base) for same, base in _repeated(cold, eager_cold, repeats)}
    found = [break_even(cold.median, eager_train.median / _gain(train, eager_train),
                        eager_cold.median, eager_train.median)]
    for same, base in _repeated(train, eager_train, repeats):
        if base is not None and same.file in firsts and firsts[same.file][1] is not None:
            first, eager_first = firsts[same.file]
            found.append(break_even(first.median, base.median / _gain(same, base),
                                    eager_first.median, base.median))
    return found if len(found) > 1 else []


def _gain(train, eager_train):
    """One job's train speedup: its saved paired ratio, else eager's median ÷ the graph's."""
    saved = train.saved("speedup")
    return saved.estimate if saved else eager_train.median / train.median


POOLED = ("95% bootstrap over jobs (their scatter scaled by sqrt(n/(n-1))), then processes and "
          "rounds (pooled)")


def pooled(r, eager, kind, repeats):
    """The record fields of `kind` ("speedup" or "aa") pooled over `r`'s job and the `repeats`
    (select.repeats) that timed the same group: the geometric mean of the jobs' paired ratios
    and pool.pooled_ratio's interval, with the job as the outer level; {} with one job. `eager`
    is the ratio's other arm: eager in r's precision, or r's variant in float32."""
    def arms(result, base):
        arm = result.info.get("paired_rounds_s") if kind == "speedup" else base.info.get(
            "aa_rounds_s")
        if base is not None and arm and base.info.get("paired_rounds_s"):
            return base.info["paired_rounds_s"], arm
    jobs, timed = repeated_arms(r, eager, repeats, arms)
    if len(jobs) < 2:
        return {}
    from report.build.pool import pooled_ratio  # NumPy, imported when a figure needs it
    found = pooled_ratio(jobs)
    aimed = all(map(aimed_at, timed))  # one job that left the ratio out names why: ratios.target
    return {"estimate": found.estimate, "low": found.low, "high": found.high,
            "interval": POOLED, "significant": found.significant,
            "pooled_runs": [same.run for same in timed],
            "processes": sum(len(a) for a, _ in jobs), **({} if aimed else {"half_width": None})}


def pooled_facts(r, eager, kind, repeats):
    """r's own precision facts (ADAPTIVE_FACTS), replaced by the pooled fields where other jobs
    timed the same ratio: the fields a speedup or A/A record carries."""
    return {**facts(r, ADAPTIVE_FACTS), **pooled(r, eager, kind, repeats)}


def aimed_at(result):
    """Whether the result's job aimed its ratio at the precision target (it leaves out a ratio
    whose eager step is short)."""
    return result.info.get("target_half_width") is None or result.info.get("half_width") is not None


def repeated_arms(r, base, repeats, arms):
    """([each job's two arms], [its result]) over r's job and the `repeats` that timed the same
    pair: `arms(result, base)` gives a job's arms, or None where it has none to pool."""
    jobs, timed = [], []
    for result, other in [(r, base), *_repeated(r, base, repeats)]:
        if found := arms(result, other):
            jobs.append(found)
            timed.append(result)
    return jobs, timed


def _repeated(r, base, repeats):
    """[(the same case, the same base case)] in each repeating job's run; without `base`, r's
    eager case."""
    wanted = ((r.flags, r.key),
              (base.flags, base.key) if base else (r.flags, (*r.key[:2], "eager", *r.key[3:])))
    by_file, kind = {}, job_kind(r)
    for other in repeats:  # a job of another code, release, profile or job never pools with r's
        if (other.flags, other.key) in wanted and job_kind(other) == kind:
            by_file.setdefault(other.file, {})[other.flags, other.key] = other
    return [(found[wanted[0]], found.get(wanted[1])) for found in by_file.values()
            if wanted[0] in found]


def steady_records(results, mixed=True, repeats=()):
    """The main tables (float32, non-deterministic): step times, speedups, first calls, start-up,
    break-even; each eager step's A/A control; mixed precision against float32 (`mixed`); a
    ratio timed again by other jobs of the same code (`repeats`) pools them."""
    idx = index(results)
    out = []
    for (backend, model, variant, phase, cache), r in sorted(idx.items(), key=str):
        if phase == "construction":
            out.append(record(r, "first_call", "s", **{
                "estimate": r.median, "low": r.stats["min"], "high": r.stats["max"],
                "interval": "range of rounds", **pooled_time(r, repeats),
                **({"kept_cache": r.kept_cache} if r.kept_cache else {})}))
            if variant == "eager" and r.info.get("cache") == "cold" and r.info.get("startup_s"):
                seconds = r.info["startup_s"]  # each round a new process: its start-up
                out.append(record(r, "startup_time", "s", statistics.median(seconds),
                                  min(seconds), max(seconds), "range of rounds", case="cold"))
        elif phase in ("train", "infer"):
            out.append(spread_record(r, "step_time", **facts(r, SETTING_FACTS),
                                     **pooled_time(r, repeats)))
            eager = idx.get((backend, model, "eager", phase, None))
            if variant != "eager":
                out.append(ratio_record(r, "speedup", eager, r.saved("speedup"),
                                        **facts(r, SETTING_FACTS),
                                        **pooled_facts(r, eager, "speedup", repeats), **signals(r)))
    for r in invalid(results):
        if r.flags == BASELINE and r.info["phase"] in ("train", "infer"):
            out.append(record(r, "step_time", "s", None, note="non-finite loss"))
    speedups = {(r["backend"], r["model"], r["variant"]): r for r in out
                if r["kind"] == "speedup" and r["phase"] == "train"}
    for backend, model, variant in sorted({k[:3] for k in idx if k[3] in ("train", "construction")
                                           and k[2] != "eager"}):
        get = lambda v, p, c=None: idx.get((backend, model, v, p, c))
        speedup = speedups.get((backend, model, variant))
        out.append(break_even_record((get(variant, "construction", "cold"), get(variant, "train"),
                                      get("eager", "construction", "cold"), get("eager", "train")),
                                     variant, "cold", speedup, repeats,
                                     kept=(warm := get(variant, "construction", "warm"))
                                     and warm.kept_cache))
        if get(variant, "construction", "warm"):  # every later run on this machine
            eager = get("eager", "construction", "warm") or get("eager", "construction", "cold")
            out.append(break_even_record((get(variant, "construction", "warm"),
                                          get(variant, "train"), eager, get("eager", "train")),
                                         variant, "warm", speedup, repeats))  # eager caches nothing
    out += [saved_record(r, "aa_ratio", r.saved("aa"), **pooled_facts(r, r, "aa", repeats))
            for r in idx.values() if r.saved("aa")]
    best.mark(out, lambda *row: idx.get((*row, "train", None)))
    return out + (precision_records(results) if mixed else []) + noise_records(results)


def seeds_steady_records(results, repeats=()):
    """The seeds job's steady groups: mixed precision against float32 (article 002) and each
    float32 train speedup of a focus group as `focus_speedup` (article 004), never a row of the
    answer's tables; each pooled with the seeds jobs of the same code that repeat it (`repeats`)."""
    focus = [{**rec, "kind": "focus_speedup", "best": None}
             for rec in steady_records(results, mixed=False, repeats=repeats)
             if rec["kind"] == "speedup" and rec["phase"] == "train" and rec["interval"]]
    return focus + precision_records(results, repeats)


def noise_records(results):
    """Where each steady A/A pair's noise lies (stats.noise): the per-round and between-process
    spread of eager ÷ eager_aa, the first rounds' drift, and the interval's half-width."""
    import stats  # NumPy: not for `--help`
    out = []
    for r in index(results).values():
        i = r.info
        if r.info["phase"] in ("train", "infer") and i.get("aa_rounds_s") and r.saved("aa"):
            found, aa = stats.noise(i["paired_rounds_s"], i["aa_rounds_s"]), r.saved("aa")
            out.append(record(r, "aa_noise", "relative sd", found.within,
                              between_sd=found.between, first_rounds=found.first_rounds,
                              half_width=(aa.high - aa.low) / 2 / aa.estimate,
                              blocks=i.get("blocks") or [i.get("block", 1)]))
    return out


def precision_index(results):
    """{(backend, model, variant, phase, cache, precision): result}, deterministic runs left out."""
    return {(*r.key, r.flags[0]): r for r in latest(results)
            if not r.flags[1] and r.info["phase"] in STEP_PHASES and r.valid}


def precision_records(results, repeats=()):
    """Per mixed-precision result: its step time or cold first call and, for train and infer
    steps, the same variant in float32 ÷ in mixed precision, both from one run (pooled with the
    `repeats` of the same code); a train step also carries both precisions' loss after the same
    steps."""
    idx, out = precision_index(results), []
    for key, r in sorted(idx.items(), key=str):
        if key[5] == "float32":
            continue
        if key[3] == "construction" and key[4] == "cold":
            out.append(record(r, "first_call", "s", r.median, r.stats["min"], r.stats["max"],
                              "range of rounds"))
        if key[3] in ("train", "infer"):
            full = idx.get((*key[:5], "float32"))
            out += [spread_record(r, "step_time"),
                    ratio_record(r, "precision_speedup", full, r.saved("precision"),
                                 missing="no float32 in this run", **losses(r, full),
                                 **(pooled(r, full, "speedup", repeats) if full else {}))]
    return out


def precision_pays(records):
    """Sets `backend_pays` on each train precision_speedup record: whether its backend's mixed
    precision is worth it on this machine (ratios.pays over its train steps with a figure)."""
    steps = [r for r in records if r["kind"] == "precision_speedup" and r["phase"] == "train"]
    verdicts = {}
    for r in steps:
        if r["estimate"] is not None:
            verdicts.setdefault(r["backend"], []).append(r["verdict"])
    for r in steps:
        r["backend_pays"] = pays(verdicts.get(r["backend"], ()))
    return records


def losses(mixed, full):
    """{loss, float32_loss, loss_steps}: both precisions' loss after the same number of steps."""
    steps = mixed.info.get("steps_taken")
    if full is None or "loss" not in mixed.info or steps != full.info.get("steps_taken"):
        return {}
    return {"loss": mixed.info["loss"], "float32_loss": full.info["loss"], "loss_steps": steps}


def throughput_records(results):
    """The matmul peak of each run, and each train step's share of that same run's peak."""
    idx = index(results)
    out = []
    for (backend, *_), peak in sorted(idx.items(), key=str):
        if peak.info["phase"] != "peak":
            continue
        out.append(record(peak, "matmul_peak", "GFLOP/s", gflops(peak)))
        out += [record(r, "throughput_share", "fraction", gflops(r) / gflops(peak))
                for (b, *_), r in sorted(idx.items(), key=str)
                if b == backend and r.info["phase"] == "train" and r.run == peak.run]
    return out


def gflops(result):
    """GFLOP/s of a result: its extra_info FLOPs over its median time."""
    return result.info["flops"] / result.median / 1e9


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
    (pooled_time); lengths.mark_first marks what finishes first."""
    return mark_first([record(r, "lengths_total", "s", note=(
        "cut short by the profile's budget" if r.info.get("cut_short") else None),
        **whole_total(r, repeats), **facts(r, LENGTHS_FACTS), steady_step_s=_seen_step(r))
        for r in latest(results) if r.info["phase"] == "lengths" and r.valid])


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


def machine_records(view):
    """Every record of one machine, each section from its own runs (`view(section)`); a run's A/A
    floor is its steady A/A, whichever section reads it."""
    steady, seeds = view("steady"), view("seeds_steady")
    mixed = [r for r in seeds if r.flags[0] != BASELINE[0]]  # the seeds job's, else older runs'
    found = (steady_records(steady, mixed=not mixed, repeats=view("steady_repeats"))
             + seeds_steady_records(seeds, view("seeds_steady_repeats"))
             + throughput_records(view("peak"))
             + micro_records(view("micro"), view("micro_repeats"))
             + determinism_records(view("determinism"), view("determinism_repeats"))
             + agreement_records(view("determinism"), steady)
             + pipeline_records(view("pipeline"), view("pipeline_repeats"))
             + retrace_records(view("retrace"), view("retrace_repeats"))
             + lengths_records(view("lengths"), view("lengths_repeats"))
             + memory_records(view("memory"), view("memory_repeats"))
             + scale_records(view("scale"), view("scale_repeats")))
    floors = aa_floors(steady)
    group = lambda r: (r["run"], r["backend"], r["model"], r["phase"], r["precision"], r["case"])
    controls = {group(r): r for r in found if r["kind"] == "aa_ratio" and r["low"]}
    for rec in found:
        rec["aa_floor_low"], rec["aa_floor_high"] = floors.get((rec["machine"], rec["run"]),
                                                               (None, None))
        if rec["unit"] == "x" and rec["kind"] != "aa_ratio" and group(rec) in controls:
            aa = controls[group(rec)]  # decided beside the A/A pair of its own group
            rec.update(aa_low=aa["low"], aa_high=aa["high"])
            rec.update(meaning(rec, *WORDS.get(rec["kind"], ())))
    found = mark_headlines(precision_pays(found))
    return found + claims.micro_claims(found) + claims.pipeline_claims(found)  # on the verdicts


def load_studies(results):
    """{GPU model: [each complete gpu/step_cost.py line, each gpu/cudagraph_capture.py line
    (`check`: "cudagraphs") and each parity check's outcome (`check`: "parity"), with its study's
    machine]} from results/findings/<GPU model>/."""
    found = {}
    for path in sorted(Path(results, "findings").glob("*/gpu_*.json")):
        study = json.loads(path.read_text())
        if not study.get("complete"):
            continue
        mine = found.setdefault(study["machine"]["gpu"], [])
        if path.stem.startswith("gpu_step-cost-"):
            mine += [{**r, "study": path.stem, "machine": study["machine"]}
                     for r in study["results"] if "step_over" in r]
        elif path.stem.startswith("gpu_cudagraphs-"):  # a CPU's dry-run lines: no CUDA graphs
            mine += [{**r, "check": "cudagraphs", "study": path.stem, "machine": study["machine"]}
                     for r in study["results"] if r.get("device") == "cuda"]
        elif path.stem.startswith("gpu_parity-") and "counts" in study:
            mine.append({"check": "parity", "backend": study["backend"], "study": path.stem,
                         "machine": study["machine"], "counts": study["counts"],
                         "failures": study["failures"],
                         "model": study.get("label") or "mnist_cnn"})  # the first ones: none
    return found


def _study_record(machine, line, kind, unit, estimate, **fields):
    """A record of one GPU study's or check's line (no run of the suite's: the study names it),
    with no verdict or target unless `fields` give one."""
    return {"machine": machine, "run": line["study"], "commit": line["machine"]["commit"],
            "code": line["machine"].get("code"), "dirty": False, "backend": line["backend"],
            "model": "mnist_cnn", "variant": None, "phase": "train", "precision": "float32",
            "case": None, "kind": kind, "unit": unit, "estimate": estimate, "low": None, "high": None, "interval": None,
            "significant": None, "processes": 1, "rounds": None, "aa_floor_low": None,
            "aa_floor_high": None, "known_wrong": None, "note": None, "best": None,
            "device": "cuda", "verdict": None, "verdict_note": None, "mark": "", "target": None,
            **fields}


def parity_records(machine, studies):
    """Per backend and model, how many of the parity tests (its logits and first loss against
    the float64 reference, every variant, at the TF32 tolerance) passed on `machine`'s GPU, with
    the failing ones."""
    out = []
    for line in studies.get(gpu_model(machine), ()):
        if line.get("check") == "parity":
            counts = line["counts"]
            out.append(_study_record(
                machine, line, "parity_check", "tests", counts.get("passed", 0),
                failed=counts.get("failed", 0) + counts.get("error", 0),
                failures=line["failures"], model=line["model"]))
    return out


def capture_records(machine, studies):
    """Per model and phase, the graphs inductor left out of CUDA graphs under `reduce-overhead`
    on `machine`'s GPU (gpu/cudagraph_capture.py), with its reasons; a model that failed, one
    record with its error and no estimate."""
    return [_study_record(machine, line, "cudagraph_capture", "graphs",
                          line.get("cudagraph_skips"), model=line["model"],
                          phase=line.get("phase", "train"), variant="graph_cudagraphs",
                          frames=line.get("frames"), reasons=line.get("reasons", []),
                          error=line.get("error"))
            for line in studies.get(gpu_model(machine), ()) if line.get("check") == "cudagraphs"]


def wait_records(machine, studies):
    """The records of what a wait after every step costs on `machine`'s GPU (its studies): each
    backend and variant's step ÷ block time, paired over interleaved rounds of one process."""
    out = []
    for line in studies.get(gpu_model(machine), ()):
        if "step_over" not in line:
            continue
        ratio = line["step_over"]["block"]
        rec = _study_record(machine, line, "wait_cost", "x", ratio["ratio"],
                            variant=line["variant"], low=ratio["low"], high=ratio["high"],
                            interval="95% bootstrap over interleaved rounds of one process",
                            significant=ratio["significant"], rounds=line["rounds"],
                            step_ms=line["ms"]["step"], block_ms=line["ms"]["block"])
        out.append({**rec, **meaning(rec, "slower", "faster")})
    return out
