"""A pytest plugin the GPU job loads into each pytest step (`-p gpu.phases`): when each phase of
its process began and ended, written to $GRAPHBENCH_PHASES as JSON after each (a step stopped at
its limit keeps those that passed). Window 4's torch ResNet step spent 85 s of 262 outside its
session, on what nothing recorded: the interpreter and imports, the conftest's configure (on a
GPU each backend loaded and primed) or the exit. Window 5's torch configure took 74 s of them;
each backend's import, configure and prime are marked apart (the first time each runs), to say
whether that is the libraries' first read from disk or inductor's cold prime in every process."""
import functools
import json
import os
import time

import pytest

_marks = {"plugin_loaded": time.time()}  # -p plugins load before any conftest
BACKEND_PARTS = ("configure", "prime")  # what conftest.backend_module calls on a loaded backend


def _mark(name):
    _marks[name] = time.time()
    path = os.environ.get("GRAPHBENCH_PHASES")
    if path:
        with open(path, "w") as out:
            json.dump(_marks, out)


def _timed(name, call):
    """`call`, marking `name`_began and `name`_ended around its first run."""
    @functools.wraps(call)
    def timed(*args, **kwargs):
        if f"{name}_began" in _marks:
            return call(*args, **kwargs)
        _mark(f"{name}_began")
        try:
            return call(*args, **kwargs)
        finally:
            _mark(f"{name}_ended")
    timed.phases_marked = True
    return timed


def _timed_load(load):
    """The conftest's backend `load`, marking each backend's import and its calls apart."""
    def timed_load(name):
        module = _timed(f"{name}_import", load)(name)
        for part in BACKEND_PARTS:
            call = getattr(module, part, None)
            if callable(call) and not getattr(call, "phases_marked", False):
                setattr(module, part, _timed(f"{name}_{part}", call))
        return module
    return timed_load


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    _mark("configure_began")
    for plugin in config.pluginmanager.get_plugins():  # the suite's conftest, before it runs
        if all(callable(getattr(plugin, name, None)) for name in ("backend_module", "load")):
            plugin.load = _timed_load(plugin.load)


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
