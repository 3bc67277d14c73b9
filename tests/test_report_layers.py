"""report/ is one data flow: no import cycle, no import of the measuring layer, --help anywhere."""
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from tests.reporting import tables_of

REPORT = Path(__file__).resolve().parent.parent / "report"
PACKAGES = ("report", "report.build", "report.views", "report.publish")
UPWARD = ("suites", "backends", "user", "models")  # the measuring layer the report reads from disk


def imports():
    """{module: {report modules and top-level packages it imports}} of report/**/*.py."""
    found = {}
    for path in REPORT.rglob("*.py"):
        if path.stem == "__init__":
            continue
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names |= ({f"{node.module}.{a.name}" for a in node.names}
                          if node.module in PACKAGES else {node.module})
            elif isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
        found[path.stem] = names
    return found


def cycle(graph):
    """One import cycle among report's modules as a list of names, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for name in graph.get(node, ()):
            if state.get(name) == "open":
                return stack[stack.index(name):] + [name]
            if name not in state and (found := visit(name)):
                return found
        state[node] = "done"
        stack.pop()
    return next((found for node in graph if node not in state and (found := visit(node))), None)


def report_graph(found):
    return {m: {n.split(".")[-1] for n in names if n.startswith("report.")
                and n.split(".")[-1] in found} for m, names in found.items()}


def test_report_has_no_import_cycle():
    assert cycle(report_graph(imports())) is None, f"import cycle: {cycle(report_graph(imports()))}"


def test_the_cycle_check_finds_one():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_report_never_imports_the_measuring_layer():
    upward = {m: sorted(n for n in names if n.split(".")[0] in UPWARD)
              for m, names in imports().items()}
    assert not any(upward.values()), f"report imports the measuring layer: {upward}"


def test_report_help_runs_on_a_plain_python():
    """No NumPy, matplotlib or Pillow is needed to ask the report what it does."""
    code = ("import sys; sys.modules.update(dict.fromkeys(['numpy', 'matplotlib', 'PIL'])); "
            "from report.__main__ import main; main(['--help'])")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPORT.parent, capture_output=True,
                          text=True)
    assert done.returncode == 0 and "--readme" in done.stdout, done.stderr[-500:]


def intervals(text):
    """Every ratio printed with its 95% interval: '1.23× [1.10, 1.40]'."""
    return set(re.findall(r"(\d[\d,]*\.\d\d)× \[(\d[\d,]*\.\d\d), (\d[\d,]*\.\d\d)\]", text))


def test_every_ratio_in_results_md_is_a_summary_record():
    """RESULTS.md, the page's tables and results/summary.json are written from the same records:
    each ratio printed with an interval is one record's estimate and interval."""
    root = REPORT.parent
    records = json.loads((root / "results" / "summary.json").read_text())["records"]
    published = {tuple(f"{r[k]:,.2f}" for k in ("estimate", "low", "high")) for r in records
                 if r["unit"] == "x" and r["low"] is not None}
    printed = intervals((root / "RESULTS.md").read_text() + tables_of(root / "results"))
    assert printed and printed <= published, sorted(printed - published)[:5]


def test_the_ratio_check_sees_a_ratio_no_record_holds():
    assert intervals("a 1.23× [1.10, 1.40] ~ b") == {("1.23", "1.10", "1.40")}


DATA = ("load", "select", "ratios", "best", "records", "steady", "sections", "comparison",
        "user")  # the steps before rendering
RUNS = ("runs", "page_data")  # name the runs (the results they left out, their
# releases): no figure
LABELS = ("backend", "phase", "model")  # what a renderer may read of a result: names, no figure


def raw_reads(path):
    """Figures a module reads from results directly: `.stats`, or `.info` keys beyond LABELS."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr == "stats":
            found.append(f"line {node.lineno}: .stats")
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "info":
            key = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and isinstance(node.func.value, ast.Attribute) \
                and node.func.value.attr == "info":
            key = node.args[0]
        if key is not None and not (isinstance(key, ast.Constant) and key.value in LABELS):
            found.append(f"line {node.lineno}: .info[{ast.unparse(key)}]")
    return found


def test_renderers_print_figures_from_records_only():
    found = {path.stem: reads for path in REPORT.rglob("*.py")
             if path.stem not in DATA + RUNS and (reads := raw_reads(path))}
    assert not found, f"renderers reading figures from results, not records: {found}"


def test_the_raw_read_check_finds_one(tmp_path):
    path = tmp_path / "renderer.py"
    path.write_text("def f(r):\n    return r.stats['median'], r.info['traces'], r.info['backend']\n")
    assert sorted(raw_reads(path)) == ["line 2: .info['traces']", "line 2: .stats"]
