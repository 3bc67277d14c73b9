"""The report on bad input: one line, a non-zero exit, and no file changed unless all of it was made."""
import errno
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from report import __main__ as cli

FIXTURE = Path(__file__).parent / "fixtures" / "chainer_quick.json"
CHART_SECTION = "### Break-even\n\n![Break-even](c/break_even.png)\n\nA reading.\n"


def _readme(tmp_path, block="OLD-TABLES\n"):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{cli.START}\n{block}{cli.END}\noutro\n")
    return readme


def _run(tmp_path, name="run.json", **changes):
    """A copy of the fixture run in tmp_path/results, with graphbench fields changed."""
    data = json.loads(FIXTURE.read_text())
    data["machine_info"]["graphbench"].update(changes.pop("graphbench", {}))
    data.update(changes)
    folder = tmp_path / "results"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(json.dumps(data))
    return data


def _fails_and_keeps(tmp_path, capsys, args, message):
    readme = _readme(tmp_path)
    charts = tmp_path / "c"
    charts.mkdir()
    (charts / "speedup_train.png").write_bytes(b"old chart")
    assert cli.main([*args, "--readme", str(readme), "--charts", str(charts)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and "not changed" in err[-1]
    assert "OLD-TABLES" in readme.read_text()
    assert [p.name for p in charts.iterdir()] == ["speedup_train.png"]
    assert (charts / "speedup_train.png").read_bytes() == b"old chart"
    return err


def test_no_such_results_folder(tmp_path, capsys):
    err = _fails_and_keeps(tmp_path, capsys, ["--results", str(tmp_path / "nosuch")],
                           "no such folder")
    assert len(err) == 1


def test_machine_that_matches_nothing(tmp_path, capsys):
    _run(tmp_path)
    err = _fails_and_keeps(tmp_path, capsys, ["--results", str(tmp_path / "results"),
                                              "--machine", "nosuch"], "--machine 'nosuch'")
    assert len(err) == 1


def test_every_file_bad(tmp_path, capsys):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "a.json").write_text("{")
    err = _fails_and_keeps(tmp_path, capsys, ["--results", str(tmp_path / "results")],
                           "no usable results")
    assert "a.json: not readable JSON" in err[0]


def test_readme_without_charts_keeps_its_chart_sections(tmp_path, capsys):
    _run(tmp_path)
    readme = _readme(tmp_path, f"{CHART_SECTION}\nOLD-TABLES\n")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--charts c" in err[0]
    assert CHART_SECTION in readme.read_text()


def test_nan_in_stats_rejects_the_file(tmp_path, capsys):
    data = json.loads(FIXTURE.read_text())
    data["benchmarks"][0]["stats"]["median"] = float("nan")
    (tmp_path / "nan.json").write_text(json.dumps(data))
    shutil.copy(FIXTURE, tmp_path / "good.json")
    from report.build.load import load_dir
    results = load_dir(tmp_path)
    assert {Path(r.file).name for r in results} == {"good.json"}
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nan.json" in err[0] and "median" in err[0]


def test_nan_file_alone_writes_nothing(tmp_path, capsys):
    data = _run(tmp_path)
    for bench in data["benchmarks"]:
        bench["stats"]["q3"] = float("nan")
    (tmp_path / "results" / "run.json").write_text(json.dumps(data))
    _fails_and_keeps(tmp_path, capsys, ["--results", str(tmp_path / "results")],
                     "no usable results")


def test_a_failing_chart_writes_nothing(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    from report.views import charts

    def broken(records, results, path):
        raise RuntimeError("chart broke")
    _run(tmp_path)
    monkeypatch.setattr(charts, "retrace_chart", broken)
    readme = _readme(tmp_path)
    out = tmp_path / "c"
    with pytest.raises(RuntimeError):
        cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme),
                  "--charts", str(out)])
    assert not out.exists() and "OLD-TABLES" in readme.read_text()


def test_charts_without_matplotlib_is_one_line(tmp_path, capsys, monkeypatch):
    _run(tmp_path)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.delitem(sys.modules, "report.views.charts", raising=False)
    err = _fails_and_keeps(tmp_path, capsys, ["--results", str(tmp_path / "results")],
                           "tox -e report")
    assert len(err) == 1 and "matplotlib" in err[0]


def test_missing_readme_is_one_line(tmp_path, capsys):
    _run(tmp_path)
    assert cli.main(["--results", str(tmp_path / "results"),
                     "--readme", str(tmp_path / "nosuch.md")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nosuch.md" in err[0]


def _steady_median(section, backend="chainer", variant="eager"):
    row = next(line for line in section.splitlines() if line.startswith(f"| {backend} | {variant} |"))
    return row.split("|")[3].strip()


def test_profiles_never_meet(tmp_path, capsys):
    _run(tmp_path, "0001_default.json", graphbench={"profile": "default"},
         datetime="2026-01-01T00:00:00")
    quick = _run(tmp_path, "0002_quick.json", datetime="2026-02-01T00:00:00")
    for bench in quick["benchmarks"]:
        bench["stats"] = {k: v * 100 if isinstance(v, float) else v for k, v in bench["stats"].items()}
    (tmp_path / "results" / "0002_quick.json").write_text(json.dumps(quick))
    cli.main(["--results", str(tmp_path / "results")])
    out, err = capsys.readouterr()
    default = json.loads((tmp_path / "results" / "0001_default.json").read_text())
    eager = next(b for b in default["benchmarks"]
                 if b["name"] == "test_steady[chainer-mnist_cnn-eager-train]")["stats"]
    assert _steady_median(out).startswith(f"{eager['median'] * 1e3:.2f} ")
    assert "0002_quick" not in out
    assert any("profile quick" in line and "0002_quick" in line and "--profile quick" in line
               for line in err.splitlines())
    cli.main(["--results", str(tmp_path / "results"), "--profile", "quick"])
    out = capsys.readouterr().out
    assert "0001_default" not in out and "0002_quick" in out


def test_unknown_profile_is_one_line(tmp_path, capsys):
    _run(tmp_path)
    assert cli.main(["--results", str(tmp_path / "results"), "--profile", "paper"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--profile 'paper'" in err[0] and "quick" in err[0]


def test_an_interrupted_run_is_left_out_unless_asked(tmp_path, capsys):
    _run(tmp_path, "0001_quick.json", datetime="2026-01-01T00:00:00")
    _run(tmp_path, "0002_quick.json", datetime="2026-02-01T00:00:00",
         graphbench_run={"complete": False, "reason": "interrupted (Ctrl-C)"})
    cli.main(["--results", str(tmp_path / "results")])
    out, err = capsys.readouterr()
    assert "0002_quick" not in out and "0001_quick" in out
    assert any("0002_quick.json" in line and "did not finish" in line for line in err.splitlines())
    cli.main(["--results", str(tmp_path / "results"), "--incomplete"])
    out = capsys.readouterr().out
    assert "0002_quick" in out and "did not finish" in out


def test_charts_folder_that_is_a_file_is_one_line(tmp_path, capsys):
    _run(tmp_path)
    readme = _readme(tmp_path)
    (tmp_path / "c").write_text("a file")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme),
                     "--charts", str(tmp_path / "c")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a folder" in err[0] and "OLD-TABLES" in readme.read_text()


def test_a_time_that_is_not_a_number_rejects_the_file(tmp_path, capsys):
    data = _run(tmp_path)
    data["benchmarks"][0]["stats"]["median"] = "fast"
    (tmp_path / "results" / "run.json").write_text(json.dumps(data))
    err = _fails_and_keeps(tmp_path, capsys, ["--results", str(tmp_path / "results")],
                           "no usable results")
    assert "run.json" in err[0] and "median" in err[0]


def test_compare_says_a_run_did_not_finish(tmp_path, capsys):
    _run(tmp_path, "cut.json", graphbench_run={"complete": False, "reason": "interrupted (Ctrl-C)"})
    assert cli.main(["--compare", str(FIXTURE), str(tmp_path / "results" / "cut.json")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cut.json: the run did not finish (interrupted (Ctrl-C))" in err[0]


def test_readme_without_markers_is_a_failure(tmp_path, capsys):
    _run(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme)]) != 0
    assert readme.read_text() == "no markers\n"
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_charts_without_readme_are_drawn_and_printed(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    _run(tmp_path)
    assert cli.main(["--results", str(tmp_path / "results"), "--charts", str(tmp_path / "c")]) == 0
    assert (tmp_path / "c" / "speedup_train.png").exists()
    assert "![Break-even](" in capsys.readouterr().out


def test_compare_across_profiles_says_so(tmp_path, capsys):
    _run(tmp_path, "default.json", graphbench={"profile": "default"})
    assert cli.main(["--compare", str(FIXTURE), str(tmp_path / "results" / "default.json")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different profiles" in err[0]


def _files(folder):
    """{path: bytes} of every file under `folder`: what a refused report must leave as it was."""
    return {p: p.read_bytes() for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def _refused(tmp_path, capsys, args, *words):
    """The report refuses `args` with exit 2 and one line holding `words`, and writes nothing."""
    before = _files(tmp_path)
    assert cli.main(["--results", str(tmp_path / "results"), *args]) == 2
    err = [line for line in capsys.readouterr().err.strip().splitlines()
           if "no results for backend" not in line]  # a notice before the failure
    assert len(err) == 1 and all(word in err[0] for word in words), err
    assert _files(tmp_path) == before
    return err[0]


@pytest.mark.parametrize("option, target, why", [
    ("--details", "README.md", "also the --readme output"),
    ("--summary", "README.md", "also the --readme output"),
    ("--summary", "results/run.json", "a saved run"),
    ("--details", "results/run.json", "a saved run"),
    ("--details", "docs", "a folder")])
def test_an_output_over_the_readme_a_run_or_a_folder_is_refused(tmp_path, capsys, option, target,
                                                                 why):
    """Was: the README replaced by RESULTS.md or summary.json, a run overwritten with exit 0."""
    _run(tmp_path)
    readme = _readme(tmp_path)
    (tmp_path / "docs").mkdir()
    _refused(tmp_path, capsys, ["--readme", str(readme), option, str(tmp_path / target)],
             option, str(tmp_path / target), why)


def test_an_output_over_a_readme_not_named_as_one_is_refused(tmp_path, capsys):
    _run(tmp_path)
    readme = _readme(tmp_path)
    _refused(tmp_path, capsys, ["--summary", str(readme)], f"--summary {readme}", "a README")


def test_two_outputs_on_one_path_are_refused(tmp_path, capsys):
    _run(tmp_path)
    same = str(tmp_path / "out.md")
    _refused(tmp_path, capsys, ["--details", same, "--summary", same],
             f"--summary {same}", "also the --details output")


@pytest.mark.parametrize("block, marker", [
    (f"{cli.SUMMARY_START}\nold summary\n", cli.SUMMARY_END),
    (f"old summary\n{cli.SUMMARY_END}\n", cli.SUMMARY_START),
    (f"{cli.SUMMARY_END}\nold summary\n{cli.SUMMARY_START}\n", cli.SUMMARY_END),
    (f"{cli.SUMMARY_START}\n{cli.SUMMARY_START}\n{cli.SUMMARY_END}\n", cli.SUMMARY_START)])
def test_a_missing_or_misplaced_summary_marker_is_refused(tmp_path, capsys, block, marker):
    """Was: a stale summary kept with exit 0 (no summary:end), IndexError (swapped markers)."""
    _run(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{block}{cli.START}\nOLD-TABLES\n{cli.END}\n")
    _refused(tmp_path, capsys, ["--readme", str(readme)], marker, str(readme))


@pytest.mark.parametrize("text, marker", [
    (f"{cli.END}\nOLD\n{cli.START}\n", cli.END),
    (f"{cli.START}\nOLD\n", cli.END),
    (f"{cli.START}\n{cli.SUMMARY_START}\n{cli.END}\n{cli.SUMMARY_END}\n", "overlap")])
def test_a_missing_or_misplaced_results_marker_is_refused(tmp_path, capsys, text, marker):
    _run(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(text)
    _refused(tmp_path, capsys, ["--readme", str(readme)], marker, str(readme))


def _full_disk_on(write, monkeypatch, fails):
    """From call number `fails` on, writes stop halfway with ENOSPC, as on a full disk."""
    real, calls = write._write, []

    def full(path, data):
        calls.append(path)
        if len(calls) < fails:
            return real(path, data)
        Path(path).write_bytes(data[:len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(write, "_write", full)
    return calls


def _report_fails_cleanly(tmp_path, capsys, *words):
    """A report with README and charts that fails: exit 2, one line, every file as it was."""
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    _run(tmp_path)
    readme = _readme(tmp_path)
    charts = tmp_path / "c"
    charts.mkdir(exist_ok=True)
    (charts / "speedup_train.png").write_bytes(b"old chart")
    return _refused(tmp_path, capsys, ["--readme", str(readme), "--charts", str(charts)], *words)


@pytest.mark.parametrize("fails", [1, 3, 11])  # the README, the summary, the last chart
def test_a_full_disk_moves_nothing_and_leaves_nothing_staged(tmp_path, capsys, monkeypatch, fails):
    """Was: a traceback, truncated PNGs and .new files left behind."""
    from report.publish import write
    calls = _full_disk_on(write, monkeypatch, fails)
    _report_fails_cleanly(tmp_path, capsys, "No space left on device", "not changed")
    assert len(calls) == fails


def test_a_read_only_charts_folder_moves_nothing(tmp_path, capsys, monkeypatch):
    from report.publish import write
    real = write._write

    def read_only(path, data):  # root writes into a chmod 555 folder: say what it would say
        if Path(path).parent.name == "c":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real(path, data)
    monkeypatch.setattr(write, "_write", read_only)
    _report_fails_cleanly(tmp_path, capsys, "Permission denied", "not changed")


def test_a_folder_where_a_chart_goes_moves_nothing(tmp_path, capsys):
    (tmp_path / "c" / "retrace.png").mkdir(parents=True)
    _report_fails_cleanly(tmp_path, capsys, "retrace.png", "a folder")


def test_a_full_disk_while_drawing_is_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    from matplotlib.figure import Figure

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "chart.png")
    monkeypatch.setattr(Figure, "savefig", full)
    _report_fails_cleanly(tmp_path, capsys, "chart.png: No space left on device")


PAIRED = Path(__file__).parent / "fixtures" / "chainer_paired_quick.json"
INF, NAN = float("inf"), float("nan")
BAD = {  # file name -> (what to do to a newer copy of the paired run, what its line says)
    "median_nan": (lambda b: b[2]["stats"].update(median=NAN), "stats.median = nan"),
    "max_inf": (lambda b: b[2]["stats"].update(max=INF), "stats.max = inf"),
    "median_zero": (lambda b: b[2]["stats"].update(median=0), "a median of 0"),
    "median_negative": (lambda b: b[0]["stats"].update(median=-1.0), "median"),
    "median_null": (lambda b: b[2]["stats"].update(median=None), "median"),
    "mean_text": (lambda b: b[2]["stats"].update(mean="fast"), "mean"),
    "stats_null": (lambda b: b[2].update(stats=None), "no stats"),
    "speedup_inf": (lambda b: b[2]["extra_info"].update(speedup=INF), "extra_info.speedup = inf"),
    "ci_low_nan": (lambda b: b[2]["extra_info"].update(ci_low=NAN), "extra_info.ci_low = nan"),
    "ci_low_zero": (lambda b: b[2]["extra_info"].update(ci_low=0.0), "ci_low"),
    "speedup_text": (lambda b: b[2]["extra_info"].update(speedup="2x"), "speedup"),
    "rounds_nan": (lambda b: b[2]["extra_info"]["paired_rounds_s"][0].__setitem__(0, NAN),
                   "paired_rounds_s = nan"),
    "backend_null": (lambda b: b[2]["extra_info"].update(backend=None), "backend"),
    "phase_missing": (lambda b: b[2]["extra_info"].pop("phase"), "phase"),
    "info_null": (lambda b: b[2].update(extra_info=None), "no extra_info"),
    "bench_text": (lambda b: b.__setitem__(2, "a benchmark"), "without a name"),
}


def test_malformed_files_are_left_out_one_line_each_and_never_print_nan(tmp_path, capsys):
    """Each bad file (newer than the good run, so it would be shown) gets its line; the report is
    byte for byte the one without them; no nan or inf anywhere."""
    good = json.loads(PAIRED.read_text())
    outputs = []
    for bad in ({}, BAD):
        folder = tmp_path / ("with_bad" if bad else "good")
        (folder / "results").mkdir(parents=True)
        (folder / "results" / "0001_quick.json").write_text(json.dumps(good))
        for name, (spoil, _) in bad.items():
            data = json.loads(PAIRED.read_text())
            data["datetime"] = "2030-01-01T00:00:00"
            spoil(data["benchmarks"])
            (folder / "results" / f"{name}.json").write_text(json.dumps(data))
        readme = _readme(folder, "")
        readme.write_text(f"{cli.SUMMARY_START}\n{cli.SUMMARY_END}\n{readme.read_text()}")
        assert cli.main(["--results", str(folder / "results"), "--readme", str(readme)]) == 0
        err = capsys.readouterr().err.splitlines()
        outputs.append([(folder / name).read_text() for name in
                        ("README.md", "RESULTS.md", "results/summary.json")])
    for name, (_, why) in BAD.items():
        lines = [line for line in err if f"{name}.json:" in line]
        assert len(lines) == 1 and why in lines[0] and "left out" in lines[0], (name, lines)
    assert outputs[0] == outputs[1]
    for text in outputs[1]:
        assert not re.search(r"\bnan\b|\binf\b|nan×|inf×", text, re.IGNORECASE)


def test_run_of_another_profile_names_it(tmp_path, capsys):
    """Was: nothing shown, exit 0."""
    _run(tmp_path, "0001_default.json", graphbench={"profile": "default"})
    _run(tmp_path, "0002_quick.json")
    line = _refused(tmp_path, capsys, ["--run", "0002"], "--run '0002'", "profile 'quick'",
                    "--profile quick shows it")
    assert "not changed" not in line


def test_compare_of_two_backends_says_nothing_is_in_common(capsys):
    """Was: an empty table, a 20 KB line of names, exit 0."""
    tf = FIXTURE.with_name("tf_flags_quick.json")
    assert cli.main(["--compare", str(FIXTURE), str(tf)]) == 2
    out, err = capsys.readouterr()
    err = err.strip().splitlines()
    assert not out and len(err) == 1 and "no benchmark in common" in err[0]
    assert "backends: chainer; tf" in err[0] and len(err[0]) < 400


def test_compare_across_machines_says_so(tmp_path, capsys):
    data = json.loads(FIXTURE.read_text())
    data["machine_info"]["node"] = "other-host"
    (tmp_path / "other.json").write_text(json.dumps(data))
    assert cli.main(["--compare", str(FIXTURE), str(tmp_path / "other.json")]) == 0
    out, err = capsys.readouterr()
    err = err.strip().splitlines()
    assert len(err) == 1 and "different machines" in err[0] and "other-host" in err[0]
    assert "| benchmark |" in out


@pytest.mark.parametrize("change, said", [
    (lambda run: run["machine_info"]["graphbench"].update(versions={"chainer": "7.8.1"}),
     "its benchmarks are tf's but its versions name no tensorflow-cpu/tensorflow"),
    (lambda run: run["machine_info"]["graphbench"].update(job="nightly"),
     "machine_info.graphbench.job 'nightly': not one of answer, seeds"),
    (lambda run: run.update(version="99.0"), "saved by pytest-benchmark '99.0', which this report"),
    (lambda run: run.update(graphbench_schema=2), "graphbench_schema: a field this report does "
                                                   "not know"),
    (lambda run: run["benchmarks"][0]["stats"].update(median=run["benchmarks"][0]["stats"]["q3"]
                                                      * 2),
     "outside its quartiles")])
def test_a_run_that_contradicts_itself_is_left_out_naming_the_field(tmp_path, change, said):
    """Issue 52 item 7: a run whose records say one backend and versions another printed 'jax
    7.8.1' rows; an unknown job passed silently; a median outside its quartiles stopped the
    charts with matplotlib's 'xerr' message."""
    from report.build.load import load_file
    run = json.loads((Path(__file__).resolve().parents[1] / "results" / "Linux-CPython-3.11-64bit"
                      / "0082_default.json").read_text())
    change(run)
    path = tmp_path / "0090_default.json"
    path.write_text(json.dumps(run))
    with pytest.raises(ValueError) as error:
        load_file(path)
    assert said in str(error.value) and str(path) in str(error.value)


def test_runs_under_results_studies_findings_versions_and_waits_stay_out(tmp_path):
    """Only suite runs of the pins belong to the report; a study's runs (results/studies/) ground a
    constant and are never read as the newest run of their section."""
    for folder in ("", "studies/lengths-noise/m", "findings", "versions/torch-2.13.0", "waits/cuda"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURE, tmp_path / folder / "run.json")
    from report.build.load import load_dir
    assert {Path(r.file).parent for r in load_dir(tmp_path)} == {tmp_path}
