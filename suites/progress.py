"""One line that says where a long run is: backend, suite, cases done and left, time left.

Loaded by `python3 run.py bench` (`-p suites.progress`, GRAPHBENCH_PROGRESS names the backend and
its place in the job). On a terminal the line is rewritten in place; in a log it is printed when
the suite changes and at most once a minute. The time left assumes the cases left cost what the
cases so far cost on average: a rough guide, since compiled variants cost more than eager ones."""
import os
import sys
import time

LABEL = "GRAPHBENCH_PROGRESS"
EVERY_S = 60  # a log gets a line at most this often within one suite
SETTLED = 10  # cases done before the time left is estimated


class Progress:
    """Counts cases and writes the line."""

    def __init__(self, label, stream, clock=time.monotonic):
        self.label, self.stream, self.clock = label, stream, clock
        self.total, self.done, self.start, self.suite, self.printed = 0, 0, clock(), None, -EVERY_S
        self.live = stream.isatty()

    def line(self, suite):
        """The line for the case just finished in `suite`."""
        elapsed = self.clock() - self.start
        left = self.total - self.done
        eta = ("" if self.done < SETTLED else  # the first cases (a compile) say little yet
               f", about {_minutes(elapsed / self.done * left)} left")
        return (f"[{self.label}] {suite}: {self.done} of {self.total} cases done, {left} left; "
                f"{_minutes(elapsed)} so far{eta}")

    def finished(self, nodeid):
        """Count one case and show the line when it is due."""
        self.done += 1
        suite = nodeid.split("::")[0]
        now = self.clock()
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


def pytest_collection_finish(session):
    global _progress
    if label := os.environ.get(LABEL):
        _progress = Progress(label, sys.__stderr__)
        _progress.total = len(session.items)


def pytest_runtest_logfinish(nodeid):
    if _progress:
        _progress.finished(nodeid)


def pytest_sessionfinish():
    if _progress and _progress.live:
        _progress.stream.write("\n")
