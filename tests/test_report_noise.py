"""Where the A/A noise lies: one record per steady A/A pair, its table and reading."""
import json

from report.build.load import load_dir
from report.views.noise import noise_reading, noise_table
from tests.reporting import records_of
from tests.test_report_machines import PAIRED
from tests.test_report_runs import save


def aa(backend, within, between, half):
    return {"kind": "aa_noise", "backend": backend, "model": "mnist_cnn", "phase": "train",
            "estimate": within, "between_sd": between, "first_rounds": -0.01, "half_width": half,
            "processes": 3, "rounds": 10, "blocks": [1, 4, 2], "run": "0001_default",
            "dirty": False}


def test_every_aa_pair_of_a_saved_run_gets_its_noise_record(tmp_path):
    save(tmp_path / "m", json.loads(PAIRED.read_text()), "0001_default", "2026-01-01T00:00:00")
    found = [r for r in records_of(load_dir(tmp_path)) if r["kind"] == "aa_noise"]
    pairs = {(r["model"], r["phase"]) for r in records_of(load_dir(tmp_path))
             if r["kind"] == "aa_ratio"}
    assert found and {(r["model"], r["phase"]) for r in found} == pairs
    assert all(r["estimate"] >= 0 and r["between_sd"] >= 0 and r["half_width"] > 0 for r in found)


def test_the_reading_names_the_larger_part():
    rounds = [aa("tf", 0.10, 0.01, 0.05), aa("torch", 0.08, 0.0, 0.02)]
    assert "rounds, not processes, are where the noise is" in noise_reading(rounds)
    assert "tf mnist_cnn train, ±5.0%" in noise_reading(rounds)
    processes = [aa("tf", 0.02, 0.08, 0.05)]
    assert "only more processes narrow the interval" in noise_reading(processes)
    assert noise_reading([]) == "" and noise_table([]) == ""


def test_the_table_has_a_row_per_pair_with_its_blocks():
    table = noise_table([aa("tf", 0.10, 0.01, 0.05)])
    assert "| tf | mnist_cnn | train | 10.0% | 1.0% | -1.0% | ±5.0% | 3 × 10 | 1–4 |" in table
