"""Issue 35 item 3: jobs of the same timing code on one machine are pooled, the job the outer level
of the bootstrap, so that the interval a reader quotes covers what a second job finds."""
import json
from pathlib import Path

import pytest

from report.build.load import load_dir
from tests.reporting import records_of
from tests.test_report_runs import save

PAIRED = Path(__file__).parent / "fixtures" / "chainer_paired_quick.json"


def _job(code, scale=1.0, dirty=False):
    """The fixture's run as a clean answer job of timing code `code`, its graph rounds × scale."""
    data = json.loads(PAIRED.read_text())
    data["commit_info"]["dirty"] = dirty
    data["machine_info"]["graphbench"]["code"] = code
    for b in data["benchmarks"]:
        info = b["extra_info"]
        if info["variant"] != "eager" and info.get("paired_rounds_s"):
            info["paired_rounds_s"] = [[t * scale for t in p] for p in info["paired_rounds_s"]]
    return data


def _speedups(tmp_path, second):
    folder = tmp_path / "results" / "m"
    save(folder, _job("c1"), "0001_default", "2026-01-01T00:00:00")
    save(folder, second, "0002_default", "2026-01-02T00:00:00")
    return sorted((r for r in records_of(load_dir(tmp_path / "results"))
                   if r["kind"] == "speedup" and r["interval"]),
                  key=lambda r: (r["model"], r["variant"], r["phase"]))


def test_two_jobs_of_one_code_pool_and_their_interval_covers_both(tmp_path):
    pooled = _speedups(tmp_path, _job("c1", scale=0.5))  # the second job's graph twice as fast
    assert pooled and all(r["pooled_runs"] == ["0002_default", "0001_default"] for r in pooled)
    assert {r["code"] for r in pooled} == {"c1"}  # what they share, on every record
    first = _speedups(tmp_path / "first", _job("c2"))  # other code: the newest alone
    for p, a in zip(pooled, first):
        second = 2 * a["estimate"]  # graph's rounds halved (a saved ratio is not re-scaled)
        assert "pooled" in p["interval"] and "pooled_runs" not in a
        assert p["estimate"] == pytest.approx((a["estimate"] * second) ** 0.5, rel=1e-6)
        assert p["low"] < a["estimate"] < p["high"] and p["low"] < second < p["high"]
    aa = [r for r in records_of(load_dir(tmp_path / "results")) if r["kind"] == "aa_ratio"]
    assert aa and all(r.get("pooled_runs") for r in aa)


def test_a_dirty_job_is_never_pooled(tmp_path):
    found = _speedups(tmp_path, _job("c1", dirty=True))
    assert not any(r.get("pooled_runs") for r in found)
    assert {r["code"] for r in found} == {None}  # the dirty newest: no code it measured with


def test_the_run_lists_name_every_job_a_pooled_ratio_draws_from(tmp_path):
    """A pooled cell cites the older job too: the README's and RESULTS.md's run lists show it."""
    from report.build.select import shown_runs
    _speedups(tmp_path, _job("c1"))
    shown = {run for _, run in shown_runs(load_dir(tmp_path / "results"))}
    assert shown == {"0001_default", "0002_default"}
    _speedups(tmp_path / "other", _job("c2"))  # other code: nothing pooled, the newest alone
    assert {run for _, run in shown_runs(load_dir(tmp_path / "other" / "results"))} == {"0002_default"}


def test_a_pooled_run_cell_names_every_job_and_the_readmes_in_one_code_span():
    """RESULTS.md names each run in full; the README's table (brief) numbers only, one span."""
    from report.views.text import label
    rec = {"run": "0002_default", "pooled_runs": ["0002_default", "0001_default"]}
    assert label(rec) == "`0002_default`+`0001_default`"
    assert label(rec, brief=True) == "`0002+0001`"
    assert label({**rec, "dirty": True}, brief=True) == "`0002+0001`†"


def test_a_job_of_other_code_for_one_model_pools_with_none(tmp_path):
    """A newer job of another code that timed one network (`run.py bench -- -k vgg`) gives that
    network's rows alone; its ratio never pools with the older jobs of another code."""
    folder = tmp_path / "results" / "m"
    save(folder, _job("c1"), "0001_default", "2026-01-01T00:00:00")
    save(folder, _job("c1"), "0002_default", "2026-01-02T00:00:00")
    vgg = _job("c2")
    vgg["benchmarks"] = [b for b in vgg["benchmarks"] if b["extra_info"]["model"] == "vgg"]
    save(folder, vgg, "0003_default", "2026-01-03T00:00:00")
    found = [r for r in records_of(load_dir(tmp_path / "results"))
             if r["kind"] == "speedup" and r["interval"]]
    assert {r["run"] for r in found if r["model"] == "vgg"} == {"0003_default"}
    assert not any(r.get("pooled_runs") for r in found if r["model"] == "vgg")
    assert all(r["pooled_runs"] == ["0002_default", "0001_default"] for r in found
               if r["model"] != "vgg")


def test_a_break_even_says_never_only_where_the_verdict_says_slower():
    """The break-even reads the verdict's band: an interval below 1 but not past 1/1.03 is no
    gain, not 'never (slower)' (the Zen 5's torch vgg: 0.959× [0.944, 0.978], undecided)."""
    from report.build.ratios import break_even_range
    assert break_even_range(19.8, 0.02, 6.7e-3, 0.959, 0.944, 0.978)[3] == (
        "no gain past ±3%: its interval lies below 1")
    assert break_even_range(19.8, 0.02, 6.7e-3, 0.93, 0.90, 0.95)[3] == "never (slower)"
    assert break_even_range(19.8, 0.02, 6.7e-3, 1.02, 0.99, 1.05)[3] == (
        "no gain past ±3%: at most 5%")


def _seeds_job(code, scale=1.0):
    """The fixture's MNIST CNN train group as a seeds job of `code`: its float32 focus pair and an
    eager bfloat16 arm whose rounds are float32 eager's × scale."""
    data = _job(code)
    data["machine_info"]["graphbench"]["job"] = "seeds"
    data["benchmarks"] = [b for b in data["benchmarks"] if b["extra_info"]["model"] == "mnist_cnn"
                          and b["extra_info"]["phase"] == "train"]
    mixed = json.loads(json.dumps(data["benchmarks"][0]))  # eager, float32
    info = mixed["extra_info"]
    for name in [k for k in info if k.startswith("aa_")]:
        del info[name]
    info.update(precision="bfloat16", precision_speedup=1 / scale, precision_ci_low=0.9 / scale,
                precision_ci_high=1.1 / scale, precision_significant=scale != 1,
                paired_rounds_s=[[t * scale for t in p] for p in info["paired_rounds_s"]])
    mixed["name"] = mixed["fullname"] = "test_steady[chainer-mnist_cnn-eager-bfloat16-train]"
    data["benchmarks"].append(mixed)
    return data


def _seeds_records(tmp_path, second):
    folder = tmp_path / "results" / "m"
    save(folder, _seeds_job("c1"), "0001_default-seeds", "2026-01-01T00:00:00")
    save(folder, second, "0002_default-seeds", "2026-01-02T00:00:00")
    found = records_of(load_dir(tmp_path / "results"))
    return {r["kind"]: r for r in found if r["kind"] in ("precision_speedup", "focus_speedup")}


def test_the_seeds_jobs_of_one_code_pool_their_mixed_precision_and_focus_ratios(tmp_path):
    """The Zen 5's torch bfloat16 eager step: 1.02× [0.95, 1.13] in 0120, 0.87× [0.80, 0.96]
    ("slower") in 0124, one job's interval short of what the next job found."""
    pooled = _seeds_records(tmp_path, _seeds_job("c1", scale=0.5))  # bfloat16 twice as fast
    mixed, focus = pooled["precision_speedup"], pooled["focus_speedup"]
    assert mixed["pooled_runs"] == focus["pooled_runs"] == ["0002_default-seeds",
                                                            "0001_default-seeds"]
    assert mixed["estimate"] == pytest.approx(2 ** 0.5, rel=1e-6)
    assert mixed["low"] <= 1 and 2 <= mixed["high"] and "pooled" in focus["interval"]
    alone = _seeds_records(tmp_path / "other", _seeds_job("c2", scale=0.5))  # other code
    assert not any(r.get("pooled_runs") for r in alone.values())
    assert alone["precision_speedup"]["estimate"] == pytest.approx(2)


SECTIONS = Path(__file__).parent / "fixtures" / "tf_sections_default.json"


def _memory_job(code, scale=1.0):
    """The fixture's memory cases as a seeds job of `code`, each graph child's peak × scale."""
    data = json.loads(SECTIONS.read_text())
    data["machine_info"]["graphbench"].update(code=code, job="seeds")
    data["benchmarks"] = [b for b in data["benchmarks"] if b["extra_info"]["phase"] == "memory"]
    for b in data["benchmarks"]:
        info = b["extra_info"]
        if info["variant"] != "eager":
            info["peak_memory_bytes_rounds"] = [p * scale for p in info["peak_memory_bytes_rounds"]]
    return data


def _memory_ratios(tmp_path, second):
    folder = tmp_path / "results" / "m"
    save(folder, _memory_job("c1"), "0001_default-seeds", "2026-01-01T00:00:00")
    save(folder, second, "0002_default-seeds", "2026-01-02T00:00:00")
    return {r["variant"]: r for r in records_of(load_dir(tmp_path / "results"))
            if r["kind"] == "memory_ratio"}


def test_the_memory_ratios_of_repeat_jobs_pool_with_the_job_the_outer_level(tmp_path):
    """The Zen 5's torch `graph` against eager: 0.94x undecided in 0120, 0.93x 'less' in 0124."""
    pooled = _memory_ratios(tmp_path, _memory_job("c1", scale=2.0))  # graph peaks doubled
    alone = _memory_ratios(tmp_path / "other", _memory_job("c2", scale=2.0))  # other code
    graph, single = pooled["graph"], alone["graph"]
    assert graph["pooled_runs"] == ["0002_default-seeds", "0001_default-seeds"]
    assert "pooled_runs" not in single and single["estimate"] == pytest.approx(2 * 26157056 / 23891968)
    assert graph["estimate"] == pytest.approx(2 ** 0.5 * 26157056 / 23891968)
    assert graph["low"] <= single["estimate"] / 2 and single["estimate"] <= graph["high"]
    assert graph["processes"] == 6 and "jobs" in graph["interval"]


def test_two_jobs_scatter_is_not_halved_by_drawing_two_of_two():
    """Drawing 2 of 2 jobs gives half their variance: the pooled interval reaches past both jobs'
    estimates (a third Zen 5 answer job, 0126-0129, fell inside the uncorrected two-job interval
    on 14 of 34 ratios)."""
    from report.build.pool import pooled_medians
    found = pooled_medians([([2.0, 2.0], [1.0, 1.0]), ([3.0, 3.0], [1.0, 1.0])])
    assert found.estimate == pytest.approx(6 ** 0.5)
    assert found.low < 2 and found.high > 3
    assert found.high == pytest.approx(6 ** 0.5 * 1.5 ** (0.5 * 2 ** 0.5))  # A+A, scaled by √2


def test_a_pooled_rows_step_times_are_the_jobs_geometric_mean_and_range(tmp_path):
    """The Zen 5's Chainer MNIST CNN: eager 31.7 → `graph` 24.8 ms in the newest job alone (1.28)
    beside a pooled 1.19×; over the three jobs 26.7 → 22.2 ms (1.20)."""
    folder = tmp_path / "results" / "m"
    save(folder, _job("c1"), "0001_default", "2026-01-01T00:00:00")
    save(folder, _job("c1"), "0002_default", "2026-01-02T00:00:00", scale=2.0)  # a slower machine
    one = json.loads(PAIRED.read_text())["benchmarks"]
    medians = {(b["extra_info"]["model"], b["extra_info"]["variant"], b["extra_info"]["phase"]):
               b["stats"]["median"] for b in one}
    times = [r for r in records_of(load_dir(tmp_path / "results")) if r["kind"] == "step_time"]
    assert times
    for r in times:
        m = medians[r["model"], r["variant"], r["phase"]]
        assert r["estimate"] == pytest.approx(2 ** 0.5 * m) and r["low"] == pytest.approx(m)
        assert r["high"] == pytest.approx(2 * m) and r["pooled_runs"] == ["0002_default",
                                                                          "0001_default"]


def test_the_answer_says_how_far_its_jobs_step_times_spread(tmp_path):
    """The Zen 3's third job ran every eager step in about half the others' time on a CPU that
    reads the same: the table says how far the pooled jobs' eager train steps spread; one job
    alone says nothing."""
    from report.build.runs import for_views, table_notes
    from report.views.answer import answer_text
    from report.views.render import tables
    from tests.reporting import machines_of, views_of
    folder = tmp_path / "results" / "m"
    save(folder, _job("c1"), "0001_default", "2026-01-01T00:00:00")
    alone = views_of(load_dir(tmp_path / "results"))
    assert alone[0][1]["job_spread"] is None
    assert "slowest as in the fastest" not in answer_text(alone)
    save(folder, _job("c1"), "0002_default", "2026-01-02T00:00:00", scale=2.5)
    built = machines_of(load_dir(tmp_path / "results"))
    machines = for_views(built)
    spread = machines[0][1]["job_spread"]
    assert spread["jobs"] == 2 and spread["rows"] >= 1
    assert spread["median"] == pytest.approx(2.5) and spread["widest"] == pytest.approx(2.5)
    said = "2 jobs, one eager train step took 2.50× as long in the slowest as in the fastest"
    assert said in answer_text(machines)  # the README's and RESULTS.md's answer
    (_, shown, records), = machines
    assert said in "\n".join(tables(shown, records, "###", table_notes(built[0][1])))  # the page's
    assert "on a CPU whose name reads the same" in answer_text(machines)
    on_gpu = for_views([(f"{built[0][0]}, NVIDIA H200", *built[0][1:])])
    assert "on a GPU and CPU whose names read the same" in answer_text(on_gpu)


def test_a_job_that_never_paid_back_leaves_the_pooled_range_without_an_upper_end():
    """A pooled gain whose interval lies above 1.03 while one job's own graph step was not faster:
    that job's break-even is 'never', so the range has no upper end and says so, in the table's
    text too (it used to drop that job and print the others' range)."""
    from report.build.ratios import break_even_range
    from report.views.text import break_even_text
    steps, low, high, note = break_even_range(19.8, 0.02, 6.7e-3, 1.2, 1.1, 1.3,
                                              jobs=[20, None, 25])
    assert steps and low <= 20 and high is None and note == "1 of 3 jobs never paid back"
    text = break_even_text({"estimate": steps, "low": low, "high": high, "interval": "x",
                            "note": note})
    assert text == f"{steps:,} ({low:,}–never; 1 of 3 jobs never paid back)"
    assert break_even_range(19.8, 0.02, 6.7e-3, 1.2, 1.1, 1.3, jobs=[20, 25])[2:] == (
        break_even_range(19.8, 0.02, 6.7e-3, 1.2, 1.1, 1.3)[2], None)


def _with_first_calls(graph_s, eager_s=0.1):
    """The paired fixture as a clean job of code c1 with cold first calls for vgg."""
    data = _job("c1")
    for variant, seconds in (("eager", eager_s), ("graph", graph_s)):
        b = json.loads(json.dumps(data["benchmarks"][0]))
        b["name"] = f"test_construction[chainer-vgg-{variant}-cold]"
        b["fullname"] = f"suites/test_construction.py::{b['name']}"
        b["params"] = {"case_id": ["chainer", "vgg", variant, "models"], "cache": "cold"}
        b["extra_info"] = {**{k: b["extra_info"][k] for k in ("backend", "framework_version",
                                                              "device", "threads")},
                           "model": "vgg", "variant": variant, "phase": "construction", "cache": "cold",
                           "loss_finite": True, "step": "train"}
        b["stats"] = {**b["stats"], **dict.fromkeys(("min", "max", "median", "mean", "q1", "q3"),
                                                    seconds)}
        data["benchmarks"].append(b)
    return data


def test_a_pooled_break_even_reads_the_jobs_first_calls_and_spans_each_jobs_own(tmp_path):
    """Torch's first calls on the Zen 5 moved up to 1.2x between jobs (ResNet 36.5-42.0 s), and
    the break-even read the newest job's alone: pooled, it reads the geometric mean of the jobs'
    first calls, and its range spans the speedup's interval and each job's own break-even
    (the ResNet's: 7,488-11,185 steps in the four jobs)."""
    from report.build.ratios import break_even, break_even_range
    folder = tmp_path / "results" / "m"
    save(folder, _with_first_calls(1.0), "0001_default", "2026-01-01T00:00:00")
    save(folder, _with_first_calls(4.0), "0002_default", "2026-01-02T00:00:00")
    found = records_of(load_dir(tmp_path / "results"))
    get = lambda kind, variant, phase: next(r for r in found if (r["kind"], r["model"],
                                            r["variant"], r["phase"]) == (kind, "vgg",
                                                                          variant, phase))
    first = get("first_call", "graph", "construction")
    assert first["estimate"] == pytest.approx(2.0) and (first["low"], first["high"]) == (1.0, 4.0)
    speedup, eager = get("speedup", "graph", "train"), get("step_time", "eager", "train")
    even = next(r for r in found if r["kind"] == "break_even" and r["model"] == "vgg")
    assert speedup["pooled_runs"] and speedup["low"] > 1.03  # a gain: the break-even has steps
    one = next(b for b in json.loads(PAIRED.read_text())["benchmarks"] if (
        b["extra_info"]["model"], b["extra_info"]["variant"], b["extra_info"]["phase"]) == (
        "vgg", "graph", "train"))
    step, gain = eager["estimate"], one["extra_info"]["speedup"]  # each job's own, here the same
    jobs = [break_even(s, step / gain, 0.1, step) for s in (1.0, 4.0)]
    assert (even["estimate"], even["low"], even["high"]) == break_even_range(
        2.0, 0.1, step, speedup["estimate"], speedup["low"], speedup["high"], jobs=jobs)[:3]
    assert even["low"] <= jobs[0] < jobs[1] <= even["high"] and "each job" in even["interval"]


def _lengths_job(totals, cut=()):
    """The paired fixture as a clean job of code c1 holding chainer lengths totals {(variant,
    strategy): seconds}, those in `cut` cut short by the budget."""
    data = _job("c1")
    template, data["benchmarks"] = data["benchmarks"][0], []
    for (variant, strategy), seconds in totals.items():
        b = json.loads(json.dumps(template))
        b["name"] = f"test_lengths[chainer-decoder-{variant}-{strategy}]"
        b["fullname"] = f"suites/test_lengths.py::{b['name']}"
        b["params"] = {"case_id": ["chainer", "decoder", variant, "lengths", "float32"],
                       "strategy": strategy}
        b["extra_info"] = {**{k: template["extra_info"][k] for k in ("backend", "device",
                                                                     "threads")},
                           "model": "decoder", "variant": variant, "phase": "lengths",
                           "strategy": strategy, "precision": "float32", "deterministic": False,
                           "loss_finite": True, "steps_planned": 48, "steps_done": 48,
                           "cut_short": "budget" if (variant, strategy) in cut else None}
        b["stats"] = {**b["stats"], **dict.fromkeys(("min", "max", "median", "mean", "q1", "q3"),
                                                    seconds)}
        data["benchmarks"].append(b)
    return data


def test_the_lengths_totals_of_repeat_jobs_pool_and_a_cut_run_pools_with_none(tmp_path):
    """The Zen 5's two seeds jobs put JAX `jax.jit` padded to powers of two at 7.78 s and 6.92 s:
    the first to finish reads the jobs' geometric mean, not the newest job's total alone."""
    folder = tmp_path / "results" / "m"
    save(folder, _lengths_job({("eager", "exact"): 1.0, ("graph", "exact"): 1.8,
                               ("graph", "max"): 9.0}), "0001_default", "2026-01-01T00:00:00")
    save(folder, _lengths_job({("eager", "exact"): 4.0, ("graph", "exact"): 1.8,
                               ("graph", "max"): 3.0}, cut=[("graph", "max")]),
         "0002_default", "2026-01-02T00:00:00")
    found = {(r["variant"], r["case"]): r for r in records_of(load_dir(tmp_path / "results"))
             if r["kind"] == "lengths_total"}
    eager = found["eager", "exact"]
    assert eager["estimate"] == pytest.approx(2.0) and (eager["low"], eager["high"]) == (1.0, 4.0)
    assert eager["pooled_runs"] == ["0002_default", "0001_default"]
    assert found["graph", "max"]["estimate"] == 3.0 and not found["graph", "max"].get(
        "pooled_runs")  # the newest job's run was cut short: its total stands alone
    assert found["graph", "exact"]["first"] and found["graph", "exact"]["tied"] == [
        ("eager", "exact")]  # 1.8 s against eager's pooled 2.0, not the newest job's 4.0


def test_the_retrace_totals_of_repeat_jobs_pool_and_beating_eager_reads_them(tmp_path):
    """A retrace total is one cold run per job: the report reads their geometric mean, so a
    `graph` that beat eager in the newest job alone (1.5 s against 2.0) but not over both
    (against 1.0 s in the first job) is not said to beat it."""
    def job(eager_s, graph_s):
        data = _lengths_job({("eager", "exact"): eager_s, ("graph", "exact"): graph_s})
        for b in data["benchmarks"]:
            i, variant = b["extra_info"], b["extra_info"]["variant"]
            b["name"] = f"test_retrace[chainer-vgg-{variant}-train-varying]"
            b["params"] = {"case_id": ["chainer", "vgg", variant, "retrace", "float32"],
                           "phase": "train", "pattern": "varying"}
            i.update(model="vgg", phase="retrace", step="train", pattern="varying", traces=4)
        return data
    folder = tmp_path / "results" / "m"
    save(folder, job(1.0, 1.5), "0001_default", "2026-01-01T00:00:00")
    save(folder, job(2.0, 1.5), "0002_default", "2026-01-02T00:00:00")
    found = {r["variant"]: r for r in records_of(load_dir(tmp_path / "results"))
             if r["kind"] == "retrace_total"}
    assert found["eager"]["estimate"] == pytest.approx(2 ** 0.5) and found["eager"][
        "pooled_runs"] == ["0002_default", "0001_default"]
    assert found["graph"]["beats_eager"] is False  # 1.5 s against eager's pooled 1.41 s


def _micro_job(scale=1.0, phase="micro"):
    """The paired fixture's train groups as micro workloads (one per network) of code c1, or
    (`phase` "scale") as points of the sweep."""
    data = _job("c1", scale)
    data["benchmarks"] = [b for b in data["benchmarks"] if b["extra_info"]["phase"] == "train"]
    for b in data["benchmarks"]:
        b["extra_info"].update(phase=phase, workload=b["extra_info"]["model"])
        if phase == "scale":
            b["extra_info"]["model"] = f"vgg-s{len(b['extra_info']['model'])}-w1-b1"
    return data


def test_the_micro_ratios_of_repeat_seeds_jobs_pool_with_their_a_a(tmp_path):
    """Article 001's micro workloads (conv, LSTM cell) pool over the seeds jobs of one code, as
    the steady steps do: the Zen 5's JAX conv read 1.009x 'within 3%' in the newest job alone."""
    folder = tmp_path / "results" / "m"
    save(folder, _micro_job(), "0001_default", "2026-01-01T00:00:00")
    save(folder, _micro_job(0.5), "0002_default", "2026-01-02T00:00:00")
    found = records_of(load_dir(tmp_path / "results"))
    micro = [r for r in found if r["kind"] == "micro_speedup" and r["interval"]]
    assert micro and all(r["pooled_runs"] == ["0002_default", "0001_default"] for r in micro)
    assert all(r["low"] < r["estimate"] < r["high"] for r in micro)
    assert any(r["kind"] == "aa_ratio" and r.get("pooled_runs") and r["case"] in {
        m["case"] for m in micro} for r in found)


def test_the_sweeps_points_pool_over_repeat_answer_jobs(tmp_path):
    """The sweep runs in every answer job: its points pool as the answer's rows do (the Zen 5's
    torch decoder compute point read 1.05x [1.026, 1.096] undecided in the newest job alone)."""
    folder = tmp_path / "results" / "m"
    save(folder, _micro_job(phase="scale"), "0001_default", "2026-01-01T00:00:00")
    save(folder, _micro_job(0.5, phase="scale"), "0002_default", "2026-01-02T00:00:00")
    points = [r for r in records_of(load_dir(tmp_path / "results"))
              if r["kind"] == "scale_speedup" and r["interval"]]
    assert points and all(r["pooled_runs"] == ["0002_default", "0001_default"] for r in points)


def test_a_pooled_ratio_one_job_left_out_of_its_target_says_its_eager_step_is_short(tmp_path):
    """The newest job aimed at the ratio (its eager step took 5 ms or more), an older one did not:
    the pooled cell names the short step, not the newest job's time budget."""
    def aiming(data, half_width):
        for b in data["benchmarks"]:
            if b["extra_info"]["variant"] != "eager":
                b["extra_info"].update(target_half_width=0.03, min_step_s=0.005,
                                       stopped_by="time budget", half_width=half_width)
        return data

    folder = tmp_path / "results" / "m"
    save(folder, aiming(_job("c1"), None), "0001_default", "2026-01-01T00:00:00")
    save(folder, aiming(_job("c1", scale=0.5), 0.5), "0002_default", "2026-01-02T00:00:00")
    found = [r for r in records_of(load_dir(tmp_path / "results")) if r["kind"] == "speedup"
             and r.get("pooled_runs")]
    assert found and all(r["target"] == "eager step under 5 ms" for r in found)
    save(folder, aiming(_job("c1"), 0.5), "0001_default", "2026-01-01T00:00:00")  # both aimed
    found = [r for r in records_of(load_dir(tmp_path / "results")) if r["kind"] == "speedup"
             and r.get("pooled_runs")]
    assert found and all(r["target"] == "time budget" for r in found)


def test_a_gpu_table_says_how_far_its_processes_step_times_spread(tmp_path):
    """On a GPU a row is one run of a few processes, whose host-bound eager steps move with the
    process (Chainer's MNIST CNN 3.5 to 7.1 ms on the H100, waited on per step or per block): the
    build gives each eager row's slowest process median ÷ its fastest, the GPU table their median
    and widest; a CPU's rows, which pool jobs, carry none."""
    import statistics
    from report.views.gpu import gpu_table
    from tests.reporting import views_of
    data = _job("c1")
    data["machine_info"]["graphbench"].update(device="cuda", gpu="NVIDIA H200, 580.1, 143771 MiB")
    expected = []
    for b in data["benchmarks"]:
        info = b["extra_info"]
        info.update(device="cuda", wait="block")
        if info["variant"] == "eager" and info["model"] != "mnist_cnn":
            info["paired_rounds_s"][1] = [t * 2 for t in info["paired_rounds_s"][1]]
        if info["variant"] == "eager" and info["phase"] == "train":
            per = [statistics.median(p) for p in info["paired_rounds_s"]]
            expected.append(max(per) / min(per))
    save(tmp_path / "results" / "m", data, "0001_gpu-chainer", "2026-01-01T00:00:00")
    (machine, shown, records), = views_of(load_dir(tmp_path / "results"))
    spread = shown["process_spread"]
    assert (spread["rows"], spread["processes"]) == (3, [2]) and max(expected) > 1.5
    assert spread["median"] == pytest.approx(statistics.median(expected))
    assert spread["widest"] == pytest.approx(max(expected))
    text = "\n".join(gpu_table(machine, shown, records, "cpu", []))
    assert (f"Between one run's 2 processes, one eager train step took {spread['median']:.2f}× "
            f"as long in the slowest as in the fastest (the median of 3 rows; up to "
            f"{max(expected):.2f}×") in text
    brief = "\n".join(gpu_table(machine, shown, records, "cpu", [], brief=True))
    assert (f"Step times move between a run's 2 processes (slowest ÷ fastest eager step: median "
            f"{spread['median']:.2f}×, up to {max(expected):.2f}×)") in brief
    save(tmp_path / "cpu" / "m", _job("c1"), "0001_default", "2026-01-01T00:00:00")
    (_, shown, records), = views_of(load_dir(tmp_path / "cpu"))
    assert "process_spread" not in shown and not any("process_spread" in r for r in records)
