"""A main job ends by showing its user the answer for the runs it just made, and never writes a
non-default profile's report over the README."""
import re

from pathlib import Path

import pytest

import run

# one committed answer run (Chainer, the Zen 5): every suite of the job, the sweep's too
ANSWER_RUN = (Path(__file__).parent.parent / "results" / "Linux-CPython-3.11-64bit"
              / "0168_default.json")
# one committed seeds run (Chainer, the Zen 4): retracing, token lengths, seed 004, memory
SEEDS_RUN = ANSWER_RUN.parent / "0257_default-seeds.json"


@pytest.fixture
def job(monkeypatch, tmp_path):
    """run.py's main job with tox replaced: each framework env saves one run into a machine
    folder; returns the commands it made."""
    made, folder = [], tmp_path / "results" / "m"
    folder.mkdir(parents=True)
    (folder / "0001_default.json").write_text("{}")  # an earlier run: not this job's

    def call(*args):
        made.append(args)
        if "suites" in args:
            (folder / f"{len(made) + 1:04d}_{args[args.index('--profile') + 1]}.json").write_text("{}")
        return 0
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", call)
    return made


def test_a_quick_job_writes_a_report_of_its_own_and_shows_its_runs(job):
    assert run.main(["bench", "--envs", "chainer,tf", "--profile", "quick"]) == 0
    report = list(job[-1])
    assert report[:3] == ["tox", "-e", "report"] and "--readme" not in report
    assert report[report.index("--report") + 1] == "results/m/report-quick.md"
    assert report[report.index("--charts") + 1] == "results/m/charts-quick"
    shown = [report[i + 1] for i, arg in enumerate(report) if arg == "--answer-for"]
    assert shown == ["results/m/0002_quick.json", "results/m/0003_quick.json"]


def test_the_default_job_redraws_the_readme_and_shows_its_runs(job):
    assert run.main(["bench", "--envs", "chainer", "--profile", "default"]) == 0
    report = list(job[-1])
    assert report[report.index("--readme") + 1] == "README.md" and "--report" not in report
    assert report[report.index("--answer-for") + 1] == "results/m/0002_default.json"


def test_the_report_writes_a_profiles_own_file_and_prints_the_new_runs_answer(tmp_path, capsys):
    import json

    from report import __main__ as cli
    from tests.test_report_runs import QUICK, save
    save(tmp_path / "results" / "m", json.loads(QUICK.read_text()), "0001_quick",
         "2026-01-01T00:00:00")
    readme = tmp_path / "README.md"
    readme.write_text("hand-written\n")
    run_file = tmp_path / "results" / "m" / "0001_quick.json"
    own = tmp_path / "results" / "m" / "report-quick.md"
    assert cli.main(["--results", str(tmp_path / "results"), "--profile", "quick", "--report",
                     str(own), "--charts", str(own.parent / "charts-quick"),
                     "--answer-for", str(run_file)]) == 0
    out = capsys.readouterr().out
    assert "**On `" in out and "| backend | model |" in out
    # the job's own answer: other jobs' machines (a GPU measured elsewhere) are not in its scope
    assert "**Scope**: this job's runs, on 1 machine, a CPU." in out
    assert "no GPU has been measured" not in out
    assert out.rstrip().endswith(f"report: the full report: {own}")
    text = own.read_text()
    assert text.startswith("# graphbench: profile `quick`") and "## The answer" in text
    assert "`0001_quick`" in text and readme.read_text() == "hand-written\n"
    # its links resolve from its folder: its charts' beside it, the repository's (README.md,
    # findings/, docs/) through the path up to the repository, as views write them from its root
    links = [link for link in re.findall(r"\]\(([^)#\s]+)", text) if not link.startswith("http")]
    assert any(link.startswith("charts-quick/") for link in links)
    assert any(link.endswith("/README.md") for link in links), links
    assert [link for link in links if not (own.parent / link).exists()] == []
    assert cli.main(["--results", str(tmp_path / "results"), "--report", str(own),
                     "--answer-for", str(tmp_path / "nothing.json")]) == 2
    capsys.readouterr()
    # the answer alone: the last line says nothing was written, not a report named None
    assert cli.main(["--results", str(tmp_path / "results"), "--profile", "quick",
                     "--answer-for", str(run_file)]) == 0
    out = capsys.readouterr().out
    assert "**On `" in out and "None" not in out
    assert out.rstrip().endswith("report: nothing written (--report FILE writes the full report)")


def test_a_reports_scope_links_the_sweep_chart_it_drew(tmp_path, capsys):
    """A report of its own (a quick job's) links its own sweep chart, not the README's
    docs/charts/scale.png, another profile's, perhaps another machine's; so does the answer the
    job prints, from the folder it runs in."""
    import shutil

    from report import __main__ as cli
    folder = tmp_path / "results" / "m"
    folder.mkdir(parents=True)
    shutil.copy(ANSWER_RUN, folder / "0001_default.json")  # a sweep among its suites
    own = folder / "report-default.md"
    assert cli.main(["--results", str(tmp_path / "results"), "--report", str(own),
                     "--charts", str(folder / "charts-default"),
                     "--answer-for", str(folder / "0001_default.json")]) == 0
    printed = re.findall(r"\[chart\]\(([^)]+)\)", capsys.readouterr().out)
    links = re.findall(r"\[chart\]\(([^)]+)\)", own.read_text())
    assert links == ["charts-default/scale.png"] and (folder / links[0]).exists()
    assert [Path(link).resolve() for link in printed] == [(folder / links[0]).resolve()]


def test_a_seeds_job_alone_prints_what_it_measured_not_an_empty_table(tmp_path, capsys):
    """`run.py bench --job seeds` on a machine with no answer job: no train-step table to show,
    so the answer says so and gives each backend's line (sizes that vary, token lengths), where
    it printed an empty table, 'Workloads: .' and no backend line."""
    import shutil

    from report import __main__ as cli
    from report.views.answer import NO_TABLE
    folder = tmp_path / "results" / "m"
    folder.mkdir(parents=True)
    shutil.copy(SEEDS_RUN, folder / "0001_default-seeds.json")
    own = folder / "report-default.md"
    assert cli.main(["--results", str(tmp_path / "results"), "--report", str(own),
                     "--answer-for", str(folder / "0001_default-seeds.json")]) == 0
    out = capsys.readouterr().out
    assert NO_TABLE in out and "| backend | model |" not in out and "Workloads: ." not in out
    assert re.search(r"^- \*\*chainer\*\*: with input sizes changing every batch", out, re.M)
    assert "**Source article 004**" in out
