"""Every record of one machine, each section from its own runs, decided beside its group's A/A
pair: what summary.json holds of a machine."""
from report.build import claims
from report.build.figure import WORDS
from report.build.load import BASELINE
from report.build.ratios import meaning
from report.build.records import aa_floors
from report.build.sections import (agreement_records, determinism_records, lengths_records,
                                   memory_records, micro_records, pipeline_records,
                                   retrace_records, scale_records)
from report.build.select import mark_headlines
from report.build.steady import (precision_pays, seeds_steady_records, steady_records,
                                 throughput_records)

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
