"""The user report from synthetic measurements: the recommendation, loud mismatches, skips,
break-even from the interval, and saving that never loses an earlier report."""
import json

import numpy as np
import pytest

from report.build import user as U
from report.views import user_md
from user.save import save

SHAPES = [[8, 16], [8, 32], [8, 16], [8, 64]]


def _child(step, first, traces, retrace_s):
    steps = [{"shape": s, "s": retrace_s, "loss": 1.0, "traces": traces + i, "held_bytes": 2 ** 20}
             for i, s in enumerate(SHAPES)]
    return {"first_call_s": first, "startup_s": 3.0, "peak_rss_bytes": 10 * 2 ** 20, "traces_after_first": traces,
            "retrace": steps, "retrace_planned": len(SHAPES), "log_signals": {}}


def synthetic(graph_speedup=2.0, match=True, failed=None, retrace_s=0.01, framework="torch"):
    """One measurement (torch's unless said): eager 10 ms/step, `graph` `graph_speedup` times
    faster."""
    rng = np.random.default_rng(0)
    noise = lambda: (1 + 0.01 * rng.standard_normal(5)).tolist()
    times = lambda ms: [ms * 1e-3 * v for v in noise()]
    steady = []
    for _ in range(3):
        arms = {"eager": 10, "eager_aa": 10, "graph": 10 / graph_speedup}
        check = lambda ok: {"match": ok, "loss_max_abs_diff": 0.0 if ok else 0.5,
                            "outputs_max_abs_diff": 0.0 if ok else 0.7, "losses": [1.0]}
        steady.append({"times": {p: {a: times(ms) for a, ms in arms.items()} for p in
                                 ("train", "infer")},
                       "accuracy": {"eager": check(True), "eager_aa": check(True),
                                    "graph": check(match)},
                       "tolerance": {"rtol": 1e-3, "atol": 1e-4}, "accuracy_steps": 3,
                       "failed": {}, "framework_version": "2.13.0"})
    cold = {"eager": [_child(0.01, 0.05, 0, 0.01)], "graph": [_child(0.005, 5.0, 1, retrace_s)]}
    return {"file": "/x/mymodel.py", "framework": framework, "threads": 1,
            "plan": {"steady_processes": 3, "rounds": 5, "cold_cache": True, "block": 64,
                     "block_s": 0.05, "equal_blocks": True},
            "variants": ["graph", *(failed or {})], "failed": failed or {}, "cold": cold,
            "warm": {}, "steady": steady}


def _on(m, node="box", family=25, model=17, python="3.11.7", gpu=None):
    """`m` as measured on a 2-core AMD EPYC host (its GPU named where given), under `python`."""
    m["machine_info"] = {"node": node, "python_version": python, "cpu": {
        "brand_raw": "AMD EPYC", "family": family, "model": model, "count": 2,
        "flags": ["avx2", "fma"]}, **({"graphbench": {"gpu": gpu}} if gpu else {})}
    return m


def _heads(report):
    """The framework each recommendation of a saved report names, in its order ('**torch')."""
    return [line.split(":")[0] for line in report.read_text().splitlines()
            if line.startswith("**")]


def test_compile_recommended_with_break_even_range():
    m = synthetic(failed={"graph_static": "paired child exited 1: BackendCompilerFailed: x"})
    text = user_md.recommend(*U.measured(m))
    assert text.startswith("**torch: compile with `torch.compile()`** (`graph`)")
    n, low, high, note = U.break_even_range(m, "graph")
    assert note is None and low <= n <= high and 900 < n < 1100  # 4.95 s extra ÷ ~5 ms gain
    assert "Could not run: graph_static" in text


def test_a_first_call_no_dearer_than_eagers_pays_off_after_1_step():
    """JAX's example: `jax.jit`'s first call 0.98 s, op-by-op eager's 4.96 s ('after 1 steps')."""
    m = synthetic()
    m["cold"]["graph"] = [_child(0.005, 0.01, 1, 0.01)]
    text = user_md.recommend(*U.measured(m))
    assert "and pays off after 1 step." in text, text


def test_a_small_models_times_keep_their_digits():
    """A model whose steps take a millisecond: its first call and retrace run read in ms in the
    recommendation and with three significant digits in the tables, never 0.00 s."""
    m = synthetic()
    m["cold"] = {"eager": [_child(0.0005, 0.003, 0, 0.0007)],
                 "graph": [_child(0.0003, 0.02, 0, 0.001)]}
    text = user_md.render("mymodel", [U.measured(m)], "box")
    assert "first call costs 20 ms cold (eager 3 ms)" in text, text
    assert "took 4 ms against eager's 2.8 ms" in text, text
    assert "| `graph` | 0.00400 | 1.00 | 1.00 |" in text and "| 0.0200 |" in text, text
    assert "0.00 " not in text and "| 0.00 |" not in text


def test_compile_says_each_speedups_own_verdict():
    """A train step 2× faster whose inference step ran 0.8× read "inference 0.80× (...) faster
    than eager": one "faster than" after both figures. Each figure now says its own verdict."""
    m = synthetic()
    for process in m["steady"]:
        process["times"]["infer"]["graph"] = [t / 0.8 for t in process["times"]["infer"]["eager"]]
    text = user_md.recommend(*U.measured(m))
    assert text.startswith("**torch: compile with")
    assert ") faster than eager, inference 0.80× (" in text, text
    assert "inference 0.80× (0.80–0.80) slower than eager; its first call" in text, text


def test_the_build_decides_the_recommendation_and_the_report_words_it():
    """report.build.user.recommendation decides (issue 50); user_md.recommend only words it."""
    facts, recs = U.measured(synthetic())
    assert facts["recommendation"] == {"answer": "compile", "use": "graph", "per_step": "graph",
                                       "wrong": []}
    facts["recommendation"] = {"answer": "stay eager", "top": "graph", "infer": None, "wrong": []}
    assert user_md.recommend(facts, recs).startswith("**torch: stay eager.**")


def test_no_significant_gain_means_stay_eager():
    m = synthetic(graph_speedup=1.0)
    assert user_md.recommend(*U.measured(m)).startswith("**torch: stay eager.**")
    assert U.break_even_range(m, "graph")[3].startswith(("no gain past ±3%", "never (slower)"))


def test_a_run_that_cannot_tell_says_undecided_not_stay_eager():
    m = synthetic(graph_speedup=1.1)
    for process, scale in zip(m["steady"], (0.6, 1.0, 1.7)):  # graph's processes scatter widely
        process["times"]["train"]["graph"] = [t * scale for t in process["times"]["train"]["graph"]]
    text = user_md.recommend(*U.measured(m))
    assert text.startswith("**torch: undecided.** This run cannot tell") and "stay eager" not in text
    assert "(a longer profile, `--profile default`, on" in text  # 3 processes × 5 rounds
    m["plan"]["rounds"] = 10  # the default profile's run asked for `--profile default` again
    assert "(a longer profile, `--profile paper`, on" in user_md.recommend(*U.measured(m))
    m["plan"]["steady_processes"] = 5
    assert "(more steady processes than the longest profile runs, on" in user_md.recommend(
        *U.measured(m))


def test_mismatch_is_loud_and_never_recommended():
    m = synthetic(match=False)
    text = user_md.recommend(*U.measured(m))
    assert text.startswith("**torch: stay eager.**") and "⚠ **graph compute a different" in text
    table = "\n".join(user_md.tables(*U.measured(m)))
    assert "⚠ **MISMATCH**" in table and "2.00×" in table.split("`graph`")[1].split("\n")[0]


def test_varying_shapes_advise_buckets():
    text = user_md.recommend(*U.measured(synthetic(retrace_s=2.0)))
    assert "pad or bucket dimension 1 (16–64) to 3 bucket(s): 16, 32, 64" in text


def test_skipped_variant_is_shown_with_its_reason():
    m = synthetic(failed={"graph_static": "paired child exited 1: BackendCompilerFailed: x"})
    table = "\n".join(user_md.tables(*U.measured(m)))
    assert "- `graph_static`: paired child exited 1: BackendCompilerFailed: x" in table
    kinds = {(r["variant"], r["kind"]) for r in U.records(m, "vm", "user-mymodel")}
    assert ("graph_static", "failed") in kinds and ("graph", "speedup") in kinds


def test_records_have_the_summary_fields():
    from report.build.records import FIELDS
    for r in U.records(synthetic(), "vm", "user-mymodel"):
        assert set(FIELDS) <= set(r)


def test_save_keeps_earlier_files_when_a_run_is_broken(tmp_path):
    report = save(synthetic(), tmp_path, "vm")
    before = {p.name: p.read_text() for p in report.parent.iterdir()}
    broken = synthetic()
    del broken["steady"]
    with pytest.raises(KeyError):
        save(broken, tmp_path, "vm")
    assert {p.name: p.read_text() for p in report.parent.iterdir()} == before
    assert report.read_text().startswith("# Should I compile `mymodel`?")
    rows = [json.loads(line) for line in
            (tmp_path / "vm" / "user-mymodel-torch.records.jsonl").read_text().splitlines()]
    assert {r["kind"] for r in rows} >= {"speedup", "break_even", "first_call", "retrace_total"}


def test_a_report_saved_before_does_not_make_the_next_measurement_dirty(tmp_path, monkeypatch):
    """A second user run found the first one's report (tracked, under results/) changed and
    recorded its measurement as of changed code; a changed code file still does."""
    import subprocess
    from user import save as saving
    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)
    (repo / "results" / "user-x.md").write_text("old\n")
    (repo / "run.py").write_text("code\n")
    git = lambda *a: subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *a],
                                    cwd=repo, check=True, capture_output=True)
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "x")
    monkeypatch.setattr(saving, "ROOT", repo)
    (repo / "results" / "user-x.md").write_text("new\n")
    m = synthetic()
    save(m, tmp_path / "out", "m")
    assert m["dirty"] is False
    (repo / "run.py").write_text("changed\n")
    m = synthetic()
    save(m, tmp_path / "out", "m")
    assert m["dirty"] is True


def test_the_machine_is_named_by_its_cpu(tmp_path):
    """Report and records name the machine as every report does; the folder is the one given."""
    m = _on(synthetic(), model=1)
    name = "box (AMD EPYC, family 25 model 1, AVX2, 2 cores)"
    assert f"Machine `{name}`;" in save(m, tmp_path, "vm").read_text()
    rows = (tmp_path / "vm" / "user-mymodel-torch.records.jsonl").read_text().splitlines()
    assert {json.loads(line)["machine"] for line in rows} == {name}


def test_without_machine_info_this_machine_is_named_by_its_cpu(tmp_path):
    from report.build.load import machine_name
    from suites import cpu
    m = synthetic()
    text = save(m, tmp_path, "vm").read_text()
    assert f"Machine `{machine_name(m['machine_info'])}`;" in text
    assert cpu.model() in machine_name(m["machine_info"]) and "CPython" not in text


def test_recompile_limit_is_named():
    m = synthetic()
    m["cold"]["graph"][0]["log_signals"] = {"recompile_limit_hits": 1}
    text = "\n".join(user_md.tables(*U.measured(m)))
    assert "recompile_limit_hits: 1" in text and "⚠ `graph` hit torch's recompile limit" in text


def test_the_report_is_drawn_from_its_records_each_bootstrap_once(monkeypatch):
    """Four paired ratios (train and infer of eager_aa and graph): four bootstraps, not one per
    mention."""
    import stats
    calls, real = [], stats.ratio
    monkeypatch.setattr(stats, "ratio", lambda *a, **k: calls.append(a) or real(*a, **k))
    user_md.render("mymodel", [U.measured(synthetic(), "vm", "user-mymodel")], "vm")
    assert len(calls) == 4


def test_user_records_use_the_suites_units():
    """memory_peak in bytes as sections.py saves it; new- and seen-shape steps as means."""
    rows = {(r["variant"], r["kind"]): r for r in U.records(synthetic(retrace_s=0.25), "vm", "u")
            if r["phase"] != "infer"}
    assert rows["graph", "memory_peak"]["unit"] == "bytes"
    assert rows["graph", "memory_peak"]["estimate"] == 10 * 2 ** 20
    retrace = rows["graph", "retrace_total"]
    assert (retrace["estimate"], retrace["new_shape_s"], retrace["seen_shape_s"]) == (1.0, .25, .25)
    assert rows["graph", "speedup"]["verdict"] == "faster" and rows["graph", "speedup"]["best"]


def test_a_loss_that_grows_by_orders_of_magnitude_gets_no_recommendation():
    """Issue 52: a model whose loss went 1.18 → 2669 → 3e8 → 1e17 in --profile quick's 7 steps
    (NaN at step 10) was told to compile with @static_graph."""
    m = synthetic()
    for arm in ("eager", "graph"):
        child = m["cold"][arm][0]
        child["losses"] = [1.18, 2669.0, 3e8]
        for step, loss in zip(child["retrace"], (1e12, 1e17, 1e17, 1e17)):
            step["loss"] = loss
    text = user_md.recommend(*U.measured(m))
    assert text.startswith("**torch: no answer: the loss diverges.**")
    assert "grew from 1.18 to 2.67e+03 by train step 2: it diverges" in text
    healthy = user_md.recommend(*U.measured(synthetic()))
    assert "Losses checked over 4 train steps per variant" in healthy and "compile" in healthy


def test_the_build_decides_what_the_report_warns_of():
    """Issue 50: a variant whose run over the user's shapes took over 10% longer than eager's gets
    the padding advice, and a cold first call that hit the compile cache is flagged: decided once
    on the records (shapes_cost, cache_check), which user_md only reads."""
    def graph(m, kind):
        return next(r for r in U.records(m, "vm", "u") if r["kind"] == kind
                    and r["variant"] == "graph")
    assert graph(synthetic(retrace_s=0.0115), "retrace_total")["shapes_cost"]  # eager: 0.01 s
    assert not graph(synthetic(retrace_s=0.0105), "retrace_total")["shapes_cost"]
    m = synthetic()
    m["cold"]["graph"][0]["cache_hits"] = 3
    assert graph(m, "first_call")["cache_check"] == "hit"
    assert "5.00 ⚠ hit the cache: not cold" in "\n".join(user_md.tables(*U.measured(m)))


def test_a_gpu_run_says_so_and_keeps_a_report_apart_from_its_hosts_cpu_run(tmp_path):
    """Your model on a GPU (`run.py bench --user F --device cuda`): the report says where its
    steps ran and how they were waited on, in a folder of its own beside the CPU's (its GPU's
    name, or -gpu where the GPU went unnamed)."""
    from user.save import folder_name
    on_cpu = save(_on(synthetic()), tmp_path)
    gpus = [_on(synthetic(), gpu=gpu) for gpu in ("NVIDIA H200, 580.1, 143771 MiB", None)]
    for m in gpus:
        m.update(device="cuda", wait="block")
    on_gpu, unnamed = [save(m, tmp_path) for m in gpus]
    cpu = "box-amd-epyc-family-25-model-17-avx2-2-cores"
    assert [p.parent.relative_to(tmp_path).as_posix() for p in (on_cpu, on_gpu, unnamed)] == [
        f"user/{cpu}", f"user/{cpu}-nvidia-h200", f"user/{cpu}-gpu"]
    t4 = "box (AMD EPYC, family 25 model 17, AVX2, 2 cores, Tesla T4)"
    assert folder_name(t4, "cuda", "Tesla T4, 535.1, 15360 MiB") == f"{cpu}-tesla-t4"
    said = ("on its GPU, each timed block of steps waited on once, as a training loop waits "
            "(peak MiB: the host process's);")
    assert said in on_gpu.read_text() and "GPU" not in on_cpu.read_text()


def test_one_report_per_machine_whatever_python_each_framework_runs(tmp_path):
    """The jax env runs Python 3.12 and the others 3.11: one report holds both frameworks (it was
    one per pytest-benchmark folder, which names the Python); another CPU gets its own report, so
    no report names a machine that did not measure all of it."""
    first = save(_on(synthetic(), python="3.11.7"), tmp_path)
    both = save(_on(synthetic(framework="jax"), python="3.12.1"), tmp_path)
    other = save(_on(synthetic(), family=26, model=2), tmp_path)
    assert both == first and other.parent != first.parent
    assert _heads(both) == ["**torch", "**jax"]
    assert _heads(other) == ["**torch"]
    assert "torch 2.13.0 (Python 3.11.7), jax 2.13.0 (Python 3.12.1);" in both.read_text()


def test_a_measurement_saved_in_the_earlier_layout_joins_this_machines_report(tmp_path):
    """Reports were saved in pytest-benchmark's folder (results/<Python folder>/) before
    results/user/<machine>/: a framework measured there on this machine joins the next report and
    is copied beside it (its old files kept); another machine's, a GPU run's or a broken one
    do not."""
    old = tmp_path / "Linux-CPython-3.11-64bit"
    old.mkdir()
    saved = lambda m, fw: (old / f"user-mymodel-{fw}.measurement.jsonl").write_text(
        json.dumps({**m, "framework": fw}) + "\n")
    saved(_on(synthetic()), "torch")
    saved(_on(synthetic(), family=26, model=2), "chainer")  # another CPU
    saved({**_on(synthetic()), "device": "cuda"}, "tf")  # a GPU run whose GPU went unnamed
    (old / "user-mymodel-jax.measurement.jsonl").write_text("{broken")
    report = save(_on(synthetic(framework="jax")), tmp_path)
    assert _heads(report) == ["**torch", "**jax"]
    assert sorted(p.name for p in report.parent.iterdir()) == [
        "user-mymodel-jax.measurement.jsonl", "user-mymodel-jax.records.jsonl",
        "user-mymodel-torch.measurement.jsonl", "user-mymodel-torch.records.jsonl",
        "user-mymodel.md"]
    assert len(list(old.iterdir())) == 4


@pytest.mark.parametrize("plan, said", [
    ({"block": 64, "block_s": 0.05, "equal_blocks": True}, "a round times each arm's block of "
     "steps lasting 50 ms or the slowest arm's step, whichever is longer (at most 64 steps);"),
    ({"block": 64, "block_s": 0.0, "equal_blocks": False}, "a round times 64 step(s) of each arm;"),
    ({"block": 1, "block_s": 0.0, "equal_blocks": True}, "a round times 1 step(s) of each arm;")])
def test_the_report_says_how_long_a_timed_block_is(tmp_path, plan, said):
    """A round's block by the plan's rule; reports measured before the rule (64 steps) say so."""
    m = synthetic()
    m["plan"].update(plan)
    assert said in save(m, tmp_path, "vm").read_text()
