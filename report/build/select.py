"""The only place that picks: which profile, machine and run each figure comes from, and the
newest result of each case (per (machine, backend, section, model) one run only)."""
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from catalog import BACKENDS, skip_matches
from report.build.load import BASELINE

VERSIONED = tuple(d for f in BACKENDS.values() for d in f.versions)  # the versions charts name

STEADY = ("train", "infer", "construction")  # one table: steady steps, first calls, break-even
WHOLE = ("micro", "peak", "scale")  # sections whose figures compare models: one run per backend
SECTIONS = ("steady", "seeds_steady", "peak", "retrace", "lengths", "micro", "memory",
            "determinism", "pipeline", "scale")


def one_profile(results, wanted=None):
    """The results of one profile, so that no ratio mixes two: `wanted`, else `default`, else the
    profile with most runs. Returns (results, a line on what was left out or None).

    Raises ValueError when `wanted` matches no run."""
    runs = Counter(p for p, _ in {(r.profile_name, r.file) for r in results})
    if wanted is not None and wanted not in runs:
        raise ValueError(f"--profile {wanted!r} matches no run; profiles: "
                         f"{', '.join(sorted(map(str, runs)))}")
    chosen_ = wanted or ("default" if "default" in runs else
                         min(runs, key=lambda p: (-runs[p], str(p)), default=None))
    left = sorted({(r.profile_name, r.run) for r in results if r.profile_name != chosen_},
                  key=str)
    note = None
    if left:
        others = sorted({p for p, _ in left}, key=str)
        runs_of = "; ".join(f"profile {p} ({named(sorted(run for q, run in left if q == p))})"
                            for p in others)
        note = (f"left out {runs_of}: ratios never mix profiles, this report shows `{chosen_}`; "
                f"{' or '.join(f'--profile {p}' for p in others)} shows the others")
    return [r for r in results if r.profile_name == chosen_], note


def named(runs, most=6):
    """Run names for a one-line note: each, or for more than `most` the count, first and last (a
    quick job on a machine with 200 answer runs printed a 3,900-character line)."""
    return ", ".join(runs) if len(runs) <= most else f"{len(runs)} runs, {runs[0]} to {runs[-1]}"


def section(r):
    """The report section a result belongs to: 'steady' for the main table's phases, from the
    answer job; 'seeds_steady' for the steady groups of the seeds job (mixed precision, article
    004's focus group), which never replace the answer's rows."""
    phase = r.info["phase"]
    if phase not in STEADY:
        return phase
    return "seeds_steady" if r.job == "seeds" else "steady"


FIRST_CALLS = "first calls"


def unit(r):
    """(machine, backend, section, model, part): every figure of a unit comes from one run. A
    part is a piece a GPU job times in a step of its own, so each may come from its own run of
    one job (chosen()): a variant's first calls (torch's ResNet takes two steps), a lengths
    variant's strategy (Chainer's take a step each: gpu.plan.LENGTHS_PER_STRATEGY), a sweep
    point; None: whole."""
    name = section(r)
    return (r.machine, r.info["backend"], name, None if name in WHOLE else r.info["model"],
            (FIRST_CALLS, r.info["variant"]) if r.info["phase"] == "construction" else
            (r.info["variant"], r.info.get("strategy")) if name == "lengths" else
            r.info["model"] if name == "scale" else None)


def part_name(part):
    """What a run listing calls a unit's part: 'first calls' for every variant's, a lengths
    variant's name for each of its strategies."""
    return part[0] if isinstance(part, tuple) else part


def names(run):
    """What `--run` may call a run: its name (0009_default-flags) or its number (0009)."""
    return {run, run.split("_", 1)[0]}


def release(r):
    """The framework versions a result's run installed (graphbench's versions)."""
    return sorted((r.graphbench.get("versions") or {}).items())


def newest_releases(results):
    """{(machine, backend): the release of the backend's newest run}."""
    newest = {}
    for r in results:
        key = (r.machine, r.info["backend"])
        if key not in newest or r.datetime > newest[key].datetime:
            newest[key] = r
    return {key: release(r) for key, r in newest.items()}


def chosen(results, wanted=()):
    """{unit: run file}: a run named in `wanted` where it has the unit, else the newest complete run
    that has it (an unfinished one only when no finished run has it); of a backend's runs, only
    those on its newest run's release, so that no table mixes two releases of a framework; a
    unit's parts only from its whole's run (a model's steps), else from the newest run of its
    parts, or from a run of the same job (same_job)."""
    runs, current = defaultdict(dict), newest_releases(results)
    kinds = {r.file: job_kind(r) for r in results}
    for r in results:  # keyed by file: two machines' copies may share a run name
        if release(r) != current[r.machine, r.info["backend"]] and not names(r.run) & set(wanted):
            continue
        runs[unit(r)][r.file] = max(runs[unit(r)].get(r.file, (False, "")), (r.complete, r.datetime))
    newest = {}  # per unit without its part: the newest run of any part
    for key, found in runs.items():
        newest[key[:-1]] = max(newest.get(key[:-1], ()), *((when, file) for file, when
                                                            in found.items()))
    out = {}
    for key, found in sorted(runs.items(), key=lambda item: item[0][-1] is not None):
        named = [file for file in found if names(Path(file).stem) & set(wanted)]
        anchor = out.get((*key[:-1], None)) or newest[key[:-1]][1]  # parts come after wholes
        if key[-1] and not named:
            found = {file: when for file, when in found.items() if same_job(file, anchor, kinds)}
        if found:
            out[key] = max(named or found, key=lambda file: (found[file], file))
    return out


def same_job(file, other, kinds):
    """Whether two runs' figures may meet in one figure (a break-even): one run, or two runs of
    one job kind (release, profile, job and a known timing code), as a GPU job's steps are."""
    return file == other or (kinds[file] == kinds[other] and kinds[file][-1] is not None)


def pick(results, name, wanted=(), runs=None):
    """The results of section `name`, each unit from its chosen run (`runs`: chosen()'s answer,
    when the caller has it); the peak brings the train steps of its own run (throughput is never
    one run's step over another run's peak)."""
    runs = runs or chosen(results, wanted)
    picked = [r for r in results if section(r) == name and runs.get(unit(r)) == r.file]
    if name == "peak":
        peak_runs = {(r.info["backend"], r.file) for r in picked}
        picked += [r for r in results if r.info["phase"] == "train"
                   and (r.info["backend"], r.file) in peak_runs]
    return picked


def code(r):
    """What measured a run's figures: its timing-code hash (conftest.timing_code), else its
    commit; None for a dirty tree (never pooled)."""
    return None if r.dirty else (r.graphbench.get("code") or (r.commit or {}).get("id"))


def job_kind(r):
    """What two jobs must share for one to repeat the other: framework release, profile, job and
    timing code (None for a dirty tree: never pooled)."""
    return tuple(release(r)), r.profile_name, r.job, code(r)


POOLED = {"steady": "ratios, step times, first calls", "seeds_steady": "ratios", "memory": "ratios",
          "lengths": "totals", "retrace": "totals", "micro": "ratios", "pipeline": "ratios",
          "determinism": "ratios", "scale": "ratios"}  # each pooling section: what records pools


def repeats(results, picked, sections=POOLED):
    """The results of `sections` of the other jobs that repeat the picked ones: the same
    machine, code, framework release, profile and job, a file of their own. A pooled interval
    draws from them, each from those of its own result's job kind (records.repeated)."""
    runs = {job_kind(r) for r in picked if code(r)}
    chosen_files = {r.file for r in picked}
    return [r for r in results if section(r) in sections and r.file not in chosen_files
            and job_kind(r) in runs]


def newest_by_backend(results):
    """{(machine, backend): its newest result}."""
    last = {}
    for r in results:
        key = r.machine, r.info["backend"]
        if key not in last or r.datetime > last[key].datetime:
            last[key] = r
    return last


# the jobs past which a machine's answer counts no more (select.front): four bound a CPU's
# job-to-job spread (the pooled interval's scale sqrt(n/(n-1)) is 1.15 at four, 1.12 at five), so
# a fifth job, on a host that ran at another speed, does not outrank four that agree
ENOUGH_JOBS = 4


def front(results, made=()):
    """The machine the README answers for: of the machines with runs of the most backends, the one
    whose job `made` (the one that just ran) covered all of them, else the one whose answer pools
    the most jobs, up to ENOUGH_JOBS (the fewest any backend's newest answer job run has of its
    job kind, whatever ran after it), then the most seeds jobs (the answer's lines on shapes that
    vary, memory and retracing pool those), then the one whose jobs' eager steps spread least
    (step_spread), then the one whose every backend was measured most recently (the newest of
    its oldest backend's runs); a job of fewer backends (`--envs jax`, or `-k vgg` in
    torch alone) never takes the answer, nor a machine with no answer-job runs where another
    has them (its table would be empty)."""
    last_answer, last_seeds = (newest_by_backend([r for r in results if r.job == job])
                               for job in ("answer", "seeds"))
    last = last_answer or newest_by_backend(results)  # a seeds job's runs fill no answer table
    runs = defaultdict(set)  # {(machine, backend, job kind): its runs}
    for r in results:
        if code(r):
            runs[r.machine, r.info["backend"], job_kind(r)].add(r.file)
    newest = defaultdict(dict)  # {machine: {backend: its newest run's datetime}}
    for (machine, backend), r in last.items():
        newest[machine][backend] = r.datetime
    most = max(map(len, newest.values()), default=0)
    full = [m for m, backends in newest.items() if len(backends) == most]
    made = {Path(f).resolve() for f in made}
    by_job = defaultdict(set)
    for r in results:
        if Path(r.file).resolve() in made:
            by_job[r.machine].add(r.info["backend"])
    mine = [m for m in full if len(by_job[m]) == most]

    def pooled(m, newest_of):
        """The fewest jobs any backend of `m` pools (0 where one has no such job), at most
        ENOUGH_JOBS."""
        return min((min(len(runs[m, b, job_kind(newest_of[m, b])]), ENOUGH_JOBS) or 1)
                   if (m, b) in newest_of else 0 for b in newest[m])
    return max(mine or full, key=lambda m: (pooled(m, last_answer), pooled(m, last_seeds),
                                            -step_spread(results, m, last_answer),
                                            min(newest[m].values()), m), default=None)


def step_spread(results, machine, newest_of):
    """How far `machine`'s pooled answer jobs moved: per backend and model, the slowest job's
    eager float32 train median ÷ the fastest's, the median of those (runs.job_spread's figure,
    from results); 1 where no row pools jobs. Of two machines that pool as many jobs, the one
    whose jobs agree answers (a VM whose host ran at two speeds read 2.18×, the Zen 5 1.13×)."""
    medians = defaultdict(list)
    for r in results:
        i = r.info
        if (r.machine == machine and section(r) == "steady" and r.valid and r.flags == BASELINE
                and i["variant"] == "eager" and i["phase"] == "train" and r.median > 0
                and (machine, i["backend"]) in newest_of
                and job_kind(r) == job_kind(newest_of[machine, i["backend"]])):
            medians[i["backend"], i["model"]].append(r.median)
    spreads = [max(v) / min(v) for v in medians.values() if len(v) > 1]
    return statistics.median(spreads) if spreads else 1.0


def front_gpu(results):
    """The GPU the README shows beside its CPU (RESULTS.md has every one): of the GPUs timed as a
    training loop runs (one wait per block), the one with the most train rows, then the newest."""
    rows, newest = defaultdict(set), {}
    for r in results:
        if r.graphbench.get("device") == "cuda" and r.graphbench.get("wait") == "block" \
                and r.info["phase"] == "train":
            rows[r.machine].add(r.key[:3])
            newest[r.machine] = max(newest.get(r.machine, r.datetime), r.datetime)
    return max(rows, key=lambda m: (len(rows[m]), newest[m], m), default=None)


def newest_run(records, backend, kinds=None):
    """The newest run (run names are numbered in order) of `backend` among its records (of
    `kinds`), so that a headline quotes one run's figures, never a mix; None without one."""
    return max((r["run"] for r in records if r["backend"] == backend
                and (kinds is None or r["kind"] in kinds)), default=None)


MEMORY = ("memory_peak", "memory_ratio")


def mark_headlines(records):
    """Sets `headline` on each retrace_total and memory record of one machine: True where it is of
    the run its backend's answer quotes, the newest (newest_run): of all the backend's runs for a
    retrace total; of those with a memory figure for a memory one (an older run may have had
    another framework release)."""
    measured = [r for r in records if r["kind"] in MEMORY and r["estimate"] is not None]
    newest = {b: (newest_run(records, b), newest_run(measured, b))
              for b in {r["backend"] for r in records}}
    for rec in records:
        if rec["kind"] == "retrace_total":
            rec["headline"] = rec["run"] == newest[rec["backend"]][0]
        elif rec["kind"] in MEMORY:
            rec["headline"] = rec["estimate"] is not None and rec["run"] == newest[rec["backend"]][1]
    return records


def machines(results):
    """The machines of the results, sorted: each gets its own tables, never a shared ratio."""
    return sorted({r.machine for r in results})


def views(results, wanted=()):
    """[(machine, view)]: per machine, view(section) gives that section's chosen results."""
    out = []
    for machine in machines(results):
        mine = [r for r in results if r.machine == machine]
        runs = chosen(mine, wanted)  # once per machine, not once per section
        picked = {name: pick(mine, name, wanted, runs) for name in SECTIONS}
        for name in POOLED:
            picked[f"{name}_repeats"] = repeats(mine, picked[name], (name,))
        out.append((machine, picked.__getitem__))
    return out


def shown_runs(results, wanted=()):
    """{(machine, run)} of the runs some section of the report shows, and of the other jobs its
    pooled ratios draw from (their run cells name them)."""
    runs = chosen(results, wanted)
    picked = [r for r in results if runs.get(unit(r)) == r.file]
    return {(r.machine, r.run) for r in picked + repeats(results, picked)}


def latest(results):
    """Per (machine, backend, model, variant, phase, cache, flags): the newest run's result."""
    best = {}
    for r in results:
        k = (r.machine, *r.key, *r.flags)
        if k not in best or r.datetime > best[k].datetime:
            best[k] = r
    return list(best.values())


def profile_skip(r, suite, label, variant, phase=None):
    """The reason `r`'s run left this case of `suite` out by its profile's rules, or None."""
    return next((rule["reason"] for rule in (r.profile or {}).get("skips", ())
                 if suite in (rule.get("suites") or ())
                 and skip_matches(rule, r.info["backend"], label, variant, phase)), None)


def profile_gaps(results, suite):
    """What the runs' profiles left out of `suite` by rule, one short phrase per rule (the rules
    are saved in each run's plan)."""
    found = set()
    for r in latest(results):
        for rule in (r.profile or {}).get("skips", ()):
            if suite not in (rule.get("suites") or ()):
                continue
            who = rule.get("backend") or "every backend"
            what = ", ".join(rule.get("labels") or ["every model"])
            variants = f" ({', '.join(rule['variants'])})" if rule.get("variants") else ""
            found.add(f"{what}{variants} in {who if isinstance(who, str) else ', '.join(who)}")
    return sorted(found)


def index(results):
    """{(backend, model, variant, phase, cache): result} of the newest float32, non-deterministic
    results with a valid time."""
    return {r.key: r for r in latest(results) if r.valid and r.flags == BASELINE}


def invalid(results):
    """The newest results that produced a non-finite loss (shown, but never as a time)."""
    return [r for r in latest(results) if not r.valid]


def of_phase(results, phase, *fields, valid=True):
    """{(backend, *fields): result} of the newest `phase` results (with a finite loss when
    `valid`)."""
    return {(r.info["backend"], *(r.info.get(f) for f in fields)): r for r in latest(results)
            if r.info["phase"] == phase and (r.valid or not valid)}


def retrace_rules(results):
    """{backend: the retrace suite's skip rules its newest runs' profiles saved}."""
    found = {}
    for r in latest(results):
        if r.profile and r.profile.get("retrace"):
            found.setdefault(r.info["backend"], []).extend(r.profile["retrace"].get("skips", ()))
    return found


def chart_context(results, suite, pooled=None):
    """What a chart names beside its figures, from the runs behind them (views never read
    runs): each machine's setting, framework versions, the runs (dirty: uncommitted changes)
    and every run its pooled figures draw on (`pooled`: runs.pooled_runs), what the profile left
    out of `suite`, and the retrace suite's skip rules."""
    machines, versions = set(), {}
    for r in latest(results):
        g = r.graphbench
        machines.add((r.machine, g.get("device"), g.get("threads"), g.get("profile")))
        versions.update({k: v for k, v in g.get("versions", {}).items() if k in VERSIONED})
    return {"machines": sorted(machines, key=str), "versions": versions,
            "runs": sorted({(r.info["backend"], r.run, bool(r.dirty)) for r in results}),
            "pooled": pooled or {},
            "gaps": profile_gaps(results, suite), "retrace_rules": retrace_rules(results)}
