"""One run, one ratio: a partial re-run or an older peak never meets another run in a figure."""
import json
from pathlib import Path

import pytest

from report import __main__ as cli
from report.build.load import load_dir
from report.views.readings import throughput_reading
from report.build.select import one_profile, pick
from report.views.tables import summary_table
from tests.reporting import machines_of, page_data, records_of

FIXTURES = Path(__file__).parent / "fixtures"
QUICK = FIXTURES / "chainer_quick.json"  # steady, construction, peak, retrace


def save(folder, data, name, when, scale=1.0, keep=lambda b: True):
    """A copy of `data` saved as run `name` at `when`, its times scaled, some benchmarks kept."""
    data = json.loads(json.dumps(data))
    data["datetime"] = when
    data["benchmarks"] = [b for b in data["benchmarks"] if keep(b)]
    for b in data["benchmarks"]:
        b["stats"] = {k: v * scale if isinstance(v, float) else v for k, v in b["stats"].items()}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data))
    return data


def _row(table, start):
    return [c.strip() for c in next(line for line in table.splitlines()
                                     if line.startswith(start)).strip("|").split("|")]


def _graph_train_only(b):
    i = b["extra_info"]
    return i["phase"] == "train" and i["variant"] == "graph"


@pytest.fixture
def partial(tmp_path):
    """Run 0001 complete; run 0002 (later, 10× slower) re-ran only the graph train step."""
    base = json.loads(QUICK.read_text())
    save(tmp_path, base, "0001_default", "2026-01-01T00:00:00")
    save(tmp_path, base, "0002_default", "2026-01-02T00:00:00", 10.0, _graph_train_only)
    return load_dir(tmp_path)


def test_a_partial_rerun_never_divides_by_the_older_runs_eager(partial):
    table = summary_table(records_of(pick(partial, "steady")))
    graph = _row(table, "| chainer | graph |")
    assert graph[3] == "— (no eager in this run)"
    assert graph[8].startswith("— (no ")
    assert graph[10] == "`0001_default`, `0002_default`"  # 0001's first calls, named


def _steps_then_first_calls(folder, code):
    """Run 0001: steps only; run 0002, later: first calls only, of timing code `code` (a GPU job's
    steps are saved so, each its own run)."""
    base = json.loads(QUICK.read_text())
    base["machine_info"]["graphbench"]["code"] = "c0de"
    save(folder, base, "0001_default", "2026-01-01T00:00:00",
         keep=lambda b: b["extra_info"]["phase"] in ("train", "infer"))
    base["machine_info"]["graphbench"]["code"] = code
    save(folder, base, "0002_default", "2026-01-02T00:00:00",
         keep=lambda b: b["extra_info"]["phase"] == "construction")
    return [r for r in records_of(load_dir(folder)) if r["model"] == "mnist_cnn"
            and r["variant"] == "graph" and r["kind"] in ("speedup", "break_even", "first_call")]


def test_a_first_calls_run_keeps_the_steps_and_pays_back_with_them_in_one_job(tmp_path):
    found = {(r["kind"], r["case"]): r for r in _steps_then_first_calls(tmp_path, "c0de")}
    assert found["speedup", None]["run"] == "0001_default"  # not hidden by the newer run
    assert found["first_call", "cold"]["run"] == "0002_default"
    even = found["break_even", "cold"]
    assert even["estimate"] is not None and even["first_calls_run"] == "0002_default"


def test_a_models_first_calls_may_come_from_two_runs_of_one_job(tmp_path):
    """torch's ResNet first calls take two GPU steps, each with eager: the newer run's eager
    hid the older run's graph variant, whose break-even then had no first call."""
    base = json.loads(QUICK.read_text())
    base["machine_info"]["graphbench"]["code"] = "c0de"
    save(tmp_path, base, "0001_default", "2026-01-01T00:00:00",
         keep=lambda b: b["extra_info"]["phase"] in ("train", "infer"))
    save(tmp_path, base, "0002_default", "2026-01-02T00:00:00",
         keep=lambda b: b["extra_info"]["phase"] == "construction")
    save(tmp_path, base, "0003_default", "2026-01-03T00:00:00", 2.0,
         keep=lambda b: b["extra_info"]["phase"] == "construction"
         and b["extra_info"]["variant"] == "eager")
    found = {(r["kind"], r["variant"], r["case"]): r for r in records_of(load_dir(tmp_path))
             if r["model"] == "mnist_cnn"}
    assert found["first_call", "graph", "cold"]["run"] == "0002_default"
    assert found["first_call", "eager", "cold"]["run"] == "0003_default"  # the newest
    even = found["break_even", "graph", "cold"]
    assert even["estimate"] is not None and even["first_calls_run"] == "0002_default"


def test_first_calls_of_another_code_never_meet_the_steps(tmp_path):
    found = {(r["kind"], r["case"]): r for r in _steps_then_first_calls(tmp_path, "other")}
    assert found["speedup", None]["run"] == "0001_default"
    assert ("first_call", "cold") not in found
    assert found["break_even", "cold"]["estimate"] is None


def test_run_selects_the_older_run(partial):
    table = summary_table(records_of(pick(partial, "steady", wanted=["0001"])))
    graph = _row(table, "| chainer | graph |")
    assert graph[3].endswith("(unpaired)") and graph[10] == "`0001_default`"


def test_unknown_run_is_one_line(tmp_path, capsys):
    save(tmp_path / "results", json.loads(QUICK.read_text()), "0001_default", "2026-01-01T00:00")
    assert cli.main(["--results", str(tmp_path / "results"), "--run", "0042"]) == 2
    assert "--run '0042' matches no run; runs: 0001_default" in capsys.readouterr().err


def test_throughput_uses_the_peak_runs_own_train_steps(tmp_path):
    base = json.loads(QUICK.read_text())
    first = save(tmp_path, base, "0001_default", "2026-01-01T00:00:00")
    save(tmp_path, base, "0002_default", "2026-01-02T00:00:00", 2.0,
         lambda b: b["extra_info"]["phase"] != "peak")
    results = load_dir(tmp_path)
    peak = next(b for b in first["benchmarks"] if b["extra_info"]["phase"] == "peak")
    trains = [b for b in first["benchmarks"] if b["extra_info"]["phase"] == "train"]
    share = max(t["extra_info"]["flops"] / t["stats"]["median"] for t in trains) / (
        peak["extra_info"]["flops"] / peak["stats"]["median"])
    assert f"best train step {100 * share:.0f}% of it" in throughput_reading(records_of(pick(results, "peak")))
    assert {r.run for r in pick(results, "peak")} == {"0001_default"}
    assert {r.run for r in pick(results, "steady")} == {"0002_default"}


def test_a_backends_older_release_is_never_shown_beside_its_newest(tmp_path):
    """The retrace section only the older run has is left out when that run installed another
    release of the framework (an upgrade's table never mixes two releases); named with --run, it
    is shown."""
    base = json.loads(QUICK.read_text())
    save(tmp_path, base, "0001_default", "2026-01-01T00:00:00")
    newer = json.loads(json.dumps(base))
    newer["machine_info"]["graphbench"]["versions"]["chainer"] = "7.9.0"
    save(tmp_path, newer, "0002_default", "2026-01-02T00:00:00",
         keep=lambda b: b["extra_info"]["phase"] != "retrace")
    results = load_dir(tmp_path)
    assert pick(results, "retrace") == [] and {r.run for r in pick(results, "steady")} == {"0002_default"}
    assert {r.run for r in pick(results, "retrace", ["0001"])} == {"0001_default"}
    same = json.loads(json.dumps(base))  # the same release: its retrace comes from the older run
    save(tmp_path, same, "0002_default", "2026-01-02T00:00:00",
         keep=lambda b: b["extra_info"]["phase"] != "retrace")
    assert {r.run for r in pick(load_dir(tmp_path), "retrace")} == {"0001_default"}


def test_every_section_names_its_run(partial):
    text = cli.details_text(partial, machines_of(partial))
    assert ("From run chainer `0001_default` (mnist_cnn first calls, vgg first calls), "
            "`0002_default` (mnist_cnn, vgg).") in text  # the steady table
    assert "From run chainer `0001_default`." in text  # retrace: only the older run has it


def test_a_jobs_own_outputs_do_not_make_the_next_job_in_its_clone_dirty(tmp_path):
    """run.py bench redraws README.md, RESULTS.md, the charts and results/: a second job in the
    same clone is still its commit's run (pooled with the first); any other change, or changes
    not recorded, keep it dirty."""
    base = json.loads(QUICK.read_text())
    for n, changed in enumerate((["README.md", "docs/charts/scale.png", "results/summary.json"],
                                 ["README.md", "conftest.py"], [], None), 1):
        run = json.loads(json.dumps(base))
        run["commit_info"] = {"id": "abcdef0123456789", "dirty": True}
        run["machine_info"]["graphbench"]["changed_files"] = changed
        save(tmp_path, run, f"000{n}_default", f"2026-01-0{n}T00:00:00")
    dirty = {r.run: r.dirty for r in load_dir(tmp_path)}
    assert dirty == {"0001_default": False, "0002_default": True, "0003_default": True,
                     "0004_default": True}


def test_every_run_line_names_its_provenance_and_marks_a_dirty_tree(tmp_path):
    base = json.loads(QUICK.read_text())
    base["commit_info"] = {"id": "abcdef0123456789", "dirty": True}
    base["machine_info"]["graphbench"]["changed_files"] = ["suites/test_steady.py"]
    save(tmp_path, base, "0001_default", "2026-01-01T00:00:00")
    clean = json.loads(json.dumps(dict(base, commit_info={"id": "0123456789abcdef", "dirty": False})))
    clean["machine_info"]["graphbench"]["cpu"] = {"vector_isa": "avx2",
                                                  "env": {"ATEN_CPU_CAPABILITY": "avx2"}}
    save(tmp_path, clean, "0003_default", "2026-01-03T00:00:00")
    text = cli.details_text(load_dir(tmp_path), machines_of(load_dir(tmp_path)))
    lines = text.splitlines()
    assert any(line.startswith("Runs on `vm (") for line in lines)  # one machine: named once
    clean_line = next(line for line in lines if line.startswith("- `0003_default`, "))
    assert (", 2026-01-03 00:00 UTC, commit `01234567`: profile `quick`, device `cpu`, 2 threads, "
            "vector ISA avx2 (ATEN_CPU_CAPABILITY=avx2); " in clean_line)
    assert "chainer 7.8.1" in clean_line
    assert any(line.startswith("- Not shown (a newer run of the same backend and section is") and
               line.endswith("): `0001_default`") for line in lines)
    assert "No run 0002 in `results/` for `vm (" in text
    later = tmp_path / "later"  # a machine whose first run went on from another's numbers
    save(later, clean, "0086_default", "2026-01-04T00:00:00")
    save(later, clean, "0088_default", "2026-01-05T00:00:00")
    runs = load_dir(later)
    assert "No run 0087 in" in (later_text := cli.details_text(runs, machines_of(runs)))
    assert "0085" not in later_text
    other = json.loads(json.dumps(clean))
    other["machine_info"]["graphbench"]["profile"] = "paper"
    save(tmp_path, other, "0002_paper", "2026-01-02T00:00:00")  # saved, in a profile left out
    shown, note = one_profile(load_dir(tmp_path), "quick")
    assert "0002_paper" in note and "No run 0002" not in cli.details_text(shown, machines_of(shown))
    for n in range(3, 10):  # many runs left out: their count and ends, the note one short line
        save(tmp_path, other, f"{n:04d}_paper", "2026-01-03T00:00:00")
    note = one_profile(load_dir(tmp_path), "quick")[1]
    assert "profile paper (8 runs, 0002_paper to 0009_paper)" in note and len(note) < 200, note
    old = cli.details_text(load_dir(tmp_path), machines_of(load_dir(tmp_path), ["0001"]), wanted=["0001"])
    assert ("- `0001_default`†, " in old and "commit `abcdef01` with uncommitted changes "
            "(suites/test_steady.py): profile" in old)
    assert "| `0001_default`† |" in old and "From run chainer `0001_default`†." in old


def test_each_chart_reading_names_its_run(tmp_path):
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    base = json.loads(QUICK.read_text())
    save(tmp_path / "results", base, "0001_default", "2026-01-01T00:00:00")
    save(tmp_path / "results", base, "0002_default", "2026-01-02T00:00:00", 2.0,
         lambda b: b["extra_info"]["phase"] != "peak")
    readme = tmp_path / "README.md"
    readme.write_text(f"{cli.START}\n{cli.END}\n")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme),
                     "--charts", str(tmp_path / "c")]) == 0
    charts = {c["title"]: c["reading"] for c in page_data(tmp_path / "results" / "index.html")["charts"]}
    assert charts["Throughput against the matmul peak"].endswith("From run `0001`.")
    pooled = "From runs `0001`–`0002` (repeat jobs pooled)."
    assert charts["Steady-state speedup, train step"].endswith(pooled)  # one code: 0001 repeats
    step_times = readme.read_text().split("### Train step time, eager beside")[1].split("###")[0]
    assert step_times.strip().endswith(pooled)
    assert "### Throughput against" not in readme.read_text()


def test_a_chart_reading_names_its_runs_as_spans_of_numbers():
    """Every backend's runs once, consecutive numbers as one span, a † for uncommitted changes."""
    from report.views.text import chart_runs
    per_backend = {"tf": {"`0021_default`": ["vgg"], "`0199_default-seeds`": ["mnist_cnn"]},
                   "jax": {"`0202_default-seeds`†": ["mnist_cnn"]},
                   "chainer": {"`0200_default-seeds`": ["mnist_cnn"]}}
    assert chart_runs(per_backend) == "From runs `0021`, `0199`–`0200`, `0202`†."
    assert chart_runs({"tf": {"`0007_quick`": ["vgg"]}}) == "From run `0007`."
    assert chart_runs({}) == ""
    assert chart_runs({"tf": {"`run`": ["vgg"]}}) == "From run tf `run`."  # saved by hand


def test_a_reading_of_figures_no_job_repeats_names_the_newest_run(tmp_path):
    """Another timing code pools nothing: the steady readings name the newest run alone."""
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    base = json.loads(QUICK.read_text())
    save(tmp_path / "results", base, "0001_default", "2026-01-01T00:00:00")
    base["machine_info"]["graphbench"]["code"] = "other"
    save(tmp_path / "results", base, "0002_default", "2026-01-02T00:00:00", 2.0)
    readme = tmp_path / "README.md"
    readme.write_text(f"{cli.START}\n{cli.END}\n")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme),
                     "--charts", str(tmp_path / "c")]) == 0
    step_times = readme.read_text().split("### Train step time, eager beside")[1].split("###")[0]
    assert step_times.strip().endswith("From run `0002`.")


def test_a_number_another_machines_run_holds_is_no_gap(tmp_path):
    """pytest-benchmark numbers every machine folder's runs in one sequence: a run of the GPU
    machine numbered between two of this CPU's is no missing run of this CPU's."""
    from report.build.runs import missing_runs
    from tests.test_report_machines import on_machine
    base = json.loads(QUICK.read_text())
    save(tmp_path / "results" / "a", on_machine(base, "ci-a", 1), "0001_default",
         "2026-01-01T00:00:00")
    save(tmp_path / "results" / "b", on_machine(base, "ci-b", 1), "0002_default",
         "2026-01-02T00:00:00")
    save(tmp_path / "results" / "a", on_machine(base, "ci-a", 1), "0003_default",
         "2026-01-03T00:00:00")
    assert missing_runs(load_dir(tmp_path / "results")) == []
    (tmp_path / "results" / "b" / "0002_default.json").unlink()  # now a gap of ci-a's
    assert [m.split(" (")[0] for m, _ in missing_runs(load_dir(tmp_path / "results"))] == ["ci-a"]


def _result(run, phase, model, variant, when, code="c0de", **info):
    """A saved result as select reads it (one GPU job's step is one run)."""
    from types import SimpleNamespace
    return SimpleNamespace(
        machine="m", info={"backend": "torch", "phase": phase, "model": model, "variant": variant,
                           **info},
        job="answer" if phase != "lengths" else "seeds", file=f"/r/{run}.json", run=run,
        complete=True, datetime=when, graphbench={"versions": {"torch": "2.15"}, "code": code},
        dirty=False, commit={"id": "c"}, profile_name="default")


def test_each_sweep_point_and_lengths_variant_shows_its_own_run_of_one_job():
    from report.build.select import chosen
    results = [_result("0105_gpu-busy-torch-resnet", "scale", "busy-resnet", "graph", "1"),
               _result("0106_gpu-busy-torch-decoder", "scale", "busy-decoder", "graph", "2"),
               *(_result("0107_gpu-sweep-torch", "scale", p, "graph", "3") for p in ("a", "b")),
               _result("0108_gpu-lengths-torch-eager", "lengths", "decoder", "eager", "4"),
               _result("0109_gpu-lengths-torch-graph", "lengths", "decoder", "graph", "5")]
    shown = lambda found: {key[-1]: Path(file).stem for key, file in chosen(found).items()}
    assert shown(results) == {"busy-resnet": "0105_gpu-busy-torch-resnet", "busy-decoder":
                              "0106_gpu-busy-torch-decoder", "a": "0107_gpu-sweep-torch",
                              "b": "0107_gpu-sweep-torch",
                              ("eager", None): "0108_gpu-lengths-torch-eager",
                              ("graph", None): "0109_gpu-lengths-torch-graph"}
    newer = [*results, _result("0110_gpu-sweep-torch", "scale", "a", "graph", "6", code="new")]
    assert {k: v for k, v in shown(newer).items() if k in ("a", "b")} == {
        "a": "0110_gpu-sweep-torch"}  # another code's sweep: the older job's points leave


def test_a_lengths_variant_whose_strategies_took_a_step_each_shows_every_strategy():
    """Chainer's lengths on a GPU take one step per strategy (gpu.plan.LENGTHS_PER_STRATEGY): the
    variant's row joins its strategies from the runs of one job, each strategy's newest."""
    from report.build.select import chosen
    step = lambda n, k, when, code="c0de": _result(f"01{n}_gpu-lengths-chainer-eager-{k}",
                                                   "lengths", "decoder", "eager", when, code,
                                                   strategy=k)
    results = [step(11, "exact", "1"), step(12, "pow2", "2"), step(13, "max", "3")]
    shown = lambda found: {key[-1]: Path(file).stem for key, file in chosen(found).items()}
    assert shown(results) == {("eager", k): f"01{n}_gpu-lengths-chainer-eager-{k}"
                              for n, k in ((11, "exact"), (12, "pow2"), (13, "max"))}
    again = shown([*results, step(14, "exact", "4")])
    assert again[("eager", "exact")] == "0114_gpu-lengths-chainer-eager-exact"
    assert again[("eager", "max")] == "0113_gpu-lengths-chainer-eager-max"
