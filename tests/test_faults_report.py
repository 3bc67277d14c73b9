"""The report on bad input: one line, a non-zero exit, and no file changed unless all of it was made."""
import json
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
    from report.load import load_dir
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
    from report import charts

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
    monkeypatch.delitem(sys.modules, "report.charts", raising=False)
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
