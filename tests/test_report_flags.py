"""Precision and determinism tables from a saved tf run (quick profile, mnist_cnn)."""
from pathlib import Path

from report.views.determinism import determinism_section
from report.build.load import load_file
from report.build.ratios import pays
from report.views.precision import precision_section
from report.build.select import index
from report.views.tables import summary_table
from tests.reporting import records_of

FIXTURE = Path(__file__).parent / "fixtures" / "tf_flags_quick.json"


def _by_name():
    return {r.name: r for r in load_file(FIXTURE)}


def _row(section, start):
    return [c.strip() for c in next(line for line in section.splitlines()
                                    if line.startswith(start)).strip("|").split("|")]


def test_main_tables_keep_float32_without_determinism():
    runs, idx = _by_name(), index(load_file(FIXTURE))
    assert idx[("tf", "mnist_cnn", "graph", "train", None)].name == "test_steady[tf-mnist_cnn-graph-train]"
    graph = _row(summary_table(records_of(load_file(FIXTURE))), "| tf | graph |")
    assert graph[2].startswith(f"{runs['test_steady[tf-mnist_cnn-graph-train]'].stats['median'] * 1e3:.2f}")


def test_precision_speedup_and_loss_are_against_float32():
    runs = _by_name()
    full, low = (runs[f"test_steady[tf-mnist_cnn-graph{p}-train]"] for p in ("", "-bfloat16"))
    row = _row(precision_section(records_of(load_file(FIXTURE))), "| tf | graph |")
    assert row[3].startswith(f"{full.stats['median'] / low.stats['median']:.2f}×")
    assert row[6].startswith(f"{low.info['loss']:.4f} vs {full.info['loss']:.4f}")


def test_float16_on_cpu_is_listed_as_skipped_with_its_reason():
    assert "tf float16 on cpu: skipped: float16 mixed precision is measured on a GPU only" in \
        precision_section(records_of(load_file(FIXTURE)))


def test_the_skips_follow_the_device_a_machine_name_carries():
    """The device comes from the records (a GPU machine's name ends with its GPU), never a run."""
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    records = [{**r, "machine": gpu} for r in records_of(load_file(FIXTURE))]
    records += [{**records[0], "backend": "chainer", "kind": "first_call", "precision": "float32"}]
    text = precision_section(records)
    assert "- chainer bfloat16 on cuda: skipped: NumPy and CuPy have no bfloat16" in text
    assert "on cpu" not in text and "tf float16" not in text


def test_whether_mixed_precision_pays_is_the_builds_verdict():
    """The advice reads `backend_pays` (ratios.pays over the backend's train steps), never counts."""
    records = records_of(load_file(FIXTURE))
    steps = [r for r in records if r["kind"] == "precision_speedup" and r["phase"] == "train"]
    assert {r["backend_pays"] for r in steps} == {pays([r["verdict"] for r in steps])}
    for said, flag in (("keep float32", False), ("worth it where", True)):
        for r in steps:
            r["backend_pays"] = flag
        assert said in precision_section(records).splitlines()[-1]
    assert pays(["faster", "faster", "slower", "undecided"]) and not pays(["faster", "slower"])


def test_determinism_rows_and_refusals():
    runs, section = _by_name(), determinism_section(records_of(load_file(FIXTURE)))
    off, on = (runs[f"test_determinism[tf-mnist_cnn-graph-{f}]"] for f in ("off", "on"))
    row = _row(section, "| tf | mnist_cnn | graph |")
    assert row[5].startswith(f"{off.stats['median'] / on.stats['median']:.2f}×")
    assert row[7] == ("yes" if on.info["repeat_identical"] else "no")
    assert _row(section, "| tf | mnist_cnn | xla |")[4] == "refused [1]"
    assert "[1] TF 2.21: with op determinism on, XLA refuses MaxPool's gradient" in section


def test_a_paired_precision_speedup_shows_its_interval_and_is_a_record(tmp_path):
    import json
    from report.build.load import load_dir
    from report.build.machine_records import machine_records
    from report.build.select import pick
    data = json.loads(FIXTURE.read_text())
    low = next(b for b in data["benchmarks"]
               if b["name"] == "test_steady[tf-mnist_cnn-graph-bfloat16-train]")
    low["extra_info"].update(precision_speedup=1.3, precision_ci_low=0.9,
                             precision_ci_high=1.7, precision_significant=False)
    (tmp_path / "run.json").write_text(json.dumps(data))
    results = load_dir(tmp_path)
    assert _row(precision_section(records_of(results)), "| tf | graph |")[3] == "1.30× [0.90, 1.70] ~"
    records = machine_records(lambda name: pick(results, name))
    rec = next(r for r in records if r["kind"] == "precision_speedup" and r["variant"] == "graph"
               and r["phase"] == "train" and r["model"] == "mnist_cnn")
    assert (rec["estimate"], rec["low"], rec["high"], rec["significant"], rec["precision"]) == (
        1.3, 0.9, 1.7, False, "bfloat16")
