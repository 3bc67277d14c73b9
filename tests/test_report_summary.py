"""results/summary.json: one record per published figure, and the tables say the same."""
import json

from report import __main__ as cli
from report.build.load import load_dir
from report.build.ratios import gain_bound
from report.publish.write import SUMMARY_END, SUMMARY_START
from tests.reporting import machines_of, views_of, records_of
from tests.test_report_machines import PAIRED, on_machine
from tests.test_report_runs import QUICK, save


def publish(tmp_path):
    """Two machines' runs (one paired, one older and unpaired) published with --readme."""
    results = tmp_path / "results"
    save(results / "a", on_machine(json.loads(PAIRED.read_text()), "ci-a", 1), "0002_default",
         "2026-01-02T00:00:00")
    save(results / "b", on_machine(json.loads(QUICK.read_text()), "ci-b", 1), "0001_default",
         "2026-01-01T00:00:00")
    readme = tmp_path / "README.md"
    readme.write_text(f"{SUMMARY_START}\n{SUMMARY_END}\nintro\n{cli.START}\nOLD\n{cli.END}\n")
    assert cli.main(["--results", str(results), "--readme", str(readme)]) == 0
    return json.loads((results / "summary.json").read_text())["records"], tmp_path


def table_rows(text):
    """{(machine, model, backend, variant): cells} of every main-table row."""
    rows, machine, model = {}, None, None
    for line in text.splitlines():
        if line.startswith("### Machine `"):
            machine = line.split("`")[1]
        elif line.startswith("**") and line.endswith("**"):
            model = line.strip("*")
        elif line.startswith("| ") and model and len(line.split("|")) == 13:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] != "backend":
                rows[(machine, model, cells[0], cells[1].split()[0])] = cells
    return rows


def expected_cell(rec):
    """How a record must read in the table, written out independently of the report's code."""
    est, low, high = rec["estimate"], rec["low"], rec["high"]
    if rec["kind"] == "step_time":
        return "non-finite ✗" if est is None else f"{est * 1e3:.2f} ({low * 1e3:.2f}–{high * 1e3:.2f})"
    if rec["kind"] == "speedup":
        if est is None:
            return f"— ({rec['note']})"
        if rec["interval"] is None:
            return f"{est:.2f}× (unpaired)"
        return f"{est:.2f}× [{low:.2f}, {high:.2f}]" + ("" if rec["significant"] else " ~")
    if rec["kind"] == "break_even":
        if est is None:
            return rec["note"] if rec["note"].startswith("never") else f"— ({rec['note']})"
        return f"{est:,} ({low:,}–{high:,})" if rec["interval"] else str(est)
    return f"{est:.2f}"  # first_call


COLUMN = {("step_time", "train"): 2, ("speedup", "train"): 3, ("step_time", "infer"): 4,
          ("speedup", "infer"): 5, ("first_call", "cold"): 6, ("first_call", "warm"): 7,
          ("break_even", "cold"): 8, ("break_even", "warm"): 9}


def test_every_table_figure_is_a_record_and_agrees(tmp_path):
    records, folder = publish(tmp_path)
    rows = table_rows(cli.details_text(load_dir(folder / "results"), machines_of(load_dir(folder / "results"))))
    checked = 0
    for rec in records:
        column = COLUMN.get((rec["kind"], rec["phase"] if rec["kind"] in ("step_time", "speedup")
                             else rec["case"]))
        if column is None or rec["precision"] != "float32":
            continue
        cells = rows[(rec["machine"], rec["model"], rec["backend"], rec["variant"])]
        assert cells[column] == expected_cell(rec), rec
        assert f"`{rec['run']}`" in cells[10]
        checked += 1
    assert checked == sum(c not in ("—", "1") for cells in rows.values() for c in cells[2:10])
    assert {r["machine"].split()[0] for r in records} == {"ci-a", "ci-b"}


def test_records_carry_their_run_and_the_runs_noise_floor(tmp_path):
    records, _ = publish(tmp_path)
    paired = [r for r in records if r["machine"].startswith("ci-a")]
    floor = {(r["aa_floor_low"], r["aa_floor_high"]) for r in paired}
    aa = [r for r in paired if r["kind"] == "aa_ratio"]
    widest = max(aa, key=lambda r: r["high"] / r["low"])
    assert floor == {(widest["low"], widest["high"])}
    assert all(r["significant"] == (not r["low"] <= 1 <= r["high"]) for r in paired
               if r["interval"] == "95% paired bootstrap")
    assert {(r["processes"], r["rounds"]) for r in paired if r["kind"] == "speedup"} == {(2, 3)}
    steps = {(r["backend"], r["model"], r["variant"], r["phase"]): r for r in paired
             if r["kind"] == "step_time"}
    assert all(r["flops"] == steps[r["backend"], r["model"], r["variant"], r["phase"]]["flops"]
               and r["batch"] for r in paired if r["kind"] == "speedup")  # the setting travels
    unpaired = [r for r in records if r["machine"].startswith("ci-b") and r["kind"] == "speedup"]
    assert unpaired and all(r["interval"] is None and r["significant"] is None for r in unpaired)
    assert {r["run"] for r in paired} == {"0002_default"}


def test_no_summary_when_the_report_fails(tmp_path, capsys):
    save(tmp_path / "results", json.loads(QUICK.read_text()), "0001_default", "2026-01-01T00:00")
    (tmp_path / "README.md").write_text("no markers\n")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme",
                     str(tmp_path / "README.md")]) == 2
    assert not (tmp_path / "results" / "summary.json").exists()


def test_the_summary_is_not_read_back_as_a_run(tmp_path, capsys):
    publish(tmp_path)
    capsys.readouterr()
    load_dir(tmp_path / "results")
    assert "summary.json" not in capsys.readouterr().err


def test_the_summary_keeps_a_record_a_line_without_spaces(tmp_path):
    """Each record on a line of its own (a diff shows which changed), written without the spaces
    json.dumps puts after separators: 8% of summary.json, which every GPU call carries."""
    records, folder = publish(tmp_path)
    lines = (folder / "results" / "summary.json").read_text().splitlines()[1:-1]
    texts = [line.rstrip(",") for line in lines]
    assert len(texts) == len(records) and json.loads(texts[0]) == records[0]
    # each line is its own compact re-serialisation: a quote in a note cannot fool it
    assert texts == [json.dumps(json.loads(text), separators=(",", ":")) for text in texts]


def test_the_answer_names_the_best_variant_its_interval_and_advice(tmp_path):
    records, folder = publish(tmp_path)
    readme = (folder / "README.md").read_text()
    mine = [r for r in records if r["machine"].startswith("ci-a") and r["kind"] == "speedup"
            and r["phase"] == "train" and not r["known_wrong"]]  # a wrong answer is never best
    for rec in mine:  # one graph variant per model in this run: it is the best
        row = next(line for line in readme.splitlines()
                   if line.startswith(f"| chainer | {rec['model']} | `graph` |"))
        assert expected_cell(rec) == row.split("|")[5].strip()
    gains = sorted(r["model"] for r in mine if r["verdict"] == "faster")
    flat = sorted(r["model"] for r in mine if r["model"] not in gains)
    full = (folder / "RESULTS.md").read_text()  # each backend's advice: the answer in full
    advice = next(line for line in full.splitlines() if line.startswith("- **chainer**"))
    assert all(f"`graph` on {m}" in advice for m in gains)
    by_model = {r["model"]: r for r in mine}
    for m in flat:  # the largest gain its interval leaves open (or slower)
        high, verdict = by_model[m]["high"], by_model[m]["verdict"]
        assert f"{m} ({'undecided: ' if verdict == 'undecided' else 'slower' if high < 1 else gain_bound(high)}" in advice
    assert "(from unpaired ratios" not in advice.split("**On `ci-b")[0]


def paired_with_construction(tmp_path, startups=None):
    """The paired steady run with the quick run's construction results, as one run; with
    `startups` ({model: seconds per round}), as fresh-process rounds that saved their start-up."""
    paired, quick = json.loads(PAIRED.read_text()), json.loads(QUICK.read_text())
    paired["benchmarks"] += [b for b in quick["benchmarks"]
                             if b["extra_info"]["phase"] == "construction"]
    for b in paired["benchmarks"]:
        if startups and b["extra_info"]["phase"] == "construction":
            b["extra_info"].update(fresh_process=True, startup_s=startups[b["extra_info"]["model"]])
    save(tmp_path, paired, "0001_default", "2026-01-01T00:00:00")
    return load_dir(tmp_path)


def test_break_even_from_the_speedups_interval(tmp_path):
    """Paired steady steps and construction in one run: a range, or no gain past ±3%."""
    from report.build.steady import steady_records
    records = steady_records(paired_with_construction(tmp_path))
    even = {r["model"]: r for r in records if r["kind"] == "break_even"}
    speed = {r["model"]: r for r in records if r["kind"] == "speedup" and r["phase"] == "train"}
    first = {(r["model"], r["variant"]): r["estimate"] for r in records if r["kind"] == "first_call"
             and r["case"] == "cold"}
    for model, rec in even.items():
        if (rec["note"] or "").endswith("in this run"):  # resnet: no construction in the run
            continue
        s = speed[model]
        if first[model, "graph"] <= first[model, "eager"]:
            assert rec["estimate"] == 1
        elif not s["low"] > 1.03:  # no gain past the noise threshold: nothing to pay back
            assert rec["estimate"] is None and rec["note"].startswith("no gain past ±3%")
        else:
            assert rec["low"] <= rec["estimate"] <= rec["high"] and rec["interval"]
    assert {m: bool(r["interval"]) for m, r in even.items()} == {
        "mnist_cnn": False, "resnet": False, "vgg": True}  # vgg: 1.25x [1.08, 1.54], a range


def test_chainers_cold_first_calls_on_a_gpu_are_read_as_warm_for_the_cache_cupy_kept(tmp_path):
    """CuPy keeps compiled kernels on disk and the suite's cold rounds do not empty them: on CUDA
    a Chainer "cold" round is a later run's, so its first calls are warm records that say which
    cache, the first run's break-even is not timed, and start-up stays a cold process's."""
    from report.build.steady import steady_records
    results = paired_with_construction(tmp_path, {"mnist_cnn": [2.5, 2.6], "vgg": [2.1, 2.2],
                                                  "resnet": [2.0, 2.1]})
    on_cpu = steady_records(results)
    for r in results:
        r.info["device"] = "cuda"
    on_gpu = steady_records(results)
    kinds = lambda records, kind: {(r["model"], r["variant"], r["case"], r.get("kept_cache"))
                                   for r in records if r["kind"] == kind}
    cold_on_cpu = kinds(on_cpu, "first_call")
    assert cold_on_cpu and {c for _, _, c, _ in cold_on_cpu} == {"cold"}
    assert kinds(on_gpu, "first_call") == {(m, v, "warm", "CuPy's kernel cache")
                                           for m, v, _, _ in cold_on_cpu}
    even = {r["case"]: r for r in on_gpu if r["kind"] == "break_even" and r["model"] == "vgg"}
    assert even["cold"]["estimate"] is None and not even["cold"]["timed"]
    assert even["cold"]["note"] == "no cold first call: CuPy's kernel cache was kept between processes"
    assert even["warm"]["timed"] and even["warm"]["estimate"] == next(
        r["estimate"] for r in on_cpu if r["kind"] == "break_even" and r["model"] == "vgg")
    assert {r["case"] for r in on_gpu if r["kind"] == "startup_time"} == {"cold"}
    for r in results:  # since Chainer's compile_cache swaps CuPy's cache, its rounds count hits
        if r.info["phase"] == "construction":
            r.info["cache_hits_per_round"] = [0, 0, 0]
    assert kinds(steady_records(results), "first_call") == cold_on_cpu


def test_determinism_precision_and_pipeline_records_match_their_tables():
    from report.views.determinism import determinism_section
    from report.build.load import load_file
    from report.views.pipeline import pipeline_section
    from report.views.precision import precision_section
    from report.build.sections import determinism_records, pipeline_records
    from report.build.steady import precision_records
    from tests.test_report_flags import FIXTURE as FLAGS, _row
    from tests.test_report_pipeline import _results
    flags = load_file(FLAGS)
    det, prec = determinism_section(records_of(flags)), precision_section(records_of(flags))
    for rec in [r for r in determinism_records(flags) if r["kind"] == "determinism_ratio"]:
        row = _row(det, f"| tf | {rec['model']} | {rec['variant']} |")
        assert row[5] == f"{rec['estimate']:.2f}× (unpaired)"
    for rec in precision_records(flags):
        if rec["kind"] == "precision_speedup" and rec["phase"] == "train" and rec["model"] == "mnist_cnn":
            row = _row(prec.split(f"**mnist_cnn, {rec['precision']}**")[1],
                       f"| tf | {rec['variant']} |")
            assert row[3] == f"{rec['estimate']:.2f}× (unpaired)"
    pipeline = pipeline_section(records_of(_results()))
    records = pipeline_records(_results())
    assert sum(r["kind"] == "epoch_time" for r in records) == len(_results())
    for rec in records:
        if rec["kind"] == "examples_per_s":
            assert f"{rec['estimate']:,.0f}/s · " in pipeline
        elif rec["kind"] == "epoch_time":
            ms = lambda s: f"{s * 1e3:.2f}"
            assert f"epoch {ms(rec['estimate'])} ({ms(rec['low'])}–{ms(rec['high'])})" in pipeline


def test_the_break_even_reading_says_what_the_table_says(tmp_path):
    from report.views.answer import break_even_reading
    from report.views.tables import summary_table
    results = paired_with_construction(tmp_path)
    table, reading = summary_table(records_of(results)), break_even_reading(records_of(results))
    vgg = next(line for line in table.splitlines() if line.startswith("| chainer | graph |")
               and "1.27×" in line).split("|")[9].strip()
    assert f"chainer/graph on vgg after {vgg} steps" in reading
    assert "1 gains too little to pay back (its speedup is not past ±3%): chainer/graph on mnist_cnn" in reading


def test_retrace_and_memory_records_match_their_tables():
    from report.build.load import load_file
    from report.views.memory import memory_section
    from report.build.sections import memory_records, retrace_records
    from report.build.select import retrace_rules
    from report.views.retrace import retrace_tables
    from tests.test_report_memory import _results as memory_results
    results = load_file(QUICK)
    tables = retrace_tables(records_of(results), retrace_rules(results))
    records = retrace_records(results)
    assert records and all(f"{r['estimate']:.3g} s ({r['traces']} tr)" in tables for r in records)
    section = memory_section(records_of(memory_results()))
    assert all(f"{r['estimate'] / 2 ** 20:.1f}" in section for r in memory_records(memory_results()) if r['kind'] == 'memory_peak')


def test_a_summary_that_cannot_be_written_leaves_nothing_staged(tmp_path, capsys):
    save(tmp_path / "results", json.loads(QUICK.read_text()), "0001_default", "2026-01-01T00:00")
    readme = tmp_path / "README.md"
    readme.write_text(f"{cli.START}\nOLD\n{cli.END}\n")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme),
                     "--summary", str(tmp_path / "no" / "such" / "summary.json")]) == 2
    assert "cannot write beside it" in capsys.readouterr().err
    assert readme.read_text() == f"{cli.START}\nOLD\n{cli.END}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "results"]


def test_the_start_up_of_a_fresh_process_is_a_record_and_one_mention_per_backend(tmp_path):
    """Fresh-process construction rounds save startup_s: the eager cold result's median is a
    startup_time record per model, and the chainer line of the summary names it once."""
    from report.views.answer import answer_text
    from report.build.steady import steady_records
    results = paired_with_construction(tmp_path, {"mnist_cnn": [0.5, 0.25, 0.375],
                                                  "vgg": [0.5, 0.75]})
    found = {r["model"]: r for r in steady_records(results) if r["kind"] == "startup_time"}
    assert {m: (r["variant"], r["case"], r["estimate"], r["low"], r["high"], r["unit"])
            for m, r in found.items()} == {"mnist_cnn": ("eager", "cold", 0.375, 0.25, 0.5, "s"),
                                          "vgg": ("eager", "cold", 0.625, 0.5, 0.75, "s")}
    line = next(line for line in answer_text(views_of(results)).splitlines()
                if line.startswith("- **chainer**"))
    assert line.count("start") == 1
    assert "a fresh process takes 0.4–0.6 s to start (import, set-up) before its cold first" in line


def test_noise_floor_is_the_widest_steady_step_aa_pair_of_its_run():
    from report.build.load import Result
    from report.build.records import aa_floors

    def aa(phase, low, high, run="0001"):
        return Result("f", "m", run, "2026-01-01", "n", {
            "phase": phase, "aa_ratio": 1.0, "aa_ci_low": low, "aa_ci_high": high}, {}, {})
    results = [aa("train", 0.95, 1.05), aa("infer", 0.9, 1.1), aa("micro", 0.2, 5.0),
               aa("pipeline", 0.5, 2.0), aa("train", 0.99, 1.01, run="0002")]
    assert aa_floors(results) == {("m", "0001"): (0.9, 1.1), ("m", "0002"): (0.99, 1.01)}


def test_the_chart_readings_say_what_the_records_say(tmp_path):
    records, _ = publish(tmp_path)
    for name in ("ci-a", "ci-b"):  # one paired run, one unpaired
        results = [r for r in load_dir(tmp_path / "results") if r.machine.startswith(name)]
        mine = [r for r in records if r["machine"].startswith(name)]
        _check_readings(results, mine)


def _check_readings(results, mine):
    from report.views.readings import speedup_reading, throughput_reading
    phases = {r["phase"] for r in mine if r["kind"] == "speedup" and r["estimate"] is not None}
    assert phases
    for phase in phases:
        found = sorted(((r["estimate"], r["variant"], r["model"]), r) for r in mine
                       if r["kind"] == "speedup" and r["phase"] == phase
                       and r["estimate"] is not None and not r.get("known_wrong"))
        top, bottom = found[-1][1], found[0][1]
        reading = speedup_reading(records_of(results), phase)
        assert (f"largest {phase} speedup is {top['estimate']:.2f}× ({top['backend']}/"
                f"{top['variant']} on {top['model']})") in reading
        assert f"smallest {bottom['estimate']:.2f}× ({bottom['backend']}/" in reading
        unclear = sum(1 for _, r in found if r["interval"]
                      and r["verdict"] in ("within 3%", "undecided"))
        assert f"{unclear} {'is' if unclear == 1 else 'are'} within ±3% of eager or undecided" in reading
    peaks = [r for r in mine if r["kind"] == "matmul_peak"]
    assert all(f"matmul peak {r['estimate']:.1f} GFLOP/s" in throughput_reading(records_of(results))
               for r in peaks)


def test_the_readme_gives_the_short_answer_and_results_md_the_full_one(tmp_path):
    """The README's answer says each framework's gain in a line and links to RESULTS.md, where
    each backend's line also gives its start-up, varying sizes, memory and advice."""
    paired_with_construction(tmp_path / "results", {"mnist_cnn": [0.4], "vgg": [0.6]})
    readme = tmp_path / "README.md"
    readme.write_text(f"{SUMMARY_START}\n{SUMMARY_END}\n{cli.START}\n{cli.END}\n")
    assert cli.main(["--results", str(tmp_path / "results"), "--readme", str(readme)]) == 0
    short, full = readme.read_text(), (tmp_path / "RESULTS.md").read_text()
    line = next(line for line in short.splitlines() if line.startswith("- **Chainer**"))
    assert line.startswith("- **Chainer** on the ") and "`@static_graph`" in line
    assert "advice" not in line and "fresh process" not in line
    assert "[In full](RESULTS.md#the-answer-in-full)" in short
    assert "\n## The answer in full\n" in full
    rest = full.split("## The answer in full", 1)[1]
    assert next(line for line in rest.splitlines() if line.startswith("- **chainer**")).startswith(
        "- **chainer**: a fresh process takes 0.4–0.6 s")
    assert "| backend | model | best graph variant" in rest


def test_a_break_even_the_profile_left_out_says_so(tmp_path):
    """No first call because the run's profile skipped it: the break-even names the profile, not
    a missing figure; a first call missing for no rule stays 'no ... in this run'."""
    from report.build.steady import steady_records
    data = json.loads(QUICK.read_text())
    data["graphbench_profile"]["skips"] = [{"reason": "too slow", "backend": "chainer",
                                            "labels": ["vgg"], "variants": None, "phases": None,
                                            "suites": ["construction"]}]
    data["benchmarks"] = [b for b in data["benchmarks"] if b["extra_info"]["phase"] != "construction"]
    save(tmp_path, data, "0001_quick", "2026-01-01T00:00:00")
    notes = {r["model"]: r["note"] for r in steady_records(load_dir(tmp_path))
             if r["kind"] == "break_even"}
    assert notes["vgg"] == "first calls left out by profile `quick` in this run"
    assert notes["mnist_cnn"] == "no first calls timed in this run"  # was 'no cold first call,
    # eager cold first call in this run'
    data["benchmarks"] = [b for b in json.loads(QUICK.read_text())["benchmarks"]
                          if b["extra_info"]["phase"] != "construction"
                          or b["extra_info"]["variant"] != "eager"]  # the graph's first calls only
    save(tmp_path, data, "0002_quick", "2026-01-02T00:00:00")
    notes = {r["model"]: r["note"] for r in steady_records(load_dir(tmp_path))
             if r["kind"] == "break_even" and r["run"] == "0002_quick"}
    assert notes["mnist_cnn"].startswith("no eager cold first call")


def test_a_gain_under_one_percent_keeps_a_significant_digit():
    """An interval whose upper end barely passes 1 leaves a gain the text names, not '0.0%'."""
    assert [gain_bound(h) for h in (1.0004, 1.0047, 1.2, 0.98)] == [
        "no gain larger than 0.04%", "no gain larger than 0.5%", "no gain larger than 20%",
        "no gain larger than 0%"]
