"""The host's speed beside each run (host.py): a Zen 3 VM ran one job's eager steps in half the
time of two others on a CPU that reads the same; run.py's readings say whether the host moved."""
import json

import pytest

import host
from report.build.load import load_dir
from tests.reporting import views_of
from tests.test_report_pooled import _job
from tests.test_report_runs import save


def test_the_stolen_share_is_read_from_proc_stat_between_two_readings(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 1 2 3\n")
    first = host.cpu_times(stat)
    assert first == (40, 1000)
    stat.write_text("cpu  200 0 100 1500 10 0 0 190 0 0\n")
    later = {"reference_ms": 20.0, "cpu_times": host.cpu_times(stat)}
    said = host.between({"reference_ms": 10.0, "cpu_times": first}, later)
    assert said["reference_ms"] == [10.0, 20.0] and said["stolen"] == pytest.approx(150 / 1000)
    stat.write_text("intr 5\n")
    assert host.cpu_times(stat) is None and host.cpu_times(tmp_path / "none") is None
    stat.write_text("")
    assert host.cpu_times(stat) is None
    assert host.between({"reference_ms": 1.0, "cpu_times": None}, later)["stolen"] is None


def test_the_reference_loop_times_a_fixed_loop():
    assert 0 < host.reference_ms() < 10_000


def _hosted(loop_ms, stolen=0.001, python="3.11.7"):
    """The fixture's run with run.py's host readings: the loop took `loop_ms` around it."""
    data = _job("c1")
    data["graphbench_host"] = {"reference_ms": [loop_ms, loop_ms], "stolen": stolen,
                               "python": python, "loop": host.LOOP}
    return data


def test_the_answer_says_how_far_the_host_moved_between_the_same_jobs(tmp_path):
    """Two jobs, the second's steps 2.5× as long and its reference loop 2× as long: the spread line
    says both, and the most CPU time stolen; jobs whose Pythons or loops differ say nothing of
    the loop."""
    from report.views.answer import answer_text
    folder = tmp_path / "results" / "m"
    save(folder, _hosted(14.0), "0001_default", "2026-01-01T00:00:00")
    save(folder, _hosted(28.0, stolen=0.031), "0002_default", "2026-01-02T00:00:00",
         scale=2.5)
    machines = views_of(load_dir(tmp_path / "results"))
    spread = machines[0][1]["job_spread"]
    assert spread["median"] == pytest.approx(2.5)
    assert spread["host"]["median"] == pytest.approx(2.0) and spread["host"]["stolen"] == 0.031
    said = answer_text(machines)
    assert "a fixed pure-Python loop, timed before and after each framework's suites, took 2.00×" \
        in said and "at most 3.1% of the CPU time" in said
    save(folder, _hosted(28.0, python="3.12.1"), "0002_default", "2026-01-02T00:00:00",
         scale=2.5)
    again = views_of(load_dir(tmp_path / "results"))[0][1]["job_spread"]
    assert again["median"] == pytest.approx(2.5) and again["host"] is None
    longer = _hosted(28.0)
    longer["graphbench_host"]["loop"] = 2 * host.LOOP  # another loop: its time does not compare
    save(folder, longer, "0002_default", "2026-01-02T00:00:00", scale=2.5)
    assert views_of(load_dir(tmp_path / "results"))[0][1]["job_spread"]["host"] is None


def test_a_run_whose_host_readings_are_not_times_is_left_out_with_its_reason(tmp_path, capsys):
    folder = tmp_path / "results" / "m"
    bad = _hosted(14.0)
    bad["graphbench_host"]["reference_ms"] = ["fast", 14.0]
    save(folder, bad, "0001_default", "2026-01-01T00:00:00")
    assert not load_dir(tmp_path / "results")
    said = capsys.readouterr().err
    assert "graphbench_host.reference_ms" in said and "two times in ms" in said
    assert json.loads((folder / "0001_default.json").read_text())["graphbench_host"]  # kept
