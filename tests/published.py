"""The published files made again from the committed runs, in a copy of the tree the page links
into, and which of them differ from the committed ones (tests/test_page_browser.py): README and
RESULTS.md byte for byte; summary.json and the page's data to a relative 1e-9, since NumPy's sums
may differ in their last bits from one CPU's vector code to another's; the page's rest byte for
byte. The charts are drawn (README keeps its chart sections only so), not compared: their PNG
bytes may differ with the CPU too."""
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

from report.views.page import DATA, unpacked

ROOT = Path(__file__).resolve().parent.parent
WRITTEN = ("results/summary.json", "results/index.html")  # under results/, by the report


def runs_since_the_commit():
    """Files under results/ added or changed since the commit, but those the report writes; None
    outside a git checkout."""
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "results"],
                         capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        return None
    return [path for path in (line[3:] for line in out.stdout.splitlines()) if path not in WRITTEN]


def make(tree):
    """Run the report as `--readme README.md --charts docs/charts` does, into a copy at `tree`
    of what the page links to (runs, method, findings); the finished process."""
    for name in ("README.md", "RESULTS.md", "results", "findings", "docs"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, tree / name)
    return subprocess.run([sys.executable, "-m", "report", "--results", "results", "--readme",
                           "README.md", "--charts", str(tree / "docs" / "charts")], cwd=tree,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def same(a, b):
    """Whether two JSON values are equal, floats to a relative 1e-9."""
    if isinstance(a, float) or isinstance(b, float):
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)) \
            and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    return a == b


def _page(path):
    """(the page without its data, its data unpacked)."""
    text = path.read_text()
    return DATA.sub("", text), unpacked(text)


def stale(made, committed=ROOT):
    """The published files under `committed` that differ from those `make` wrote under `made`."""
    found = [name for name in ("README.md", "RESULTS.md")
             if (made / name).read_bytes() != (committed / name).read_bytes()]
    summaries = [json.loads((root / WRITTEN[0]).read_text()) for root in (made, committed)]
    pages = [_page(root / WRITTEN[1]) for root in (made, committed)]
    if not same(*summaries):
        found.append(WRITTEN[0])
    if pages[0][0] != pages[1][0] or not same(pages[0][1], pages[1][1]):
        found.append(WRITTEN[1])
    return found
