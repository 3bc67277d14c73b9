"""The report over a results file written by the suite (chainer, quick profile, mnist_cnn)."""
import json
import shutil
from pathlib import Path

import pytest

from report import __main__ as cli
from report.publish.write import SUMMARY_END, SUMMARY_START
from report.build.load import load_dir, load_file
from report.build.ratios import break_even
from report.build.select import index
from report.views.tables import summary_table
from tests.reporting import machines_of, records_of, tables_of

FIXTURE = Path(__file__).parent / "fixtures" / "chainer_quick.json"


def _medians():
    data = json.loads(FIXTURE.read_text())
    return {b["name"]: b["stats"]["median"] for b in data["benchmarks"]}


def test_speedup_and_break_even_from_the_fixture():
    m = _medians()
    eager, graph = m["test_steady[chainer-mnist_cnn-eager-train]"], m["test_steady[chainer-mnist_cnn-graph-train]"]
    cold_e = m["test_construction[chainer-mnist_cnn-eager-cold]"]
    cold_g = m["test_construction[chainer-mnist_cnn-graph-cold]"]
    # by hand: the graph total first drops below eager's after 1 + ceil(extra / gain) steps
    expected_n = 1 if cold_g <= cold_e else 1 + -(-(cold_g - cold_e) // (eager - graph))
    table = summary_table(records_of(load_file(FIXTURE)))
    row = next(line for line in table.splitlines() if line.startswith("| chainer | graph |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3].startswith(f"{eager / graph:.2f}×")
    assert cells[8] == str(int(expected_n))
    assert cells[6] == f"{cold_g:.2f}"


def test_break_even_rules():
    assert break_even(10.0, 1.0, 0.0, 2.0) == 11  # 10 s extra, 1 s gained per step
    assert break_even(1.0, 2.0, 0.5, 1.0) is None  # graph step slower: never
    assert break_even(0.5, 1.0, 1.0, 1.0) == 1  # cheaper first call: from the start


def test_empty_folder_says_so(tmp_path, capsys):
    assert load_dir(tmp_path) == []
    assert f"{tmp_path}: no saved runs" in capsys.readouterr().err


def test_corrupt_and_foreign_files_are_named_and_left_alone(tmp_path, capsys):
    shutil.copy(FIXTURE, tmp_path / "good.json")
    (tmp_path / "corrupt.json").write_text('{"benchmarks": [')
    (tmp_path / "foreign.json").write_text(json.dumps({"benchmarks": [], "machine_info": {}}))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    results = load_dir(tmp_path)
    err = capsys.readouterr().err.splitlines()
    assert len(results) == len(json.loads(FIXTURE.read_text())["benchmarks"])
    assert any("corrupt.json: not readable JSON" in line for line in err)
    assert any("foreign.json: a pytest-benchmark file, but not from this suite" in line for line in err)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_readme_blocks_are_rewritten_and_the_tables_go_to_the_page(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{SUMMARY_START}\nOLD-SUMMARY\n{SUMMARY_END}\nmiddle\n"
                      f"{cli.START}\nOLD-SECTION\n{cli.END}\noutro\n")
    shutil.copy(FIXTURE, tmp_path / "run.json")
    assert cli.main(["--results", str(tmp_path), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("intro\n") and text.endswith("outro\n") and "OLD-SECTION" not in text
    assert "OLD-SUMMARY" not in text and "\nmiddle\n" in text
    summary = text.split(SUMMARY_START)[1].split(SUMMARY_END)[0]
    assert "| chainer | mnist_cnn | `graph` |" in summary and "\n- **Chainer** on the " in summary
    assert "(RESULTS.md#the-answer-in-full)" in summary
    assert "[RESULTS.md](RESULTS.md)" in text and "| chainer | graph |" not in text
    assert "| chainer | graph |" not in (tmp_path / "RESULTS.md").read_text()  # on the page
    assert "| chainer | graph |" in tables_of(tmp_path)
    assert "(index.html#tables)" in (tmp_path / "RESULTS.md").read_text()  # beside it here


def test_readme_without_markers_is_untouched(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    cli.rewrite_readme(readme, "section")
    assert readme.read_text() == "no markers\n"
    assert "no <!-- results:start -->" in capsys.readouterr().err


def test_newest_run_wins(tmp_path):
    data = json.loads(FIXTURE.read_text())
    older = dict(data, datetime="2000-01-01T00:00:00")
    for b in older["benchmarks"]:
        b["stats"] = dict(b["stats"], median=99.0)
    (tmp_path / "old.json").write_text(json.dumps(older))
    shutil.copy(FIXTURE, tmp_path / "new.json")
    medians = [r.stats["median"] for r in index(load_dir(tmp_path)).values()]
    assert 99.0 not in medians and len(medians) == len(data["benchmarks"])


def test_charts_are_drawn_and_linked(tmp_path):
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    readme = tmp_path / "README.md"
    readme.write_text(f"{cli.START}\n{cli.END}\n")
    shutil.copy(FIXTURE, tmp_path / "run.json")
    cli.main(["--results", str(tmp_path), "--readme", str(readme), "--charts", str(tmp_path / "c")])
    pngs = sorted(p.name for p in (tmp_path / "c").glob("*.png"))
    assert pngs == ["break_even.png", "construction_overhead.png", "retrace.png",
                    "retrace_steps.png", "speedup_infer.png", "speedup_train.png",
                    "step_times.png", "throughput.png"]
    assert all((tmp_path / "c" / p).read_bytes()[:4] == b"\x89PNG" for p in pngs)
    assert "![Break-even](c/break_even.png)" in readme.read_text()


def test_missing_backend_is_named(tmp_path, capsys):
    shutil.copy(FIXTURE, tmp_path / "run.json")
    cli.main(["--results", str(tmp_path)])
    assert "no results for backend(s) jax, tf, torch; drawing the rest" in capsys.readouterr().err


def test_two_runs_side_by_side(tmp_path, capsys):
    data = json.loads(FIXTURE.read_text())
    for b in data["benchmarks"]:
        b["stats"] = {k: v * 2 for k, v in b["stats"].items() if isinstance(v, (int, float))}
    (tmp_path / "slow.json").write_text(json.dumps(data))
    assert cli.main(["--compare", str(FIXTURE), str(tmp_path / "slow.json")]) == 0
    times = capsys.readouterr().out.split("Speedup over eager within each run")[0]
    assert times.startswith(f"- A: {FIXTURE}\n- B: {tmp_path / 'slow.json'}\n")  # named once
    assert "| benchmark | A median ms | B median ms |" in times
    rows = [line.split("|")[2:-1] for line in times.splitlines() if line.startswith("| test_")]
    assert len(rows) == len(data["benchmarks"])  # each time beside the other, never divided
    assert all(len(row) == 2 for row in rows)
    assert all(float(b) == pytest.approx(2 * float(a), rel=0.01) for a, b in rows)


def test_compare_names_the_framework_versions_that_differ(tmp_path, capsys):
    data = json.loads(FIXTURE.read_text())
    versions = data["machine_info"]["graphbench"]["versions"]
    name = next(iter(versions))
    versions[name] = "9.9.9"
    (tmp_path / "next.json").write_text(json.dumps(data))
    assert cli.main(["--compare", str(FIXTURE), str(tmp_path / "next.json")]) == 0
    old = json.loads(FIXTURE.read_text())["machine_info"]["graphbench"]["versions"][name]
    assert f"Versions (A → B): {name} {old} → 9.9.9; the others alike" in capsys.readouterr().out
    assert cli.main(["--compare", str(FIXTURE), str(FIXTURE)]) == 0
    assert "Versions: the same in both runs" in capsys.readouterr().out


def test_compare_with_a_corrupt_file_is_one_line(tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{")
    assert cli.main(["--compare", str(FIXTURE), str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.json: not readable JSON" in err[0]


def test_retrace_table_from_the_fixture():
    from report.build.select import retrace_rules
    from report.views.retrace import retrace_tables
    data = json.loads(FIXTURE.read_text())
    run = next(b for b in data["benchmarks"] if b["extra_info"]["phase"] == "retrace"
               and b["extra_info"]["variant"] == "graph" and b["extra_info"]["step"] == "train"
               and b["extra_info"]["pattern"] == "varying")
    expected = f"{run['stats']['median']:.3g} s ({run['extra_info']['traces']} tr)"
    table = retrace_tables(records_of(load_file(FIXTURE)), retrace_rules(load_file(FIXTURE)))
    rows = table.split("**chainer, train steps, repeating sides**")[0].splitlines()
    vgg = next(line for line in rows if line.startswith("| vgg |"))
    assert vgg.split("|")[3].strip() == expected
    assert run["extra_info"]["traces"] == run["extra_info"]["distinct_shapes"]  # one schedule each


def test_non_finite_runs_never_show_a_time(tmp_path):
    data = json.loads(FIXTURE.read_text())
    bad = next(b for b in data["benchmarks"] if b["name"] == "test_steady[chainer-mnist_cnn-graph-train]")
    bad["extra_info"].update(loss=float("nan"), loss_finite=False)
    (tmp_path / "run.json").write_text(json.dumps(data))
    results = load_dir(tmp_path)
    row = next(line for line in summary_table(records_of(results)).splitlines()
               if line.startswith("| chainer | graph |"))
    assert row.split("|")[3].strip() == "non-finite ✗" and row.split("|")[4].strip() == "—"
    assert "non-finite loss (nan); its figure is left out" in cli.details_text(results, machines_of(results))


def test_compile_per_shape_from_step_times(tmp_path):
    from report.views.retrace import compile_per_shape
    data = json.loads(FIXTURE.read_text())
    run = next(b for b in data["benchmarks"] if b["extra_info"]["phase"] == "retrace"
               and b["extra_info"]["variant"] == "graph" and b["extra_info"]["step"] == "train"
               and b["extra_info"]["pattern"] == "repeating")
    run["extra_info"].update(traces=1, sides=[[40, 40], [48, 48], [40, 40]],
                             step_times=[5.0, 4.0, 0.01])
    (tmp_path / "run.json").write_text(json.dumps(data))
    assert "chainer/graph on vgg: new shape 4.000 s, seen shape 0.010 s" in \
        compile_per_shape(records_of(load_dir(tmp_path)))


def test_new_shape_step_against_a_seen_one(tmp_path):
    from report.views.retrace import retrace_step_reading
    data = json.loads(FIXTURE.read_text())
    run = next(b for b in data["benchmarks"] if b["extra_info"]["phase"] == "retrace"
               and b["extra_info"]["variant"] == "graph" and b["extra_info"]["step"] == "train"
               and b["extra_info"]["pattern"] == "repeating")
    run["extra_info"].update(sides=[[40, 40], [48, 48], [40, 40]], step_times=[5.0, 4.0, 0.01])
    (tmp_path / "run.json").write_text(json.dumps(data))
    assert "chainer: a step at a new size costs up to 400.0× one at a seen size (graph on vgg)" \
        in retrace_step_reading(records_of(load_dir(tmp_path)))


def test_compare_counts_the_paired_speedups_whose_intervals_overlap(tmp_path, capsys):
    from tests.test_report_machines import PAIRED
    data = json.loads(PAIRED.read_text())
    (tmp_path / "same.json").write_text(json.dumps(data))
    for b in data["benchmarks"]:
        i = b["extra_info"]
        if "ci_low" in i and i["variant"] != "eager":
            i["ci_low"], i["ci_high"] = i["ci_high"] * 1.5, i["ci_high"] * 2
    (tmp_path / "apart.json").write_text(json.dumps(data))
    paired = sum(1 for b in data["benchmarks"] if "ci_low" in b["extra_info"]
                 and b["extra_info"]["variant"] != "eager")
    assert cli.main(["--compare", str(PAIRED), str(tmp_path / "same.json")]) == 0
    assert f"overlap for {paired} of {paired} paired speedups" in capsys.readouterr().out
    assert cli.main(["--compare", str(PAIRED), str(tmp_path / "apart.json")]) == 0
    assert f"overlap for 0 of {paired} paired speedups" in capsys.readouterr().out
