"""Damaged and malformed run files: a damaged one stops the report (nothing published), a malformed
one is left out with one line naming the file and field; neither crashes nor leaks a figure."""
import json
from pathlib import Path

import pytest

from report import __main__ as cli

FIXTURES = Path(__file__).parent / "fixtures"
PAIRED = FIXTURES / "chainer_paired_quick.json"


def _readme(folder):
    readme = folder / "README.md"
    readme.write_text(f"intro\n{cli.SUMMARY_START}\n{cli.SUMMARY_END}\n{cli.START}\nOLD\n"
                      f"{cli.END}\n")
    return readme


def _published(folder):
    return {name: (folder / name).read_bytes() if (folder / name).exists() else None
            for name in ("README.md", "RESULTS.md", "results/summary.json")}


def _two_backends(folder):
    """A chainer run, then a newer tf run: the only one of its backend."""
    (folder / "results").mkdir(parents=True)
    chainer = (FIXTURES / "chainer_quick.json").read_text()
    (folder / "results" / "0001_quick.json").write_text(chainer)
    tf = json.loads((FIXTURES / "tf_flags_quick.json").read_text())
    tf["datetime"] = "2030-01-01T00:00:00"
    newest = folder / "results" / "0002_quick.json"
    newest.write_text(json.dumps(tf))
    return newest


def test_a_truncated_run_file_publishes_nothing(tmp_path, capsys):
    """Was: one line, exit 0, and README, RESULTS.md and summary.json without tf's figures."""
    newest = _two_backends(tmp_path)
    readme = _readme(tmp_path)
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme)]) == 0
    capsys.readouterr()
    before = _published(tmp_path)
    newest.write_bytes(newest.read_bytes()[:2000])  # what a disk that filled up leaves
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme)]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert str(newest) in last and "--skip-damaged" in last and "not changed" in last
    assert _published(tmp_path) == before


def test_skip_damaged_publishes_without_it_and_says_so(tmp_path, capsys):
    newest = _two_backends(tmp_path)
    newest.write_bytes(newest.read_bytes()[:2000])
    readme = _readme(tmp_path)
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme),
                     "--skip-damaged"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert any(str(newest) in line and "not readable JSON" in line for line in err)
    assert "| chainer |" in readme.read_text()


SPOILED = {  # file name -> (what to do to a newer copy of the paired run, what its line says)
    "complete_text": (lambda d: d["graphbench_run"].update(complete="false"),
                      "graphbench_run.complete"),
    "cases_text": (lambda d: d["graphbench_run"].update(cases="126"), "graphbench_run.cases"),
    "versions_list": (lambda d: d["machine_info"]["graphbench"].update(versions=["chainer 7.8.1"]),
                      "machine_info.graphbench.versions"),
    "version_number": (lambda d: d["machine_info"]["graphbench"]["versions"].update(chainer=7.8),
                       "machine_info.graphbench.versions"),
    "cpu_list": (lambda d: d["machine_info"].update(cpu=["avx2"]), "machine_info.cpu"),
    "flags_text": (lambda d: d["machine_info"]["cpu"].update(flags="avx2 fma"),
                   "machine_info.cpu.flags"),
    "phase_bogus": (lambda d: d["benchmarks"][2]["extra_info"].update(phase="warmup"),
                    "extra_info.phase 'warmup'"),
    "variant_bogus": (lambda d: d["benchmarks"][2]["extra_info"].update(variant="zzz"),
                      "extra_info.variant 'zzz'"),
    "backend_bogus": (lambda d: d["benchmarks"][2]["extra_info"].update(backend="mxnet"),
                      "extra_info.backend 'mxnet'"),
    "precision_bogus": (lambda d: d["benchmarks"][2]["extra_info"].update(precision="float8"),
                        "extra_info.precision 'float8'"),
    "deterministic_text": (lambda d: d["benchmarks"][2]["extra_info"].update(deterministic="no"),
                           "extra_info.deterministic"),
}


def test_malformed_files_are_left_out_naming_the_field(tmp_path, capsys):
    """Was: TypeError (complete "false"), AttributeError (versions a list), a phase dropped without
    a word, and "use chainer `zzz`" as advice. Now each file gets one line naming the field, and
    the report is byte for byte the one without them."""
    outputs = []
    for spoiled in ({}, SPOILED):
        folder = tmp_path / ("spoiled" if spoiled else "good")
        (folder / "results").mkdir(parents=True)
        (folder / "results" / "0001_quick.json").write_text(PAIRED.read_text())
        for name, (spoil, _) in spoiled.items():
            data = json.loads(PAIRED.read_text())
            data["datetime"] = "2030-01-01T00:00:00"
            spoil(data)
            (folder / "results" / f"{name}.json").write_text(json.dumps(data))
        readme = _readme(folder)
        assert cli.main(["--results", str(folder / "results"), "--readme", str(readme)]) == 0
        err = capsys.readouterr().err.splitlines()
        outputs.append(_published(folder))
    for name, (_, why) in SPOILED.items():
        lines = [line for line in err if f"{name}.json:" in line]
        assert len(lines) == 1 and why in lines[0] and "left out" in lines[0], (name, lines)
    assert outputs[0] == outputs[1]
    assert "zzz" not in outputs[1]["README.md"].decode()


@pytest.mark.parametrize("name", ["versions_list", "variant_bogus", "complete_text"])
def test_compare_of_a_malformed_file_is_one_line(tmp_path, capsys, name):
    """Was: AttributeError from --compare (versions a list)."""
    spoil, why = SPOILED[name]
    data = json.loads(PAIRED.read_text())
    spoil(data)
    (tmp_path / "bad.json").write_text(json.dumps(data))
    assert cli.main(["--compare", str(PAIRED), str(tmp_path / "bad.json")]) == 2
    out, err = capsys.readouterr()
    err = err.strip().splitlines()
    assert not out and len(err) == 1 and "bad.json" in err[0] and why in err[0]


def test_the_valid_choices_are_named(tmp_path, capsys):
    data = json.loads(PAIRED.read_text())
    data["benchmarks"][2]["extra_info"]["variant"] = "zzz"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    cli.main(["--compare", str(PAIRED), str(tmp_path / "bad.json")])
    line = capsys.readouterr().err.strip()
    assert "eager, graph, graph_dynamic" in line and len(line) < 600
