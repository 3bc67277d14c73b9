"""Records of the micro, determinism and pipeline sections (summary.json), one per figure."""
from report.determinism import paired_ratio
from report.records import CI, IQR, aa_floors, record
from report.tables import latest, median


def _ratio(base, other, kind, floors, **fields):
    """base ÷ other of two results of one run, unpaired (results saved before their suite timed
    its arms in pairs)."""
    return record(other, kind, "x", median(base) / median(other), floors,
                  note="unpaired: no interval", **fields)


def micro_records(results):
    """Per micro workload: each variant's steady time; eager ÷ graph, paired with its interval
    where the graph result saved one (else the ratio of medians); eager's A/A control."""
    found = {(r.info["backend"], r.info["workload"], r.info["variant"]): r for r in latest(results)
             if r.info["phase"] == "micro"}
    floors, out = aa_floors(results), []
    for (backend, workload, variant), r in sorted(found.items()):
        i = r.info
        out.append(record(r, "micro_time", "s", median(r), floors, r.stats["q1"], r.stats["q3"],
                          IQR, case=workload))
        if variant == "graph" and "speedup" in i:
            out.append(record(r, "micro_speedup", "x", i["speedup"], floors, i["ci_low"],
                              i["ci_high"], CI, i["significant"], case=workload))
        elif variant == "graph" and (eager := found.get((backend, workload, "eager"))):
            out.append(_ratio(eager, r, "micro_speedup", floors, case=workload))
        if "aa_ratio" in i:
            out.append(record(r, "aa_ratio", "x", i["aa_ratio"], floors, i["aa_ci_low"],
                              i["aa_ci_high"], CI, i["aa_significant"], case=workload))
    return out


def determinism_records(results):
    """Per case: the step with deterministic ops off ÷ on, paired with its interval where the `on`
    result saved one, else the ratio of the two results' medians."""
    runs = {(r.info["backend"], r.info["model"], r.info["variant"], r.info["deterministic"]): r
            for r in latest(results) if r.info["phase"] == "determinism" and r.valid}
    floors, out = aa_floors(results), []
    for key, on in sorted(runs.items()):
        if not key[3]:
            continue
        if paired := paired_ratio(on):
            out.append(record(on, "determinism_ratio", "x", paired[0], floors, *paired[1:3], CI,
                              paired[3]))
        elif off := runs.get((*key[:3], False)):
            out.append(_ratio(off, on, "determinism_ratio", floors))
    return out


def pipeline_records(results):
    """Per loader: the epoch time (IQR), examples per second, input wait per step and, when the
    loader was paired with the baseline, baseline epoch ÷ this loader's with its interval."""
    floors, out = aa_floors(results), []
    for r in latest(results):
        if r.info["phase"] != "pipeline" or not r.valid:
            continue
        i = r.info
        out += [record(r, "epoch_time", "s", median(r), floors, r.stats["q1"], r.stats["q3"], IQR),
                record(r, "examples_per_s", "1/s", i["examples_per_s"], floors),
                record(r, "input_wait_per_step", "s", i["input_wait_s_per_step"], floors)]
        if "loader_ratio" in i:
            out.append(record(r, "loader_ratio", "x", i["loader_ratio"], floors,
                              i["loader_ci_low"], i["loader_ci_high"], CI,
                              i["loader_significant"]))
    return out
