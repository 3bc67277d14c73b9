"""Your model, eager against every graph variant of its framework: one test per variant, after one
measurement per framework (saved, with its report, before any test's verdict)."""
import os

import pytest

from backends import BackendUnavailable, load
from backends.user import UserFileError
from report.build import user as figures
from user.measure import check, keeps_compiled, measure, plan_for
from user.save import save

_measured = {}  # framework -> its measurement, or the one line that stopped it


def _machine_info(config):
    """The machine_info a suite run records (pytest-benchmark's, through the suites' hook)."""
    info = config.hook.pytest_benchmark_generate_machine_info(config=config)
    config.hook.pytest_benchmark_update_machine_info(config=config, machine_info=info)
    return info


def _cause(line):
    """Keep a failure's one line for run.py, which ends with it (GRAPHBENCH_USER_CAUSES)."""
    if path := os.environ.get("GRAPHBENCH_USER_CAUSES"):
        with open(path, "a") as out:
            out.write(line + "\n")


def _fail(line):
    _cause(line)
    pytest.fail(line, pytrace=False)  # the one line, not pytest's source listing


def _terminal(config):
    """measure()'s lines on the terminal as each part starts, past pytest's capture: the whole
    measurement runs inside the first test, for minutes."""
    capture = config.pluginmanager.getplugin("capturemanager")
    terminal = config.pluginmanager.getplugin("terminalreporter")
    if capture is None or terminal is None:
        return print

    def say(line):
        with capture.global_and_fixture_disabled():
            terminal.write_line(line)
            terminal.flush()
    return say


def _measure(config, framework):
    env = config.graphbench
    if framework not in _measured:
        path = config.getoption("user")
        try:
            load(framework)
            check(path, framework)
            m = measure(path, framework, plan_for(env["profile"], config.getoption(
                "benchmark_disable", False)), env["threads"],
                has_cache=keeps_compiled(load(framework), env["threads"], env["device"]),
                log=_terminal(config), device=env["device"])
            m["machine_info"] = _machine_info(config)
            m["report"] = str(save(m, config.getoption("user_results")))
            config.graphbench_user_reports.append(m["report"])
            _measured[framework] = m
        except BackendUnavailable as error:
            _measured[framework] = ("skip", str(error))
        except UserFileError as error:  # bad input: its one line, and nothing else to run
            _cause(str(error))
            pytest.exit(str(error), returncode=pytest.ExitCode.USAGE_ERROR)
        except RuntimeError as error:
            _measured[framework] = ("fail", f"{framework}: {error}")
            _cause(_measured[framework][1])
    found = _measured[framework]
    if isinstance(found, tuple):
        kind, reason = found
        if kind == "skip":
            pytest.skip(reason)
        pytest.fail(reason, pytrace=False)
    return found


def test_user(request, user_variant):
    """The variant ran, and computes what eager computes; its figures are in the report."""
    framework, variant = user_variant
    m = _measure(request.config, framework)
    if variant in m["failed"]:
        pytest.skip(f"{framework}/{variant} could not run: {m['failed'][variant]}")
    if why := figures.invalid(m, variant):
        _fail(f"{framework}/{variant}: the loss is not finite: {why}; its times are of NaN or inf "
              f"arithmetic, left out of the report {m['report']}")
    if variant == "eager":
        return
    found = figures.accuracy(m, variant)
    if found and not found["match"]:
        _fail(f"{framework}/{variant} does not compute what eager computes: loss differs by "
              f"{found['loss_max_abs_diff']:.2e}, outputs by {found['outputs_max_abs_diff']:.2e} "
              f"(tolerance {found['tolerance']}); report {m['report']}")
