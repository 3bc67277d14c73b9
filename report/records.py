"""One record per published figure: summary.json, the main tables and the summary read these."""
import statistics
import stats
from report.tables import BASELINE, _paired, break_even, flags, index, invalid, latest, median

FIELDS = ("machine", "run", "commit", "dirty", "backend", "model", "variant", "phase",
          "precision", "case", "kind", "unit", "estimate", "low", "high", "interval",
          "significant", "processes", "rounds", "aa_floor_low", "aa_floor_high", "known_wrong",
          "note")
IQR, CI = "interquartile range of rounds", "95% paired bootstrap"
MEMORY_CI = "95% bootstrap over child processes (unpaired)"


def aa_floors(results):
    """{(machine, run): (low, high)} of the widest steady-step A/A interval saved in each run
    (the micro and pipeline suites' own A/A pairs are shown in their sections)."""
    widest = {}
    for r in results:
        i = r.info
        if "aa_ci_low" in i and i["aa_ci_low"] > 0 and i.get("phase") in ("train", "infer"):
            key, width = (r.machine, r.run), i["aa_ci_high"] / i["aa_ci_low"]
            if key not in widest or width > widest[key][0]:
                widest[key] = (width, i["aa_ci_low"], i["aa_ci_high"])
    return {k: (low, high) for k, (_, low, high) in widest.items()}


def record(r, kind, unit, estimate, floors, low=None, high=None, interval=None,
           significant=None, note=None, **fields):
    """The record of figure `kind` of result `r` (its run, commit and flags travel with it)."""
    i, floor = r.info, floors.get((r.machine, r.run), (None, None))
    found = {"machine": r.machine, "run": r.run, "commit": (r.commit or {}).get("id"),
             "dirty": r.dirty, "backend": i["backend"], "model": i.get("model"),
             "variant": i["variant"], "phase": i["phase"], "precision": flags(r)[0],
             "case": r.key[4], "kind": kind, "unit": unit, "estimate": estimate,
             "low": low, "high": high, "interval": interval, "significant": significant,
             "processes": i.get("processes", 1), "rounds": i.get("rounds", r.stats.get("rounds")),
             "aa_floor_low": floor[0], "aa_floor_high": floor[1],
             "known_wrong": i.get("known_wrong"), "note": note}
    return {**found, **fields}


def step_record(r, floors):
    """A step time (median) with its interquartile range."""
    return record(r, "step_time", "s", median(r), floors, r.stats["q1"], r.stats["q3"], IQR)


def speedup_record(eager, graph, floors):
    """Eager ÷ variant of one run: the paired estimate with its interval, else unpaired."""
    if eager is None:
        return record(graph, "speedup", "x", None, floors, note="no eager in this run")
    if _paired(eager, graph):
        i = graph.info
        return record(graph, "speedup", "x", i["speedup"], floors, i["ci_low"], i["ci_high"], CI,
                      i["significant"])
    return record(graph, "speedup", "x", median(eager) / median(graph), floors,
                  note="unpaired (saved before paired timing): no interval")


def precision_record(full, mixed, floors):
    """The same variant in float32 ÷ in mixed precision, both from one run: the paired estimate
    with its interval where the run saved one, else the ratio of medians."""
    if full is None:
        return record(mixed, "precision_speedup", "x", None, floors, note="no float32 in this run")
    i = mixed.info
    if "precision_speedup" in i:
        return record(mixed, "precision_speedup", "x", i["precision_speedup"], floors,
                      i["precision_ci_low"], i["precision_ci_high"], CI, i["precision_significant"])
    return record(mixed, "precision_speedup", "x", median(full) / median(mixed), floors,
                  note="unpaired (saved before paired timing): no interval")


def break_even_record(parts, floors, variant):
    """Steps until the graph variant's first call is paid back, from one run's four figures."""
    names = ("cold first call", "train step", "eager cold first call", "eager train step")
    if not all(parts):
        missing = ", ".join(n for n, p in zip(names, parts) if p is None)
        anchor = next(p for p in parts if p)
        return record(anchor, "break_even", "steps", None, floors, note=f"no {missing} in this run",
                      variant=variant, phase="train", case="cold", known_wrong=None)
    cold, train, eager_cold, eager_train = parts
    if not _paired(eager_train, train):
        n = break_even(*(median(p) for p in parts))
        return record(train, "break_even", "steps", n, floors, case="cold",
                      note="never (graph step not faster)" if n is None else "unpaired")
    steps = lambda speedup: break_even(median(cold), median(eager_train) / speedup,
                                       median(eager_cold), median(eager_train))
    i = train.info
    if median(cold) > median(eager_cold) and i["ci_low"] <= 1 <= i["ci_high"]:
        return record(train, "break_even", "steps", None, floors, case="cold",
                      note="no significant gain (the speedup's interval includes 1)")
    if i["ci_high"] < 1 and median(cold) > median(eager_cold):
        return record(train, "break_even", "steps", None, floors, case="cold",
                      note="never (slower)")
    return record(train, "break_even", "steps", steps(i["speedup"]), floors,
                  steps(i["ci_high"]), steps(i["ci_low"]), "from the speedup's 95% interval",
                  case="cold")


def startup_record(r, floors):
    """A fresh process's start-up (interpreter, framework import and configuration), from the
    eager cold construction rounds, each a new process: the median with the rounds' range."""
    seconds = r.info["startup_s"]
    return record(r, "startup_time", "s", statistics.median(seconds), floors, min(seconds),
                  max(seconds), "range of rounds")


def steady_records(results):
    """Records of the main tables (float32, non-deterministic) of one machine's steady runs."""
    idx, floors = index(results), aa_floors(results)
    out = []
    for (backend, model, variant, phase, cache), r in sorted(idx.items(), key=str):
        if phase == "construction":
            out.append(record(r, "first_call", "s", median(r), floors, r.stats["min"],
                              r.stats["max"], "range of rounds"))
            if variant == "eager" and cache == "cold" and r.info.get("startup_s"):
                out.append(startup_record(r, floors))
        elif phase in ("train", "infer"):
            out.append(step_record(r, floors))
            if variant != "eager":
                out.append(speedup_record(idx.get((backend, model, "eager", phase, None)), r,
                                          floors))
    for r in invalid(results):
        if flags(r) == BASELINE and r.info["phase"] in ("train", "infer"):
            out.append(record(r, "step_time", "s", None, floors, note="non-finite loss"))
    for backend, model, variant in sorted({k[:3] for k in idx if k[3] in ("train", "construction")
                                           and k[2] != "eager"}):
        get = lambda v, p, c=None: idx.get((backend, model, v, p, c))
        parts = (get(variant, "construction", "cold"), get(variant, "train"),
                 get("eager", "construction", "cold"), get("eager", "train"))
        out.append(break_even_record(parts, floors, variant))
    return out


def lookup(records):
    """{(backend, model, variant, kind, phase, case): record} for table cells."""
    return {(r["backend"], r["model"], r["variant"], r["kind"], r["phase"], r["case"]): r
            for r in records}


def aa_records(results):
    """Each eager result's A/A control: eager ÷ a second eager runner, with its interval."""
    floors = aa_floors(results)
    return [record(r, "aa_ratio", "x", r.info["aa_ratio"], floors, r.info["aa_ci_low"],
                   r.info["aa_ci_high"], CI, r.info["aa_significant"])
            for r in index(results).values() if "aa_ratio" in r.info]


def throughput_records(results):
    """The matmul peak of each run, and each train step's share of that same run's peak."""
    idx, floors = index(results), aa_floors(results)
    out = []
    for (backend, *_), peak in sorted(idx.items(), key=str):
        if peak.info["phase"] != "peak":
            continue
        out.append(record(peak, "matmul_peak", "GFLOP/s", gflops(peak), floors))
        out += [record(r, "throughput_share", "fraction", gflops(r) / gflops(peak), floors)
                for (b, *_), r in sorted(idx.items(), key=str)
                if b == backend and r.info["phase"] == "train" and r.run == peak.run]
    return out


def gflops(result):
    """GFLOP/s of a result: its extra_info FLOPs over its median time."""
    return result.info["flops"] / median(result) / 1e9


def retrace_records(results):
    """Total time of each published retrace sequence (case = step-pattern); a cut-short one says
    so."""
    floors = aa_floors(results)
    return [record(r, "retrace_total", "s", median(r), floors, traces=r.info.get("traces"),
                   note="cut short by the profile's budget" if r.info.get("cut_short") else None)
            for r in latest(results) if r.info["phase"] == "retrace" and r.valid
            and r.info.get("step") == "train"]  # the tables show train steps only


def memory_records(results):
    """Each memory case's train-step RSS peak above its post-import baseline."""
    floors = aa_floors(results)
    return [record(r, "memory_peak", "bytes", r.info["peak_memory_bytes"], floors)
            for r in latest(results) if r.info["phase"] == "memory" and r.valid]


def memory_ratio_record(r, results, floors):
    """Variant peak ÷ the peak of eager saved in the same run (never another run's), with the
    unpaired interval over the child processes' peaks where each arm saved two or more."""
    eager = next((e for e in results if e.machine == r.machine and e.file == r.file
                  and e.info["phase"] == "memory" and e.info["variant"] == "eager"
                  and e.info["backend"] == r.info["backend"] and e.info["model"] == r.info["model"]
                  and flags(e) == flags(r) and e.valid), None)
    if eager is None:
        return record(r, "memory_ratio", "x", None, floors, note="no eager in this run")
    rounds = [x.info.get("peak_memory_bytes_rounds") or [] for x in (r, eager)]
    if min(map(len, rounds)) < 2:
        return record(r, "memory_ratio", "x", r.info["peak_memory_bytes"]
                      / eager.info["peak_memory_bytes"], floors,
                      note="no interval (one child per case, or saved without each child's peak)")
    found = stats.ratio_of_medians(*rounds)
    return record(r, "memory_ratio", "x", found.estimate, floors, found.low, found.high,
                  MEMORY_CI, found.significant)


def memory_ratio_records(results):
    """Each memory variant's peak over its run's eager peak ("× eager's peak": above 1, more)."""
    floors = aa_floors(results)
    return [memory_ratio_record(r, results, floors) for r in latest(results)
            if r.info["phase"] == "memory" and r.valid and r.info["variant"] != "eager"]


def machine_records(view):
    """Every record of one machine, each section from its own runs (`view(section)`)."""
    from report.precision import precision_records  # it builds its table from these records
    from report.section_records import determinism_records, micro_records, pipeline_records
    steady = view("steady")
    found = (steady_records(steady) + aa_records(steady) + precision_records(steady)
             + throughput_records(view("peak")) + micro_records(view("micro"))
             + determinism_records(view("determinism")) + pipeline_records(view("pipeline"))
             + retrace_records(view("retrace")) + memory_records(view("memory"))
             + memory_ratio_records(view("memory")))
    floors = aa_floors(steady)  # a run's floor is its steady A/A, whichever section reads it
    for rec in found:
        rec["aa_floor_low"], rec["aa_floor_high"] = floors.get((rec["machine"], rec["run"]),
                                                               (None, None))
    return found
