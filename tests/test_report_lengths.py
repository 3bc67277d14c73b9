"""Issue 37 part 4: what finishes a stream of varying lengths first, decided once on the records
(lengths.mark_first), and the answer's words for it, a silent fallback to eager included."""
from report.build.lengths import TIE, mark_first, why_undecided
from report.views.answer import backend_lines
from report.views.gpu import lengths_gpu_line
from report.views.headline import varying_shapes
from report.views.lengths import lengths_line, lengths_table
from tests.test_answer import steady


def run(variant, strategy, total, backend="torch", note=None, **fields):
    return {"kind": "lengths_total", "backend": backend, "model": "decoder", "variant": variant,
            "case": strategy, "estimate": total, "note": note, "steps_planned": 48,
            "steps_done": 48, "run": "0050", "dirty": False, "known_wrong": None, **fields}


def stream():
    return mark_first([run("graph", "exact", 60.0),
                       run("graph", "pow2", 20.0, steady_step_s=0.009),
                       run("graph_dynamic", "exact", 25.0, steady_step_s=0.007),
                       run("graph_static", "exact", 9.0, note="cut short by the profile's budget"),
                       run("graph_static", "mult32", 30.0, recompile_limit_hits=1),
                       run("graph", "exact", 5.0, backend="jax")])


def test_the_first_to_finish_is_the_least_total_of_the_complete_runs_with_its_margins():
    found = stream()
    first = sorted((r for r in found if r.get("first")), key=lambda r: r["backend"])
    assert [(r["backend"], r["variant"], r["case"]) for r in first] == [
        ("jax", "graph", "exact"), ("torch", "graph", "pow2")]  # the cut-short 9 s run is not
    top = first[1]
    assert top["by"] == 25.0 / 20.0 and top["runner_up"] == "graph_dynamic/exact"
    assert top["vs_default"] == 60.0 / 20.0
    # 25 s lies within TIE (1.5×) of 20 s, 30 s does not: one cold run each orders only the latter
    assert TIE == top["tie"] == 1.5 and top["tied"] == [("graph_dynamic", "exact")]
    assert "tied" not in first[0]  # a lone run has nothing to tie with


def test_the_answer_names_the_strategy_its_margin_the_fastest_step_and_a_silent_fallback():
    found = stream()
    line = lengths_line(found, "torch")
    assert line.startswith("token lengths that vary (48 batches), first to finish: `graph` at "
                           "powers of two, 20 s (next: graph_dynamic/exact, 1.25× as long; "
                           "`graph` at exact lengths 3.00×); within 1.5× of it, which one cold "
                           "run each cannot tell apart: `graph_dynamic` at exact lengths; "
                           "fastest step once compiled: `graph_dynamic` at exact lengths, 7 ms")
    assert "`graph_static` at multiples of 32 hit the recompile limit: later lengths ran " \
           "eagerly, no error ([finding](findings/torch_recompile_fallback.md))" in line
    assert lengths_line(found, "chainer") == ""
    text = "\n".join(backend_lines(steady() + found))
    assert "with token lengths that vary (48 batches)" in text
    assert "With token" not in text  # after a colon or a semicolon: lower case


def test_the_table_marks_the_first_and_the_cut_short():
    table = lengths_table(stream())
    assert "| torch | powers of two | `graph` | 20.00 **first** |" in table
    assert "9.00 (cut: cut short by the profile's budget)" in table


def test_the_answer_names_what_one_cold_run_does_not_tell_apart_from_the_first():
    found = mark_first([run("eager", "mult32", 1.0), run("eager", "exact", 1.2),
                        run("graph", "mult32", 1.4), run("graph", "pow2", 1.45),
                        run("graph", "exact", 9.0), run("graph", "max", 5.0, backend="jax"),
                        run("graph", "mult32", 8.0, backend="jax")])
    line = varying_shapes(found)
    assert line.startswith("- **Shapes that vary** (48 batches of token lengths that vary; one "
                           "cold run each, so totals within 1.5× are not told apart)")
    assert ("JAX `jax.jit` padded to the longest; PyTorch eager padded to multiples of 32 (tied: "
            "exact lengths; `torch.compile()` at multiples of 32, powers of two).") in line


def test_a_gpu_names_a_first_only_once_its_plan_is_measured_each_strategy_in_its_own_process():
    """The H200's Chainer lengths (window 10): two of eight totals, so none is first; the H100's,
    four strategies a process, each later one reusing the kernels the first compiled, so none
    either; JAX's, one process a variant (its compile_cache empties what it compiled), decided."""
    plan = {"chainer": [(v, k) for v in ("eager", "graph") for k in ("exact", "pow2")],
            "jax": [("graph", "exact"), ("graph", "max")]}
    so_far = [run("eager", "exact", 26.0, backend="chainer", run="0246"),
              run("eager", "pow2", 22.95, backend="chainer", run="0251")]
    h100 = [("eager", "exact", 17.5), ("eager", "pow2", 6.1), ("graph", "exact", 18.7),
            ("graph", "pow2", 4.0)]
    shared = [run(v, k, t, backend="chainer", run=f"013{i // 2}")  # two strategies a run
              for i, (v, k, t) in enumerate(h100)]
    jax = [run("graph", "exact", 9.0, backend="jax"), run("graph", "max", 5.0, backend="jax")]
    for chainer, why in ((so_far, "2 of its 4 totals measured"),
                         (shared, "its strategies shared a process, each later one reusing the "
                                  "kernels the first compiled")):
        found = mark_first(chainer + jax, why_undecided(chainer + jax, plan, ("chainer",)))
        assert [(r["backend"], r["case"]) for r in found if r.get("first")] == [("jax", "max")]
        assert {r.get("undecided") for r in found if r["backend"] == "chainer"} == {why}
    # one process a strategy, the plan's every pair: decided
    own = [run(v, k, t, backend="chainer", run=f"025{i}") for i, (v, k, t) in enumerate(h100)]
    found = mark_first(own, why_undecided(own, plan, ("chainer",)))
    assert [r["case"] for r in found if r.get("first")] == ["pow2"] and not any(
        r.get("undecided") for r in found)
    # a CPU's runs: no plan, no process rule (NumPy compiles nothing)
    assert why_undecided(shared, {}) == {}
    line = lengths_gpu_line(mark_first(so_far + jax, why_undecided(so_far + jax, plan)))
    assert line == ("On this GPU (one cold run each, every compile in its total): chainer's token "
                    "lengths that vary (48 batches), totals: `eager` at exact lengths 26.00 s, at "
                    "powers of two 22.95 s (`0246`, `0251`); none is first: 2 of its 4 totals "
                    "measured; jax's token lengths that vary (48 batches), first to finish: "
                    "`graph` at the longest (256), 5 s (next: graph/exact, 1.80× as long) "
                    "(`0050`).")  # the runner-up is the default: its ratio once
    assert lengths_gpu_line(steady()) == ""
