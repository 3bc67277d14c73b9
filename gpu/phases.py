"""A pytest plugin the GPU job loads into each pytest step (`-p gpu.phases`): when each phase of
its process began and ended, written to $GRAPHBENCH_PHASES as JSON after each (a step stopped at
its limit keeps those that passed). Window 4's torch ResNet step spent 85 s of 262 outside its
session, on what nothing recorded: the interpreter and imports, the conftest's configure (on a
GPU each backend loaded and primed) or the exit. Window 5's torch configure took 74 s of them;
each backend's import, configure and prime are marked apart (the first time each runs), to say
whether that is the libraries' first read from disk or inductor's cold prime in every process.
Window 6 said the prime: 63-71 s in every torch process (12-18 s on the Zen 4). Where
$GRAPHBENCH_PROFILE names a file, a backend's first prime runs under cProfile and its top
functions go there as JSON, to say what those seconds are."""
import contextlib
import functools
import json
import os
import time

import pytest

_marks = {"plugin_loaded": time.time()}  # -p plugins load before any conftest
BACKEND_PARTS = ("configure", "prime")  # what conftest.backend_module calls on a loaded backend
PROFILE_TOP = {"cumulative": 80, "own": 15}  # a profiled prime's lists: by cumulative, own time


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
            if name.endswith("_prime") and (path := os.environ.get("GRAPHBENCH_PROFILE")):
                return _profiled(path, call, *args, **kwargs)
            return call(*args, **kwargs)
        finally:
            _mark(f"{name}_ended")
    timed.phases_marked = True
    return timed


def _where(key):
    """'torch/_inductor/cpu_vec_isa.py:177(check_build)' of a pstats key: the path from the
    package on, or the builtin's name."""
    path, line, function = key
    for root in ("site-packages/", "dist-packages/", "lib/python3."):
        if root in path:
            path = path.split(root, 1)[1]
            break
    return f"{path}:{line}({function})" if line else function


def _program(args):
    """'g++ cxyz.cpp cxyz.so' of a subprocess's argv: the program and the files it names, or
    what a Python runs (`-c`'s code, whose lines are joined, or `-m`'s module)."""
    args = args.split() if isinstance(args, str) else [str(a) for a in args]
    named = [os.path.basename(a) for a in args[1:] if a.endswith((".cpp", ".c", ".so", ".o"))]
    ran = next((" ".join(args[n:n + 2]) for n, a in enumerate(args) if a in ("-c", "-m")), "")
    return " ".join(filter(None, [os.path.basename(args[0]) if args else "?", *named,
                                  " ".join(ran.split())]))[:160]


@contextlib.contextmanager
def _subprocesses(found):
    """Each subprocess that ends in the block (run, call, check_output: all start a Popen)
    appended to `found` as [program, seconds]: cProfile on Python 3.12 loses frames under
    dynamo, a wall clock does not."""
    import subprocess
    popen = subprocess.Popen

    class Timed(popen):
        def __init__(self, args, *rest, **kwargs):
            self._began, self._said = time.time(), _program(args)
            super().__init__(args, *rest, **kwargs)

        def _ended(self):
            if self.returncode is not None and self._said:
                found.append([self._said, round(time.time() - self._began, 2)])
                self._said = None

        def wait(self, timeout=None):
            try:
                return super().wait(timeout)
            finally:
                self._ended()

        def communicate(self, *args, **kwargs):
            try:
                return super().communicate(*args, **kwargs)
            finally:
                self._ended()
    subprocess.Popen = Timed
    try:
        yield
    finally:
        subprocess.Popen = popen


def _profiled(path, call, *args, **kwargs):
    """`call` under cProfile; its top functions by cumulative and by own time written to `path`
    as [[where, seconds, calls], ...] with the subprocesses it ran, also where a stop cuts it
    short."""
    import cProfile
    import pstats
    profile, ran = cProfile.Profile(), []
    began = time.time()
    try:
        with _subprocesses(ran):
            return profile.runcall(call, *args, **kwargs)
    finally:
        found = pstats.Stats(profile).stats  # {key: (primitive calls, calls, own, cumulative, _)}
        order = {"cumulative": 3, "own": 2}
        with open(path, "w") as out:
            json.dump({"seconds": round(time.time() - began, 1), **{
                kind: [[_where(key), round(found[key][at], 2), found[key][1]] for key in sorted(
                    found, key=lambda k: -found[k][at])[:PROFILE_TOP[kind]]]
                for kind, at in order.items()},
                "subprocesses": {"count": len(ran), "seconds": round(sum(s for _, s in ran), 1),
                                 "longest": sorted(ran, key=lambda r: -r[1])[:10]}},
                out, indent=0)


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
