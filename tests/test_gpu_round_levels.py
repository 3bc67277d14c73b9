"""gpu/round_levels.py: within one process, arms that move together leave their ratio still; a
step in one CUDA graph holds while eager moves; runs waited on per step, short rows and a row
whose group (its precision) has no eager row are left out."""
import json

import pytest

from gpu import round_levels
from report.build.load import load_dir
from tests.test_report_pooled import PAIRED
from tests.test_report_runs import save

EAGER = [0.010, 0.010, 0.015, 0.015]  # the host one and a half times slower from round 3


def _gpu_run(tmp_path, wait="block"):
    data = json.loads(PAIRED.read_text())
    data["machine_info"]["graphbench"].update(device="cuda", gpu="NVIDIA H200, 580.1, 143771 MiB")
    rounds = {("mnist_cnn", "eager"): EAGER, ("mnist_cnn", "graph"): [0.001, 0.001, 0.0015, 0.0015],
              ("vgg", "eager"): EAGER, ("vgg", "graph"): [0.0002] * 4}
    for b in data["benchmarks"]:
        info = b["extra_info"]
        info.update(device="cuda", wait=wait)
        if info["phase"] == "train" and (info["model"], info["variant"]) in rounds:
            info["paired_rounds_s"] = [rounds[info["model"], info["variant"]]] * 2
            if info["model"] == "vgg" and info["variant"] == "graph":
                info["variant"] = "cuda_graph"
    bfloat16 = json.loads(json.dumps(next(b for b in data["benchmarks"] if b["extra_info"]["model"]
                                          == "mnist_cnn" and b["extra_info"]["variant"] == "graph"
                                          and b["extra_info"]["phase"] == "train")))
    bfloat16["extra_info"]["precision"] = "bfloat16"  # its own group, with no eager row here
    data["benchmarks"].append(bfloat16)
    save(tmp_path / "results" / "m", data, f"0001_gpu-{wait}", "2026-01-01T00:00:00")
    return load_dir(tmp_path / "results")


def test_a_host_driven_arm_moves_with_eager_and_a_one_launch_step_holds(tmp_path):
    found = round_levels.summary(round_levels.process_rows(_gpu_run(tmp_path)))
    host, graph = found["NVIDIA H200", "host-driven"], found["NVIDIA H200", "one CUDA graph"]
    assert host["processes"] == graph["processes"] == 2  # infer rows have 3 rounds: left out
    assert host["eager_median"] == pytest.approx(1.5) and host["arm_median"] == pytest.approx(1.5)
    assert host["ratio_median"] == pytest.approx(1.0) and host["share_median"] == pytest.approx(0)
    assert graph["eager_widest"] == pytest.approx(1.5) and graph["arm_widest"] == pytest.approx(1)
    assert graph["ratio_median"] == pytest.approx(1.5) and graph["share_median"] == pytest.approx(1)


def test_runs_waited_on_each_step_are_left_out_and_a_missing_run_is_one_line(tmp_path, capsys):
    assert not round_levels.summary(round_levels.process_rows(_gpu_run(tmp_path, wait="step")))
    assert round_levels.main(["--results", str(tmp_path / "results")]) == 2
    assert round_levels.main(["--results", str(tmp_path / "results"), "--rounds", "0009_x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("gpu/round_levels.py: no run named 0009_x with rounds under "
                       f"{tmp_path / 'results'}")


def test_the_command_prints_a_line_per_gpu_and_kind_and_a_runs_rounds(tmp_path, capsys):
    _gpu_run(tmp_path)
    assert round_levels.main(["--results", str(tmp_path / "results")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "NVIDIA H200, host-driven: 2 processes; slowest round ÷ fastest, eager 1.50× (up to "
        "1.50×), graph arm 1.50× (up to 1.50×), their ratio 1.00×; the ratio's variance ÷ the "
        "arms' summed 0.00",
        "NVIDIA H200, one CUDA graph: 2 processes; slowest round ÷ fastest, eager 1.50× (up to "
        "1.50×), graph arm 1.00× (up to 1.00×), their ratio 1.50×; the ratio's variance ÷ the "
        "arms' summed 1.00"]
    named = ["--results", str(tmp_path / "results"), "--rounds", "0001_gpu-block"]
    assert round_levels.main(named) == 0
    assert "mnist_cnn train graph process 1: 1.000 1.000 1.500 1.500" in capsys.readouterr().out
