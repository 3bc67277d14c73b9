"""The GPU table and the README's GPU lines (report/views/gpu.py and the build behind it), from GPU
runs' records: each variant beside its CPU row, what is not measured yet, the GPU the README
shows."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_a_chainer_lengths_strategy_is_measured_only_by_its_own_total():
    """The tenth window ran two of Chainer's eight lengths strategies (eager, exact and powers of
    two): part of its eager variant is still named as not measured, beside its graph one."""
    from gpu.plan import PAD_STRATEGY_NAMES
    from report.build.plan_gaps import not_measured
    total = lambda variant, case: _rec("lengths_total", "chainer", variant, "lengths", "decoder",
                                       case=case)
    gap = lambda records: next(x for x in not_measured(records) if x.startswith("lengths"))
    assert gap([total("eager", "exact"), total("eager", "pow2")]) == (
        "lengths that vary (jax, torch; chainer: part of eager, graph)")
    assert gap([total(v, k) for v in ("eager", "graph") for k in PAD_STRATEGY_NAMES]) == (
        "lengths that vary (jax, torch)")


LOOP = {"versions": {}, "timed_as_a_loop": True}  # the build's view of a GPU timed as a loop


def _rec(kind, backend, variant, phase="train", model="mnist_cnn", estimate=2.0, **more):
    return {"kind": kind, "backend": backend, "model": model, "variant": variant, "phase": phase,
            "precision": "float32", "estimate": estimate, "low": estimate * 0.9,
            "high": estimate * 1.1, "interval": "95% paired bootstrap", "note": None,
            "run": "0091_gpu-torch-mnist_cnn", "dirty": False, "wait": "block", "threads": 16,
            "aa_floor_low": 0.97, "aa_floor_high": 1.06, "mark": "",
            **({"timed": True} if kind == "break_even" else {}), **more}


def test_the_gpu_table_says_chainer_runs_without_cudnn_on_cupy_14():
    from report.build.runs import version_notes
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    for cupy, says in (("14.2.0", True), ("13.6.0", False)):
        versions = {"chainer": "7.8.1", "cupy-cuda13x": cupy}
        shown = {"versions": versions, "version_notes": version_notes(versions),
                 "timed_as_a_loop": True}
        head = gpu_table(gpu, shown, [_rec("speedup", "chainer", "graph")], "cpu", [])[0]
        assert (f"cupy-cuda13x {cupy} (no cuDNN: CuPy 14 dropped it)" in head) == says, head
        assert f"cupy-cuda13x {cupy}" in head
    assert version_notes({"cupy": "dev", "numpy": "14.0"}) == {}  # no major to read: no note


def test_the_gpu_table_shows_each_variant_its_cpu_row_and_what_is_not_measured():
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    records = [_rec("step_time", "torch", "eager", estimate=1.5e-3),
               _rec("step_time", "torch", "cuda_graph", estimate=0.2e-3),
               _rec("speedup", "torch", "cuda_graph", estimate=6.9),
               _rec("speedup", "torch", "graph", estimate=0.77),
               _rec("speedup", "torch", "graph", phase="infer", estimate=0.65),
               dict(_rec("step_time", "chainer", "graph", model="resnet"), estimate=None,
                    known_wrong="BatchNorm replayed (findings/chainer_static_graph_bn.md)",
                    note="non-finite loss")]
    from report.build.plan_gaps import not_measured
    cpu = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    shown = {"versions": {}, "not_measured": not_measured(records), "timed_as_a_loop": True}
    text = "\n".join(gpu_table(gpu, shown, records, "cpu", cpu))
    assert text.startswith("**On the H100** (NVIDIA H100 80GB HBM3, 16 threads;")
    rows = [line for line in text.splitlines() if line.startswith("| mnist_cnn")]
    assert [row.split(" | ")[2] for row in rows] == ["`graph`", "`cuda_graph`"]  # registry order
    assert "1.50 → 0.20" in rows[1] and "GPU only" in rows[1] and "`0091`" in rows[1]
    assert "1.29× [1.16, 1.42]" in rows[0] and "0.65× [0.59, 0.72]" in rows[0]
    wrong_there = [{**cpu[0], "known_wrong": "AVX2 heap"}]  # timed, then found wrong (a Zen 3)
    row = gpu_table(gpu, shown, records, "cpu", wrong_there, brief=True)[4]
    assert "| — (a known wrong answer there) |" in row and "1.29" not in row, row
    assert ("Known wrong here, no speedup: resnet (chainer `graph`, [finding](findings/chainer_"
            "static_graph_bn.md)).") in text  # a path: it resolves in README and RESULTS.md alike
    from report.views.gpu import known_wrong
    assert known_wrong([dict(records[-1], known_wrong="no write-up yet")]) \
        == ["resnet (chainer `graph`)"]
    assert ("Not yet on this GPU: mnist_cnn (jax, chainer); vgg; resnet (jax, torch); decoder; "
            "parity with the TF32 tolerance; first calls") in text  # the plan's order
    assert "lengths that vary; " in text  # no variant of any backend yet
    assert "TensorFlow" in text
    step_timed = [dict(r, wait=None) for r in records]  # the first window's: each step waited on
    from report.build.runs import timed_as_a_loop
    assert timed_as_a_loop(records) and not timed_as_a_loop(step_timed)
    assert gpu_table(gpu, {"versions": {}, "timed_as_a_loop": False}, step_timed, "cpu", cpu) == []


def test_the_gpu_table_pays_back_with_a_first_calls_run_of_its_own():
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    first = {"run": "0105_gpu-first-calls-torch-mnist_cnn", "phase": "construction"}
    records = [_rec("step_time", "torch", "eager", estimate=1.5e-3),
               _rec("speedup", "torch", "graph", estimate=1.3),
               _rec("speedup", "torch", "cuda_graph", estimate=6.9),
               _rec("break_even", "torch", "graph", estimate=7302, case="cold",
                    first_calls_run=first["run"]),
               _rec("break_even", "torch", "graph", estimate=533, case="warm",
                    first_calls_run=first["run"]),
               _rec("first_call", "torch", "graph", estimate=37.31, case="cold", **first),
               _rec("first_call", "torch", "graph", estimate=2.77, case="warm", **first),
               dict(_rec("break_even", "torch", "cuda_graph", case="cold"), estimate=None,
                    note="never (slower)"),
               _rec("first_call", "torch", "cuda_graph", estimate=9.0, case="cold", **first)]
    cpu = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    full = gpu_table(gpu, LOOP, records, "cpu", cpu)
    brief = gpu_table(gpu, LOOP, records, "cpu", cpu, brief=True)
    graph = next(line for line in brief if line.startswith("| mnist_cnn | torch | `graph`"))
    assert " | 7,302 / 533 | 37.31 → 2.77 | 1.29× | `0091`, `0105` |" in graph
    assert "| never (slower) / — | 9.00 → — |" in next(
        line for line in brief if "`cuda_graph`" in line)
    assert "A/A, train" in full[2] and "A/A, train" not in brief[2]
    assert "1.29× [1.16, 1.42]" in "\n".join(full) and "1.29× [" not in "\n".join(brief)
    # the build says which break-evens were timed (`timed`): a verdict, or a first call missing
    no_gain = [_rec("speedup", "torch", "graph_cudagraphs", estimate=1.01),
               dict(_rec("break_even", "torch", "graph_cudagraphs", case="cold"), estimate=None,
                    note="no gain past ±3%: at most 2%"),
               dict(_rec("break_even", "torch", "graph_cudagraphs", case="warm"), estimate=None,
                    timed=False, note="no warm first call in this run"),
               _rec("first_call", "torch", "graph_cudagraphs", estimate=40.0, case="cold", **first)]
    brief = gpu_table(gpu, LOOP, records + no_gain, "cpu", cpu, brief=True)
    assert "| — (no gain past ±3%: at most 2%) / — | 40.00 → — |" in next(
        line for line in brief if "`graph_cudagraphs`" in line)


def test_the_busy_points_are_a_line_of_their_own_under_the_gpu_table():
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    busy = _rec("busy_speedup", "torch", "graph", model="busy-resnet-d50-s224-w1-b32",
                estimate=1.8, flops=7.9e11, batch=32, run="0105_gpu-busy-torch-resnet",
                model_config={"depth": 50, "width": 1.0, "side": 224})
    records = [_rec("step_time", "torch", "eager", estimate=1.5e-3),
               _rec("speedup", "torch", "graph", estimate=0.77), busy]
    text = "\n".join(gpu_table(gpu, LOOP, records, "cpu", []))
    assert ("Where the GPU is busy (train step, eager ÷ `graph`): ResNet-50 at full width, 224² "
            "px, batch 32, 790 GFLOP a step: torch 1.80× [1.62, 1.98] (`0105`).") in text
    assert "busy (" not in "\n".join(gpu_table(gpu, LOOP, records[:2], "cpu", []))


def test_a_wait_after_every_step_is_a_record_and_a_line():
    from report.views.gpu import wait_line
    from report.build.studies import wait_records
    line = {"backend": "jax", "variant": "graph", "rounds": 20, "ms": {"step": 0.62, "block": 0.29},
            "step_over": {"block": {"ratio": 2.13, "low": 2.06, "high": 2.23,
                                    "significant": True}},
            "study": "gpu_step-cost-jax", "machine": {"commit": "c" * 40}}
    found = wait_records("vm (x, NVIDIA H100 80GB HBM3)", {"NVIDIA H100 80GB HBM3": [line]})
    assert [(r["kind"], r["estimate"], r["verdict"]) for r in found] == [("wait_cost", 2.13,
                                                                          "slower")]
    assert wait_records("vm (x, NVIDIA H200)", {"NVIDIA H100 80GB HBM3": [line]}) == []
    assert "`jax.jit` 2.13× [2.06, 2.23] (0.62 ms against 0.29)" in wait_line(found)


def _cpu_and_two_gpus(first, second):
    """The views' machines: a CPU's torch row, then two GPUs' (`0091_gpu`, `0110_gpu`)."""
    cpu = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    gpu = lambda run: [_rec("step_time", "torch", "eager", run=run),
                       _rec("speedup", "torch", "graph", run=run, verdict="faster")]
    return [("cpu", {"versions": {}}, cpu), (first, LOOP, gpu("0091_gpu")),
            (second, LOOP, gpu("0110_gpu"))]


def test_the_readme_shows_the_gpu_with_most_rows_and_names_the_other():
    from types import SimpleNamespace
    from report.build.select import front_gpu
    from report.views.answer import answer_text
    h100, h200 = ("vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)", "vm (Xeon, 16 cores, NVIDIA H200)")
    run = lambda machine, model, when, wait="block": SimpleNamespace(
        machine=machine, graphbench={"device": "cuda", "wait": wait}, info={"phase": "train"},
        key=("torch", model, "graph", "train", None), datetime=when)
    results = [run(h100, "mnist_cnn", "1"), run(h100, "vgg", "1"), run(h200, "vgg", "2"),
               *(run(h200, m, "3", wait="step") for m in ("resnet", "decoder", "mnist_cnn"))]
    assert front_gpu(results) == h100  # most rows timed as a loop, though older
    assert front_gpu(results[2:]) == h200 and front_gpu(results[3:]) is None
    machines = _cpu_and_two_gpus(h100, h200)
    readme = answer_text(machines, "cpu", more="RESULTS.md#full", gpu=h100)
    assert "**On the H100**" in readme and "**On the H200**" not in readme
    assert "fewer rows measured" not in readme  # the Other GPUs line says where its table is
    assert ("- **Other GPUs** (the H200, in RESULTS.md), against the H100's train rows: the same "
            "verdict on 1 of the 1 rows both decided.") in readme
    assert "**On the H200**" in answer_text(machines, "cpu")  # RESULTS.md: every GPU's table


def test_article_004s_gpu_figure_is_the_one_of_the_gpu_table_shown():
    """After the tenth window the README showed the H200's table (1.19× for Chainer's MNIST CNN)
    yet quoted the H100's 1.26× for article 004, the first GPU listed: the line now quotes the
    GPU whose table the answer shows (the build's front_gpu), in RESULTS.md too."""
    from report.views.answer import answer_text
    h100, h200 = ("vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)", "vm (Xeon, 16 cores, NVIDIA H200)")
    chainer = lambda machine, estimate, run, device="cuda": [
        _rec("step_time", "chainer", "eager", run=run, machine=machine),
        _rec("speedup", "chainer", "graph", estimate=estimate, run=run, machine=machine,
             device=device, processes=3, rounds=10, verdict="faster")]
    machines = [("cpu", {"versions": {}}, chainer("cpu", 1.17, "0123_default", "cpu")),
                (h100, LOOP, chainer(h100, 1.26, "0105_gpu")),
                (h200, LOOP, chainer(h200, 1.19, "0228_gpu"))]
    seed = lambda text: next(line for line in text.splitlines() if "Source article 004" in line)
    for gpu, figure, other in ((h200, "on the H200 1.19×", "H100"),
                               (h100, "on the H100 1.26×", "H200")):
        for text in (answer_text(machines, "cpu", more="RESULTS.md#full", gpu=gpu),
                     answer_text(machines, "cpu", gpu=gpu)):
            assert figure in seed(text) and f"on the {other}" not in seed(text)


def test_the_readmes_legend_defines_the_machines_its_answer_names_only():
    """A machine the README's answer never names (another CPU that agrees) is not in its legend;
    a GPU named only by the line that links its table is."""
    from report.views.answer import answer_text
    cpu, other = ("vm (AMD EPYC, family 26 model 2, 2 cores)",
                  "vm (AMD EPYC, family 25 model 17, 2 cores)")
    h100, h200 = ("vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)", "vm (Xeon, 16 cores, NVIDIA H200)")
    speedup = [_rec("speedup", "torch", "graph", estimate=1.29, wait=None)]
    gpu = lambda run: [_rec("step_time", "torch", "eager", run=run),
                       _rec("speedup", "torch", "graph", run=run, verdict="faster")]
    machines = [(cpu, {"versions": {}}, speedup), (other, {"versions": {}}, speedup),
                (h100, LOOP, gpu("0091_gpu")), (h200, LOOP, gpu("0110_gpu"))]
    legend = next(line for line in answer_text(machines, cpu, more="R.md#full", gpu=h100)
                  .splitlines() if line.startswith("Machines: "))
    assert f"`{cpu}`" in legend and f"`{h100}`" in legend and f"`{h200}`" in legend
    assert f"`{other}`" not in legend


# what a GPU window adds above the table: the short lines name more models, and its break-even;
# and a window on another GPU kind, its legend entry (121 characters for the H200, 2026-12-04)
# and its Other GPUs line (123 in the H200's first window at 37ef4920a8c9, 2026-12-04; 232 with
# an undecided rows' clause and another code's): less what the README already holds of those two
MORE_MODELS = 200


OTHER_GPU_LINES = {r"; \*\*[^*]+\*\* = `[^`]*NVIDIA[^`]*`": 125, r"^- \*\*Other GPUs\*\*.*$": 235}


def test_first_calls_read_from_a_kept_cache_are_a_later_runs_and_a_line_says_why():
    """Chainer's on a GPU (CuPy's kernel cache): the row shows no first run, the later runs'
    break-even and first call with the first calls' run, and a line quotes the round that
    compiled."""
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    first = {"run": "0103_gpu-first-calls-chainer-mnist_cnn", "phase": "construction",
             "kept_cache": "CuPy's kernel cache"}
    records = [_rec("speedup", "chainer", "graph", estimate=1.26),
               dict(_rec("break_even", "chainer", "graph", case="cold"), estimate=None,
                    timed=False, note="no cold first call: CuPy's kernel cache was kept between "
                                      "processes"),
               _rec("break_even", "chainer", "graph", estimate=1, case="warm",
                    first_calls_run=first["run"]),
               dict(_rec("first_call", "chainer", "eager", case="warm", **first), estimate=0.23,
                    high=3.22),
               _rec("first_call", "chainer", "graph", estimate=0.23, case="warm", **first)]
    text = "\n".join(gpu_table(gpu, LOOP, records, "cpu", []))
    row = next(line for line in text.splitlines() if line.startswith("| mnist_cnn | chainer"))
    assert " | — / 1 | — → 0.23 | GPU only | `0091`, `0103` |" in row
    from report.build.plan_gaps import not_measured
    brief = "\n".join(gpu_table(gpu, {**LOOP, "not_measured": not_measured(records)}, records,
                                "cpu", [], brief=True))
    assert "a first run's first calls (chainer: CuPy's kernel cache kept)" \
        in brief and "slowest round" not in brief  # the README names it; RESULTS.md says why
    assert ("On this GPU, chainer's first calls read CuPy's kernel cache, which cold rounds do "
            "not empty: only the first process to need a kernel compiles it (mnist_cnn eager: "
            "slowest round 3.22 s, median 0.23 s), so they are a later run's (warm); a first "
            "run's are not measured") in text
    assert "kernel cache" not in "\n".join(gpu_table(
        gpu, LOOP, [dict(r, kept_cache=None) for r in records], "cpu", []))


def _measured_whole(found, cpu):
    """`found` (a GPU's records) with every row and part of the plan measured: each missing row a
    copy of a measured one, each row's first calls and break-even the CPU's widest (torch's)."""
    from gpu.plan import ANSWER_MODELS, PARTS, PLAN, VARIANTS
    speedup = next(r for r in found if r["kind"] == "speedup" and r["phase"] == "train")
    step = next(r for r in found if r["kind"] == "step_time")
    first = [r for r in cpu if r["kind"] in ("first_call", "break_even")
             and r["backend"] == "torch" and r["model"] == "resnet" and r["variant"] == "graph"]
    # a backend whose first calls read a kept cache there keeps its line under the table
    kept_by = {r["backend"]: r["kept_cache"] for r in found if r.get("kept_cache")}
    kept = lambda row: ({"kept_cache": kept_by[row["backend"]]} if row["backend"] in kept_by
                        else {})
    out = [r for r in found if r["kind"] not in ("first_call", "break_even")]
    for model in ANSWER_MODELS:
        for backend, variants in VARIANTS.items():
            for variant in variants.split(",")[1:]:
                row = {"backend": backend, "model": model, "variant": variant}
                if not any(r["kind"] == "speedup" and r.items() >= row.items() for r in found):
                    out += [dict(speedup, **row, phase=p, estimate=123.45, low=120.0,
                                 high=130.0) for p in ("train", "infer")]
                    out += [dict(step, **{**row, "variant": v}, estimate=1.23456)
                            for v in ("eager", variant)]
                out += [dict(r, **row, machine=speedup["machine"], **kept(row)) for r in first]
    out += [dict(speedup, kind=PARTS[s.part][1][0], backend=s.backend, estimate=12, failed=0,
                 failures=[], reasons=["skipping cudagraphs due to mutated inputs (2 instances)"],
                 **({"model": s.label, "variant": s.label} if s.label else {}))
            for s in PLAN if s.part not in ("", "busy", "first calls")]
    out += [dict(speedup, kind="busy_speedup", model=f"busy-{m}", backend=b, flops=7.9e11,
                 batch=32, model_config={"depth": 50, "width": 1.0, "side": 224})
            for m in ("resnet", "decoder") for b in ("torch", "jax")]
    return out


def test_the_readme_leaves_room_for_the_whole_gpu_table():
    from machines import gpu_model
    from report.build.plan_gaps import not_measured
    from report.publish.write import README_LIMIT
    from report.build.runs import timed_as_a_loop
    from report.views.gpu import gpu_table
    by = {}
    for r in json.loads((ROOT / "results" / "summary.json").read_text())["records"]:
        by.setdefault(r["machine"], []).append(r)
    gpus = [m for m in by if gpu_model(m) and timed_as_a_loop(by[m])]
    if not gpus:
        pytest.skip("no GPU timed as a loop in results/")
    gpu = max(gpus, key=lambda m: sum(r["kind"] == "speedup" for r in by[m]))
    cpu = max((m for m in by if not gpu_model(m)),
              key=lambda m: sum(r["kind"] == "speedup" for r in by[m]))
    table = lambda found: len("\n".join(gpu_table(
        gpu, {**LOOP, "not_measured": not_measured(found)}, found, cpu, by[cpu],
        brief=True)))
    grows = table(_measured_whole(by[gpu], by[cpu])) - table(by[gpu])
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    readme = len(text)
    # the front GPU's own legend entry is not another GPU's
    held = lambda pattern: sum(len(m) for m in re.findall(pattern, text, re.M) if gpu not in m)
    above = MORE_MODELS + sum(max(0, room - held(p)) for p, room in OTHER_GPU_LINES.items())
    assert readme + grows + above <= README_LIMIT, (
        f"README.md has {readme:,} characters; the whole GPU table adds {grows:,} and its lines "
        f"{above}: trim {readme + grows + above - README_LIMIT:,} before the next GPU window "
        "fills it")


def test_a_parity_check_on_the_gpu_is_a_record_and_a_line(tmp_path):
    from gpu.job import pytest_outcome
    from report.build.studies import load_studies, parity_records
    from report.build.plan_gaps import not_measured
    from report.views.gpu import parity_line
    gpu, machine = "NVIDIA H100 80GB HBM3", "vm (x, 16 cores, NVIDIA H100 80GB HBM3)"
    output = ("FAILED tests/test_parity.py::test_logits_match_reference[torch-mnist_cnn-graph] - "
              "AssertionError: off by 3e-2\n1 failed, 11 passed, 11 skipped in 80.1s\n")
    folder = tmp_path / "findings" / gpu.replace(" ", "-")
    folder.mkdir(parents=True)
    for step, backend, label, out in (("torch", "torch", None, output),  # the first window's
                                      ("jax", "jax", None, "4 passed, 17 skipped in 9.0s\n"),
                                      ("jax-vgg", "jax", "vgg", "4 passed, 17 skipped in 9.0s\n")):
        (folder / f"gpu_parity-{step}.json").write_text(json.dumps(
            {"machine": {"gpu": gpu, "commit": "c" * 40}, "complete": True, "exit": 1,
             "backend": backend, "label": label, "results": [], **pytest_outcome(out)}))
    found = parity_records(machine, load_studies(tmp_path))
    assert sorted((r["backend"], r["model"], r["estimate"], r["failed"]) for r in found) == [
        ("jax", "mnist_cnn", 4, 0), ("jax", "vgg", 4, 0), ("torch", "mnist_cnn", 11, 1)]
    assert parity_line(found).endswith(
        "tests passed: jax 8 of 8 (mnist_cnn, vgg); torch 11 of 12 (mnist_cnn; failing: "
        "test_logits_match_reference[torch-mnist_cnn-graph]).")
    assert ("parity with the TF32 tolerance (chainer; jax: resnet, decoder; torch: vgg, resnet, "
            "decoder)") in not_measured(found)
    assert parity_records("vm (x, NVIDIA H200)", load_studies(tmp_path)) == []


def test_the_capture_study_is_a_record_per_model_and_phase_and_a_line(tmp_path):
    """gpu/cudagraph_capture.py's lines on the GPU (a CPU's dry-run lines left out) become one
    record per model and phase and the line under the GPU table: the graphs left out and why, or
    none; until then the table names the part as not measured."""
    from gpu.plan import NAMED
    from report.build.studies import capture_records, load_studies
    from report.build.plan_gaps import not_measured
    from report.views.gpu import capture_line
    gpu, machine = "NVIDIA H100 80GB HBM3", "vm (x, 16 cores, NVIDIA H100 80GB HBM3)"
    line = {"backend": "torch", "variant": "graph_cudagraphs", "device": "cuda", "frames": 1,
            "cudagraph_skips": 0, "reasons": []}
    lines = [{**line, "model": "vgg", "phase": "infer"}, {**line, "model": "mnist_cnn",
                                                          "phase": "train"},
             {**line, "model": "vgg", "phase": "train", "cudagraph_skips": 2,
              "reasons": ["skipping cudagraphs due to mutated inputs (2 instances)"]},
             {**line, "model": "resnet", "phase": "train", "device": "cpu", "cudagraph_skips": 9},
             {"backend": "torch", "model": "decoder", "device": "cuda",
              "error": "RuntimeError: inductor: boom"}]
    folder = tmp_path / "findings" / gpu.replace(" ", "-")
    folder.mkdir(parents=True)
    (folder / "gpu_cudagraphs-torch.json").write_text(json.dumps(
        {"machine": {"gpu": gpu, "commit": "c" * 40}, "complete": True, "exit": 0,
         "results": lines}))
    found = capture_records(machine, load_studies(tmp_path))
    assert sorted((r["model"], r["phase"], r["estimate"] or 0) for r in found) == [
        ("decoder", "train", 0), ("mnist_cnn", "train", 0), ("vgg", "infer", 0),
        ("vgg", "train", 2)]
    assert capture_line(found) == (
        "Graphs left out of CUDA graphs under `reduce-overhead` (gpu/cudagraph_capture.py): vgg "
        "train: 2 left out (mutated inputs (2 instances)); decoder: failed (RuntimeError: "
        "inductor: boom).")
    clean = [r for r in found if not r["estimate"] and not r["error"]]
    assert capture_line(clean).endswith("): none, train and infer (mnist_cnn, vgg).")
    part = "CUDA-graph capture under `reduce-overhead` (torch)"
    assert part not in not_measured(found) and part in not_measured([])
    assert capture_records("vm (x, NVIDIA H200)", load_studies(tmp_path)) == []
    step = NAMED["cudagraphs-torch"]
    assert (step.kind, step.backend, step.part, step.args) == (
        "study", "torch", "cudagraphs", ("gpu/cudagraph_capture.py",))


def test_a_model_that_fails_in_the_capture_study_is_a_line_and_the_others_still_run(
        monkeypatch, capsys):
    """gpu/cudagraph_capture.py: a model whose capture raises prints its error as its line and
    the next model runs (a window's study keeps what it found); 1 only where none ran."""
    import types
    from gpu import cudagraph_capture as study
    from suites import child

    def capture(backend, device, model, steps, reasons):
        if model == "vgg":
            raise RuntimeError("inductor: boom\nthe rest of it")
        return [{"model": model, "phase": "train", "cudagraph_skips": 0}]
    monkeypatch.setattr(child, "start", lambda *args: (
        types.SimpleNamespace(NAME="torch"), types.SimpleNamespace(type="cuda"), None))
    monkeypatch.setattr(study, "listen", lambda: (None, ["cudagraphs"]))
    monkeypatch.setattr(study, "capture", capture)
    assert study.main(["--models", "vgg,mnist_cnn"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(x["model"], x.get("error")) for x in lines] == [
        ("vgg", "RuntimeError: inductor: boom"), ("mnist_cnn", None)]
    assert study.main(["--models", "vgg"]) == 1


def test_a_part_is_not_measured_until_each_of_its_steps_is():
    from report.build.plan_gaps import not_measured
    resnet = _rec("busy_speedup", "torch", "graph", model="busy-resnet-d50-s224-w1-b32")
    lengths = [_rec("lengths_total", "jax", v, model="decoder") for v in ("eager", "graph")]
    said = not_measured([resnet, *lengths, _rec("first_call", "chainer", "graph", model="vgg")])
    busy = next(x for x in said if x.startswith("ResNet-50 at 224"))
    assert busy.endswith("(jax; torch: decoder)")  # torch's decoder point still missing, all of jax's
    assert "lengths that vary (chainer, torch)" in said  # jax has both of its variants
    # which models are missing where some are measured: not the bare part, as if none were
    assert ("first calls cold and warm, break-even (jax, torch; chainer: mnist_cnn, resnet, "
            "decoder)") in said
    done = [resnet, _rec("busy_speedup", "torch", "graph", model="busy-decoder-d512-h8-x6-t256-b8")]
    assert next(x for x in not_measured(done) if x.startswith("ResNet-50")).endswith("(jax)")


def test_a_gpu_determinism_row_is_refused_only_where_its_switch_cannot_reach():
    from report.views.determinism import determinism_section
    step = lambda machine, variant: {
        "kind": "determinism_step", "machine": machine, "backend": "jax", "model": "mnist_cnn",
        "variant": variant, "deterministic": False, "estimate": 1e-3, "low": 1e-3, "high": 1e-3,
        "compared_steps": 4, "repeat_identical": True, "identical_to_eager": True,
        "max_rel_diff_to_eager": 0.0}
    gpu, cpu = "vm (x, 16 cores, NVIDIA H100 80GB HBM3)", "vm (AMD EPYC, 2 cores)"
    row = lambda text, variant: next(x for x in text.splitlines() if f"| {variant} |" in x)
    on_gpu = determinism_section([step(gpu, "eager"), step(gpu, "graph")])
    assert "refused" in row(on_gpu, "eager") and "refused" not in row(on_gpu, "graph")
    assert "refused" in row(determinism_section([step(cpu, "graph")]), "graph")


def test_the_gpu_tables_full_form_says_what_the_steps_counted_and_the_readmes_leaves_it_out():
    """A graph left out of CUDA graphs while the steady steps ran is a line in RESULTS.md's GPU
    table (tests/test_signals.py: where it comes from)."""
    from report.views.gpu import gpu_table
    gpu = "vm (Xeon, 16 cores, NVIDIA H100 80GB HBM3)"
    records = [_rec("speedup", "torch", "graph_cudagraphs", signals_first_call={"cudagraph_skips": 2}),
               _rec("speedup", "torch", "graph_cudagraphs", phase="infer")]
    said = lambda brief, found: [line for line in gpu_table(gpu, LOOP, found, "cpu", [], brief)
                                 if line.startswith("Counted while the steps ran")]
    assert said(False, records) == [
        "Counted while the steps ran (the backend's log and counters, summed over processes): "
        "torch mnist_cnn `graph_cudagraphs` train: 2 graphs left out of CUDA graphs at its first "
        "calls."]
    assert said(True, records) == [] and said(False, records[1:]) == []


def test_two_hosts_of_one_gpu_model_are_told_apart_wherever_the_answer_names_them():
    """Stop 108: a window on a second H200 host starts a table of its own; the README called both
    "the H200", and its Other GPUs line compared "the H200" with "the H200's train rows"."""
    from report.views.answer import answer_text, in_short
    xeon = "vm (Intel(R) Xeon(R) Processor, family 6 model 207, AVX-512, 16 cores, NVIDIA H200)"
    epyc = "vm (AMD EPYC, family 25 model 17, AVX-512, 16 cores, NVIDIA H200)"
    machines = _cpu_and_two_gpus(xeon, epyc)
    readme = answer_text(machines, "cpu", more="RESULTS.md#full", gpu=xeon)
    assert "**On the H200 on Xeon model 207**" in readme
    assert ("- **Other GPUs** (the H200 on Zen 4, in RESULTS.md), against the H200 on Xeon model "
            "207's train rows:") in readme
    assert f"**H200 on Zen 4** = `{epyc}`" in readme and f"**H200 on Xeon model 207** = `{xeon}`" \
        in readme
    assert "**H200 on Zen 4** = " in in_short(machines, "cpu", xeon)
    alone = answer_text(machines[:2], "cpu", more="RESULTS.md#full", gpu=xeon)
    assert "**On the H200**" in alone  # one H200 keeps its short name


def test_a_cpu_named_only_inside_a_gpu_hosts_name_is_left_off_the_legend():
    from machines import named_among
    from report.views.answer import legend
    zen4, zen5 = ("vm (AMD EPYC, family 25 model 17, AVX-512, 2 cores)",
                  "vm (AMD EPYC, family 26 model 2, AVX-512, 2 cores)")
    epyc = "vm (AMD EPYC, family 25 model 17, AVX-512, 16 cores, NVIDIA H200)"
    xeon = "vm (Intel(R) Xeon(R) Processor, family 6 model 207, AVX-512, 16 cores, NVIDIA H200)"
    machines = [(m, {}, []) for m in (zen4, zen5, epyc, xeon)]
    with named_among([zen4, zen5, epyc, xeon]):
        line = legend(machines, zen5, "on the Zen 5: 1.2×; the H200 on Zen 4: 3.1×.")
        assert "**H200 on Zen 4** = " in line and "**Zen 5** = " in line
        assert "**Zen 4** = " not in line and "Xeon" not in line
        assert "**Zen 4** = " in legend(machines, zen5, "the H200 on Zen 4 and the Zen 4 agree")
