"""The answer a reader acts on: the setting beside the numbers, break-even cold and warm, advice
that steers around known wrong answers and quotes no cut-short run."""
from report.build import best as choice
from report.views.answer import advice, answer_text, best, shapes_text, workload
from report.build.ratios import verdict
from report.build.select import mark_headlines


def rec(kind, variant="graph", phase="train", case=None, estimate=1.5, low=1.2, high=1.8,
        model="resnet", backend="torch", **fields):
    found = {"kind": kind, "backend": backend, "model": model, "variant": variant, "phase": phase,
             "case": case, "estimate": estimate, "low": low, "high": high, "interval": "95%",
             "significant": not low <= 1 <= high, "precision": "float32", "note": None,
             "known_wrong": None, "run": "0001", "dirty": False, "machine": "m", "best": None}
    found = {**found, **fields}
    if kind == "break_even":  # as steady.break_even_record sets it
        found.setdefault("slow", found["estimate"] is not None and found["estimate"] >= 100)
        found.setdefault("timed", True)  # its four figures there
    mark = "~" if found["low"] is not None and found["low"] <= 1 <= found["high"] else ""
    return {**found, "verdict": verdict(found) if kind == "speedup" else None, "mark": mark}


SETTING = {"batch": 8, "vector_isa": "avx512", "threads": 2, "device": "cpu", "params": 1.5e6,
           "flops": 9.4e8, "input_shape": [8, 3, 64, 64], "model_config": {"depth": 50, "width": 0.25}}


def _steady(variant, known_wrong, model):
    return [rec("step_time", "eager", estimate=0.03, model=model, **SETTING),
            rec("step_time", variant, estimate=0.02, model=model, known_wrong=known_wrong,
                **SETTING),
            rec("speedup", variant, model=model, known_wrong=known_wrong),
            rec("break_even", variant, case="cold", estimate=11208, low=9925, high=13290,
                model=model),
            rec("break_even", variant, case="warm", estimate=850, low=753, high=1007, model=model)]


def steady(variant="graph", known_wrong=None, model="resnet"):
    """One row's records, its variant chosen as the records step chooses it (best.mark)."""
    return choice.mark(_steady(variant, known_wrong, model), lambda *row: None)


def test_the_setting_and_scope_stand_beside_the_numbers():
    records = steady()
    assert workload(records[0]) == ("pre-activation ResNet-50 at 1/4 width, 64² px input "
                                    "(3 channels), batch 8, 1.50 M parameters, 0.94 GFLOP per "
                                    "train step")
    text = answer_text([("m", {}, records)])
    assert "CPU only; no GPU has been measured yet" in text.splitlines()[0]
    assert "(a CPU, 2 threads, vector ISA avx512, float32)" in text


def test_break_even_is_given_for_a_first_run_and_for_later_runs():
    records = steady()
    row = next(line for line in answer_text([("m", {}, records)]).splitlines()
               if line.startswith("| torch | resnet |"))
    assert "| 11,208 (9,925–13,290) | 850 (753–1,007) |" in row
    line = advice(records, best(records))
    assert "11,208 (9,925–13,290) steps on a first run, 850 (753–1,007) on later runs" in line


def test_a_known_wrong_variant_is_never_advised_and_says_why():
    records = steady(known_wrong="zero gradients (findings/x.md)")
    assert best(records) == {}
    text = answer_text([("m", {}, records)])
    assert "| torch | resnet | — (`graph`: a known wrong answer, [findings/x.md](findings/x.md))" \
        in text and "use `graph`" not in text


def test_a_finding_elsewhere_is_a_caveat_on_the_advice():
    records = steady(model="mnist_cnn")  # batch 8 here; the catalog's finding is at batch 2-7
    for r in records:
        r["batch"] = 32
    line = advice(records, {m: r for (_, m), r in best(records).items()})
    assert ("right as measured (batch 32), but a known wrong answer at batch 2–7 in torch 2.13.0 "
            "(right in 2.14.1, 2.15.0): [findings/torch_inductor_conv_grad.md]") in line


def _total(variant, seconds, traces, note=None, model="vgg", run="0001"):
    return rec("retrace_total", variant, case="train-varying", estimate=seconds, model=model,
               traces=traces, note=note, distinct_shapes=4, steps_done=4, run=run)


def _built(records):
    """Retrace totals with the fields the build sets beside them (sections.retrace_records)."""
    from report.build.sections import beats_eager, over_eager
    return beats_eager(over_eager(records))


def test_shape_advice_quotes_complete_runs_only_and_names_what_worked():
    records = [_total("eager", 1.0, 0), _total("graph", 9.0, 4),
               _total("graph_dynamic", 0.5, 1), _total("graph_static", 99.0, 2, "cut short")]
    text = shapes_text(mark_headlines(_built(records)), "torch")
    assert "eager took 1 s, `graph_dynamic` 0.5 s (1 trace), `graph` 9 s (4 traces)" in text
    assert "99" not in text and "`graph_static` did not finish within the budget" in text
    assert text.endswith("use `graph_dynamic` when sizes vary;")
    records[2] = _total("graph_dynamic", 5.0, 1)
    assert "no graph variant beat eager here" in shapes_text(mark_headlines(_built(records)),
                                                             "torch")


def test_shape_advice_quotes_the_backends_newest_run_only():
    """An older run's network, with more finished graph runs, is for its table (the build marks
    the newest run's records `headline`)."""
    old = [_total(v, s, 1, model="resnet", run="0001")
           for v, s in (("eager", 1.0), ("graph", 0.5), ("graph_dynamic", 0.4))]
    new = [_total(v, s, 1, run="0002") for v, s in (("eager", 1.0), ("graph", 0.6))]
    records = mark_headlines(_built(old + new))
    assert [r["headline"] for r in records] == [False] * 3 + [True] * 2
    assert shapes_text(records, "torch").startswith("with input sizes changing every batch (vgg,")


def _costly():
    """One tf row whose variant costs memory and a compile per new shape, swept on the VGG."""
    records = steady("xla", model="resnet")
    for r in records:
        r["backend"] = "tf"
        if r["kind"] == "break_even":
            r["seconds"] = r["estimate"] * 0.0075
    records += [{**rec("memory_ratio", "xla", estimate=7.31, low=6.93, high=7.86, backend="tf",
                       run="0021"), "verdict": "more"},
                rec("retrace_total", "xla", case="train-repeating", backend="tf", model="resnet50",
                    new_shape_s=9.54, seen_shape_s=0.016),
                {**rec("scale_speedup", backend="tf", model="vgg-92", estimate=0.91, low=0.86,
                       high=0.94, flops=92e9, batch=1, model_config={"width": 1, "side": 224}),
                 "verdict": "slower"}]
    return records


def test_the_advice_names_costs_time_and_the_sweep():
    records = _costly()
    line = advice(records, {m: r for (_, m), r in best(records).items()})
    assert "11,208 (9,925–13,290) steps ≈ 1.4 min on a first run" in line
    assert "7.31× eager's memory" in line
    assert "9.5 s per new input shape (seen: 0.016 s)" in line
    assert line.endswith("; VGG sweep (`graph`): no gain beyond the interval at any size; slower "
                         "than eager at full width, 224² px, batch 1 (0.91× [0.86, 0.94], 92 "
                         "GFLOP).")
    brief = answer_text([("m", {}, records)], more="RESULTS.md#x")
    assert "- **TensorFlow** on the m: XLA (`jit_compile=True`)" in brief
    assert "[glossary](#glossary)" in brief


def test_the_isa_caveat_names_the_condition_first_and_how_to_check():
    line = advice(steady(), best(steady()))  # torch resnet at avx512: the AVX2 finding elsewhere
    assert ("on a CPU without AVX-512 (`grep -o avx512f /proc/cpuinfo | head -1` prints nothing "
            "there) a known wrong answer (with AVX2 code in torch 2.13.0, 2.14.1, 2.15.0): use "
            "eager or `torch.compile(backend=\"aot_eager\")` there; right on this CPU's avx512 "
            "code") in line and "batch 8" not in line


def test_a_backend_that_caches_nothing_repeats_its_first_run():
    records = [r for r in steady() if r["case"] != "warm"]
    records += [rec("first_call", case="cold", estimate=0.29, phase="construction")]
    row = next(line for line in answer_text([("m", {}, records)]).splitlines()
               if line.startswith("| torch | resnet |"))
    assert "| same as first run | 0.29 (no cache) |" in row


def test_a_first_call_cheaper_than_eagers_says_why_one_step():
    records = steady()
    for r in records:
        if r["kind"] == "break_even":
            r.update(estimate=1, low=1, high=1, first_call_cheaper=True, seconds=0.04)
    row = next(line for line in answer_text([("m", {}, records)]).splitlines()
               if line.startswith("| torch | resnet |"))
    assert "| 1 (first call cheaper than eager's) |" in row and "1 (1–1)" not in row
    assert "pays back at once: its first call is cheaper than eager's" in advice(
        records, best(records))


def test_counts_agree_and_the_scope_is_several_sentences():
    from report.views.answer import break_even_reading, scope
    never = rec("break_even", estimate=None, case="cold", note="never (slower)")
    assert "1 never pays off:" in break_even_reading([never])
    assert "2 never pay off:" in break_even_reading([never, {**never, "model": "vgg"}])
    # a variant's first-run and later-run break-even both never pay: one variant, named once
    once = break_even_reading([never, {**never, "case": "warm"}])
    assert "1 never pays off:" in once and once.count(" on resnet") == 1
    text = scope([("m", {}, steady())])
    assert text.count(". ") >= 1 and max(len(s.split()) for s in text.split(". ")) < 40


def test_the_default_ratio_is_a_record_of_its_own_by_the_one_builder():
    """`graph` ÷ the chosen variant is built by figure.labelled: its own verdict, mark and
    target, none of the chosen speedup's (its pooled runs, half-width or target)."""
    from report.build.best import flag
    pick = {**rec("speedup", "xla", estimate=1.3, low=1.25, high=1.35), "processes": 3,
            "rounds": 30, "commit": "c", "code": "c", "half_width": 0.04,
            "pooled_runs": ["0002", "0001"],
            "best_versus": {"estimate": 1.01, "low": 0.98, "high": 1.05, "interval": "95%",
                            "significant": False}}
    found = flag([pick], pick, "faster than `graph`")
    assert [(r["kind"], r["verdict"], r["mark"]) for r in found] == [
        ("default_ratio", "within 3%", "~")]
    assert "pooled_runs" not in found[0] and "half_width" not in found[0]


def test_step_times_rank_the_frameworks_fastest_graph_step_first():
    from report.views.answer import step_time_reading
    records = []
    for backend, eager, graph, variant in (("torch", 0.018, 0.012, "graph"),
                                           ("tf", 0.088, 0.0148, "xla")):
        records += [rec("step_time", "eager", estimate=eager, backend=backend),
                    rec("step_time", variant, estimate=graph, backend=backend),
                    rec("speedup", variant, estimate=eager / graph, backend=backend)]
    records = choice.mark(records, lambda *row: None)
    assert step_time_reading(records) == (
        "Train step, fastest first (absolute times rank frameworks; speedups do not): **resnet** "
        "with graph mode torch 12.0, tf 14.8 (`xla`) ms; eager 18.0 (torch) to 88.0 ms (tf).")
    assert step_time_reading(records[:3]).startswith("Fewer than two backends")


def test_the_readmes_table_names_each_backends_runs_once_under_it():
    """The short answer's table leaves the run column to one line under it: each backend's most
    common run cell, a model whose runs differ by name; the full answer keeps a cell per row."""
    pooled = {"pooled_runs": ["0005_default", "0001_default"]}
    records = [{**r, **pooled} for r in steady(model="resnet") + steady(model="vgg")]
    records += [{**r, "backend": "jax", "run": "0003_default"} for r in steady(model="vgg")]
    records += [{**r, "run": "0005_default"} for r in steady(model="mnist_cnn")]
    brief = answer_text([("m", {}, records)], more="RESULTS.md#x").splitlines()
    header = next(line for line in brief if line.startswith("| backend | model |"))
    assert not header.endswith("| run |") and all(
        line.count(" |") == header.count(" |") for line in brief if line.startswith("| torch |"))
    assert "Runs: jax `0003`; torch `0005+0001` (mnist_cnn `0005`)." in brief
    full = answer_text([("m", {}, records)])
    assert "| `0005_default`+`0001_default` |" in full and "Runs: " not in full
