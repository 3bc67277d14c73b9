"""Jobs beside a run: the load and the other graphbench jobs recorded with it and warned of, and a
job killed before it saved named by the next one."""
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from report.build.load import Result
from report.build.runs import run_records
from report.views.provenance import run_line
from suites import jobs

ROOT = Path(__file__).resolve().parents[1]
BENCH = "def test_one(benchmark):\n    benchmark(lambda: None)\n"


def _marker(folder, pid, **fields):
    boot, ticks = jobs.identity(pid)
    job = {"host": socket.gethostname(), "pid": pid, "boot": boot, "ticks": ticks,
           "started": time.time() - 60, "tox_env": "torch", "profile": "default", **fields}
    path = folder / f"{job['host']}-{pid}-{ticks}.job"
    path.write_text(json.dumps(job))
    return path


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")
def test_a_run_records_the_jobs_beside_it_and_the_next_names_a_killed_one(tmp_path):
    """Was: two jobs at once timed each other on two cores and nothing said so; a job killed hard
    left no trace."""
    (tmp_path / "test_bench.py").write_text(BENCH)
    folder = tmp_path / "results" / ".jobs"
    folder.mkdir(parents=True)
    gone = subprocess.Popen(["true"])
    gone.wait()
    killed = _marker(folder, gone.pid, seen=time.time() - 30, cases_run=47, cases=120)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _marker(folder, other.pid)
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "conftest",
             "test_bench.py", "--benchmark-save=x", "--benchmark-storage=results"],
            cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
            text=True)
    finally:
        other.kill()
        other.wait()
    assert run.returncode == 0, run.stdout + run.stderr
    status = json.loads(next((tmp_path / "results").rglob("0*_x.json")).read_text())[
        "graphbench_run"]
    assert [job["pid"] for job in status["beside"]] == [other.pid]
    assert len(status["load"]["start"]) == len(status["load"]["end"]) == 3
    warnings = [line for line in run.stdout.splitlines() if "another graphbench job" in line]
    assert len(warnings) == 1 and warnings[0].startswith("WARNING:") and str(other.pid) in warnings[0]
    found = [line for line in run.stdout.splitlines() if "killed before it saved" in line]
    assert len(found) == 1 and f"pid {gone.pid}" in found[0] and "47 of 120" in found[0]
    assert not killed.exists()
    mine = [json.loads(p.read_text()) for p in folder.glob("*.job")
            if json.loads(p.read_text())["pid"] not in (other.pid,)]
    assert len(mine) == 1 and mine[0]["ended"]


def test_the_report_marks_a_run_that_shared_the_machine():
    status = {"complete": True, "load": {"start": [0.4, 0.3, 0.2], "end": [3.9, 2.1, 1.0],
                                         "cpus": 2},
              "beside": [{"pid": 7, "tox_env": "torch", "profile": "default"}]}
    info = {"backend": "torch", "model": "resnet", "variant": "eager", "phase": "train"}
    line = lambda status: run_line(run_records([Result("f", "m", "0042_default", "2026-05-01T22:10",
                                                       "n", info, {}, {}, status=status)])[0])
    assert "another graphbench job ran beside it" in line(status)
    assert "load 0.4 to 3.9 on 2 CPUs" in line(status)
    assert "beside" not in line({"complete": True, "beside": []})


def test_run_py_warns_at_the_end_of_a_job_that_shared_the_machine(monkeypatch, tmp_path, capsys):
    import run
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "VERSIONS", tmp_path / "results" / "versions")
    monkeypatch.setattr(run, "free_gb", lambda: 1e3)
    monkeypatch.setattr(run, "tox", lambda: "tox")
    made = []

    def call(*args):
        made.append(args[2])
        if args[2] == "tf":
            path = tmp_path / "results" / "machine" / "0007_default.json"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps({"graphbench_run": {"complete": True, "beside": [
                {"pid": 4242, "tox_env": "torch", "profile": "default"}]}}))
        return 0
    monkeypatch.setattr(run, "call", call)
    assert run.main(["bench", "--envs", "tf"]) == 0 and made == ["tf", "report"]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "0007_default.json" in err[0] and "pid 4242" in err[0]


def test_jobs_that_differ_in_commit_or_day_only_share_a_line_of_the_readme():
    """The Zen 5's answer jobs: one line, each job's runs and commit named, the days they span."""
    from report.views.provenance import job_lines
    base = {"machine": "vm (AMD EPYC, family 26 model 2, AVX-512+VNNI+BF16, 2 cores)",
            "job": "answer", "date": "2026-11-27T06:00:00", "profile": "default", "threads": 2,
            "frameworks": {"chainer": "7.8.1"}, "python": "3.11.7", "shown": True, "dirty": False}
    runs = [{**base, "run": f"{n:04d}_default", "commit": commit, "frameworks": {fw: "1"}}
            for n, commit, fw in ((110, "f6c39c2b00", "tf"), (111, "f6c39c2b00", "chainer"),
                                  (114, "f6c39c2b00", "tf"), (115, "f6c39c2b00", "chainer"),
                                  (126, "885c78af00", "tf"), (127, "885c78af00", "chainer"),
                                  (151, "6b729ced00", "tf"), (152, "6b729ced00", "chainer"))]
    runs[-2:] = [{**run, "date": "2026-11-28T14:30:00"} for run in runs[-2:]]
    runs.append({**base, "run": "0130_default-seeds", "commit": "885c78af00", "job": "seeds"})
    lines = job_lines(runs).splitlines()
    assert lines[0].startswith("- `0110`–`0111`, `0114`–`0115`, `0126`–`0127`, `0151`–`0152` "
                               "(answer jobs, "
                               "2026-11-27 to 2026-11-28, commits `f6c39c2b`, `885c78af`, "
                               "`6b729ced`) on the Zen 5: chainer 1, tf 1;")
    assert lines[1].startswith("- `0130`–`0130` (seeds job, 2026-11-27, commit `885c78af`) on")


def test_seeds_and_answer_jobs_of_one_setting_share_a_line_of_the_readme():
    """The setting (machine, frameworks, profile, threads) is said once for both kinds of job;
    another profile gets its own line."""
    from report.views.provenance import job_lines
    base = {"machine": "vm (AMD EPYC, family 26 model 2, AVX-512+VNNI+BF16, 2 cores)",
            "date": "2026-11-27T06:00:00", "profile": "default", "threads": 2,
            "frameworks": {"tf": "2.21.0"}, "python": "3.11.7", "shown": True, "dirty": False}
    runs = [{**base, "run": "0118_default-seeds", "commit": "901cf3a500", "job": "seeds"},
            {**base, "run": "0155_default", "commit": "b46e576300", "job": "answer",
             "date": "2026-11-28T06:00:00"},
            {**base, "run": "0160_quick", "commit": "b46e576300", "job": "answer",
             "profile": "quick"}]
    lines = job_lines(runs).splitlines()
    assert lines[0] == ("- `0118`–`0118` (seeds job, 2026-11-27, commit `901cf3a5`); `0155`–`0155` "
                        "(answer job, 2026-11-28, commit `b46e5763`) on the Zen 5: tf 2.21.0; "
                        "profile `default`, 2 threads")
    assert lines[1].startswith("- `0160`–`0160` (answer job, 2026-11-27, commit `b46e5763`) on")


def test_two_jobs_of_one_commit_are_two_jobs_in_the_readme():
    """Two jobs in one clone share a commit: a backend run again starts the second job."""
    from report.views.provenance import job_lines
    base = {"machine": "vm (AMD EPYC, family 26 model 2, AVX-512+VNNI+BF16, 2 cores)",
            "job": "answer", "date": "2026-11-28T19:30:00", "profile": "default", "threads": 2,
            "python": "3.11.7", "shown": True, "dirty": False, "commit": "b46e576300"}
    runs = [{**base, "run": f"{n:04d}_default", "frameworks": {fw: "1"}}
            for n, fw in ((155, "tf"), (156, "chainer"), (159, "tf"), (160, "chainer"))]
    assert job_lines(runs).splitlines()[0].startswith(
        "- `0155`–`0156`, `0159`–`0160` (answer jobs, 2026-11-28, commit `b46e5763`) on the Zen 5")
