"""The report's files: README blocks between markers; every output checked, staged beside its
target and then moved, the old files kept until the last move, so that a failure or a stop signal
leaves the old files or the new ones, whole."""
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from report.publish import stops
from report import warn

START, END = "<!-- results:start -->", "<!-- results:end -->"
SUMMARY_START, SUMMARY_END = "<!-- summary:start -->", "<!-- summary:end -->"
COMPARED_START, COMPARED_END = "<!-- compared:start -->", "<!-- compared:end -->"
MARKERS = ((START, END, True), (SUMMARY_START, SUMMARY_END, False),
           (COMPARED_START, COMPARED_END, False))  # (start, end, required)
README_LIMIT = 25_000  # characters (issue 37): the README is read whole; RESULTS.md has the rest


def length_problem(path, text):
    """One line when a redrawn README passes README_LIMIT (its own data made it longer), else None:
    the README is still written, and its hand-written text is what to trim before committing it."""
    if len(text) <= README_LIMIT:
        return None
    return (f"{path} is {len(text):,} characters, over its {README_LIMIT:,} "
            f"(tests/test_citation.py): trim its hand-written text before committing it")


def readme_text(path):
    """The README's text; ValueError with a one-line reason when it cannot be rewritten."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ValueError(f"--readme {path}: {error.strerror}") from None
    if problem := marker_problem(text):
        raise ValueError(f"--readme {path}: {problem}")
    return text


def marker_problem(text):
    """What is wrong with the README's markers (missing, repeated, swapped, overlapping), or None."""
    spans = []
    for start, end, required in MARKERS:
        counts = {marker: text.count(marker) for marker in (start, end)}
        if repeated := [m for m, n in counts.items() if n > 1]:
            return f"{repeated[0]} appears {counts[repeated[0]]} times"
        if missing := [m for m, n in counts.items() if not n]:
            if required or len(missing) == 1:
                return f"no {missing[0]} marker" + ("" if required else " (its pair is there)")
            continue
        if text.index(end) < text.index(start):
            return f"{end} comes before {start}"
        spans.append((text.index(start), text.index(end)))
    spans.sort()
    if any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:])):
        return "two pairs of markers overlap"
    return None


def splice(text, section, start=START, end=END):
    """`text` with `section` between the markers (left as it is without them)."""
    if start not in text or end not in text:
        return text
    head, rest = text.split(start, 1)
    return f"{head}{start}\n{section}\n{end}{rest.split(end, 1)[1]}"


def chart_folders(text):
    """Folders of the charts linked in the README's generated block."""
    block = text.split(START, 1)[1].split(END, 1)[0]
    return sorted({str(Path(link).parent) for link in re.findall(r"!\[[^]]*\]\(([^)]+)\)", block)})


def check_outputs(outputs):
    """ValueError naming the option and path of an output that would overwrite what the report did
    not make: a README's own text, a saved run, a folder, or another output."""
    seen = {}
    for option, path in outputs:
        where = Path(path).resolve()
        if where in seen:
            raise ValueError(f"{option} {path}: also the {seen[where]} output")
        seen[where] = option
        if where.is_dir():
            raise ValueError(f"{option} {path}: a folder, not a file")
        if option != "--readme" and where.is_file() and (why := _not_ours(where)):
            raise ValueError(f"{option} {path}: {why}, which the report never overwrites")


def _not_ours(path):
    """Why the existing file at `path` is not the report's to replace, or None."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return None
    if any(marker in text for start, end, _ in MARKERS for marker in (start, end)):
        return "a README (it has report markers)"
    with contextlib.suppress(ValueError):
        if isinstance(found := json.loads(text), dict) and "benchmarks" in found:
            return "a saved run"
    return None


def _write(path, data):
    """Write `data` to `path` and make sure it reached the disk."""
    with open(path, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def _staged(path):
    return path.with_name(f".{path.name}.new")


def _discard(path):
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def stage(path, data):
    """`data` (text or bytes) in a file beside `path`, checked, to be moved over it; a failed or
    interrupted write leaves no staged file."""
    path, data = Path(path), data.encode() if isinstance(data, str) else data
    staged = _staged(path)
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "a folder where the file goes")
        _write(staged, data)
        if staged.stat().st_size != len(data):
            raise OSError(5, f"{staged.stat().st_size} of {len(data)} bytes written")
    except OSError as error:
        _discard(staged)
        raise ValueError(f"{path}: cannot write beside it ({error.strerror or error})") from None
    except BaseException:
        _discard(staged)
        raise
    return staged


class Mixed(ValueError):
    """A move failed and an old file could not be put back: the published files are a mix."""


def _keep(target):
    """A second name for the file at `target` (a copy where links fail), kept until the new file
    is in place; None when there is no file."""
    if not target.is_file():
        return None
    kept = target.with_name(f".{target.name}.old")
    kept.unlink(missing_ok=True)
    try:
        os.link(target, kept)
    except OSError:
        shutil.copy2(target, kept)
    return kept


def _put_back(moves, kept):
    """Undo the moves made: each old file back over its target, a new one with none removed;
    returns [(target, its old file)] of those that could not be put back."""
    failed = []
    for (staged, target), old in zip(moves, kept):
        if staged.exists():  # never moved
            continue
        try:
            if old:
                os.replace(old, target)
            else:
                target.unlink()
        except OSError:
            failed.append((target, old))
    return failed


def _swap(moves):
    """Move every staged file over its target, the old ones kept until the last move; when one
    cannot be moved, put the old ones back (ValueError, or Mixed when that failed too)."""
    kept, failed = [], []
    try:
        for staged, target in moves:
            kept.append(_keep(target))
        for staged, target in moves:
            os.replace(staged, target)
    except OSError as error:
        why = f"{target}: cannot replace it ({error.strerror or error})"
        if failed := _put_back(moves, kept):
            raise Mixed(f"{why}, nor put back " + ", ".join(
                f"{t} (its old file: {old})" if old else f"{t} (new)" for t, old in failed)
                + ": the published files are a mix of old and new") from None
        raise ValueError(why) from None
    finally:
        for old in set(filter(None, kept)) - {old for _, old in failed}:
            _discard(old)


@contextlib.contextmanager
def one_publisher(folder):
    """Hold the folder's publish lock while staging and moving: a second report waits, saying so
    in one line, then publishes its own files whole (two reports at once mixed their files). The
    lock file, in the temporary folder, is removed by its holder: none is left behind."""
    key = hashlib.sha1(str(Path(folder).resolve()).encode()).hexdigest()[:12]
    path, waited = Path(tempfile.gettempdir()) / f"graphbench-publish-{key}.lock", False
    while True:
        lock = open(path, "a")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not waited:
                warn(f"another report is publishing into {folder}; waiting for it to finish")
                waited = True
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:  # the holder before removed the file this lock is on: lock the new one
            if os.fstat(lock.fileno()).st_ino == os.stat(path).st_ino:
                break
        except FileNotFoundError:
            pass
        lock.close()
    try:
        yield
    finally:
        path.unlink(missing_ok=True)  # while held: a waiter on it locks the next file instead
        lock.close()


def publish(files, published=None):
    """Stage every (target, data), then move them all over their targets, or none: the old files
    stay until the last move and are put back when one fails; no staged or kept file is left
    (ValueError with the one line). Stop signals wait while files move; True is appended to the
    list `published` once every new file is in place, before they are let in."""
    moves = [(_staged(Path(target)), Path(target)) for target, _ in files]
    with one_publisher(Path(files[0][0]).resolve().parent) if files else contextlib.nullcontext():
        try:
            for target, data in files:
                stage(target, data)
            with stops.held():
                _swap(moves)
                if published is not None:
                    published.append(True)
        finally:
            with stops.held():
                for staged, _ in moves:
                    _discard(staged)


def rewrite_readme(path, section):
    """Replace the text between the markers; a README without them is left alone."""
    try:
        publish([(path, splice(readme_text(path), section))])
    except ValueError as error:
        warn(f"{error}; README not changed")
        return False
    return True
