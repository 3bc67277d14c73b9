"""Stop signals during a report: raised as Stopped while it works, so that what it was writing is
undone, and held back while its files move, so that no move is cut off midway."""
import contextlib
import signal
import threading

STOPS = ("SIGTERM", "SIGHUP", "SIGINT")
_HELD = []  # one entry per held() block open; the signals that came meanwhile wait in _PENDING
_PENDING = []


class Stopped(Exception):
    """A stop signal (its number in args[0]), raised where the report is."""


def _signals():
    return [getattr(signal, name) for name in STOPS if hasattr(signal, name)]


def _stop(signum, frame):
    for found in _signals():  # a second signal must not cut the undoing short
        signal.signal(found, signal.SIG_IGN)
    if _HELD:
        _PENDING.append(signum)
        return
    raise Stopped(signum)


@contextlib.contextmanager
def raised():
    """Stop signals raise Stopped inside the block (in the main thread; elsewhere nothing
    changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {found: signal.signal(found, _stop) for found in _signals()}
    try:
        yield
    finally:
        for found, handler in before.items():
            signal.signal(found, handler)
        _PENDING.clear()


@contextlib.contextmanager
def held():
    """A stop signal that comes inside the block is raised when it ends (Python runs signal
    handlers in the main thread, whichever thread the kernel picked)."""
    _HELD.append(True)
    try:
        yield
    finally:
        _HELD.pop()
        if _PENDING and not _HELD:
            raise Stopped(_PENDING.pop())
