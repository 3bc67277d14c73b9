"""Fixtures for every test module."""
import pytest

import run

# modules that import no framework: they run once, in the report env (`-m framework_free`); the
# framework envs deselect them (`-m "not framework_free"`), else each of four ran them again
FRAMEWORK_FREE = frozenset({
    "test_answer.py",
    "test_chart_figures.py",
    "test_headline.py",
    "test_host.py",
    "test_report_folders.py",
    "test_bench_jobs.py",
    "test_citation.py",
    "test_faults_input.py",
    "test_faults_publish.py",
    "test_faults_pytest.py",
    "test_faults_report.py",
    "test_faults_run.py",
    "test_paging_probe.py",
    "test_faults_stop.py",
    "test_framework_contract.py",
    "test_gpu_job.py",
    "test_gpu_lease.py",
    "test_gpu_plan.py",
    "test_gpu_report.py",
    "test_gpu_round_levels.py",
    "test_jax_python.py",
    "test_jobs.py",
    "test_machine_isa.py",
    "test_merge.py",
    "test_paired_report.py",
    "test_ragged_rounds.py",
    "test_report.py",
    "test_report_flags.py",
    "test_report_front.py",
    "test_report_jobs.py",
    "test_report_layers.py",
    "test_report_lengths.py",
    "test_report_machines.py",
    "test_report_meaning.py",
    "test_report_memory.py",
    "test_report_noise.py",
    "test_report_pipeline.py",
    "test_report_page.py",
    "test_report_pooled.py",
    "test_report_runs.py",
    "test_report_scale.py",
    "test_report_sections.py",
    "test_report_seeds.py",
    "test_report_summary.py",
    "test_report_target.py",
    "test_run_numbers.py",
    "test_run_python.py",
    "test_shared_rules.py",
    "test_signals.py",
    "test_stats.py",
    "test_workflow.py",
    "test_adaptive.py",
    "test_child_cli.py",
    "test_cpu.py",
    "test_first_run.py",
    "test_lengths.py",
    "test_profiles.py",
    "test_progress.py",
    "test_user_report.py",
})


# modules that drive a real browser: framework-free too, but run in the browser env only
BROWSER = frozenset({"test_page_browser.py"})


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.name in FRAMEWORK_FREE | BROWSER:
            item.add_marker(pytest.mark.framework_free)
        if item.path.name in BROWSER:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def plenty_of_disk(monkeypatch):
    """run.py checks this machine's free disk before tox installs; tests that drive run.main see
    plenty, so they pass on a full disk too (tests/test_faults_run.py checks the check)."""
    monkeypatch.setattr(run, "free_gb", lambda: 1e3)


@pytest.fixture(autouse=True)
def the_answers_python(monkeypatch):
    """Tests that drive run.main see Python 3.11, whatever runs them: on 3.12 the chainer env's
    commands carry a stub (run.CHAINER_ON_312), and on another run.py would run itself again
    (tests/test_run_python.py checks both)."""
    monkeypatch.setattr(run, "PYTHON", (3, 11))


@pytest.fixture
def calls(monkeypatch):
    """The commands run.py would run, recorded instead of run."""
    made = []
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", lambda *args: made.append(list(args)) or 0)
    return made


REAL_FETCH_PYTHON = run.fetch_python


@pytest.fixture(autouse=True)
def nothing_fetched(monkeypatch):
    """Tests that drive run.main never install uv nor fetch a Python (run.fetch_python: network,
    disk); where the PATH and pyenv have none, run.py goes on as offline (REAL_FETCH_PYTHON's own
    tests: tests/test_run_python.py)."""
    monkeypatch.setattr(run, "fetch_python", lambda minor: None)


REAL_SET_UP = run.set_up


@pytest.fixture(autouse=True)
def envs_set_up(monkeypatch):
    """run.py builds the envs as a step of its own before it runs them; tests that drive run.main
    with tox stubbed skip it (tests/test_faults_stop.py stops a real one: REAL_SET_UP)."""
    monkeypatch.setattr(run, "set_up", lambda envs: 0)
