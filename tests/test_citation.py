"""What a reader who cites or navigates the README relies on: the citation matches the package, and
every link inside the README and to a file in the repository resolves, and the README
stays short enough to read."""
import re
from pathlib import Path

import pytest

import conftest
from report.publish.write import README_LIMIT, length_problem

ROOT = Path(__file__).resolve().parent.parent


def anchors(markdown):
    """GitHub's anchor of each heading: lower case, punctuation dropped, spaces as hyphens."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", markdown, flags=re.M)}


def test_citation_names_the_version_and_license_of_the_package():
    cff = (ROOT / "CITATION.cff").read_text()
    version = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.M)[1]
    assert re.search(rf"^version: {re.escape(version)}$", cff, re.M)
    assert re.search(r"^license: MIT$", cff, re.M)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


PUBLISHED = ("README.md", "RESULTS.md", "docs/*.md", "findings/*.md", "results/**/*.md")


@pytest.mark.parametrize("pattern", PUBLISHED)
def test_every_link_of_the_markdown_resolves(pattern):
    """Each link in a markdown file to a file of the repository, or to a heading of one (its own
    included), resolves: a view shared by README and RESULTS.md that links `#a-readme-heading`
    leaves RESULTS.md a dead link."""
    files = sorted(ROOT.glob(pattern))
    assert files, pattern
    for file in files:
        text = file.read_text()
        links = re.findall(r"\]\(([^)\s]+)\)", text)
        for link in links:
            if link.startswith(("http", "mailto:")):
                continue
            path, _, anchor = link.partition("#")
            target = (file.parent / path).resolve() if path else file
            assert target.exists(), f"{file.relative_to(ROOT)}: {link}"
            if anchor and target.suffix == ".md":
                assert anchor in anchors(target.read_text()), (
                    f"{file.relative_to(ROOT)}: #{anchor} is no heading of "
                    f"{target.relative_to(ROOT)}")


def test_the_readme_links_within_itself_and_names_each_link():
    readme = (ROOT / "README.md").read_text()
    assert any(link.startswith("#") for link in re.findall(r"\]\(([^)\s]+)\)", readme))
    assert not re.search(r"\((chart|the rule): [^)]*\)", readme), "a link's words with no link"


def test_the_anchor_rule_matches_githubs():
    assert anchors("## Findings: wrong answers this suite found\n## Your own model: should I compile it?") \
        == {"findings-wrong-answers-this-suite-found", "your-own-model-should-i-compile-it"}


def test_the_readme_stays_within_its_length():
    if "README.md" in (conftest.changed_files() or ()):  # a job on this machine redrew it
        pytest.skip("README.md was redrawn here by a job: the limit holds for the committed README "
                    "(CI tests a clean clone); the report warned if the redraw passed it")
    length = len((ROOT / "README.md").read_text(encoding="utf-8"))
    assert length <= README_LIMIT, f"README.md has {length:,} characters, over {README_LIMIT:,}"


def test_a_redraw_past_the_limit_is_named_in_one_line():
    assert length_problem("README.md", "x" * README_LIMIT) is None
    line = length_problem("README.md", "x" * (README_LIMIT + 1))
    assert "\n" not in line and f"{README_LIMIT + 1:,} characters" in line and "trim" in line
