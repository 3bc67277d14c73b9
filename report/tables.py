"""Markdown tables from loaded results: step times, speedup over eager, construction overhead."""
import math
from collections import defaultdict
from pathlib import Path

from backends import VARIANTS


BASELINE = ("float32", False)
STEP_PHASES = ("train", "infer", "construction")  # the phases of the main tables and charts  # (precision, deterministic) of the main tables


def flags(r):
    """(precision, deterministic) of a result; runs saved before these flags existed are the baseline."""
    return r.info.get("precision", "float32"), bool(r.info.get("deterministic", False))


def latest(results):
    """Per (machine, backend, model, variant, phase, cache, flags): the newest run's result."""
    best = {}
    for r in results:
        k = (r.machine, *r.key, *flags(r))
        if k not in best or r.datetime > best[k].datetime:
            best[k] = r
    return list(best.values())


def index(results):
    """{(backend, model, variant, phase, cache): result} of the newest float32, non-deterministic
    results with a valid time."""
    return {r.key: r for r in latest(results) if r.valid and flags(r) == BASELINE}


def invalid(results):
    """The newest results that produced a non-finite loss (shown, but never as a time)."""
    return [r for r in latest(results) if not r.valid]


def median(r):
    return r.stats["median"] if r else None


def spread_overlaps(a, b):
    """True when the two results' interquartile ranges overlap: the difference is not significant."""
    return a.stats["q1"] <= b.stats["q3"] and b.stats["q1"] <= a.stats["q3"]


def _ms(seconds):
    return "—" if seconds is None else f"{seconds * 1e3:.2f}"


def _s(seconds):
    return "—" if seconds is None else f"{seconds:.2f}"


def step_cell(r):
    """Median step time in ms with its interquartile range."""
    if r is None:
        return "—"
    return f"{_ms(r.stats['median'])} ({_ms(r.stats['q1'])}–{_ms(r.stats['q3'])})"


def interval_cell(ratio, low, high):
    """A ratio with its 95% interval; '~' marks an interval that includes 1 (not significant)."""
    return f"{ratio:.2f}× [{low:.2f}, {high:.2f}]" + (" ~" if low <= 1 <= high else "")


def _paired(eager, graph):
    """True when `graph` carries the interval of its speedup over this very eager result's step."""
    same = ("backend", "model", "phase", "precision", "deterministic")
    return ("speedup" in graph.info and eager.info.get("variant") == "eager"
            and all(eager.info.get(k) == graph.info.get(k) for k in same))


def speedup(eager, graph):
    """Eager over graph: the paired ratio with its interval, else the ratio of two unpaired
    medians (no interval, so no significance mark)."""
    if graph is None:
        return "—"
    if eager is None:
        return "— (no eager in this run)"
    if _paired(eager, graph):
        i = graph.info
        return interval_cell(i["speedup"], i["ci_low"], i["ci_high"])
    return f"{eager.stats['median'] / graph.stats['median']:.2f}× (unpaired)"


def break_even(graph_first, graph_step, eager_first, eager_step):
    """Fewest steps n with graph_first + (n-1) graph_step <= eager_first + (n-1) eager_step.

    None when the graph step is not faster (it never catches up)."""
    extra = graph_first - eager_first
    if extra <= 0:
        return 1
    gain = eager_step - graph_step
    return None if gain <= 0 else 1 + math.ceil(extra / gain)


def summary_table(results):
    """One markdown table per model, drawn from the records summary.json holds."""
    from report.figures import summary_table as from_records  # figures imports this module
    return from_records(results)


VARIANT_ORDER = tuple(VARIANTS)


def _order(pair):
    backend, variant = pair
    return backend, VARIANT_ORDER.index(variant) if variant in VARIANT_ORDER else 99


def _flag_words(r):
    precision, deterministic = flags(r)
    return ([] if precision == "float32" else [precision]) + (["deterministic"] if deterministic
                                                              else [])


def known_wrong_notes(results):
    """Footnotes for results the suite knows to be wrong, and runs whose loss was not finite."""
    notes = sorted({(r.info["backend"], r.info["model"], r.info["variant"], r.info["known_wrong"])
                    for r in latest(results) if r.info.get("known_wrong")})
    lines = [f"- ⚠ {b}/{m}/{v}: {why}" for b, m, v, why in notes]
    lines += [f"- ✗ {r.info['backend']}/{r.info['model']}/{r.info['variant']} "
              f"({', '.join([r.info['phase'], *_flag_words(r)])}): non-finite loss "
              f"({r.info.get('loss')}); its figure is left out"
              for r in invalid(results)]
    return "\n".join(lines)


def machine_lines(results, shown=None):
    """One line per run: commit, dirty flag, date, machine, CPU, threads, profile, versions; the
    runs in `results` that no table shows, and gaps in each machine's run numbers."""
    runs = {}
    for r in results:
        runs.setdefault((r.machine, r.run), r)
    lines = [run_line(r) for key, r in sorted(runs.items())
             if shown is None or key in shown]
    if shown is not None and (unused := sorted(k for k in runs if k not in shown)):
        lines.append("- Not shown (a newer run of the same backend and section is): "
                     + ", ".join(f"`{run}`" for _, run in unused))
    if any(r.dirty for r in runs.values()):
        lines.append("- † a run made from a tree with uncommitted changes: its commit alone "
                     "does not reproduce it")
    return "\n".join(lines + gap_lines(runs))


def run_line(r):
    """A run's provenance in one line."""
    g, commit = r.graphbench, r.commit or {}
    versions = ", ".join(f"{k} {v}" for k, v in sorted(g.get("versions", {}).items()))
    dirty = " with uncommitted changes" if r.dirty else ""
    if r.dirty and (changed := g.get("changed_files")):
        dirty += f" ({', '.join(changed[:4])}{', …' if len(changed) > 4 else ''})"
    cpu = g.get("cpu") or {}
    isa = (f", vector ISA {cpu['vector_isa']}" + "".join(f" ({k}={v})" for k, v in
                                                       sorted(cpu.get("env", {}).items()))
           if cpu.get("vector_isa") else "")
    return (f"- {r.label} on `{r.machine}`, {r.datetime[:16].replace('T', ' ')} UTC, commit "
            f"`{str(commit.get('id', 'unknown'))[:8]}`{dirty}: profile `{g.get('profile')}`, "
            f"device `{g.get('device')}`, {g.get('threads')} threads{isa}; {versions}")


def gap_lines(runs):
    """A line per machine whose saved run numbers skip some (a run deleted or never saved); runs
    of a profile this report leaves out are saved, so their numbers are no gap."""
    numbers = defaultdict(set)
    for (machine, run), result in runs.items():
        saved = [p.name for p in Path(result.file).parent.glob("[0-9][0-9][0-9][0-9]_*.json")]
        numbers[machine] |= {int(name[:4]) for name in [run, *saved] if name[:4].isdigit()}
    lines = []
    for machine, found in sorted(numbers.items()):
        if missing := sorted(set(range(1, max(found, default=0) + 1)) - found):
            lines.append(f"- No run {', '.join(f'{n:04d}' for n in missing)} in `results/` for "
                         f"`{machine}` (not saved, or removed): nothing here comes from it")
    return lines
