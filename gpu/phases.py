"""A pytest plugin the GPU job loads into each pytest step (`-p gpu.phases`): when each phase of
its process began and ended, written to $GRAPHBENCH_PHASES as JSON after each (a step stopped at
its limit keeps those that passed). Window 4's torch ResNet step spent 85 s of 262 outside its
session, on what nothing recorded: the interpreter and imports, the conftest's configure (on a
GPU each backend loaded and primed) or the exit."""
import json
import os
import time

import pytest

_marks = {"plugin_loaded": time.time()}  # -p plugins load before any conftest


def _mark(name):
    _marks[name] = time.time()
    path = os.environ.get("GRAPHBENCH_PHASES")
    if path:
        with open(path, "w") as out:
            json.dump(_marks, out)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    _mark("configure_began")


class _Last:
    """The configure that runs after every other (a historic hook takes no wrapper)."""

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config):
        _mark("configure_ended")


def pytest_addoption(parser, pluginmanager):
    pluginmanager.register(_Last(), "gpu.phases.last")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _mark("session_began")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    _mark("session_ended")
    yield
    _mark("sessionfinish_ended")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_unconfigure(config):
    yield
    _mark("unconfigure_ended")
