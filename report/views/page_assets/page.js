// The results page's behaviour: tabs, the figure table (Tabulator), a record's details and runs,
// two machines or releases side by side, the run table, the report's Markdown and the charts.
// It shows the records as the report wrote them: no figure is computed here.
// A module (strict, and it may wait at the top level for the data to inflate).
const DATA = await pageData();
const RUNS = new Map(DATA.runs.map(r => [runKey(r.source, r.machine, r.run), r]));
const EN = "en-US";

// the records, as report/views/page.py packs them: JSON, gzip, base64
async function pageData() {
  if (typeof DecompressionStream === "undefined") {
    document.querySelector("header").insertAdjacentHTML("beforeend", "<p><strong>This browser " +
      "cannot unpack the page's figures (it lacks DecompressionStream): open the page in " +
      "Chrome 80, Firefox 113, Safari 16.4 or later.</strong></p>");
    throw new Error("no DecompressionStream: the page's data stays packed");
  }
  const bytes = Uint8Array.from(atob(document.getElementById("data").textContent.trim()),
                                c => c.charCodeAt(0));
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")))
    .json();
}
function runKey(source, machine, run) { return `${source}|${machine}|${run}`; }
function esc(text) {
  const entity = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"};
  return String(text).replace(/[&<>"]/g, c => entity[c]);
}
function sig(v, digits = 3) {
  return Number(v.toPrecision(digits)).toLocaleString(EN, {maximumFractionDigits: 6});
}

// a value in its unit, as a reader reads it (the record keeps the exact number: data-v)
function shown(v, unit) {
  if (v === undefined || v === null) return "";
  switch (unit) {
    case "x": return `${v.toFixed(v < 10 ? 3 : 2)}×`;
    case "s":
      return v < 1e-3 ? `${sig(v * 1e6)} µs` : v < 1 ? `${sig(v * 1e3)} ms` : `${sig(v)} s`;
    case "bytes": return `${sig(v / 2 ** 20)} MiB`;
    case "fraction": case "relative sd": return `${sig(v * 100)}%`;
    case "steps": return Math.round(v).toLocaleString(EN);
    case "1/s": return `${sig(v)}/s`;
    default: return `${sig(v)} ${unit}`;
  }
}
function num(v, unit) {
  if (v === undefined || v === null) return "";
  return `<span class="num" data-v="${v}">${shown(v, unit)}</span>`;
}
function release(rec) {
  const run = RUNS.get(runKey(rec.source, rec.machine, rec.run));
  const version = run && run.frameworks[rec.backend];
  return version ? `${rec.backend} ${version}` : "";
}
function device(rec) { return (DATA.machines[rec.machine] || {}).device || ""; }
function short(machine) { return (DATA.machines[machine] || {}).short || machine; }
// a machine column: the README's short name, filtered by it; the whole description on hover
// Tabulator 6 calls a tooltip function with (event, cell): a cell-first one threw on each hover
const wholeMachine = (e, c) => c.getRow().getData().machine;
const MACHINE = {title: "machine", field: "short", tooltip: wholeMachine};
function runsOf(rec) { return rec.pooled_runs || [rec.run]; }
function runLinks(rec) {
  return runsOf(rec).map(run => `<a class="run" data-source="${esc(rec.source)}" data-machine="${
    esc(rec.machine)}" data-run="${esc(run)}">${esc(run)}</a>`).join("+");
}

function tabs() {
  const nav = document.getElementById("tabs");
  // the answer first: a reader opening the page reads it before any single figure
  const names = {answer: "The answer", figures: "Figures", compare: "Compare", runs: "Runs",
                 tables: "Tables", charts: "Charts"};
  for (const [id, title] of Object.entries(names)) {
    const button = document.createElement("button");
    button.type = "button"; button.textContent = title; button.dataset.tab = id;
    // a link to the tab
    button.onclick = () => { history.pushState(null, "", `#${id}`); show(id); };
    nav.appendChild(button);
  }
  document.getElementById("links").innerHTML = DATA.links.map(
    l => `<a href="${esc(l.path)}">${esc(l.title)}</a>`).join(" · ");
  const wanted = () => show(names[location.hash.slice(1)] ? location.hash.slice(1) : "answer");
  // back, forward, or a tab's name typed after "#"
  window.addEventListener("popstate", wanted);
  wanted();
}
function show(id) {
  for (const el of document.querySelectorAll(".tab")) el.classList.toggle("on", el.id === id);
  for (const el of document.querySelectorAll("nav button")) {
    el.classList.toggle("on", el.dataset.tab === id);
  }
  // built once shown: Tabulator measures its box
  if (BUILD[id]) BUILT[id] = BUILT[id] || BUILD[id]();
}

const LISTED = {headerFilter: "list", headerFilterFunc: "=",
                headerFilterParams: {valuesLookup: "active", clearable: true, sort: "asc"}};
const TYPED = {headerFilter: "input"};

// the table's fixed height in vh (virtual rows: thousands stay fast), which follows the window,
// less the grey space that a few rows leave below them; checked after each render (a filter,
// other data). The virtual rows pad the table to their full height, so many keep the fixed one
function fitted(table) {
  const fixed = table.options.height, vh = parseFloat(fixed);
  let resized = false;  // the render that setHeight causes ends the fit: no loop of resizes
  table.on("renderComplete", () => {
    const el = table.element, holder = el.querySelector(".tabulator-tableholder");
    // inside the table's border, as setHeight sets it: the header, any scrollbar and the rows
    const needed = el.clientHeight - holder.clientHeight
      + el.querySelector(".tabulator-table").offsetHeight;
    const fits = needed < vh * window.innerHeight / 100;
    const height = fits ? `${Math.ceil(needed)}px` : fixed;
    if (resized || el.style.height === height || fits && Math.abs(needed - el.clientHeight) <= 1) {
      resized = false;
      return;
    }
    resized = true;
    table.setHeight(height);
  });
  return table;
}

function figureTable() {
  // the answer's machine first (a stable sort: each machine's rows keep the records' order)
  const rows = DATA.records.map(
    r => ({...r, device: device(r), release: release(r), short: short(r.machine)}))
    .sort((x, y) => (y.machine === DATA.lead) - (x.machine === DATA.lead));
  // what a figure is, then the figure and its verdict (within a 1400 px window), then its sources
  const columns = [
    {title: "device", field: "device", ...LISTED},
    {...MACHINE, ...LISTED},
    {title: "framework", field: "backend", ...LISTED},
    {title: "model", field: "model", ...LISTED},
    {title: "variant", field: "variant", ...LISTED},
    {title: "phase", field: "phase", ...LISTED},
    {title: "precision", field: "precision", ...LISTED},
    {title: "case", field: "case", ...TYPED, width: 110},
    {title: "figure", field: "kind", ...LISTED},
    {title: "estimate", field: "estimate", sorter: "number", hozAlign: "right",
     formatter: c => num(c.getValue(), c.getData().unit)},
    {title: "95% interval", field: "low", sorter: "number", hozAlign: "right",
     formatter: c => interval(c.getData())},
    {title: "±", field: "half", sorter: "number", hozAlign: "right",
     formatter: c => c.getValue() == null ? "" : `<span class="num" data-v="${c.getValue()}">${
       plusMinus(c.getValue())}</span>`},
    {title: "verdict", field: "verdict", ...LISTED,
     formatter: c => c.getValue()
       ? `<span class="${esc(c.getValue())}">${esc(c.getValue())}</span>` : ""},
    {title: "target", field: "target", ...LISTED},
    {title: "release", field: "release", ...LISTED},
    {title: "source", field: "source", ...LISTED},
    {title: "run", field: "run", ...TYPED, formatter: c => runLinks(c.getData())},
    {title: "processes × rounds", field: "processes", sorter: "number",
     formatter: c => `${c.getValue() ?? ""} × ${c.getData().rounds ?? ""}`},
  ];
  const table = fitted(new Tabulator("#figure-table", {
    data: rows, columns, index: "id", height: "62vh", layout: "fitDataFill",
    rowFormatter: row => { row.getElement().dataset.rec = row.getData().id; },
  }));
  table.on("dataFiltered", (filters, found) => count(found.length));
  table.on("tableBuilt", () => count(rows.length));
  table.on("rowClick", (e, row) => { if (!e.target.closest("a.run")) details(row.getData()); });
  document.getElementById("clear").onclick = () => table.clearHeaderFilter();
  document.getElementById("csv").onclick = () => saveCsv(table.getData("active"));
  return table;
}
// the rows a reader filtered, as their records hold them (exact numbers, SI units), in the order
// shown; `id`: the record's index among the page's (summary.json's first, then other releases')
const CSV_FIELDS = ["id", "machine", "source", "backend", "release", "model", "variant", "phase",
                    "precision", "case", "kind", "unit", "estimate", "low", "high", "half",
                    "verdict", "target", "runs", "processes", "rounds", "commit", "code"];
function saveCsv(rows) {
  const cell = v => v === undefined || v === null ? ""
    : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v);
  const lines = [CSV_FIELDS, ...rows.map(r => CSV_FIELDS.map(
    f => f === "runs" ? runsOf(r).join("+") : r[f]))].map(row => row.map(cell).join(","));
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], {type: "text/csv"}));
  link.download = "graphbench-figures.csv";
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
function plusMinus(half) { return `±${(100 * half).toFixed(1)}%`; }
function interval(rec) {
  if (rec.low === undefined || rec.high === undefined) return "";
  return `<span title="${esc(rec.interval || "")}">[${num(rec.low, rec.unit)}, ${
    num(rec.high, rec.unit)}]</span>`;
}
function count(n) {
  document.getElementById("count").textContent =
    `${n.toLocaleString(EN)} of ${DATA.records.length.toLocaleString(EN)} figures`;
}

const WORKLOAD = ["model_config", "input_shape", "batch", "params", "flops", "threads", "device",
                  "vector_isa", "wait"];
function fields(obj, keys) {
  const text = v => typeof v === "object" ? JSON.stringify(v) : v;
  return `<dl class="rec">${keys.filter(k => obj[k] !== undefined && obj[k] !== null).map(k =>
    `<dt>${esc(k)}</dt><dd>${esc(text(obj[k]))}</dd>`).join("")}</dl>`;
}
function details(rec) {
  const main = ["machine", "source", "backend", "model", "variant", "phase", "precision", "case",
                "kind", "unit", "interval", "significant", "verdict", "target", "stopped_by",
                "reached_target", "target_minutes", "best", "processes", "rounds",
                "aa_floor_low", "aa_floor_high", "known_wrong", "note"];
  const shownAbove = ["id", "estimate", "low", "high", "half", "run", "pooled_runs", "commit",
                      "code", "dirty", "release"];
  const rest = Object.keys(rec).filter(
    k => !main.includes(k) && !WORKLOAD.includes(k) && !shownAbove.includes(k));
  const title = [rec.backend, rec.model ?? "", rec.variant, rec.phase, rec.kind].map(esc);
  document.getElementById("details").innerHTML =
    `<h2>${title.join(" · ")}</h2>
     <p>${num(rec.estimate, rec.unit)} ${interval(rec)} ${
       rec.half == null ? "" : plusMinus(rec.half)}
     ${esc(rec.verdict || "")}; runs: ${runLinks(rec)}</p>
     ${fields(rec, main)}<h3>Workload</h3>${fields(rec, WORKLOAD)}<h3>More</h3>${fields(rec, rest)}
     <h3>Runs</h3>${runsOf(rec).map(run => runBox(rec.source, rec.machine, run)).join("")}`;
}
function runBox(source, machine, name) {
  const run = RUNS.get(runKey(source, machine, name));
  if (!run) return `<p>${esc(name)}: not a saved suite run (a study under results/findings/)</p>`;
  return `<h4>${esc(name)}</h4>${fields({...run, versions: versionText(run.versions)},
    ["machine", "date", "commit", "code", "dirty", "profile", "job", "threads", "device", "python",
     "versions", "complete", "file"])}`;
}
function versionText(versions) {
  return Object.entries(versions || {}).map(([k, v]) => `${k} ${v}`).join(", ");
}
document.addEventListener("click", e => {
  const link = e.target.closest("a.run");
  if (!link) return;
  const {source, machine, run} = link.dataset;
  document.getElementById("details").innerHTML =
    `<h2>Run ${esc(run)}</h2>` + runBox(source, machine, run);
  document.getElementById("details").scrollIntoView();
});

function runTable() {
  const rows = DATA.runs.map(r => ({...r, short: short(r.machine),
    commit8: (r.commit || "").slice(0, 8) + (r.dirty ? "†" : ""),
    versionText: versionText(r.versions), device: r.device}));
  return new Tabulator("#run-table", {
    data: rows, height: "70vh", layout: "fitDataFill",
    columns: [
      {title: "source", field: "source", ...LISTED}, {...MACHINE, ...LISTED},
      {title: "run", field: "run", ...TYPED}, {title: "date (UTC)", field: "date", ...TYPED},
      {title: "commit", field: "commit8", ...TYPED},
      // a commit where a run predates the hash
      {title: "timing code", field: "code", ...LISTED, tooltip: true,
       formatter: c => esc((c.getValue() || "").slice(0, 12))},
      {title: "profile", field: "profile", ...LISTED},
      {title: "job", field: "job", ...LISTED}, {title: "threads", field: "threads", ...LISTED},
      {title: "device", field: "device", ...LISTED}, {title: "Python", field: "python", ...LISTED},
      {title: "versions", field: "versionText", ...TYPED},
      {title: "complete", field: "complete", formatter: "tickCross"}],
  });
}

// the compare tab: a row per workload and figure, A's record beside B's, never divided
// `peer`: whether two sides may meet (two releases: of one framework, never two frameworks)
// `shown`: a row's key as the first column says it (a machine by its short name, as elsewhere)
const SIDE = {
  machine: {label: r => r.machine, key: r => [r.source, r.backend], title: "source · framework",
            peer: () => true, shown: r => `${r.source} · ${r.backend}`},
  release: {label: r => r.release, key: r => [r.machine], title: "machine",
            peer: (x, y) => x.split(" ")[0] === y.split(" ")[0], shown: r => short(r.machine)},
};
function compareTable() {
  const rows = DATA.records.map(r => ({...r, release: release(r)}));
  const by = document.getElementById("cmp-by"), a = document.getElementById("cmp-a"),
        b = document.getElementById("cmp-b"), kind = document.getElementById("cmp-kind");
  // each quantity's A and B side by side, where a reader compares them (the runs last: widest)
  const rec = (c, k) => c.getRow().getData()[k];  // this side's record of the row, if measured
  const QUANTITY = {
    estimate: k => ({field: `${k}.estimate`, sorter: "number", hozAlign: "right",
                     formatter: c => rec(c, k) ? num(c.getValue(), rec(c, k).unit) : "—"}),
    "95% interval": k => ({field: `${k}.low`,
                           formatter: c => rec(c, k) ? interval(rec(c, k)) : ""}),
    verdict: k => ({field: `${k}.verdict`}), release: k => ({field: `${k}.release`}),
    run: k => ({field: `${k}.run`, formatter: c => rec(c, k) ? runLinks(rec(c, k)) : ""})};
  const paired = Object.entries(QUANTITY).map(([title, column]) => ({title,
    columns: ["a", "b"].map(k => ({title: k.toUpperCase(), ...column(k)}))}));
  const table = fitted(new Tabulator("#compare-table", {
    height: "62vh", layout: "fitDataFill", data: [],
    columns: [{title: SIDE.machine.title, field: "where", ...TYPED,
               tooltip: (e, c) => by.value === "release" ? wholeMachine(e, c) : false},
              {title: "model", field: "model", ...LISTED},
              {title: "variant", field: "variant", ...LISTED},
              {title: "phase", field: "phase", ...LISTED},
              {title: "precision", field: "precision", ...LISTED},
              {title: "case", field: "case", ...TYPED}, ...paired],
  }));
  const options = (select, values, chosen, name = v => v) => {
    select.innerHTML = values.map(v => `<option value="${esc(v)}" title="${esc(v)}"${
      v === chosen ? " selected" : ""}>${esc(name(v))}</option>`).join("");
  };
  const named = v => by.value === "machine" ? short(v) : v;  // a machine by its short name
  const labels = () => [...new Set(rows.map(SIDE[by.value].label).filter(Boolean))].sort();
  const workload = r => [...SIDE[by.value].key(r), r.model, r.variant, r.phase, r.precision,
                         r.case].join("|");
  let measured = new Map();  // {side's label: its workloads of the chosen figure}
  const peers = x => [...measured.keys()].filter(y => y !== x && SIDE[by.value].peer(x, y));
  const shared = (x, y) => [...measured.get(x)].filter(id => measured.get(y).has(id)).length;
  const closest = x => peers(x).reduce(
    (best, y) => shared(x, y) > shared(x, best) ? y : best, peers(x)[0]);
  function measure() {
    measured = new Map(labels().map(x => [x, new Set()]));
    rows.filter(r => r.kind === kind.value && measured.has(SIDE[by.value].label(r)))
        .forEach(r => measured.get(SIDE[by.value].label(r)).add(workload(r)));
  }
  function sides() {
    table.updateColumnDefinition("where", {title: SIDE[by.value].title});  // what a row's key names
    options(kind, [...new Set(rows.map(r => r.kind))].sort(), kind.value || "speedup");
    measure();
    const found = [...measured.keys()].filter(x => peers(x).length);
    // the first pair shown: the two sides with the most workloads in common
    const most = x => shared(x, closest(x));
    options(a, found, found.reduce((best, x) => most(x) > most(best) ? x : best, found[0]), named);
    partner();
  }
  function partner() {
    options(b, peers(a.value), closest(a.value), named);
    fill();
  }
  function fill() {
    const pick = SIDE[by.value], joined = new Map();
    for (const r of rows) {
      const at = pick.label(r) === a.value ? "a" : pick.label(r) === b.value ? "b" : null;
      if (!at || r.kind !== kind.value) continue;
      const id = workload(r);
      const row = joined.get(id) || {where: pick.shown(r), machine: r.machine, model: r.model,
                                      variant: r.variant, phase: r.phase,
                                      precision: r.precision, case: r.case};
      row[at] = row[at] || r;
      joined.set(id, row);
    }
    const both = [...joined.values()].filter(row => row.a && row.b);
    table.setData(both);
    const alone = by.value === "release" ? "no framework measured under two releases"
                                         : "only one machine measured";
    document.getElementById("cmp-count").textContent = !b.value ? alone
      : `${both.length} workloads measured on both sides (${
        joined.size - both.length} on one side only)`;
  }
  by.onchange = sides; a.onchange = partner; b.onchange = fill;
  kind.onchange = () => { measure(); fill(); };
  table.on("tableBuilt", sides);
  return table;
}

function markdown() {
  document.getElementById("answer").innerHTML = marked.parse(DATA.answer || "_No answer._");
  document.getElementById("tables").innerHTML = marked.parse(DATA.tables || "_No tables._");
  // a run cell joins up to four runs with "+", where no line may break: a break after each
  document.querySelectorAll("#answer td code + code, #tables td code + code").forEach(c => {
    if (c.previousSibling.textContent === "+") c.before(document.createElement("wbr"));
  });
  document.getElementById("charts").innerHTML = DATA.charts.map(c =>
    `<div class="chart"><h2>${esc(c.title)}</h2><p>On <code>${esc(c.machine)}</code></p>
     <img src="${esc(c.path)}" alt="${esc(c.title)}" loading="lazy">
     <p>${marked.parseInline(c.reading)}</p></div>`).join("")
    || "<p>No charts drawn (the report ran without --charts).</p>";
}

const BUILD = {figures: figureTable, runs: runTable, compare: compareTable}, BUILT = {};
markdown();
tabs();
