"""The answer in short (report/views/headline.py): each framework's line says what its records say."""
from report.views.headline import (answer_lines, framework_line, other_cpus_line,
                                   other_gpus_line, your_case)
from report.build.ratios import SAME, meaning, rules_out

CPU = "vm (AMD EPYC, family 25 model 17, AVX-512+VNNI+BF16, 2 cores)"
GPU = "vm (Intel(R) Xeon(R) Processor, family 6 model 207, 16 cores, NVIDIA H100 80GB HBM3)"


def speedup(backend, model, variant, estimate, low, high, best=True, **more):
    rec = {"kind": "speedup", "backend": backend, "model": model, "variant": variant,
           "phase": "train", "precision": "float32", "case": None, "estimate": estimate,
           "low": low, "high": high, "interval": "95% paired bootstrap", "best": best, **more}
    return {**rec, **meaning(rec)}


def break_even(backend, model, steps, case="cold"):
    return {"kind": "break_even", "backend": backend, "model": model, "variant": "graph",
            "phase": "train", "precision": "float32", "case": case, "estimate": steps,
            "slow": steps is not None and steps >= 100,  # as steady.break_even_record sets it
            "timed": True}  # ... where its four figures are there


CPU_RECORDS = [speedup("torch", "mnist_cnn", "graph", 1.29, 1.22, 1.40),
               speedup("torch", "resnet", "graph", 1.26, 1.22, 1.33),
               speedup("torch", "vgg", "graph", 1.03, 1.01, 1.029),
               break_even("torch", "mnist_cnn", 9633), break_even("torch", "resnet", 6136),
               break_even("torch", "mnist_cnn", 1237, "warm"),
               break_even("torch", "resnet", 423, "warm"),
               speedup("chainer", "vgg", "graph", 1.06, 1.04, 1.08),
               break_even("chainer", "vgg", 17)]
GPU_RECORDS = [speedup("torch", "mnist_cnn", v, e, e * 0.97, e * 1.03, best=False, wait="block")
               for v, e in (("graph", 0.77), ("graph_cudagraphs", 1.32), ("cuda_graph", 6.86))]


def test_a_framework_line_gives_the_range_of_its_rows_and_names_what_is_within_noise():
    line = framework_line("torch", CPU, CPU_RECORDS, [(GPU, GPU_RECORDS)])
    assert line.startswith("- **PyTorch** on the Zen 4: `torch.compile()` 1.26–1.29× "
                           "(mnist_cnn, resnet), within 3% of eager on vgg; paid back only after "
                           "6,136–9,633 steps on a first run (mnist_cnn, resnet).")  # vgg: none
    assert ("H100: `torch.compile()` slower on mnist_cnn (0.77×); `mode=\"reduce-overhead\"` "
            "1.32× (mnist_cnn); the whole step in one CUDA graph 6.86× (mnist_cnn).") in line


def test_a_slower_row_is_said_apart_from_the_gains():
    """The H100's `torch.compile()` read '0.74–1.46× (decoder, mnist_cnn)': one range over a
    slower and a faster row, under '× faster'. The slower rows are named apart: commas within a
    variant, semicolons between variants (both were '; ')."""
    rows = [speedup("torch", "decoder", "graph", 1.46, 1.40, 1.52, wait="block"),
            speedup("torch", "mnist_cnn", "graph", 0.74, 0.66, 0.81, wait="block"),
            speedup("torch", "vgg", "graph", 0.90, 0.88, 0.92, wait="block"),
            speedup("torch", "resnet", "graph", 1.01, 0.96, 1.05, wait="block"),
            speedup("torch", "decoder", "graph_cudagraphs", 2.0, 1.9, 2.1, wait="block")]
    line = framework_line("torch", CPU, CPU_RECORDS, [(GPU, rows)])
    assert ("H100: `torch.compile()` 1.46× (decoder), slower on mnist_cnn and vgg (0.74–0.90×), "
            "undecided on resnet; `mode=\"reduce-overhead\"` 2.00× (decoder).") in line, line


def test_a_pay_back_names_its_models_where_a_row_has_no_first_calls_yet():
    """A GPU window timed JAX's first calls of two of its four models: the line said 'its first
    call is already cheaper' of all four."""
    rows = [speedup("jax", m, "graph", 80.0, 76.0, 84.0, wait="block") for m in ("mnist_cnn", "vgg")]
    cheap = {**break_even("jax", "mnist_cnn", 1), "first_call_cheaper": True}
    line = framework_line("jax", CPU, rows + [cheap], [])
    assert "its first call is already cheaper than eager's (mnist_cnn)." in line
    no_gain = {**break_even("jax", "vgg", None), "note": "no gain past ±3%: at most 2%"}
    assert line.replace(" (mnist_cnn)", "") == framework_line("jax", CPU, rows + [cheap, no_gain],
                                                               [])  # vgg cannot pay back: said
    untimed = {**break_even("jax", "vgg", None), "timed": False,
               "note": "no first calls timed in this run"}  # the build's, not a verdict
    assert framework_line("jax", CPU, rows + [cheap, untimed], []) == line


def test_all_of_the_answers_models_are_every_model():
    rows = [speedup("jax", m, "graph", 4.0, 3.8, 4.2) for m in ("decoder", "mnist_cnn", "vgg")]
    assert "`jax.jit` 4.00× (decoder, mnist_cnn, vgg)" in framework_line("jax", CPU, rows, [])
    rows.append(speedup("jax", "resnet", "graph", 13.8, 13.3, 14.6))
    assert "`jax.jit` 4.00–13.80× (every model)" in framework_line("jax", CPU, rows, [])


def test_a_pay_back_timed_only_on_later_runs_says_so():
    """Chainer's first calls on a GPU read CuPy's kernel cache (warm): no first run's break-even,
    so the line gives the later runs' as such, never as a first run's."""
    rows = [speedup("chainer", m, "graph", 1.3, 1.2, 1.4) for m in ("mnist_cnn", "vgg")]
    untimed = [{**break_even("chainer", m, None), "timed": False,
                "note": "no cold first call: CuPy's kernel cache was kept between processes"}
               for m in ("mnist_cnn", "vgg")]
    later = [break_even("chainer", "mnist_cnn", 1, "warm"), break_even("chainer", "vgg", 2, "warm")]
    line = framework_line("chainer", CPU, rows + untimed + later, [])
    assert "; paid back within 2 steps on later runs." in line
    assert "paid back" not in framework_line("chainer", CPU, rows + untimed, [])


def test_the_answer_has_one_line_per_framework_and_a_reader_case_per_finding():
    lines = answer_lines(CPU, CPU_RECORDS, [])
    assert [line.split("**")[1] for line in lines if line.startswith("- **")] == ["PyTorch",
                                                                                 "Chainer"]
    case = "\n".join(your_case(CPU_RECORDS, [(GPU, GPU_RECORDS)], ()))
    assert ("PyTorch's first compile pays back only after 6,136–9,633 steps on a first run "
            "(423–1,237 with a warm compile cache)") in case
    assert "the others pay back within 17 steps" in case
    assert "**A small model on a GPU** (H100, mnist_cnn): `torch.compile()` 0.77×" in case


def test_one_slow_pay_back_reads_as_one_count_not_a_range_of_one():
    """A Zen 3 job whose only slow row was torch's decoder read 'after 5,335–5,335 steps (751–751
    with a warm compile cache)'."""
    records = [speedup("torch", "decoder", "graph", 1.19, 1.13, 1.29),
               break_even("torch", "decoder", 5335), break_even("torch", "decoder", 751, "warm")]
    assert "; paid back only after 5,335 steps on a first run." in framework_line(
        "torch", CPU, records, [])
    assert ("PyTorch's first compile pays back only after 5,335 steps on a first run (751 with a "
            "warm compile cache): below that, stay eager.") in "\n".join(your_case(records, [], ()))


def test_another_cpu_that_reads_another_verdict_is_named_once():
    zen5 = [speedup("chainer", "vgg", "graph", 1.16, 1.15, 1.18),
            speedup("torch", "vgg", "graph", 0.99, 0.95, 1.04)]  # undecided: no disagreement
    mine = [speedup("chainer", "vgg", "graph", 0.98, 0.96, 0.999),
            speedup("torch", "vgg", "graph", 1.10, 1.08, 1.12)]
    other = "vm (AMD EPYC, family 26 model 2, AVX-512+VNNI+BF16, 2 cores)"
    chainer = framework_line("chainer", CPU, mine, [], [(other, zen5)])
    assert "within 3% of eager on vgg (the Zen 5 reads 1.16×, faster, on vgg)" in chainer
    assert "Zen 5" not in framework_line("torch", CPU, mine, [], [(other, zen5)])
    same = [speedup("chainer", "vgg", "graph", 1.01, 0.995, 1.02)]  # within 3%: decided too
    assert "1.16× (vgg; the Zen 5 reads 1.01×, within 3%, on vgg)" in framework_line(
        "chainer", CPU, [speedup("chainer", "vgg", "graph", 1.16, 1.15, 1.18)], [], [(other, same)])


def test_another_cpus_undecided_row_that_rules_the_answers_verdict_out_is_named_and_counted():
    """The Zen 4's Chainer MNIST CNN at the answer's code read 0.97× [0.94, 1.00]: undecided
    between within 3% and slower, so neither line said that it is no faster, where the Zen 5 reads
    1.16×."""
    zen4 = "vm (AMD EPYC, family 25 model 17, AVX-512+VNNI+BF16, 2 cores)"
    answer = [speedup("chainer", "mnist_cnn", "graph", 1.16, 1.13, 1.18),
              speedup("chainer", "vgg", "graph", 1.07, 1.06, 1.07)]
    theirs = [speedup("chainer", "mnist_cnn", "graph", 0.97, 0.94, 1.00),
              speedup("chainer", "vgg", "graph", 1.02, 0.96, 1.05)]  # undecided, may be faster
    assert [r["verdict"] for r in theirs] == ["undecided", "undecided"]
    line = framework_line("chainer", "zen5", answer, [], [(zen4, theirs)])
    assert "(mnist_cnn, vgg; the Zen 4 reads 0.97×, not faster, on mnist_cnn)" in line
    assert "vgg)" not in line.split("; the Zen 4")[1]
    xeon = "vm (Intel(R) Xeon(R) Processor, family 6 model 167, AVX-512, 2 cores)"
    within = [speedup("chainer", "mnist_cnn", "graph", 0.98, 0.96, 1.001)]  # within 3%: decided
    assert ("(mnist_cnn, vgg; the Zen 4 reads 0.97×, not faster, and the Xeon model 167 0.98×, "
            "within 3%, on mnist_cnn)") in framework_line(  # one aside a model
        "chainer", "zen5", answer, [], [(zen4, theirs), (xeon, within)])
    assert other_cpus_line("zen5", answer, [(zen4, theirs)]).endswith(
        "on 0 of the 0 rows both decided, and 1 undecided row whose interval excludes the zen5's "
        "verdict; the same best graph variant on 2 of 2; none at the answer's timing code.")
    slower = [speedup("chainer", "mnist_cnn", "graph", 0.90, 0.88, 0.92)]
    assert "(0.90×; the Zen 4 reads 1.04×, not slower, on mnist_cnn)" in framework_line(
        "chainer", "zen5", slower, [], [(zen4, [speedup("chainer", "mnist_cnn", "graph", 1.04,
                                                        1.00, 1.08)])])  # undecided, no slower
    assert rules_out(SAME, 1.031, 1.05) and rules_out(SAME, 0.90, 0.97)  # past the band
    assert not rules_out(SAME, 1.02, 1.05) and not rules_out("faster", 0.99, None)


def test_the_other_cpus_line_counts_the_verdicts_both_decided_and_the_best_variants():
    zen5 = "vm (AMD EPYC, family 26 model 2, AVX-512+VNNI+BF16, 2 cores)"
    theirs = [speedup("torch", "mnist_cnn", "graph", 1.11, 1.07, 1.13),  # faster, as here
              speedup("torch", "resnet", "xla", 1.01, 0.99, 1.02),  # within 3%, and another best
              speedup("torch", "vgg", "graph", 1.00, 0.96, 1.05),  # undecided: not counted
              speedup("jax", "vgg", "graph", 5.0, 4.9, 5.1)]  # a row the answer lacks
    line = other_cpus_line(CPU, CPU_RECORDS, [(zen5, theirs)])
    assert line.endswith("on 1 of the 2 rows both decided; the same best graph variant on 2 of 3; "
                         "none at the answer's timing code.")  # the records carry no code
    assert "(1 more, each from its own runs, in RESULTS.md), against the Zen 4's train rows" in line
    assert "Zen 5" not in line  # counted, not named: RESULTS.md names each
    assert other_cpus_line(CPU, CPU_RECORDS, [(zen5, theirs[3:])]) is None
    assert other_cpus_line(CPU, CPU_RECORDS, []) is None
    assert line in answer_lines(CPU, CPU_RECORDS, [], [(zen5, theirs)])


def test_a_gpu_beside_the_readmes_gpu_is_named_where_a_variant_disagrees_and_counted():
    """The README's GPU table is one GPU's (the most rows); another GPU's rows of the same network
    and variant, at a later code, were only a link under it: now named where one disagrees, as
    another CPU's are, and counted on a line of their own."""
    h200 = "vm (Intel(R) Xeon(R) Processor, family 6 model 207, 16 cores, NVIDIA H200)"
    theirs = [speedup("torch", "mnist_cnn", "graph", 1.00, 0.99, 1.01, wait="block"),  # within 3%
              speedup("torch", "mnist_cnn", "graph_cudagraphs", 1.30, 1.25, 1.35, wait="block"),
              speedup("torch", "mnist_cnn", "cuda_graph", 0.96, 0.90, 1.02, wait="block"),
              speedup("torch", "vgg", "graph", 0.5, 0.4, 0.6, wait="block"),  # the H100 lacks it
              speedup("torch", "mnist_cnn", "graph", 2.0, 1.9, 2.1, wait="step")]  # not a loop's
    line = framework_line("torch", CPU, CPU_RECORDS, [(GPU, GPU_RECORDS)], [], [(h200, theirs)])
    assert ("H100: `torch.compile()` slower on mnist_cnn (0.77×); `mode=\"reduce-overhead\"` "
            "1.32× (mnist_cnn); the whole step in one CUDA graph 6.86× (mnist_cnn) (the H200 reads "
            "`torch.compile()` 1.00×, within 3%, and the whole step in one CUDA graph 0.96×, not "
            "faster, on mnist_cnn).") in line, line  # one aside a model, the GPU named once
    assert "H200" not in framework_line("torch", CPU, CPU_RECORDS, [(GPU, GPU_RECORDS)], [],
                                        [(h200, theirs[1:2])])
    assert other_gpus_line(GPU, GPU_RECORDS, [(h200, theirs)]) == (
        "- **Other GPUs** (the H200, in RESULTS.md), against the H100's train rows: the same "
        "verdict on 1 of the 2 rows both decided, and 1 undecided row whose interval excludes "
        "the H100's verdict.")
    assert other_gpus_line(GPU, GPU_RECORDS, [(h200, theirs[3:])]) == (
        "- **Other GPUs** (the H200, in RESULTS.md): no train row the H100 measured too.")
    assert other_gpus_line(GPU, GPU_RECORDS, []) is None
    newer = [dict(r, code="37ef4920a8c9") for r in theirs]
    assert other_gpus_line(GPU, GPU_RECORDS, [(h200, newer)]).endswith(
        "verdict; at another timing code.")
    assert other_gpus_line(GPU, GPU_RECORDS, [(h200, newer[:1] + theirs[1:])]).endswith(
        "verdict; 1 of the 3 rows at another timing code.")
    lines = answer_lines(CPU, CPU_RECORDS, [(GPU, GPU_RECORDS)], [], [(h200, theirs)])
    assert lines[-1].startswith("- **Other GPUs** (the H200") and "H200" not in lines[0]


def test_the_other_cpus_line_counts_apart_the_cpus_at_the_answers_code():
    """A CPU measured at another timing code may differ for its code, not its CPU: the line says
    how far the CPUs at the answer's code agree."""
    at = lambda code, records: [{**r, "code": code} for r in records]
    mine = at("c0de", CPU_RECORDS)
    same = at("c0de", [speedup("torch", "mnist_cnn", "graph", 1.11, 1.07, 1.13),
                       speedup("torch", "resnet", "graph", 1.21, 1.18, 1.24),
                       speedup("chainer", "vgg", "graph", 0.96, 0.90, 1.02)])  # no `faster`
    older = at("0ld", [speedup("torch", "vgg", "xla", 1.20, 1.15, 1.25)])  # faster, another best
    line = other_cpus_line(CPU, mine, [("zen5", same), ("xeon", older)])
    assert line.endswith(": the same verdict on 2 of the 3 rows both decided, and 1 undecided row "
                         "whose interval excludes the Zen 4's verdict; the same best graph variant "
                         "on 3 of 4; the 1 at the answer's timing code: 2 of 2 verdicts (and 1 "
                         "undecided row against), 3 of 3 variants.")
    assert line.startswith("- **Other CPUs** (2 more, ")
    assert other_cpus_line(CPU, mine, [("zen5", same)]).endswith(
        "on 3 of 3; all at the answer's timing code.")
    assert other_cpus_line(CPU, mine, [("xeon", older)]).endswith(
        "; none at the answer's timing code.")


def test_a_break_even_this_cpu_left_out_names_another_cpus():
    """torch vgg's first calls were left out of the Zen 4's answer jobs: the short-run line says
    so and quotes the Zen 5's break-even of the same row (issue 50: the worst break-even)."""
    zen5 = "vm (AMD EPYC, family 26 model 2, AVX-512+VNNI+BF16, 2 cores)"
    left = {**break_even("torch", "vgg", None), "machine": CPU,
            "note": "first calls left out by profile `default` in this run"}
    theirs = {**break_even("torch", "vgg", None), "machine": zen5, "run": "0100_default",
              "note": "no gain past ±3%: its interval lies below 1"}
    found = "\n".join(your_case(CPU_RECORDS + [left], [], {}, [(zen5, [theirs])]))
    assert ("PyTorch's break-even on vgg: its first calls were not timed on the Zen 4; the "
            "Zen 5's: no gain past ±3%: its interval lies below 1 (`0100_default`).") in found
    assert "not timed" not in "\n".join(your_case(CPU_RECORDS, [], {}, [(zen5, [theirs])]))


def test_whether_a_break_even_is_slow_is_the_builds():
    """The build marks a break-even past ratios.SLOW_PAYBACK steps `slow`; the lines read it."""
    quick = [{**r, "slow": False} if r["kind"] == "break_even" else r for r in CPU_RECORDS]
    line = framework_line("torch", CPU, quick, [])
    assert "paid back within 9633 steps" in line and "only after" not in line
    assert not any(line.startswith("- **A short run**") for line in your_case(quick, [], {}))


def test_an_aside_joins_the_gains_parenthesis_only_where_it_is_the_only_one():
    """The README read '1.07–1.45× (decoder, mnist_cnn, vgg) (the Zen 4 reads 0.97×, ...)': two
    parentheses in a row; where the gains hold two, the last would seem to hold the aside."""
    from report.views.headline import beside
    assert beside("`@static_graph` 1.07× (vgg)", ["a"]) == "`@static_graph` 1.07× (vgg; a)"
    assert beside("`torch.compile()` 1.46× (decoder)", ["a", "b"]).endswith(" (decoder; a; b)")
    assert beside("x 1.10× (vgg), slower on mnist_cnn (0.90×)", ["a"]).endswith("(0.90×) (a)")
    assert beside("x within 3% of eager on vgg", ["a"]) == "x within 3% of eager on vgg (a)"
    assert beside("x 1.10× (vgg)", []) == "x 1.10× (vgg)"
