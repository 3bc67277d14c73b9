"""The results page: one HTML file holding every figure record and run, the answer and each
machine's tables, with its script and the vendored libraries inlined, so that it opens from disk
with no server. A view: it shows the records as they are and decides nothing."""
import base64
import gzip
import json
import re
from pathlib import Path

from machines import gpu_model, named_among, short_name
from report.build.ratios import half_width
from report.views.text import rounded

PAGE = "index.html"  # the page's name in the results folder (beside summary.json)
ASSETS = Path(__file__).with_name("page_assets")
# (placeholder in page.html, file under ASSETS): the vendored libraries (VENDORED.md), then ours
INLINED = (("TABULATOR_CSS", "tabulator/tabulator.min.css"), ("PAGE_CSS", "page.css"),
           ("TABULATOR_JS", "tabulator/tabulator.min.js"), ("MARKED_JS", "marked/marked.min.js"),
           ("PAGE_JS", "page.js"))
LOCAL_LINK = re.compile(r"(\]\()(?!https?:|#|/|mailto:)([^)\s]+\))")
DATA = re.compile(r'<script id="data" type="application/gzip">(.*?)</script>', re.S)
# the views' links into the repository, written from its root (the README's folder)
REPOSITORY_LINK = re.compile(r"(\]\()((?:README\.md|RESULTS\.md|docs/|findings/)[^)\s]*\))")


def asset(name):
    """The text of one file of the page's assets; ValueError with one line when it cannot be read."""
    path = ASSETS / name
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = getattr(error, "strerror", None) or error
        raise ValueError(f"{path}: {why} (a file the results page inlines): the page "
                         "cannot be made; restore it from git") from None


def relinked(markdown, prefix, links=LOCAL_LINK):
    """Markdown written for the repository's root with its local links (those `links` matches)
    made relative to the page, or another file, through `prefix`."""
    return links.sub(lambda m: m[1] + prefix + m[2], markdown) if prefix else markdown


def page_data(sets, charts=(), answer="", tables="", links=(), prefix="", lead=None):
    """The page's data: `sets` is [(source, records, runs)] (summary.json's first: a record's id
    is its index there, the others follow); `charts` [(machine, title, path from the page, reading)];
    the Markdown's and `links`' paths are from the repository's root, `prefix` from the page;
    `lead`: the machine the answer leads with, whose figures the table shows first."""
    records, runs = [], []
    for source, found, their_runs in sets:
        records += [{"id": len(records) + n, "source": source, "half": half_width(rec),
                     **{k: v for k, v in rec.items() if v is not None}}
                    for n, rec in enumerate(found)]
        runs += their_runs
    machines = sorted({r["machine"] for r in records} | {r["machine"] for r in runs})
    with named_among(machines):  # the README's names, told apart where two would meet
        shorts = {m: short_name(m) for m in machines}
    return {"records": records, "runs": runs, "lead": lead,
            "machines": {m: {"device": "GPU" if gpu_model(m) else "CPU", "gpu": gpu_model(m),
                             "short": shorts[m]} for m in machines},
            "charts": [{"machine": m, "title": t, "path": str(p), "reading": reading}
                       for m, t, p, reading in charts],
            "answer": relinked(answer, prefix), "tables": relinked(tables, prefix),
            "links": [{"title": title, "path": prefix + path} for title, path in links]}


def page_html(data):
    """The page: its template with the data (packed) and every asset inlined."""
    text = asset("page.html")
    parts = {name: asset(path) for name, path in INLINED}
    parts["DATA"] = packed(rounded(data))
    return re.sub(r"/\*@(\w+)@\*/", lambda m: parts[m[1]].replace("</script", "<\\/script"), text)


def packed(data):
    """The page's data as its script reads it: JSON, gzip, base64, a ninth of the JSON's bytes
    (each GPU call carries the tree, 64 MiB at most); mtime 0: the same data, the same bytes."""
    text = json.dumps(data, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(gzip.compress(text.encode(), compresslevel=9, mtime=0)).decode()


def unpacked(html):
    """The data a results page's text embeds (`packed`'s inverse); ValueError where it has none."""
    found = DATA.search(html)
    if found is None:
        raise ValueError("no packed data in it (page.html's data script): not a results page")
    return json.loads(gzip.decompress(base64.b64decode(found[1])))


def page_pointer(page, machines):
    """Markdown lines that send a reader of RESULTS.md into the page (`page`: its path from there)."""
    tabs = (("figures", "every figure"), ("compare", "two machines or two releases side by side"),
            ("tables", "each machine's tables"), ("charts", "every chart"), ("runs", "every run"))
    return ["## Every figure, table and chart", "",
            f"On the results page, [{page}]({page}): one HTML file that opens from disk in a "
            "browser, no server (GitHub shows its source: open it from a clone). There: "
            + "; ".join(f"[{what}]({page}#{tab})" for tab, what in tabs)
            + ". Filter by machine, framework, release, model, variant, phase, precision and "
            "figure; each figure with its 95% interval, ±, verdict, target and runs (commit, "
            "versions, threads, date). Machines:", "",
            *(f"- `{machine}`" for machine in machines), ""]
