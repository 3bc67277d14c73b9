"""One record per published figure, built once per machine from the selected results: summary.json
holds them, and every table, chart, reading and verdict reads them. Here the record itself and
what every section's records share: a ratio's and a time's fields, pooled over the jobs of one
code that repeat them; report.build.steady, sections and studies build each section's."""
import math
import statistics

from report.build.figure import labelled
from report.build.ratios import CI, ratio, significant
from report.build.select import code, job_kind

FIELDS = ("machine", "run", "commit", "code", "dirty", "backend", "model", "variant", "phase",
          "precision", "case", "kind", "unit", "estimate", "low", "high", "interval",
          "significant", "verdict", "verdict_note", "mark", "target", "best", "processes", "rounds",
          "aa_floor_low", "aa_floor_high", "known_wrong", "note")
IQR = "interquartile range of rounds"
POOLED_TIME = "range of the jobs' medians (pooled: their geometric mean)"
SETTING_FACTS = ("model_config", "input_shape", "batch", "params", "flops", "threads", "device",
                 "vector_isa", "wait")  # what a step time was measured on
ADAPTIVE_FACTS = ("target_half_width", "reached_target", "half_width", "stopped_by",
                  "min_step_s", "group_seconds", "variance_components")  # how repetition stopped
POOLED = ("95% bootstrap over jobs (their scatter scaled by sqrt(n/(n-1))), then processes and "
          "rounds (pooled)")


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


def process_spread_of(r):
    """On a GPU, where a row is one run of a few processes: its slowest process's median step ÷
    its fastest's (`process_spread`); {} on a CPU, whose rows pool jobs (runs.job_spread), or with
    one process."""
    per = [statistics.median(p) for p in r.info.get("paired_rounds_s") or () if p]
    if r.info.get("device") != "cuda" or len(per) < 2 or min(per) <= 0:
        return {}
    return {"process_spread": max(per) / min(per)}


def pooled_time(r, repeats):
    """A step time's fields over `r`'s job and the `repeats` that timed it: the geometric mean of
    the jobs' medians and their range, so that its eager ÷ graph reads as the pooled speedup does,
    and how fast the host ran in each job (host_readings); {} with one job."""
    found = [r, *(same for same, _ in repeated(r, r, repeats))]
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
    for result, other in [(r, base), *repeated(r, base, repeats)]:
        if found := arms(result, other):
            jobs.append(found)
            timed.append(result)
    return jobs, timed


def repeated(r, base, repeats):
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
