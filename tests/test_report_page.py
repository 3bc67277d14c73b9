"""The results page (report/views/page.py) is published with the README: every record of summary.json
and every run in it, its libraries inlined; bad input is one line and the old page stays."""
import gzip
import json
import re
import shutil

import pytest

from report import __main__ as cli
from report.views import page
from tests.reporting import page_data
from tests.test_report_runs import QUICK, save


@pytest.fixture
def published(tmp_path):
    """(args, page path): a README, summary.json and page made from one run."""
    save(tmp_path / "results", json.loads(QUICK.read_text()), "0001_quick", "2026-01-01T00:00:00")
    readme = tmp_path / "README.md"
    readme.write_text(f"{cli.SUMMARY_START}\n{cli.SUMMARY_END}\n{cli.START}\n{cli.END}\n")
    args = ["--results", str(tmp_path / "results"), "--readme", str(readme)]
    assert cli.main(args) == 0
    return args, tmp_path / "results" / page.PAGE


def test_every_record_and_run_is_on_the_page(published):
    _, path = published
    data = page_data(path)
    summary = json.loads((path.parent / "summary.json").read_text())["records"]
    assert len(data["records"]) == len(summary) > 0
    for shown, rec in zip(data["records"], summary):
        assert {k: v for k, v in shown.items() if k not in ("id", "source", "half")} == \
            {k: v for k, v in rec.items() if v is not None}
    runs = {(r["machine"], r["run"]) for r in data["runs"]}
    assert {(r["machine"], r["run"]) for r in summary} <= runs
    one = data["runs"][0]
    assert one["commit"] and one["date"].startswith("2026-01-01") and one["versions"]
    assert one["threads"] and one["frameworks"] == {"chainer": one["versions"]["chainer"]}


def test_the_page_opens_with_the_readmes_short_answer(published):
    """The page's answer starts as the README's does, what graph mode gives per framework, what
    to do in your case and the machines they name, then the answer in full with its tables."""
    args, path = published
    readme = (path.parents[1] / "README.md").read_text()
    summary = readme.split(cli.SUMMARY_START)[1].split(cli.SUMMARY_END)[0].strip()
    short = summary[:summary.index("\n\n**Scope**")]
    assert short.startswith("**In short**") and "\n**What to do in your case**:" in short
    assert "\nMachines: " in short
    answer = page_data(path)["answer"].replace("](../", "](")  # its links lead from results/
    assert answer.startswith(short + "\n\n**Scope**")
    assert "Each framework against its own eager mode" in answer and "| backend | model |" in answer


def test_the_page_opens_from_disk_with_its_libraries_inlined(published):
    text = published[1].read_text()
    assert "Tabulator v6.3.1" in text and "marked v15.0.12" in text and "/*@" not in text
    assert not re.search(r'<(script|link)[^>]+(src|href)=', text)  # nothing fetched
    assert len(text.encode()) < 5 * 2 ** 20


def test_the_pages_data_is_packed_and_the_same_bytes_at_every_redraw(monkeypatch):
    """The page's data is JSON in gzip in base64, a fraction of the bytes (each GPU call carries
    the tree), and the same bytes at every redraw (no gzip time stamp); a file without it is not
    a results page, in one line."""
    data = {"records": [{"estimate": 1.5, "note": "</script> ü"}] * 50}
    text = page.page_html(data)
    monkeypatch.setattr(gzip.time, "time", lambda: 2e9)  # a redraw at another second
    assert page.page_html(data) == text and page.unpacked(text) == data
    assert len(page.packed(data)) < len(json.dumps(data)) / 4
    with pytest.raises(ValueError, match="not a results page"):
        page.unpacked("<html></html>")


def test_a_missing_library_file_is_one_line_and_leaves_the_page(published, tmp_path, capsys,
                                                                monkeypatch):
    args, path = published
    before = path.read_bytes()
    assets = shutil.copytree(page.ASSETS, tmp_path / "assets")
    (assets / "tabulator" / "tabulator.min.js").unlink()
    monkeypatch.setattr(page, "ASSETS", assets)
    capsys.readouterr()
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "tabulator.min.js" in err[-1] and "not changed" in err[-1]
    assert path.read_bytes() == before


@pytest.mark.parametrize("where", ["", "versions/torch-2.13.0/m"])
def test_a_damaged_run_is_one_line_and_leaves_the_page(published, tmp_path, capsys, where):
    args, path = published
    before = path.read_bytes()
    folder = tmp_path / "results" / where
    save(folder, json.loads(QUICK.read_text()), "0002_quick", "2026-02-01T00:00:00", scale=1.5)
    (folder / "0003_quick.json").write_text('{"benchmarks": [')
    capsys.readouterr()
    assert cli.main(args) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "0003_quick.json" in last and "--skip-damaged" in last
    assert path.read_bytes() == before


def test_another_releases_runs_are_on_the_page_apart(published, tmp_path):
    args, path = published
    save(tmp_path / "results" / "versions" / "chainer-old" / "m", json.loads(QUICK.read_text()),
         "0001_quick", "2026-02-01T00:00:00", scale=1.5)
    assert cli.main(args) == 0
    data = page_data(path)
    sources = {r["source"] for r in data["records"]}
    assert sources == {"pins", "versions/chainer-old"}
    assert {r["source"] for r in data["runs"]} == sources
    summary = json.loads((path.parent / "summary.json").read_text())["records"]
    assert len(summary) == sum(r["source"] == "pins" for r in data["records"])


def test_an_interrupted_report_leaves_the_page(published, capsys, monkeypatch):
    args, path = published
    before = path.read_bytes()

    def stopped(*a, **kw):
        raise cli.stops.Stopped(15)
    monkeypatch.setattr(cli, "publish", stopped)  # once every file is made, before one moves
    assert cli.main(args) == 128 + 15
    assert path.read_bytes() == before


def test_links_in_the_markdown_point_from_the_page_to_the_repository():
    assert page.relinked("[a](findings/x.md) [b](#here) [c](https://x.org/y)", "../") == \
        "[a](../findings/x.md) [b](#here) [c](https://x.org/y)"


def test_without_chromium_or_the_right_to_install_it_the_browser_tests_say_why(monkeypatch):
    from tests import browser
    monkeypatch.setattr(browser, "PATHS", ("/nonexistent/chromium",))
    monkeypatch.delenv("GRAPHBENCH_CHROMIUM", raising=False)
    monkeypatch.setattr(browser.os, "geteuid", lambda: 1000)
    path, why = browser.chromium()
    assert path is None and "no Chromium" in why and "\n" not in why


def test_a_float_differing_in_its_last_bits_is_the_same_published_figure():
    """tests/published.py compares summary.json to 1e-9: another CPU's vector sums, not a change."""
    from tests.published import same
    assert same({"x": [0.1 + 0.2, 1, "a", None]}, {"x": [0.3, 1, "a", None]})
    assert not same({"x": [0.3001]}, {"x": [0.3]}) and not same([1.0], [1.0, 2.0])
    assert not same({"x": 1.0}, {"y": 1.0}) and not same("1.0", 1.0) and not same(True, 1.0)


def test_a_redraw_on_another_cpu_writes_the_same_summary_and_page():
    """numpy's sums differ in their last bits from one vector ISA to another (164 of summary.json's
    174,643 values between a Zen 3 and a Zen 4 drawing the same runs): both files round them."""
    def written(*values):
        records = [{"estimate": values[0], "aa": {"low": values[1]}, "runs": [values[2], "a"]}]
        return cli.summary_json([(None, None, records)]), page.page_html({"records": records})
    assert written(0.1 + 0.2, 1.0000000000000002, 2.0) == written(0.3, 1.0, 2.0)
    assert written(0.3001, 1.0, 2.0)[0] != written(0.3, 1.0, 2.0)[0]
    assert written(0.3, 1.0, 2.0001)[1] != written(0.3, 1.0, 2.0)[1]


def test_a_machine_is_named_on_the_page_as_in_the_readme():
    """The page names a machine by its short name (Zen 5, H100); two machines whose short names
    meet (the same CPU with other core counts) are told apart as the README tells them."""
    zen5 = "vm (AMD EPYC, family 26 model 2, AVX-512+VNNI+BF16, 2 cores)"
    four, eight = (f"vm (AMD EPYC, family 25 model 17, AVX-512+VNNI+BF16, {n} cores)" for n in (4, 8))
    runs = [{"machine": m, "run": "0001_default"} for m in (zen5, four, eight)]
    names = {m: found["short"] for m, found in page.page_data([("pins", [], runs)])["machines"].items()}
    assert names == {zen5: "Zen 5", four: "Zen 4 with 4 cores", eight: "Zen 4 with 8 cores"}
