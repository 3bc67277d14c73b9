"""The results page in a real browser (Debian's Chromium, driven by Playwright; `tox -e browser`):
it loads without a console error, a filter narrows the rows to the count the records give, and
every figure the page shows equals its record in summary.json; and the published files are what
the report makes from the committed runs (no browser needed: it shares the page's build here)."""
import importlib.util
import json
import re
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from machines import short_name
from tests import published
from tests.browser import chromium
from tests.reporting import page_data

# a mark, not a module-level importorskip: where the module is deselected, no skip line
pytestmark = pytest.mark.skipif(importlib.util.find_spec("playwright") is None,
                                reason="playwright is installed in the browser env only: "
                                       "`.tools/bin/tox -e browser`")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(page, summary records): the report's page and summary.json, made from results/ with the
    README, RESULTS.md and charts, in a copy of the tree (tests/published.py)."""
    tree = tmp_path_factory.mktemp("published")
    made = published.make(tree)
    assert made.returncode == 0, made.stderr[-2000:]
    return (tree / "results" / "index.html",
            json.loads((tree / "results" / "summary.json").read_text())["records"])


def test_the_published_files_are_what_the_committed_runs_make(built):
    """README's answer and results, RESULTS.md, summary.json and the page are what the report
    makes from the committed runs: a figure typed in, or a report change not redrawn, fails."""
    runs = published.runs_since_the_commit()
    if runs is None:
        pytest.skip("not a git checkout: the committed runs cannot be told from later ones")
    if runs:
        pytest.skip(f"{runs[0]} and {len(runs) - 1} more under results/ are not as committed "
                    "(runs saved since, which the next report publishes)")
    found = published.stale(built[0].parents[1])
    assert not found, (f"{', '.join(found)}: not what `python -m report --readme README.md "
                       "--charts docs/charts` makes from results/; redraw and commit")


@pytest.fixture(scope="module")
def browser():
    path, why = chromium()
    if not path:
        pytest.skip(why)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as driver:
        found = driver.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield found
        found.close()


@pytest.fixture
def page(browser, built):
    """The page on its figures, with the console errors it printed (`page.errors`), the tabs it
    showed when it opened (`page.opened`) and its load time to the figures' first rows."""
    tab = browser.new_page(viewport={"width": 1600, "height": 1000})
    tab.errors = []
    tab.on("console", lambda m: tab.errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    started = time.perf_counter()
    tab.goto(built[0].as_uri())
    tab.opened = visible_tabs(tab)
    tab.click('nav button[data-tab="figures"]')
    tab.wait_for_selector("#figure-table .tabulator-row")
    tab.load_s = time.perf_counter() - started
    yield tab
    tab.close()


def visible_tabs(tab):
    """The ids of the page's tabs a reader sees."""
    return tab.eval_on_selector_all(".tab", "tabs => tabs.filter(t => t.offsetParent !== null)"
                                             ".map(t => t.id)")


def pick(tab, field, value):
    """Choose `value` in the figure table's header filter of `field`, as a reader does."""
    tab.click(f'#figure-table .tabulator-col[tabulator-field="{field}"] '
              ".tabulator-header-filter input")
    tab.click(f'.tabulator-edit-list .tabulator-edit-list-item:text-is("{value}")')


def rows(tab):
    """[(record id, {field: the cell's exact value or text})] of the rows the table shows."""
    return tab.eval_on_selector_all("#figure-table .tabulator-row", """els => els.map(row => {
        const cell = f => row.querySelector(`[tabulator-field="${f}"]`), text = f => cell(f).innerText.trim();
        const exact = f => [...cell(f).querySelectorAll("[data-v]")].map(e => Number(e.dataset.v));
        return [Number(row.dataset.rec), {estimate: exact("estimate"), interval: exact("low"),
                half: exact("half"), verdict: text("verdict"), target: text("target"),
                run: text("run"), machine: text("short"),
                kind: text("kind"), shown: text("estimate")}];
    })""")


def test_the_page_opens_on_the_answer(page):
    """A reader who opens the page without a tab's name reads the answer first: its tab alone is
    shown, its short form first (a line per framework, what to do in your case), then its table;
    it leads the tab bar."""
    assert page.opened == ["answer"]
    assert page.eval_on_selector_all("nav button", "b => b.map(x => x.dataset.tab)")[0] == "answer"
    page.click('nav button[data-tab="answer"]')
    assert page.is_visible("#answer table")
    first = page.eval_on_selector_all("#answer > *", "els => els.slice(0, 4).map(e => e.innerText)")
    assert first[0].startswith("In short: graph mode's train step")
    assert re.match(r"TensorFlow on the \w", first[1]) and first[2] == "What to do in your case:"


def test_the_page_loads_without_a_console_error(page, built):
    assert page.errors == []
    pick(page, "source", "pins")  # summary.json's records; the others are other releases'
    assert page.inner_text("#count").startswith(f"{len(built[1]):,} of ")
    assert page.load_s < 10, f"{page.load_s:.1f} s to show the first rows"
    for tab, shows in (("compare", "#compare-table .tabulator-row"),
                       ("runs", "#run-table .tabulator-row"), ("answer", "#answer table"),
                       ("tables", "#tables table"), ("charts", "#charts p"),
                       ("figures", "#figure-table .tabulator-row")):
        page.click(f'nav button[data-tab="{tab}"]')
        page.wait_for_selector(shows, state="visible", timeout=5000)
    assert page.errors == []
    files = {unquote(urlparse(href).path) for href in page.eval_on_selector_all(
        "#links a, #answer a, #tables a", "links => links.map(a => a.href)") if href.startswith("file:")}
    assert files and not [f for f in files if not Path(f).exists()]  # the method, the findings


def test_the_figures_open_on_the_answers_machine_with_each_verdict_in_view(page, built):
    """Unfiltered, the table's first rows are the figures of the machine the README's answer
    leads with (a reader met the Zen 3's first, machines sorting by description), and a row's
    verdict shows without scrolling in a 1400 px window (it began at 1512 px: its sources first)."""
    readme = (built[0].parent.parent / "README.md").read_text()
    lead = re.search(r"^\*\*On the (.+?)\*\* \(a CPU", readme, re.M)[1]
    first = [cells["machine"] for _, cells in rows(page)[:10]]
    assert first == [lead] * 10, first
    assert lead != short_name(min(r["machine"] for r in built[1]))  # not merely the first by name
    # what a row is, its figure and its verdict, without scrolling, in a 1400 px window
    page.set_viewport_size({"width": 1400, "height": 900})
    page.wait_for_timeout(300)
    right = dict(page.eval_on_selector_all(
        "#figure-table .tabulator-col[tabulator-field]",
        "cols => cols.map(c => [c.getAttribute('tabulator-field'), c.getBoundingClientRect().right])"))
    assert right["verdict"] <= 1400 and right["estimate"] < right["verdict"], right


@pytest.mark.parametrize("kind", ["speedup", "step_time"])
def test_a_filter_narrows_the_rows_to_the_records_and_each_figure_equals_its_record(page, built,
                                                                                    kind):
    records = built[1]
    machine = records[0]["machine"]
    pick(page, "source", "pins")
    pick(page, "short", short_name(machine))  # the column shows the README's names
    pick(page, "backend", "torch")
    pick(page, "kind", kind)
    expected = {i for i, r in enumerate(records)
                if (r["machine"], r["backend"], r["kind"]) == (machine, "torch", kind)}
    assert expected and len(expected) < 40  # all shown at once (the table renders what is seen)
    page.wait_for_function(f"document.querySelector('#count').innerText.startsWith('{len(expected)} of')")
    shown = dict(rows(page))
    assert set(shown) == expected
    for i, cells in shown.items():
        rec = records[i]
        assert cells["estimate"] == [rec["estimate"]], (i, cells, rec)
        assert cells["interval"] == [v for v in (rec["low"], rec["high"]) if v is not None]
        assert float(cells["shown"].split()[0].rstrip("×").replace(",", "")) == pytest.approx(
            rec["estimate"] * (1e3 if rec["unit"] == "s" and rec["estimate"] < 1 else 1), rel=6e-3)
        assert (cells["verdict"], cells["target"]) == (rec["verdict"] or "", rec.get("target") or "")
        assert cells["run"] == "+".join(rec.get("pooled_runs") or [rec["run"]])
        assert (cells["machine"], cells["kind"]) == (short_name(machine), kind)


def test_the_rows_shown_download_as_csv_each_equal_to_its_record(page, built):
    """A reader's filter, then 'Download these rows (CSV)': one line per row shown, in its order,
    each with its record's exact figures and runs (a spreadsheet gets what the page shows)."""
    import csv
    import io
    records = built[1]
    pick(page, "source", "pins")
    pick(page, "backend", "chainer")
    pick(page, "kind", "speedup")
    expected = [i for i, r in enumerate(records) if (r["backend"], r["kind"]) == ("chainer",
                                                                                 "speedup")]
    page.wait_for_function(f"document.querySelector('#count').innerText.startsWith("
                           f"'{len(expected)} of')")
    with page.expect_download() as download:
        page.click("#csv")
    assert download.value.suggested_filename == "graphbench-figures.csv"
    lines = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
    assert sorted(int(line["id"]) for line in lines) == expected
    order = page.eval_on_selector_all("#figure-table .tabulator-row", "rows => rows.map("
                                      "row => Number(row.dataset.rec))")
    assert [int(line["id"]) for line in lines][:len(order)] == order  # the table's order
    for line in lines:
        rec = records[int(line["id"])]
        assert (line["machine"], line["model"], line["variant"], line["phase"]) == (
            rec["machine"], rec["model"] or "", rec["variant"], rec["phase"])
        for field in ("estimate", "low", "high"):
            assert (float(line[field]) if line[field] else None) == rec[field], (field, rec)
        assert line["runs"] == "+".join(rec.get("pooled_runs") or [rec["run"]])
        assert line["verdict"] == (rec["verdict"] or "") and line["unit"] == rec["unit"]


def test_a_machines_short_name_shows_its_whole_description_on_hover(page, built):
    """The machine column says 'Zen 5'; hovering it shows the machine's whole description, with no
    console error (the tooltip function took the cell first and threw on every hover)."""
    cell = '#figure-table .tabulator-row [tabulator-field="short"]'
    short = page.inner_text(cell).strip()
    page.hover(cell)
    page.wait_for_selector(".tabulator-tooltip", timeout=5000)
    whole = page.inner_text(".tabulator-tooltip").strip()
    assert whole in {r["machine"] for r in built[1]} and short_name(whole) == short, whole
    assert page.errors == []


def test_a_rows_details_show_its_runs_commit_versions_and_threads(page, built):
    pick(page, "kind", "speedup")
    page.wait_for_function("!document.querySelector('#count').innerText.startsWith("
                           "document.querySelector('#count').innerText.split(' of ')[1])")
    page.click("#figure-table .tabulator-row [tabulator-field=model]")
    details = page.inner_text("#details")
    rec = built[1][int(page.get_attribute("#figure-table .tabulator-row", "data-rec"))]
    assert rec["commit"] in details and "threads" in details and "versions" in details
    assert rec["code"] and rec["code"] in details  # the runs' timing code, what pools them
    assert all(run in details for run in rec.get("pooled_runs") or [rec["run"]])


def test_a_run_cell_of_several_runs_may_break_after_each_plus(page):
    """The answer's run cells join up to four runs with "+", where a line may not break: each
    gets a break opportunity there, so the figures beside it keep their width; its text stays."""
    page.click('nav button[data-tab="answer"]')
    joins = page.eval_on_selector_all("#answer td, #tables td", """tds => tds.flatMap(td =>
        [...td.childNodes].filter(n => n.nodeType === Node.TEXT_NODE && n.textContent === "+"
                                       && n.previousSibling?.nodeName === "CODE")
        .map(n => n.nextSibling?.nodeName))""")
    assert len(joins) > 100 and set(joins) == {"WBR"}  # each "+" between two runs, then a break
    assert re.search(r"\b\d{4}_\w+\+\d{4}_", page.inner_text("#answer"))  # copied as it was


def test_compare_shows_each_sides_record_and_names_what_a_row_is(page, built):
    """Compare: two machines' figures of one workload side by side, each equal to its own record
    (never a ratio between them), under a first column whose title says what each row's key is."""
    records = built[1]
    page.click('nav button[data-tab="compare"]')
    page.wait_for_selector("#compare-table .tabulator-row", state="visible")
    title = lambda: page.inner_text('#compare-table .tabulator-col[tabulator-field="where"] '
                                    ".tabulator-col-title").strip()
    assert title() == "source · framework"
    a, b = page.input_value("#cmp-a"), page.input_value("#cmp-b")
    assert a != b
    named = page.eval_on_selector_all("#cmp-a option, #cmp-b option",
                                      "options => options.map(o => [o.value, o.textContent])")
    # the README's names (a machine whose short name another shares keeps its whole name)
    assert all(text in (short_name(value), value) for value, text in named)
    assert any(text == short_name(value) != value for value, text in named)
    shown = page.eval_on_selector_all("#compare-table .tabulator-row", """rows => rows.map(row => {
        const text = f => row.querySelector(`[tabulator-field="${f}"]`).innerText.trim();
        return [text("where"), text("model"), text("variant"), text("phase"), text("a.run"),
                text("b.run"), text("a.estimate"), text("b.estimate")];
    })""")
    # each quantity's A beside its B, and the figures within the window: no scrolling to compare
    fields = page.eval_on_selector_all(
        "#compare-table .tabulator-col[tabulator-field]", """cols => cols.map(col => [
            col.getAttribute("tabulator-field"), col.getBoundingClientRect().right])""")
    order = [field for field, _ in fields]
    for quantity in ("estimate", "low", "verdict", "release", "run"):
        assert order.index(f"b.{quantity}") == order.index(f"a.{quantity}") + 1, order
    assert dict(fields)["b.verdict"] <= page.viewport_size["width"], fields
    pinned = [row for row in shown if row[0].startswith("pins · ")]  # summary.json's records
    assert pinned
    for where, model, variant, phase, run_a, run_b, shown_a, shown_b in pinned:
        backend = where.removeprefix("pins · ")
        for machine, run, estimate in ((a, run_a, shown_a), (b, run_b, shown_b)):
            rec = [r for r in records if (r["machine"], r["backend"], r["model"], r["variant"],
                                          r["phase"], r["kind"]) ==
                   (machine, backend, model, variant, phase, "speedup")
                   and "+".join(r.get("pooled_runs") or [r["run"]]) == run]
            assert len(rec) == 1, (machine, where, model, variant, phase, run)
            assert float(estimate.rstrip("×").replace(",", "")) == pytest.approx(
                rec[0]["estimate"], rel=6e-3)
    page.select_option("#cmp-by", "release")
    page.wait_for_function("document.querySelector('#compare-table "
                           "[tabulator-field=where] .tabulator-col-title').innerText === 'machine'")
    a, b = page.input_value("#cmp-a"), page.input_value("#cmp-b")
    framework = a.split()[0]  # two releases of one framework, never two frameworks
    assert a != b and b.split()[0] == framework
    assert all(o.split()[0] == framework for o in page.eval_on_selector_all(
        "#cmp-b option", "options => options.map(o => o.textContent)"))
    releases = page.eval_on_selector_all("#compare-table .tabulator-row", """rows => rows.map(
        row => ["a.release", "b.release", "where"].map(
            f => row.querySelector(`[tabulator-field="${f}"]`).innerText.trim()))""")
    assert releases and all(row[:2] == [a, b] for row in releases)
    # each row's machine by the README's short name, as the other tabs name it
    machines = {short_name(r["machine"]) for r in records}
    assert all(row[2] in machines for row in releases), releases
    page.hover('#compare-table .tabulator-row [tabulator-field="where"]')  # as in Figures
    page.wait_for_selector(".tabulator-tooltip", timeout=5000)
    whole = page.inner_text(".tabulator-tooltip").strip()
    assert whole in {r["machine"] for r in records} and short_name(whole) == releases[0][2]
    assert page.errors == []
    assert page.errors == []


def _heights(page, table):
    """(the table's height inside its border, its rows' area, the rows' own height) in px."""
    return page.eval_on_selector(table, """el => [el.clientHeight,
        el.querySelector(".tabulator-tableholder").clientHeight,
        el.querySelector(".tabulator-table").offsetHeight]""")


def test_a_table_of_few_rows_ends_below_them_and_many_keep_the_windows_height(page):
    """A filter or a comparison that leaves a few rows: the table ends below them (it stood 62vh
    tall over a grey box); all rows again: the fixed height, which still follows the window."""
    full = lambda: round(0.62 * page.viewport_size["height"])
    table, rows_area, _ = _heights(page, "#figure-table")
    assert abs(table - full()) <= 1 and rows_area < table
    pick(page, "kind", "busy_step_time")  # eight rows
    page.wait_for_function("document.querySelectorAll('#figure-table .tabulator-row').length < 15")
    page.wait_for_timeout(300)
    table, rows_area, rows = _heights(page, "#figure-table")
    assert rows > 0 and abs(rows_area - rows) <= 1 and table < full() - 100, (table, rows)
    page.click("#clear")
    page.wait_for_function("document.querySelectorAll('#figure-table .tabulator-row').length > 15")
    page.wait_for_timeout(300)
    assert abs(_heights(page, "#figure-table")[0] - full()) <= 1
    page.set_viewport_size({"width": 1600, "height": 700})
    page.wait_for_function(f"document.querySelector('#figure-table').clientHeight < {full() + 50}")
    assert abs(_heights(page, "#figure-table")[0] - full()) <= 1
    page.click('nav button[data-tab="compare"]')
    page.select_option("#cmp-by", "release")  # five workloads under two JAX releases
    page.wait_for_function("document.querySelectorAll('#compare-table .tabulator-row').length < 15")
    page.wait_for_timeout(300)
    table, rows_area, rows = _heights(page, "#compare-table")
    assert rows > 0 and abs(rows_area - rows) <= 1 and table < full() - 100, (table, rows)
    assert page.errors == []


def test_each_tab_has_its_own_address_and_back_returns(page):
    """A tab chosen is in the address (a reader can send it), Back returns to the tab before,
    and a tab's name typed after '#' shows it without a reload."""
    visible = lambda: visible_tabs(page)
    page.click('nav button[data-tab="runs"]')
    assert page.url.endswith("#runs") and visible() == ["runs"]
    page.click('nav button[data-tab="answer"]')
    assert page.url.endswith("#answer") and visible() == ["answer"]
    page.go_back()
    page.wait_for_function("document.querySelector('#runs').offsetParent !== null")
    assert visible() == ["runs"]
    page.evaluate("location.hash = 'compare'")
    page.wait_for_selector("#compare-table .tabulator-row", state="visible")
    assert visible() == ["compare"] and page.errors == []


def test_the_runs_table_shows_each_runs_timing_code_as_the_hash_is_long(page, built):
    """The runs table's timing code: the 12-character hash, or a run older than the hash its
    commit, cut to as many characters, never the 40 that would crowd the columns after it."""
    page.click('nav button[data-tab="runs"]')
    page.wait_for_selector("#run-table .tabulator-row", state="visible")
    shown = page.eval_on_selector_all('#run-table .tabulator-row [tabulator-field="code"]',
                                      "cells => cells.map(c => c.innerText.trim())")
    codes = {(r.get("code") or "")[:12] for r in page_data(built[0])["runs"]}
    assert shown and max(map(len, shown)) == 12 and set(shown) <= codes


def test_a_charts_reading_is_rendered_as_the_readme_renders_it(page):
    """A chart's reading is the README's Markdown: on the page, bold and code, not '**' or '`'."""
    page.click('nav button[data-tab="charts"]')
    page.wait_for_selector("#charts .chart p", state="visible")
    readings = page.eval_on_selector_all(".chart", "charts => charts.map(c => "
                                         "[c.lastElementChild.innerText, c.lastElementChild.innerHTML])")
    assert readings and not [text for text, _ in readings if "`" in text or "**" in text]
    assert any("<code>" in html for _, html in readings)


def test_the_machine_column_names_each_machine_as_the_readme_does(page, built):
    """The figures' machine column and its filter give the README's short names (the whole
    description began 'vm (Intel(R) Xeon(R) Processor, fa…' for three machines), one per machine."""
    page.click('#figure-table .tabulator-col[tabulator-field="short"] .tabulator-header-filter input')
    listed = page.eval_on_selector_all(".tabulator-edit-list .tabulator-edit-list-item",
                                       "items => items.map(i => i.innerText.trim())")
    machines = {r["machine"] for r in built[1]}
    assert {short_name(m) for m in machines} <= set(listed)
    assert len(set(listed)) == len(listed) >= len(machines) > 1


def test_a_browser_that_cannot_unpack_the_data_says_which_can(browser, built):
    """The page's data is packed (gzip): a browser without DecompressionStream shows why the
    figures are missing and which browsers show them, not an empty page."""
    tab = browser.new_page()
    tab.add_init_script("delete window.DecompressionStream")
    tab.goto(built[0].as_uri())
    tab.wait_for_selector("header strong", timeout=5000)
    assert "lacks DecompressionStream" in tab.inner_text("header strong")
    assert "Firefox 113" in tab.inner_text("header strong")
    assert not tab.query_selector("#figure-table .tabulator-row")
    tab.close()
