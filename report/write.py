"""The report's files: README blocks between markers; every output checked, staged beside its
target and then moved, so that a failure changes nothing."""
import contextlib
import json
import os
import re
from pathlib import Path

from report.load import warn

START, END = "<!-- results:start -->", "<!-- results:end -->"
SUMMARY_START, SUMMARY_END = "<!-- summary:start -->", "<!-- summary:end -->"
MARKERS = ((START, END, True), (SUMMARY_START, SUMMARY_END, False))  # (start, end, required)


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
    if len(spans) == 2 and spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]:
        return "the results and summary markers overlap"
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


def stage(path, data):
    """`data` (text or bytes) in a file beside `path`, checked, to be moved over it; a failed write
    leaves no staged file."""
    path, data = Path(path), data.encode() if isinstance(data, str) else data
    staged = path.with_name(f".{path.name}.new")
    try:
        if path.is_dir():
            raise IsADirectoryError(21, "a folder where the file goes")
        _write(staged, data)
        if staged.stat().st_size != len(data):
            raise OSError(5, f"{staged.stat().st_size} of {len(data)} bytes written")
    except OSError as error:
        with contextlib.suppress(OSError):
            staged.unlink(missing_ok=True)
        raise ValueError(f"{path}: cannot write beside it ({error.strerror or error})") from None
    return staged


def publish(files):
    """Stage every (target, data), then move them all over their targets; when one cannot be
    staged, nothing is moved and no staged file is left (ValueError with the one line)."""
    staged = []
    try:
        for target, data in files:
            staged.append((stage(target, data), target))
        while staged:
            os.replace(*staged[0])
            staged.pop(0)
    except OSError as error:
        raise ValueError(f"{staged[0][1]}: cannot replace it ({error.strerror or error})") from None
    finally:
        for path, _ in staged:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)


def rewrite_readme(path, section):
    """Replace the text between the markers; a README without them is left alone."""
    try:
        publish([(path, splice(readme_text(path), section))])
    except ValueError as error:
        warn(f"{error}; README not changed")
        return False
    return True
