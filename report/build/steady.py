"""The steady suite's records: step times, speedups, first calls, start-up and break-even, each
eager step's A/A control and noise, mixed precision against float32, and the matmul peak."""
import statistics

from report.build import best
from report.build.load import BASELINE
from report.build.ratios import SLOW_PAYBACK, break_even, break_even_range, pays
from report.build.records import (SETTING_FACTS, facts, pooled, pooled_facts,
                                  pooled_time, process_spread_of, ratio_record, record, repeated,
                                  saved_record, signals, spread_record)
from report.build.select import index, invalid, latest, profile_skip

STEP_PHASES = ("train", "infer", "construction")


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
                                     **pooled_time(r, repeats), **process_spread_of(r)))
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
    firsts = {same.file: (same, base) for same, base in repeated(cold, eager_cold, repeats)}
    found = [break_even(cold.median, eager_train.median / _gain(train, eager_train),
                        eager_cold.median, eager_train.median)]
    for same, base in repeated(train, eager_train, repeats):
        if base is not None and same.file in firsts and firsts[same.file][1] is not None:
            first, eager_first = firsts[same.file]
            found.append(break_even(first.median, base.median / _gain(same, base),
                                    eager_first.median, base.median))
    return found if len(found) > 1 else []


def _gain(train, eager_train):
    """One job's train speedup: its saved paired ratio, else eager's median ÷ the graph's."""
    saved = train.saved("speedup")
    return saved.estimate if saved else eager_train.median / train.median


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
