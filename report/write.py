"""The report's files: README blocks between markers, each staged so a failure changes nothing."""
import os
import re
from pathlib import Path

from report.load import warn

START, END = "<!-- results:start -->", "<!-- results:end -->"
SUMMARY_START, SUMMARY_END = "<!-- summary:start -->", "<!-- summary:end -->"


def readme_text(path):
    """The README's text; ValueError with a one-line reason when it cannot be rewritten."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ValueError(f"--readme {path}: {error.strerror}") from None
    if START not in text or END not in text:
        raise ValueError(f"{path}: no {START} ... {END} markers")
    return text


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


def stage(path, text):
    """`text` in a file beside `path`, to be moved over it: a failed write leaves the old file."""
    path = Path(path)
    staged = path.with_name(f".{path.name}.new")
    try:
        staged.write_text(text)
    except OSError as error:
        raise ValueError(f"{path}: cannot write beside it ({error.strerror})") from None
    return staged


def rewrite_readme(path, section):
    """Replace the text between the markers; a README without them is left alone."""
    try:
        os.replace(stage(Path(path), splice(readme_text(path), section)), path)
    except ValueError as error:
        warn(f"{error}; README not changed")
        return False
    return True
