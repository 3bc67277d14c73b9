"""Each backend's advice: where its chosen variant gains, when it pays, what it costs, and where not."""
import re

from catalog import KNOWN_WRONG
from report.build.ratios import UNDECIDED, decided, gain_bound
from report.views.scale import stops_paying, sweep
from report.views.text import break_even_text, duration

FINDING = re.compile(r"findings/[\w.]+\.md")
ISA_CHECK = {"avx2": "a CPU without AVX-512 (`grep -o avx512f /proc/cpuinfo | head -1` prints "
                     "nothing there)"}  # how a reader tells whether a finding's ISA is theirs


def finding(note):
    """The findings/ file a known-wrong note names ('findings/chainer_static_graph_bn.md'), or
    None."""
    return (found := FINDING.search(note or "")) and found[0]


def get(records, rec, kind, phase=None, variant=None, case=None):
    """The record of `kind` for `rec`'s backend and model (and its variant unless one is named)."""
    return next((r for r in records if r["kind"] == kind and r["backend"] == rec["backend"]
                 and r["precision"] == rec["precision"]
                 and r["model"] == rec["model"] and r["variant"] == (variant or rec["variant"])
                 and (phase is None or r["phase"] == phase) and r["case"] == case), None)


def no_cache_backends(records):
    """The backends with a cold graph first call and no warm one: nothing kept on disk."""
    cold = {r["backend"] for r in records if r["kind"] == "first_call" and r["case"] == "cold"
            and r["variant"] != "eager"}
    return cold - {r["backend"] for r in records if r["kind"] == "first_call"
                   and r["case"] == "warm"}


def bound(rec):
    """Why eager stays: the largest gain the interval leaves open, or no interval."""
    if not rec["interval"]:
        return "no gain (unpaired)"
    if rec["verdict"] == UNDECIDED:
        return f"undecided: {rec['verdict_note']}"
    return "slower beyond the interval" if rec["verdict"] == "slower" else gain_bound(rec["high"])


def steps_text(rec, unit=" steps"):
    """Break-even steps with the wall time of those graph steps: '8,091 (…) steps ≈ 1 min'."""
    if rec.get("first_call_cheaper"):
        return "1 step (its first call is cheaper than eager's)"
    took = f" ≈ {duration(rec['seconds'])}" if rec.get("seconds") else ""
    return f"{break_even_text(rec)}{unit}{took}"


def pays_back(records, rec):
    """When the variant's first call is paid back: on a first run and on every later run."""
    cold, warm = (get(records, rec, "break_even", case=c) for c in ("cold", "warm"))
    if not (cold and cold["estimate"] is not None):
        return ""
    if cold.get("first_call_cheaper"):  # so is a warm one: paid at once on every run
        return "pays back at once: its first call is cheaper than eager's"
    text = f"pays back after {steps_text(cold)} on a first run"
    if warm and warm["estimate"] is not None:
        text += f", {steps_text(warm, '')} on later runs (warm cache)"
    return text


def memory_text(records, rec):
    """The variant's peak train-step memory against eager's (one run per backend and network:
    select.pick)."""
    mem = next((r for r in records if r["kind"] == "memory_ratio" and r["estimate"] is not None
                and (r["backend"], r["model"], r["variant"]) == (rec["backend"], rec["model"],
                                                                 rec["variant"])), None)
    if mem is None or not decided(mem):
        return ""
    return f"{mem['estimate']:.2f}× eager's memory"


def new_shape_text(records, rec):
    """What a step at an input size not seen before costs this variant on the row's network."""
    step = get(records, rec, "step_time", "train") or {}
    depth = (step.get("model_config") or {}).get("depth", "")
    nets = {rec["model"], f"{rec['model']}{depth}"}
    found = next((r for r in records if r["kind"] == "retrace_total"
                  and r["case"] == "train-repeating" and r["backend"] == rec["backend"]
                  and r["variant"] == rec["variant"] and r["model"] in nets
                  and r.get("new_shape_s")), None)
    if found is None:
        return ""
    return f"{found['new_shape_s']:.2g} s per new input shape (seen: {found['seen_shape_s']:.2g} s)"


def caveat(records, rec):
    """A known wrong answer of this variant at settings other than the one measured ('' if none):
    the condition first (for a CPU's vector ISA, how to check yours and what to use there)."""
    step = get(records, rec, "step_time", "train") or {}
    found = [k for k in KNOWN_WRONG if k.covers(rec["backend"], rec["model"], rec["variant"])
             and not k.applies_on(step.get("vector_isa"), rec["backend"], rec["model"],
                                  rec["variant"], step.get("batch"), rec["precision"])]
    texts = []
    for k in found:
        link = f"[{k.finding}]({k.finding})"
        if k.isas:
            cpu = " or ".join(ISA_CHECK.get(i, f"a CPU running {i.upper()} code") for i in k.isas)
            texts.append(f"on {cpu} a known wrong answer ({k.where})"
                         + (f": use {k.remedy} there" if k.remedy else "")
                         + f"; right on this CPU's {step.get('vector_isa')} code: {link}")
        else:
            texts.append(f"right as measured (batch {step.get('batch')}), but a known wrong "
                         f"answer {k.where}: {link}")
    return "; ".join(texts)


def sweep_text(records, backend):
    """What the work-per-step sweep shows for this backend ('' without one)."""
    rows = sweep(records).get(backend)
    return f"VGG sweep (`{rows[0]['variant']}`): {stops_paying(rows)}" if rows else ""


def advice(records, mine, with_sweep=True):
    """One line of advice: where the best variant gains (after how many steps, at what memory and
    per-new-shape cost), where not, the known wrong answers it steers around and the sweep."""
    gains, unpaired = [], False
    backend = next(iter(mine.values()))["backend"]
    for model, r in sorted(mine.items()):
        if r["verdict"] == "faster":
            unpaired |= r["interval"] is None
            notes = "; ".join(filter(None, [pays_back(records, r), memory_text(records, r),
                                            new_shape_text(records, r), caveat(records, r)]))
            gains.append(f"`{r['variant']}` on {model}" + (f" ({notes})" if notes else ""))
    wrong = sorted({(r["model"], r["variant"], finding(r["known_wrong"]))
                    for r in records if r["backend"] == backend and finding(r["known_wrong"])
                    and r["kind"] in ("step_time", "speedup")})
    avoid = "".join(f"; not `{v}` on {m}: a known wrong answer here ([{link}]({link}))"
                    for m, v, link in wrong)
    swept = sweep_text(records, backend) if with_sweep else ""
    tail = avoid + (f"; {swept}" if swept else "") + "."
    if not gains:
        return "**advice**: stay eager here: no graph variant is faster beyond its interval" + tail
    text = "**advice**: use " + "; ".join(gains)
    if rest := sorted(m for m, r in mine.items() if f"on {m}" not in text):
        text += "; eager on " + ", ".join(f"{m} ({bound(mine[m])})" for m in rest)
    if unpaired:
        text += " (from unpaired ratios of older runs: no interval, rerun to confirm)"
    return text + tail
