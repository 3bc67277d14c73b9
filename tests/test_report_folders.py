"""report/ in three folders, build → views → publish: a view reads figure records, never raw
runs. The views' imports of the build that remain are listed here, and the list may only shrink
(issue 50)."""
import ast
from pathlib import Path

REPORT = Path(__file__).resolve().parent.parent / "report"
# what a view may read from the build: the verdicts' words and how a record's interval reads
# (`side`: which side of a published figure it lies on, as half_width reads its width;
# `rules_out`: whether it leaves room for a verdict), and the words the build states its rules in
VOCABULARY = {"report.build.ratios": {"SAME", "UNDECIDED", "NOISE", "NO_GAIN", "decided",
                                      "half_width", "gain_limit", "gain_bound", "side",
                                      "rules_out"},
              "report.build.best": {"RULE"}}  # the rule that chose each row's variant
# each view's remaining imports of the build beyond the vocabulary: {view: {module: names}}
DEBT = {}


def build_imports(path):
    """{module: names} a module imports from report.build, beyond the vocabulary."""
    found = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "report.build":
            for alias in node.names:
                found.setdefault(f"report.build.{alias.name}", set()).add("*")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("report.build."):
            names = {a.name for a in node.names} - VOCABULARY.get(node.module, set())
            if names:
                found.setdefault(node.module, set()).update(names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("report.build"):
                    found.setdefault(alias.name, set()).add("*")
    return found


def test_every_report_module_lies_in_one_layer():
    loose = {p.name for p in REPORT.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert not loose, f"put each in report/build, report/views or report/publish: {loose}"


def test_views_import_from_the_build_only_what_the_list_allows():
    found = {p.stem: imports for p in sorted((REPORT / "views").glob("*.py"))
             if (imports := build_imports(p))}
    new = {view: {m: n - DEBT.get(view, {}).get(m, set()) for m, n in imports.items()}
           for view, imports in found.items()}
    new = {view: {m: n for m, n in imports.items() if n} for view, imports in new.items()}
    assert not any(new.values()), f"a view imports the build beyond the list: {new}"
    assert found == DEBT, "a view stopped importing the build: take it off DEBT"


def test_the_build_and_publish_never_import_a_view():
    for layer in ("build", "publish"):
        for path in (REPORT / layer).glob("*.py"):
            tree = ast.parse(path.read_text())
            bad = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   and (n.module or "").startswith("report.views")]
            assert not bad, f"{layer}/{path.name} imports views: {bad}"


# what only a saved run (report.build.load.Result) has: a view that reads one reads raw results
RUN_ONLY = {"info", "stats", "graphbench", "profile", "status", "saved", "flags", "median",
            "profile_name", "complete", "valid", "label", "datetime"}


def raw_reads(path):
    """Lines of a module that read an attribute only a saved run has (`r.info`, `r.graphbench`)."""
    return sorted({node.lineno for node in ast.walk(ast.parse(path.read_text()))
                   if isinstance(node, ast.Attribute) and node.attr in RUN_ONLY
                   and not (isinstance(node.value, ast.Name) and node.value.id == "statistics")})


def test_no_view_reads_a_saved_run():
    found = {p.name: lines for p in sorted((REPORT / "views").glob("*.py"))
             if (lines := raw_reads(p))}
    assert not found, f"a view reads raw runs (file: lines), not records: {found}"
    assert raw_reads(REPORT / "build" / "runs.py")  # the scan sees what the build reads


def test_publish_imports_nothing_from_the_build():
    """publish/ writes what the views made: it reads no run (load, select) and decides nothing."""
    for path in (REPORT / "publish").glob("*.py"):
        assert not build_imports(path) and "report.build" not in path.read_text(), path.name
