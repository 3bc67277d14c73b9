"""One line that says where a long run is: backend, suite, cases done and left, time left.

Loaded by `python3 run.py bench` (`-p suites.progress`, GRAPHBENCH_PROGRESS names the backend and
its place in the job). On a terminal the line is rewritten in place; in a log it is printed when
the suite changes and at most once a minute. The time left counts each comparison group of a saved
steady run at its time share (conftest stashes it on the group's cases: GROUP) until one of its
cases runs, a case skipped by a mark at nothing, and every other case at what such cases cost so
far on average (times the share of them that ran rather than skipped): a guide, since compiled
variants cost more than eager ones."""
import os
import sys
import time

import pytest

LABEL = "GRAPHBENCH_PROGRESS"
EVERY_S = 60  # a log gets a line at most this often within one suite
SETTLED = 10  # cases done before the time left is estimated
GROUP = pytest.StashKey[tuple]()  # on a case: (its comparison group, the group's time share in s)


class Progress:
    """Counts cases and writes the line."""

    def __init__(self, label, stream, clock=time.monotonic):
        self.label, self.stream, self.clock = label, stream, clock
        self.total, self.done, self.start, self.suite, self.printed = 0, 0, clock(), None, -EVERY_S
        self.live = stream.isatty()
        self.last = self.start  # when the last case finished
        self.marked = set()  # cases a mark skips: they cost nothing
        self.group_of = {}  # case -> its comparison group
        self.pending = {}  # group -> [time share, how many of its cases are left] until one runs
        self.plain = [0, 0.0]  # other cases finished, and the seconds of those that ran

    def plan(self, cases):
        """Take the session's cases: (nodeid, skipped by a mark, (group, share) or None) each."""
        self.total = len(cases)
        for nodeid, marked, grouped in cases:
            if marked:
                self.marked.add(nodeid)
            elif grouped:
                self.group_of[nodeid] = grouped[0]
                self.pending.setdefault(grouped[0], [grouped[1], 0])[1] += 1

    def time_left(self):
        """Seconds the cases left should take (see the module's docstring)."""
        finished, seconds = self.plain
        plain_left = self.total - self.done - len(self.marked) - len(self.group_of)
        per_case = seconds / finished if finished else 0.0  # a run case's cost × the share run
        return sum(share for share, _ in self.pending.values()) + plain_left * per_case

    def line(self, suite):
        """The line for the case just finished in `suite`."""
        elapsed = self.clock() - self.start
        left = self.total - self.done
        eta = ("" if self.done < SETTLED else  # the first cases (a compile) say little yet
               f", about {_minutes(self.time_left())} left")
        return (f"[{self.label}] {suite}: {self.done} of {self.total} cases done, {left} left; "
                f"{_minutes(elapsed)} so far{eta}")

    def finished(self, nodeid, ran=True):
        """Count one case (`ran`: not skipped) and show the line when it is due."""
        self.done += 1
        suite = nodeid.split("::")[0]
        now = self.clock()
        took, self.last = now - self.last, now
        if nodeid in self.marked:
            self.marked.discard(nodeid)
        elif group := self.group_of.pop(nodeid, None):
            if entry := self.pending.get(group):
                entry[1] -= 1
                if ran or not entry[1]:  # its first case to run times the whole group
                    del self.pending[group]
        else:
            self.plain[0] += 1
            self.plain[1] += took if ran else 0.0
        if self.live:
            self.stream.write("\r\033[K" + self.line(suite))
        elif suite != self.suite or now - self.printed >= EVERY_S or self.done == self.total:
            self.stream.write("\n" + self.line(suite) + "\n")  # pytest -v may be mid-line
            self.printed = now
        self.suite = suite
        self.stream.flush()


def _minutes(seconds):
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


_progress = None
_skipped = set()  # cases whose report said skipped (pytest_runtest_logreport)


def pytest_collection_finish(session):
    global _progress
    if label := os.environ.get(LABEL):
        _progress = Progress(label, sys.__stderr__)
        _progress.plan([(item.nodeid, item.get_closest_marker("skip") is not None,
                         item.stash.get(GROUP, None)) for item in session.items])


def pytest_runtest_logreport(report):
    if _progress and report.skipped:
        _skipped.add(report.nodeid)


def pytest_runtest_logfinish(nodeid):
    if _progress:
        _progress.finished(nodeid, ran=nodeid not in _skipped)


def pytest_sessionfinish():
    if _progress and _progress.live:
        _progress.stream.write("\n")
