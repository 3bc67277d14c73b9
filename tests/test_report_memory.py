"""The memory section over synthetic results: the three tables, the ratio and the advice."""
from report.views.answer import memory_cost, memory_cost_text
from report.build.load import Result
from report.views.memory import MIB, growth_per_shape, memory_peaks, memory_section
from report.build.machine_records import machine_records
from report.build.sections import MEMORY_CI, memory_records
from tests.reporting import records_of

PEAKS = {("tf", "eager"): 100, ("tf", "graph"): 50, ("tf", "graph_dynamic"): 80,
         ("torch", "eager"): 40, ("torch", "graph"): 60}
GROWTH = {"eager": 0.5, "graph": 8, "graph_dynamic": 1}  # MiB more held per new batch size


def _result(backend, variant, peak, model="resnet", loss=0.5, when="2026-01-02T00:00:00",
            **extra):
    steady = peak / 2 * MIB
    info = {"backend": backend, "model": model, "variant": variant, "phase": "memory",
            "params": 1000 if model == "resnet" else 10, "device": "cpu", "steps": 3,
            "traces": 0 if variant == "eager" else 1, "loss": loss, "loss_finite": loss == loss,
            "peak_memory_bytes": peak * MIB, "first_call_peak_bytes": 2 * peak * MIB,
            "held_after_first_bytes": steady, "held_after_steady_bytes": steady,
            "peak_source": "rss",
            "cache_growth": [{"batch": b, "held_bytes": steady + (i + 1) * GROWTH[variant] * MIB,
                              "traces": info_traces(variant, i)} for i, b in enumerate((9, 10))],
            **extra}
    stats = {"median": 123.25, "q1": 122.5, "q3": 124.0}  # child wall time: never shown
    return Result("f.json", "m", "0001_x", when, f"test_memory[{backend}-{variant}]", info,
                  stats, {"threads": 2})


def info_traces(variant, i):
    return 0 if variant == "eager" else 1 if variant == "graph_dynamic" else i + 2


def _results():
    return [_result(b, v, p) for (b, v), p in PEAKS.items()]


def _row(text, start):
    row = next(line for line in text.splitlines() if line.startswith(start))
    return [c.strip() for c in row.strip("|").split("|")]


def test_no_memory_results_no_section():
    assert memory_section(records_of([])) == ""
    steady = _result("tf", "eager", 10)
    steady.info["phase"] = "train"
    assert memory_section(records_of([steady])) == ""


def test_peak_table_shows_this_over_eager():
    text = memory_section(records_of(_results()))
    assert "| peak MiB (range) | × eager's peak (95% interval) |" in text
    assert _row(text, "| resnet | tf | graph |")[3:5] == ["50.0", "0.50× (no interval)"]
    assert _row(text, "| resnet | tf | eager |")[3:5] == ["100.0", "1"]
    assert _row(text, "| resnet | torch | graph |")[3:5] == ["60.0", "1.50× (no interval)"]
    assert "(no interval): one child process per case, or a run saved before" in text
    assert "123" not in text  # the child's wall time is not a figure of this section


def _children(backend, variant, peaks, **extra):
    """A result of several child processes: the median child's peak and every child's."""
    return _result(backend, variant, sorted(peaks)[(len(peaks) - 1) // 2],
                   peak_memory_bytes_rounds=[p * MIB for p in peaks], **extra)


def test_ratio_interval_over_child_processes():
    results = [_children("tf", "eager", [100, 104, 98]), _children("tf", "graph", [50, 52, 49]),
               _children("tf", "graph_dynamic", [101, 97, 103])]
    text = memory_section(records_of(results))
    assert _row(text, "| resnet | tf | graph |")[4] == "0.50× [0.47, 0.53]"
    assert _row(text, "| resnet | tf | graph_dynamic |")[4].endswith(" ~")  # includes 1
    assert "(no interval)" not in text
    ratios = {r["variant"]: r for r in (lambda found: [r for r in memory_records(found) if r['kind'] == 'memory_ratio'])(results)}
    assert ratios["graph"]["interval"] == MEMORY_CI and ratios["graph"]["significant"]
    assert ratios["graph"]["estimate"] == 0.5 and ratios["graph"]["processes"] == 1
    assert ratios["graph_dynamic"]["low"] < 1 < ratios["graph_dynamic"]["high"]
    assert not ratios["graph_dynamic"]["significant"]


def test_ratio_never_pairs_a_variant_with_another_runs_eager():
    graph = _children("tf", "graph", [50, 52, 49])
    graph.file, graph.run = "g.json", "0002_y"
    eager = _children("tf", "eager", [100, 104, 98])
    elsewhere = _result("tf", "eager", 100)
    elsewhere.machine = "other"
    elsewhere.file = "g.json"
    [rec] = (lambda found: [r for r in memory_records(found) if r['kind'] == 'memory_ratio'])([eager, graph, elsewhere])
    assert rec["estimate"] is None and rec["note"] == "no eager in this run"
    assert _row((lambda found: memory_section(records_of(found)))([eager, graph]), "| resnet | tf | graph |")[4] == "—"


def test_summary_line_says_the_cost_with_its_interval_or_no_difference():
    def line(*results):
        records = machine_records(lambda name: list(results) if name == "memory" else [])
        return memory_cost_text(memory_cost(records, "tf", {"resnet": ["graph"]}))
    assert line(_children("tf", "eager", [100, 104, 98]), _children("tf", "graph", [123, 120, 126])
                ) == "`graph` needs 1.23× (1.15–1.29) eager's peak train-step memory on resnet;"
    assert line(_children("tf", "eager", [100, 104, 98]), _children("tf", "graph", [101, 97, 103])
                ).startswith("`graph`: undecided against eager's peak train-step "
                             "memory on resnet (1.01×, ")
    assert line(_result("tf", "eager", 100), _result("tf", "graph", 150)) == (
        "`graph` needs 1.50× eager's peak train-step memory on resnet (no interval: rerun with "
        "two or more child processes);")


def test_first_call_and_growth_tables():
    text = memory_section(records_of(_results()))
    first = text.split("**First call**")[1]
    assert "| first-call peak MiB (range) | × eager's |" in first
    assert _row(first, "| resnet | tf | graph |")[3:6] == ["100.0", "0.50×", "25.0"]
    growth = text.split("**Memory held")[1]
    assert "| model | backend | variant | after the steps | batch 9 | batch 10 |" in growth
    assert _row(growth, "| resnet | tf | graph |")[3:] == ["25.0 (1 tr)", "33.0 (2 tr)",
                                                           "41.0 (3 tr)", "8.00"]
    [peak] = memory_peaks(records_of([_result("tf", "graph_dynamic", 80)])).values()
    assert growth_per_shape(peak) == 1


def test_advice_names_the_smallest_peak_and_the_variant_to_avoid():
    line = memory_section(records_of(_results())).splitlines()[-1]
    assert line.startswith("What to do: for the smallest training-step memory on resnet, use "
                           "tf `graph` (0.50× eager's peak), torch `eager`.")
    assert "tf `graph` keeps 8.0 MiB more per new shape (eager: 0.5): use `graph_dynamic`" in line


def test_advice_takes_a_lower_peak_only_past_its_interval():
    """Run 0120: torch `graph_static` 0.93× and `graph` 0.94× (0.91–1.00) of eager's peak, both
    inside the children's scatter (here `graph` and `graph_dynamic`): eager is the smallest."""
    level = [_children("torch", "eager", [100, 104, 98]),
             _children("torch", "graph", [99, 96, 101]),
             _children("torch", "graph_dynamic", [97, 95, 100])]
    line = memory_section(records_of(level)).splitlines()[-1]
    assert "use torch `eager`." in line
    smaller = level[:2] + [_children("torch", "graph_dynamic", [60, 62, 59])]
    line = memory_section(records_of(smaller)).splitlines()[-1]
    assert "use torch `graph_dynamic` (0.60× eager's peak)." in line


def test_non_finite_run_shows_no_figure_and_newest_run_wins():
    old = _result("tf", "graph", 10, when="2000-01-01T00:00:00")
    bad = _result("tf", "graph", 50, loss=float("nan"), known_wrong="drifts")
    found = memory_peaks(records_of([old, *_results()[:1], bad]))
    assert found[("tf", "resnet", "graph")]["estimate"] is None
    text = (lambda found: memory_section(records_of(found)))([old, *_results()[:1], bad])
    assert _row(text, "| resnet | tf | graph ⚠ |")[3:5] == ["non-finite ✗", "—"]
    assert "tf `eager`" in text.splitlines()[-1]  # the invalid run is never advised


def test_repeated_children_show_the_median_and_range():
    r = _result("tf", "eager", 100, peak_memory_bytes_rounds=[90 * MIB, 100 * MIB, 130 * MIB])
    text = (lambda found: memory_section(records_of(found)))([r, _result("tf", "graph", 50)])
    assert _row(text, "| resnet | tf | eager |")[3] == "100.0 (90.0–130.0)"
    assert _row(text, "| resnet | tf | graph |")[3] == "50.0"  # one child: no range


def test_the_memory_chart_names_what_the_profile_left_out():
    from report.build.select import profile_gaps
    from report.build.load import Result
    rules = [{"reason": "r", "suites": ["memory"], "labels": ["vgg", "resnet"], "backend": None},
             {"reason": "r", "suites": ["memory"], "backend": ["tf", "torch"],
              "variants": ["graph_static"]},
             {"reason": "r", "suites": ["steady"], "labels": ["resnet"]}]
    run = Result("f", "m", "0001_default", "2026", "test_memory[tf-mnist_cnn-eager]",
                 {"backend": "tf", "model": "mnist_cnn", "variant": "eager", "phase": "memory"},
                 {}, {}, profile={"skips": rules})
    assert profile_gaps([run], "memory") == ["every model (graph_static) in tf, torch",
                                             "vgg, resnet in every backend"]
    assert profile_gaps([run], "micro") == []


def test_the_answer_reads_memory_from_the_backends_newest_memory_run_only():
    older = [_result("tf", v, p, model=m) for v, p in (("eager", 100), ("graph", 150))
             for m in ("resnet", "mnist_cnn")]
    newer = [_result("tf", v, p, model="mnist_cnn", when="2026-02-01T00:00:00")
             for v, p in (("eager", 40), ("graph", 44))]
    for r in newer:
        r.run, r.file = "0002_x", "g.json"
    records = machine_records(lambda name: older + newer if name == "memory" else [])
    found = memory_cost(records, "tf", {"resnet": ["graph"], "mnist_cnn": ["graph"]})
    assert (found["model"], found["run"], round(found["estimate"], 2)) == ("mnist_cnn", "0002_x",
                                                                          1.1)
