"""Source article 004's claim (Chainer @static_graph 1.12× on the MNIST CNN) against the run's interval."""
from report.build.ratios import meaning
from report.views.seeds import seed_004_text


def speedup(low, high, estimate=None, backend="chainer"):
    rec = {"kind": "speedup", "backend": backend, "model": "mnist_cnn", "variant": "graph",
            "phase": "train", "precision": "float32", "interval": "95% paired bootstrap",
            "estimate": estimate or (low + high) / 2, "low": low, "high": high, "processes": 3,
            "rounds": 10, "run": "0001_default"}
    return {**rec, **meaning(rec)}


def test_the_seed_holds_inside_an_interval_that_excludes_one():
    assert "the article's 1.12× holds here" in seed_004_text([speedup(1.08, 1.15)])


def test_an_interval_around_one_and_the_seed_cannot_tell_them_apart():
    text = seed_004_text([speedup(0.94, 1.19, 1.10)])
    assert "cannot tell the article's 1.12× from no gain" in text and "up to 19%" in text
    assert "1.10× [0.94, 1.19] ~ (±11.4%" in text and "63.7 s → 56.6 s" in text


def test_a_larger_gain_than_the_seeds_is_said_so_not_refuted():
    text = seed_004_text([speedup(1.15, 1.21, 1.18)])  # the Intel Xeon's main job
    assert "a larger gain than the article's 1.12×: the interval lies above it" in text
    assert "does not hold" not in text


def test_an_interval_below_the_seed_says_which_side_and_how_precise():
    found = {**speedup(0.94, 0.99905, 0.97), "verdict": "slower", "machine": "vm (AMD EPYC)"}
    text = seed_004_text([found])
    assert "0.97× [0.94, 0.999]" in text  # an end that rounds to 1.00 keeps three decimals
    assert "no faster here (±3%): the interval lies below the article's 1.12×" in text
    assert "on the vm (AMD EPYC) the train" in text and "the article's GPU" in text
    assert "a smaller gain than the article's" in seed_004_text([speedup(1.04, 1.08)])


def test_no_chainer_figure_no_line():
    assert seed_004_text([speedup(1.0, 1.2, backend="tf")]) == ""


def test_the_line_says_how_far_its_processes_scatter_and_links_what_moves_it():
    found = {**speedup(0.93, 0.995, 0.95), "verdict": "slower",
             "variance_components": {"round_sd": 0.0761, "process_sd": 0.0491}}
    text = seed_004_text([found])
    assert "between its processes the log ratio scatters 4.9% (sd; 7.6% between rounds" in text
    assert "(docs/METHOD.md#seed-004-what-moves-the-static-arm)" in text
    assert "scatters" not in seed_004_text([speedup(1.08, 1.15)])  # older runs saved no spread


def test_a_between_process_spread_estimated_at_zero_is_not_said_to_move_it():
    """Run 0119's 8 processes: the variance components put the between-process sd at 0."""
    found = {**speedup(1.14, 1.21, 1.18), "processes": 8,
             "variance_components": {"round_sd": 0.143, "process_sd": 0.0}}
    text = seed_004_text([found])
    assert "It depends on the process" not in text and "scatters 0.0%" not in text
    assert ("Its 8 processes differ no more than their rounds explain (the log ratio's sd between "
            "processes is estimated at 0; 14.3% between rounds of one process") in text


def test_a_gpu_figure_joins_the_cpu_one():
    """The article measured a GPU: a GPU machine's figure is given beside the answer's CPU one."""
    cpu = {**speedup(0.94, 0.99905, 0.97), "verdict": "slower", "machine": "vm (AMD EPYC)",
           "device": "cpu"}
    gpu = {**speedup(1.18, 1.22, 1.20), "machine": "vm (Xeon, NVIDIA H200)", "device": "cuda",
           "run": "0086_gpu-chainer"}
    text = seed_004_text([cpu], [gpu, {**gpu, "device": "cpu", "machine": "vm (other CPU)"}])
    assert "on the vm (AMD EPYC) the train step is 0.97×" in text
    assert ("; on the H200 1.20× [1.18, 1.22] "
            "(±1.7%, 3 processes × 10 rounds, `0086_gpu-chainer`): a larger gain than the "
            "article's 1.12×: the interval lies above it." in text)
    same = seed_004_text([{**gpu, "machine": "vm (AMD EPYC)", "device": "cpu"}], [gpu])
    assert same.endswith("`0086_gpu-chainer`): the same.")  # one verdict said once
    assert same.count("the interval lies above it") == 1
    assert "other CPU" not in text  # another CPU machine has its own tables, not this line
    assert seed_004_text([], [gpu]).startswith("**Source article 004**")


def test_a_pooled_figure_names_every_job_and_whose_processes_its_spread_describes():
    """Seeds jobs 0123 and 0119 pool (17 processes); the spread is the newest job's own."""
    found = {**speedup(1.14, 1.19, 1.17), "processes": 17, "run": "0123_default-seeds",
             "pooled_runs": ["0123_default-seeds", "0119_default-seeds"],
             "variance_components": {"round_sd": 0.142, "process_sd": 0.0}}
    text = seed_004_text([found])
    assert "17 processes × 10 rounds, `0123_default-seeds`+`0119_default-seeds`)" in text
    assert "In `0123_default-seeds` its processes differ no more than their rounds" in text
    found["variance_components"]["process_sd"] = 0.05
    assert "between the processes of `0123_default-seeds` the log ratio scatters 5.0%" in (
        seed_004_text([found]))
