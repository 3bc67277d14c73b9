"""The README answers for a machine with every backend measured: a job of fewer backends on
another machine (`run.py bench --envs jax`) goes to RESULTS.md and never shrinks the answer, nor
does one newer job elsewhere take an answer that pools more jobs."""
import json

import pytest

from report.build.load import load_dir
from report.build.select import front
from tests.test_report_machines import on_machine
from tests.test_report_runs import QUICK, save


def _as_tf(bench):
    bench = json.loads(json.dumps(bench))
    bench["extra_info"]["backend"] = "tf"
    return bench


def _two_backends(base, machine):
    """The quick run on `machine` with a tf copy of each benchmark: chainer and tf."""
    both = on_machine(base, machine, 1)
    both["benchmarks"] += [_as_tf(b) for b in both["benchmarks"]]
    both["machine_info"]["graphbench"].setdefault("versions", {})["tensorflow-cpu"] = "2.21.0"
    return both


def _of_job(base, machine, job):
    """_two_backends's run on `machine`, saved by `job` (answer or seeds)."""
    run = _two_backends(base, machine)
    run["machine_info"]["graphbench"]["job"] = job
    return run


def test_a_job_of_fewer_backends_elsewhere_does_not_take_the_answer(tmp_path):
    base = json.loads(QUICK.read_text())
    save(tmp_path / "results" / "ci-a", _two_backends(base, "ci-a"), "0001_default",
         "2026-01-01T00:00:00")
    save(tmp_path / "results" / "ci-b", on_machine(base, "ci-b", 1), "0002_default",
         "2026-01-02T00:00:00")
    results = load_dir(tmp_path / "results")
    newer = str(tmp_path / "results" / "ci-b" / "0002_default.json")
    assert front(results).startswith("ci-a (")
    assert front(results, [newer]).startswith("ci-a (")
    one = [r for r in results if r.info["backend"] == "chainer"]
    assert front(one, [newer]).startswith("ci-b (")  # as many backends: the job's own machine


def test_a_newer_job_of_one_backend_on_a_full_machine_does_not_take_the_answer(tmp_path):
    base = json.loads(QUICK.read_text())
    for machine, day, number in (("ci-a", 2, "0002"), ("ci-b", 1, "0001")):
        save(tmp_path / "results" / machine, _two_backends(base, machine), f"{number}_default",
             f"2026-01-0{day}T00:00:00")
    # ci-b then runs one backend again (`run.py bench --envs chainer -- -k vgg`)
    save(tmp_path / "results" / "ci-b", on_machine(base, "ci-b", 1), "0003_default",
         "2026-01-03T00:00:00")
    results = load_dir(tmp_path / "results")
    newer = str(tmp_path / "results" / "ci-b" / "0003_default.json")
    assert front(results).startswith("ci-a (")
    assert front(results, [newer]).startswith("ci-a (")


def test_the_machine_whose_answer_pools_more_jobs_keeps_the_answer_over_a_newer_single_job(
        tmp_path):
    base = json.loads(QUICK.read_text())
    for number, day in (("0001", 1), ("0002", 2)):  # two jobs of one code on ci-a
        save(tmp_path / "results" / "ci-a", _two_backends(base, "ci-a"), f"{number}_default",
             f"2026-01-0{day}T00:00:00")
    save(tmp_path / "results" / "ci-b", _two_backends(base, "ci-b"), "0003_default",
         "2026-01-03T00:00:00")  # then one job on a new machine
    results = load_dir(tmp_path / "results")
    newer = str(tmp_path / "results" / "ci-b" / "0003_default.json")
    assert front(results).startswith("ci-a (")
    assert front(results, [newer]).startswith("ci-b (")  # the job just run answers for itself
    save(tmp_path / "results" / "ci-b", _two_backends(base, "ci-b"), "0004_default",
         "2026-01-04T00:00:00")  # as many jobs on both: the newer machine
    assert front(load_dir(tmp_path / "results")).startswith("ci-b (")


def test_as_many_answer_jobs_the_machine_with_more_seeds_jobs_keeps_the_answer(tmp_path):
    """The answer's lines on shapes that vary, memory and retracing pool the seeds jobs: of two
    machines with as many answer jobs, the one with more seeds jobs answers, not the newer."""
    base = json.loads(QUICK.read_text())
    save(tmp_path / "results" / "ci-a", _of_job(base, "ci-a", "seeds"), "0001_default-seeds",
         "2026-01-01T00:00:00")
    for machine, number, day in (("ci-a", "0002", 2), ("ci-a", "0003", 3), ("ci-b", "0004", 4),
                                 ("ci-b", "0005", 5)):
        save(tmp_path / "results" / machine, _two_backends(base, machine), f"{number}_default",
             f"2026-01-0{day}T00:00:00")
    assert front(load_dir(tmp_path / "results")).startswith("ci-a (")
    save(tmp_path / "results" / "ci-b", _of_job(base, "ci-b", "seeds"), "0006_default-seeds",
         "2026-01-01T12:00:00")
    assert front(load_dir(tmp_path / "results")).startswith("ci-b (")  # as many: the newer


def test_a_seeds_job_run_last_leaves_the_answer_jobs_counted(tmp_path):
    """The answer jobs a machine pools are counted from its newest answer job, not from a seeds job
    run after it: with as many of each, the newer machine answers."""
    base = json.loads(QUICK.read_text())
    for machine, number, day, job in (("ci-a", "0001", 1, "seeds"), ("ci-a", "0002", 2, "answer"),
                                      ("ci-a", "0003", 3, "answer"), ("ci-b", "0004", 4, "answer"),
                                      ("ci-b", "0005", 5, "answer"), ("ci-b", "0006", 6, "seeds")):
        save(tmp_path / "results" / machine, _of_job(base, machine, job),
             f"{number}_default" + "-seeds" * (job == "seeds"), f"2026-01-0{day}T00:00:00")
    assert front(load_dir(tmp_path / "results")).startswith("ci-b (")


def test_as_many_jobs_the_machine_whose_jobs_agree_keeps_the_answer_over_a_newer_one(tmp_path):
    """A Zen 3 VM ran its fourth job's steps at half the speed of others on a CPU that reads the
    same (2.18× apart, the Zen 5's 1.13×): of two machines that pool as many jobs, the one whose
    jobs' eager steps agree answers, not the newer."""
    base = json.loads(QUICK.read_text())
    for machine, number, day, scale in (("ci-a", "0001", 1, 1.0), ("ci-a", "0002", 2, 1.1),
                                        ("ci-b", "0003", 3, 1.0), ("ci-b", "0004", 4, 2.5)):
        save(tmp_path / "results" / machine, _two_backends(base, machine), f"{number}_default",
             f"2026-01-0{day}T00:00:00", scale=scale)
    results = load_dir(tmp_path / "results")
    assert front(results).startswith("ci-a (")
    newer = str(tmp_path / "results" / "ci-b" / "0004_default.json")
    assert front(results, [newer]).startswith("ci-b (")  # the job just run answers for itself


def test_past_four_jobs_more_jobs_do_not_outrank_jobs_that_agree(tmp_path):
    """A fifth Zen 4 job, on a host at another speed (its jobs' eager steps 1.35× apart, the
    Zen 5's four 1.13×), would have taken the answer by its count alone: past ENOUGH_JOBS the
    machine whose jobs agree answers; below it, more jobs still do."""
    from report.build.select import ENOUGH_JOBS
    base = json.loads(QUICK.read_text())
    jobs = [("ci-a", 1.0 + 0.02 * k) for k in range(ENOUGH_JOBS)] + [
        ("ci-b", 1.0 + 0.02 * k) for k in range(ENOUGH_JOBS)] + [("ci-b", 2.5)]
    for number, (machine, scale) in enumerate(jobs, 1):
        save(tmp_path / "results" / machine, _two_backends(base, machine), f"{number:04d}_default",
             f"2026-01-{number:02d}T00:00:00", scale=scale)
    assert front(load_dir(tmp_path / "results")).startswith("ci-a (")
    (tmp_path / "results" / "ci-a" / "0001_default.json").unlink()  # three against five
    assert front(load_dir(tmp_path / "results")).startswith("ci-b (")


def test_a_seeds_job_on_a_machine_with_no_answer_job_does_not_take_the_answer(tmp_path):
    """`run.py bench --job seeds` first on a new machine: its runs cover every backend but fill no
    answer table, so the README keeps the machine with answer-job runs (it drew an empty table,
    'Workloads: .', and dropped every framework line)."""
    base = json.loads(QUICK.read_text())
    save(tmp_path / "results" / "ci-a", _of_job(base, "ci-a", "answer"), "0001_default",
         "2026-01-01T00:00:00")
    save(tmp_path / "results" / "ci-b", _of_job(base, "ci-b", "seeds"), "0002_default-seeds",
         "2026-01-02T00:00:00")
    results = load_dir(tmp_path / "results")
    newer = str(tmp_path / "results" / "ci-b" / "0002_default-seeds.json")
    assert front(results, [newer]).startswith("ci-a (")
    seeds_only = [r for r in results if r.machine.startswith("ci-b (")]
    assert front(seeds_only, [newer]).startswith("ci-b (")  # no answer run anywhere: as before


def test_the_spread_that_ranks_machines_is_the_spread_the_answer_prints(tmp_path):
    """`front` ranks machines by select.step_spread, read from the runs before any record exists;
    the answer prints runs.job_spread, read from the records: one figure from two sources, so
    they must agree, here with an older job of another timing code beside the pooled two."""
    from report.build.runs import job_spread
    from report.build.select import newest_by_backend, step_spread
    from tests.reporting import machines_of
    base = json.loads(QUICK.read_text())
    older = _two_backends(base, "ci-a")
    older["machine_info"]["graphbench"]["code"] = "older"  # never pooled with the two below
    save(tmp_path / "results" / "ci-a", older, "0001_default", "2026-01-01T00:00:00", scale=3.0)
    for number, scale in ((2, 1.0), (3, 1.25)):
        save(tmp_path / "results" / "ci-a", _two_backends(base, "ci-a"), f"000{number}_default",
             f"2026-01-0{number}T00:00:00", scale=scale)
    results = load_dir(tmp_path / "results")
    (machine, _, records), = machines_of(results)
    ranked = step_spread(results, machine, newest_by_backend(results))
    printed = job_spread(records)
    assert printed["jobs"] == 2 and printed["median"] == pytest.approx(1.25)
    assert ranked == pytest.approx(printed["median"])
