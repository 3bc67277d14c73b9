"""The user suite's options: --user FILE (your model) and --user-results (where its report goes)."""
import pytest

from backends.user import UserFileError, frameworks_in


def pytest_addoption(parser):
    group = parser.getgroup("graphbench")
    group.addoption("--user", help="your model file (README: Your own model)")
    group.addoption("--user-results", default="results",
                    help="results folder of the user report "
                         "(results/user/<machine>/user-<name>.md)")


def pytest_configure(config):
    path = config.getoption("user")
    if path is None:
        raise pytest.UsageError("the user suite needs --user PATH (your model file)")
    config.graphbench_user_reports = []
    try:
        config.graphbench_user = frameworks_in(path)
    except UserFileError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_generate_tests(metafunc):
    if "user_variant" not in metafunc.fixturenames:
        return
    from user.measure import variants_of, plan_for
    env, config = metafunc.config.graphbench, metafunc.config
    plan = plan_for(env["profile"], config.getoption("benchmark_disable", False))
    params = [pytest.param((fw, v), id=f"{fw}-{v}") for fw in config.graphbench_user
              if fw in env["backends"] for v in ["eager", *variants_of(fw, plan, env["device"])]]
    metafunc.parametrize("user_variant", params)


def pytest_terminal_summary(terminalreporter, config):
    for report in dict.fromkeys(getattr(config, "graphbench_user_reports", [])):
        terminalreporter.write_line(f"user report: {report}")
