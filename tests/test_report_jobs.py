"""A seeds job's run (`run.py bench --job seeds`) is newer than the answer's, and times the MNIST
CNN's train step too: its steady groups feed article 002 and 004 only, never the answer's rows."""
import json
from pathlib import Path

from report.build.load import load_dir
from report.build.runs import shown, table_notes
from report.views.render import tables
from report.views.seeds import seed_004_text
from tests.reporting import machines_of, records_of
from tests.test_report_runs import save

PAIRED = Path(__file__).parent / "fixtures" / "chainer_paired_quick.json"
FLAGS = PAIRED.with_name("tf_flags_quick.json")  # steady runs in float32 and bfloat16


def _seeds(data):
    data = json.loads(json.dumps(data))
    data["machine_info"]["graphbench"]["job"] = "seeds"
    return data


def test_a_newer_seeds_run_leaves_the_answer_rows_to_the_answer_run(tmp_path):
    base = json.loads(PAIRED.read_text())
    folder = tmp_path / "results" / "m"
    save(folder, base, "0001_default", "2026-01-01T00:00:00")
    save(folder, _seeds(base), "0002_default-seeds", "2026-01-02T00:00:00", 1.0,
         lambda b: b["extra_info"]["model"] == "mnist_cnn" and b["extra_info"]["phase"] == "train")
    records = records_of(load_dir(tmp_path / "results"))
    answer = [r for r in records if r["kind"] in ("speedup", "step_time")]
    assert answer and {r["run"] for r in answer} == {"0001_default"}
    assert {(r["model"], r["phase"]) for r in answer if r["kind"] == "speedup"} >= {
        ("mnist_cnn", "train"), ("mnist_cnn", "infer")}
    focus = [r for r in records if r["kind"] == "focus_speedup"]
    assert [(r["run"], r["model"]) for r in focus] == [("0002_default-seeds", "mnist_cnn")]
    text = seed_004_text(records)
    assert text and f"{focus[0]['estimate']:.2f}×" in text


def test_mixed_precision_names_the_seeds_run_its_rows_come_from(tmp_path):
    base = json.loads(FLAGS.read_text())
    folder = tmp_path / "results" / "m"
    save(folder, base, "0001_default", "2026-01-01T00:00:00",
         keep=lambda b: b["extra_info"]["precision"] == "float32")
    save(folder, _seeds(base), "0002_default-seeds", "2026-01-02T00:00:00")
    (_, view, records), = machines_of(load_dir(tmp_path / "results"))
    assert {r["run"] for r in records if r["precision"] == "bfloat16"} == {"0002_default-seeds"}
    parts = tables(shown(view), records, "###", table_notes(view))
    line = parts[parts.index("### Mixed precision (source article 002)") + 2]
    assert "0002_default-seeds" in line and "0001" not in line, line
