"""The answer in a few lines: per framework what its graph mode gains on the answer's CPU and on
each GPU, when it pays back, then what to do in a reader's case (a view of the records only)."""
from catalog import PADDINGS, call_name
from gpu.plan import ANSWER_MODELS, NOT_ON_THE_GPU_MACHINE
from machines import short_name
from report.build.ratios import NOISE, SAME, UNDECIDED, rules_out
from report.views.lengths import cold_runs
from report.views.text import count as counted, span

NAMES = {"tf": "TensorFlow", "jax": "JAX", "torch": "PyTorch", "chainer": "Chainer"}
SHORT = {("tf", "xla"): "XLA (`jit_compile=True`)", ("jax", "graph"): "`jax.jit`",
         ("chainer", "graph"): "`@static_graph`",
         ("torch", "graph_cudagraphs"): '`mode="reduce-overhead"`',
         ("torch", "cuda_graph"): "the whole step in one CUDA graph"}
ORDER = ("graph", "graph_dynamic", "graph_static", "xla", "graph_cudagraphs", "cuda_graph")


def call(backend, variant):
    """A variant's call, as short as a headline line wants it."""
    return SHORT.get((backend, variant)) or call_name(backend, variant)


def _span(found):
    """The estimates' range, '1.20–1.45×'."""
    return span(min(r["estimate"] for r in found), max(r["estimate"] for r in found)) + "×"


def _listed(names):
    """'resnet', 'resnet and vgg', 'decoder, resnet and vgg'."""
    names = sorted(names)
    return " and ".join(filter(None, [", ".join(names[:-1]), names[-1]]))


def _models(found):
    """'decoder, vgg', or 'every model' for all of the answer's (gpu.plan.ANSWER_MODELS)."""
    found = sorted(set(found))
    return "every model" if found == sorted(ANSWER_MODELS) else ", ".join(found)


def gains(rows):
    """'`jax.jit` 3.11–15.25× (4 models)' per variant of a backend's rows, with the rows slower
    than eager, within the noise threshold or undecided named apart (one range over a slower and
    a faster row read as a gain: '0.74–1.46×'); commas within a variant, semicolons between."""
    parts = []
    for variant in sorted({r["variant"] for r in rows}, key=lambda v: (ORDER + (v,)).index(v)):
        mine = [r for r in rows if r["variant"] == variant]
        faster = [r for r in mine if r["verdict"] == "faster"]
        said = [f"{_span(faster)} ({_models(r['model'] for r in faster)})"] if faster else []
        if slower := [r for r in mine if r["verdict"] == "slower"]:
            said.append(f"slower on {_listed(r['model'] for r in slower)} ({_span(slower)})")
        for word in (SAME, "undecided"):
            if rest := sorted(r["model"] for r in mine if r["verdict"] == word):
                said.append(f"{word if word != SAME else f'within {NOISE:.0%} of eager'} on "
                            + _listed(rest))
        parts.append(f"{call(rows[0]['backend'], variant)} {', '.join(said)}".rstrip())
    return "; ".join(parts)


def wrong(records, backend):
    """'wrong on resnet' where a known wrong answer left a row without a speedup."""
    models = sorted({r["model"] for r in records if r["backend"] == backend
                     and r["kind"] == "step_time" and r.get("known_wrong")
                     and r["precision"] == "float32" and r["phase"] == "train"
                     and r["case"] is None})
    return f"; a known wrong answer on {', '.join(models)}" if models else ""


def pays_back(records, rows):
    """When a backend's chosen rows pay their first call back, on a first run (else, where no
    first run's was timed, on later runs)."""
    chosen = {(r["backend"], r["model"], r["variant"]) for r in rows}
    for case, later in (("cold", ""), ("warm", " on later runs")):
        found = [r for r in records if r["kind"] == "break_even" and r["case"] == case
                 and (r["backend"], r["model"], r["variant"]) in chosen and r["estimate"]]
        if found:
            break
    else:
        return ""
    models = sorted({r["model"] for r in found})
    settled = {r["model"] for r in records if r["kind"] == "break_even" and r["case"] == case
               and (r["backend"], r["model"], r["variant"]) in chosen and r.get("timed")}
    # named where a row has no first calls timed yet (a GPU window's, say)
    where = later + (f" ({', '.join(models)})" if {r["model"] for r in rows} - settled else "")
    if all(r.get("first_call_cheaper") for r in found):
        return f"; its first call is already cheaper than eager's{where}"
    most = max(found, key=lambda r: r["estimate"])
    if not any(r["slow"] for r in found):
        return f"; paid back within {most['estimate']} steps{where}"
    fewest = min(found, key=lambda r: r["estimate"])
    return (f"; paid back only after {span(fewest['estimate'], most['estimate'], ',')} steps on a "
            f"first run{where}")


def chosen_rows(records):
    """The answer table's rows of a machine: each (backend, model)'s chosen train speedup."""
    return [r for r in records if r["kind"] == "speedup" and r.get("best")]


def network(row, gpu=False):
    """Where a row meets another machine's: (backend, model), and on a GPU, where every variant
    is measured, the variant too."""
    return (row["backend"], row["model"]) + ((row["variant"],) if gpu else ())


def by_network(records, gpu=False):
    """A machine's answer rows (on a GPU: its train rows, each variant) by `network`."""
    return {network(r, gpu): r for r in (gpu_rows(records) if gpu else chosen_rows(records))}


def meeting(records, others, gpu=False):
    """(machine, row of `records`, that machine's row) for each row another machine of `others`
    ([(machine, records)]) measured at the same `network`."""
    mine = by_network(records, gpu)
    return [(machine, mine[place], r) for machine, found in others
            for place, r in by_network(found, gpu).items() if place in mine]


def settled(row):
    """Whether a row's verdict is decided: faster, slower or within the noise, not undecided."""
    return row["verdict"] not in (UNDECIDED, None)


def gpu_rows(records):
    """A GPU's loop-timed float32 train speedups (every variant measured: a GPU row has several)."""
    return [r for r in records if r["kind"] == "speedup" and r["phase"] == "train"
            and r["precision"] == "float32" and r.get("wait") == "block"]


def against(row, other):
    """Whether another CPU's undecided row of the same network rules out the answer's decided
    verdict (an interval [0.94, 1.00] is no `faster`, though it cannot tell within 3% from slower)."""
    return settled(row) and other["verdict"] == UNDECIDED and rules_out(
        row["verdict"], other.get("low"), other.get("high"))


def disagree(rows, others, gpu=False):
    """[where another machine's row of the same network (on a GPU: and variant) reads another
    decided verdict, or an undecided one that rules the answer's out], one aside a model: 'the
    Zen 4 reads 0.97×, not faster, and the Xeon model 167 0.98×, within 3%, on mnist_cnn'."""
    said = {}
    for machine, records in others:
        theirs = by_network(records, gpu)
        for r in rows:
            if not (other := theirs.get(network(r, gpu))):
                continue
            reads = ((f"{call(r['backend'], r['variant'])} " if gpu else "")
                     + f"{other['estimate']:.2f}×, ")
            if settled(other) and other["verdict"] != r["verdict"]:
                reads += other["verdict"]
            elif against(r, other):
                reads += f"not {r['verdict']}"
            else:
                continue
            said.setdefault(r["model"], []).append((short_name(machine), reads))
    return [_readings(found) + f", on {model}" for model, found in said.items()]


def _readings(found):
    """(machine, reading) pairs as one clause, each machine named once in a row."""
    parts = []
    for i, (name, reads) in enumerate(found):
        named = i and name == found[i - 1][0]
        parts.append(reads if named else f"the {name} " + ("" if i else "reads ") + reads)
    return ", and ".join(parts)


def beside(text, asides):
    """`text` (gains') with `asides` in parentheses: inside its own where it holds one, at its end
    (not '(decoder, vgg) (the Zen 4 reads ...)'); apart where it holds more, as the last one
    (another variant's, or slower rows') would seem to hold them."""
    if not asides:
        return text
    inside = text.endswith(")") and text.count(" (") == 1
    return (f"{text[:-1]}; " if inside else f"{text} (") + "; ".join(asides) + ")"


def framework_line(backend, cpu, cpu_records, gpus, others=(), other_gpus=()):
    """One framework's line: its gains on the CPU (and where another CPU disagrees), when they
    pay back, and the same on each GPU (and where a GPU of `other_gpus` disagrees)."""
    rows = [r for r in chosen_rows(cpu_records) if r["backend"] == backend]
    text = f"- **{NAMES.get(backend, backend)}** on the {short_name(cpu)}: " + (
        beside(gains(rows), disagree(rows, others)) + pays_back(cpu_records, rows) if rows
        else "not measured")
    text += wrong(cpu_records, backend) + "."
    for gpu, found in gpus:
        mine = [r for r in gpu_rows(found) if r["backend"] == backend]
        why = NOT_ON_THE_GPU_MACHINE.get(NAMES.get(backend))
        text += f" {short_name(gpu)}: " + (beside(gains(mine), disagree(mine, other_gpus, True))
                                            + pays_back(found, mine)
                                            + wrong(found, backend) if mine else
                                            f"not measured: {why}" if why else "not yet") + "."
    return text


def answer_lines(cpu, cpu_records, gpus, others=(), other_gpus=()):
    """The README's first lines: one per framework, CPU and GPUs side by side (`others`: the
    other CPUs, [(machine, records)], `other_gpus` those beside the GPU of `gpus`, named where
    they disagree)."""
    backends = sorted({r["backend"] for r in chosen_rows(cpu_records)},
                      key=lambda b: (list(NAMES) + [b]).index(b))
    return [f"**In short**: graph mode's train step against the same framework's eager one "
            f"(× faster; within ±{NOISE:.0%}: no difference), on small networks where per-op "
            "overhead dominates:", "",
            *(framework_line(b, cpu, cpu_records, gpus, others, other_gpus) for b in backends),
            *filter(None, [other_cpus_line(cpu, cpu_records, others),
                           *(other_gpus_line(*gpu, other_gpus) for gpu in gpus[:1])])]


def other_cpus_line(cpu, cpu_records, others):
    """How far the other CPUs' train rows agree with the answer's: of the rows both decided, how
    many read the same verdict; of those both measured, how many chose the same best variant;
    None where no other CPU measured these rows (RESULTS.md names each CPU, the README counts);
    the same for the CPUs at the answer's timing code apart."""
    pairs = meeting(cpu_records, others)
    if not pairs:
        return None
    count = lambda found: {m for m, _, _ in found}
    same = [(m, a, b) for m, a, b in pairs if a.get("code") and a["code"] == b.get("code")]
    # a CPU at another timing code may differ for its code, not its silicon
    if not same:
        at_code = "none at the answer's timing code"
    elif same == pairs:
        at_code = "all at the answer's timing code"
    else:
        at_code = (f"the {len(count(same))} at the answer's timing code: "
                   f"{agreement(same, short_name(cpu), brief=True)}")
    return (f"- **Other CPUs** ({len(count(pairs))} more, each from its own runs, in RESULTS.md), "
            f"against the {short_name(cpu)}'s train rows: {agreement(pairs, short_name(cpu))}; "
            f"{at_code}.")


def other_gpus_line(gpu, gpu_records, others):
    """How far the other GPUs' train rows (each variant) agree with the README's GPU's: of the
    rows both decided, how many read the same verdict, and how many pairs two timing codes
    measured; the line that names them and their tables' place, None without another GPU."""
    if not others:
        return None
    pairs = meeting(gpu_records, others, gpu=True)
    names = ", ".join(f"the {short_name(m)}" for m, _ in others)
    if not pairs:
        return (f"- **Other GPUs** ({names}, in RESULTS.md): no train row the {short_name(gpu)} "
                "measured too.")
    # a row timed by another code may differ for its code, not its GPU
    apart = sum(a.get("code") != b.get("code") for _, a, b in pairs)
    code = ("" if not apart else "; at another timing code" if apart == len(pairs)
            else f"; {apart} of the {len(pairs)} rows at another timing code")
    return (f"- **Other GPUs** ({names}, in RESULTS.md), against the {short_name(gpu)}'s train "
            f"rows: {agreement(pairs, short_name(gpu), variants=False)}{code}.")


def agreement(pairs, whose, brief=False, variants=True):
    """Of (machine, answer row, other row) pairs: how many of those both decided read the same
    verdict (and how many undecided ones rule the answer's out), and how many of all chose the
    same best variant (`whose`: the answer's machine, as the line names it; `variants`: False
    where each pair is one variant's)."""
    both = [(a, b) for _, a, b in pairs if settled(a) and settled(b)]
    same = sum(a["verdict"] == b["verdict"] for a, b in both)
    ruled = sum(against(a, b) for _, a, b in pairs)
    chosen = sum(a["variant"] == b["variant"] for _, a, b in pairs)
    if brief:
        against_it = f" (and {counted(ruled, 'undecided row', 'undecided rows')} against)"
        return (f"{same} of {len(both)} verdicts{against_it if ruled else ''}, "
                f"{chosen} of {len(pairs)} variants")
    excludes = counted(ruled, "undecided row whose interval excludes",
                       "undecided rows whose intervals exclude") + f" the {whose}'s verdict"
    return (f"the same verdict on {same} of the {len(both)} rows both decided"
            f"{', and ' + excludes if ruled else ''}"
            + (f"; the same best graph variant on {chosen} of {len(pairs)}" if variants else ""))


def machines_line(machines, lead):
    """Each machine's short name, defined once."""
    return "Machines: " + "; ".join(
        f"**{short_name(m)}** = `{m}`" + (" (the answer's CPU)" if m == lead else "")
        for m in machines) + "."


CASES = {"exact": "at exact lengths", "mult32": "padded to multiples of 32",
         "pow2": "padded to powers of two", "max": "padded to the longest"}


def not_timed_here(records, others):
    """The answer's rows whose first calls this CPU's profile left out, each with another CPU's
    break-even of the same row where one timed it ('torch vgg: on the Zen 5 ...')."""
    chosen = {(r["backend"], r["model"], r["variant"]) for r in chosen_rows(records)}
    out = []
    for r in records:
        key = (r["backend"], r["model"], r["variant"])
        if r["kind"] != "break_even" or r["case"] != "cold" or key not in chosen or \
                not (r.get("note") or "").startswith("first calls left out by profile"):
            continue
        theirs = [(m, o) for m, found in others for o in found if o["kind"] == "break_even"
                  and o["case"] == "cold" and (o["backend"], o["model"], o["variant"]) == key
                  and not (o.get("note") or "").endswith("in this run")]
        said = "; ".join(f"the {short_name(m)}'s: {steps_said(o)} (`{o['run']}`)"
                         for m, o in theirs)
        out.append(f"{NAMES.get(r['backend'], r['backend'])}'s break-even on {r['model']}: its "
                   f"first calls were not timed on the {short_name(r['machine'])}"
                   + (f"; {said}" if said else ""))
    return out


def steps_said(rec):
    """A break-even record in a few words: 'after 1,234 steps', or its note."""
    return f"after {rec['estimate']:,} steps" if rec["estimate"] else rec["note"]


def short_run(records, others=()):
    """Where a first compile takes thousands of steps to pay back, per backend: cold and warm;
    a row this CPU did not time, with another CPU's figure."""
    chosen = {(r["backend"], r["model"], r["variant"]) for r in chosen_rows(records)}
    found, slow_ones = {}, set()
    for r in records:
        if r["kind"] == "break_even" and r["estimate"] and (
                r["backend"], r["model"], r["variant"]) in chosen:
            found.setdefault(r["backend"], {}).setdefault(r["case"], []).append(r["estimate"])
            if r["slow"] and r["case"] == "cold":
                slow_ones.add(r["backend"])
    slow = {b: c for b, c in found.items() if b in slow_ones}
    untimed = not_timed_here(records, others)
    if not slow:
        return ""
    quick = max((max(c.get("cold", [0])) for b, c in found.items() if b not in slow), default=0)
    parts = [f"{NAMES.get(b, b)}'s first compile pays back only after "
             f"{span(min(c['cold']), max(c['cold']), ',')} steps on a first run"
             + (f" ({span(min(c['warm']), max(c['warm']), ',')} with a warm compile cache)"
                if c.get("warm") else "") for b, c in sorted(slow.items())]
    return ("- **A short run**: " + "; ".join(parts) + ": below that, stay eager"
            + (f"; the others pay back within {quick} steps." if quick else ".")
            + "".join(f" {line[0].upper()}{line[1:]}." for line in untimed))


def varying_shapes(records):
    """Which strategy finished the varying-length batches first, per backend, with the runs one
    cold run each (per job, where jobs pool) does not tell apart from it (the build's `tie`)."""
    first = sorted((r for r in records if r["kind"] == "lengths_total" and r.get("first")),
                   key=lambda r: (list(NAMES) + [r["backend"]]).index(r["backend"]))
    if not first:
        return ""
    batches = first[0].get("steps_planned")
    tie = next((r["tie"] for r in first if r.get("tie")), None)
    return (f"- **Shapes that vary** ({batches} batches of token lengths that vary"
            + (f"; {cold_runs(first)} each, so totals within {tie}× are not told apart" if tie
               else "")
            + "), first to finish: " + "; ".join(_first_and_tied(r) for r in first) + ".")


def _first_and_tied(top):
    """'PyTorch eager padded to multiples of 32 (tied: exact lengths; `torch.compile()` at
    powers of two)': the variants and paddings within the build's `tie` of the first."""
    name = lambda variant: "eager" if variant == "eager" else call(top["backend"], variant)
    cases = {}
    for variant, case in top.get("tied", ()):
        cases.setdefault(variant, []).append(PADDINGS.get(case, case))
    also = [(name(v) + " at " if v != top["variant"] else "") + ", ".join(c)
            for v, c in sorted(cases.items(), key=lambda vc: vc[0] != top["variant"])]
    return (f"{NAMES.get(top['backend'], top['backend'])} {name(top['variant'])} "
            f"{CASES.get(top['case'], top['case'])}"
            + (f" (tied: {'; '.join(also)})" if also else ""))


def known_wrong_lines(known):
    """A reader's case per known wrong answer that holds where the answer's CPU does not look
    (another vector ISA) or with a layer the networks share (BatchNorm in Chainer's ResNet)."""
    lines = []
    for k in known:
        link = f"([finding]({k.finding}))"
        if k.isas == ("avx2",):
            lines.append(f"- **A CPU without AVX-512** (`grep -o avx512f /proc/cpuinfo` prints "
                         f"nothing): {NAMES.get(k.backend)}'s {call(k.backend, 'graph')} on the "
                         f"{k.model}: a known wrong answer {k.where}; use {k.remedy} {link}.")
        elif (k.backend, k.model) == ("chainer", "resnet"):
            lines.append(f"- **BatchNorm in Chainer**: {call(k.backend, 'graph')} replays step 1's "
                         f"batch statistics in the backward, a known wrong answer on the "
                         f"{k.model}: stay define-by-run there {link}.")
    return lines


def small_gpu_model(gpus):
    """On a GPU, what capturing the whole step adds to torch.compile() on the smallest network."""
    for gpu, found in gpus:
        rows = {(r["model"], r["variant"]): r for r in gpu_rows(found) if r["backend"] == "torch"}
        model = "mnist_cnn"
        if (model, "graph") in rows and (model, "cuda_graph") in rows:
            said = [f"{call('torch', v)} {rows[model, v]['estimate']:.2f}×"
                    for v in ("graph", "graph_cudagraphs", "cuda_graph") if (model, v) in rows]
            return (f"- **A small model on a GPU** ({short_name(gpu)}, {model}): "
                    + ", ".join(said) + ": capture the step in CUDA graphs, or launches eat "
                    "the gain.")
    return ""


def your_case(cpu_records, gpus, known, others=()):
    """'What to do in your case': a line per situation the records speak for (`others`: the other
    CPUs' [(machine, records)])."""
    found = [short_run(cpu_records, others), varying_shapes(cpu_records), *known_wrong_lines(known),
             small_gpu_model(gpus)]
    return ["**What to do in your case**:", "", *filter(None, found)]
