"""The pipeline section over synthetic results: tables, seed 003's verdict and the advice."""
from report.build.load import Result
from report.views.pipeline import Pipeline, claim_verdicts, pipeline_section
from tests.reporting import records_of

EPOCH = {"naive": 1.0, "parallel": 1.5, "cache": 0.99, "prefetch": 0.5, "vectorized": 0.98}


def _result(backend, variant, loader, epoch, loss=0.5, when="2026-01-02T00:00:00"):
    info = {"backend": backend, "model": "mnist_cnn", "variant": variant, "phase": "pipeline",
            "loader": loader, "batch": 32, "input_shape": [32, 1, 28, 28], "stored_side": 32,
            "examples_per_epoch": 512, "examples_per_s": 512 / epoch, "step_s": epoch / 16,
            "input_wait_s_per_step": epoch / 64, "loss": loss, "loss_finite": loss == loss}
    stats = {"median": epoch, "q1": epoch * 0.97, "q3": epoch * 1.03}
    return Result("f.json", "m", "0001_x", when, f"test_pipeline[{loader}]", info, stats,
                  {"threads": 2})


def _results(backend="tf"):
    return [_result(backend, v, name, epoch) for v in ("eager", "graph")
            for name, epoch in EPOCH.items()]


def test_no_pipeline_results_no_section():
    assert pipeline_section(records_of([])) == ""


def test_table_cells_come_from_the_results():
    text = pipeline_section(records_of(_results()))
    row = next(line for line in text.splitlines() if line.startswith("| tf | graph |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "512/s · wait 15.62 · epoch 1000.00 (970.00–1030.00)"  # naive
    assert cells[5].startswith("1,024/s")  # prefetch: half the epoch time
    assert "**mnist_cnn** (batch 32, 512 examples per epoch, PNG 32² cropped to 28²)" in text


def test_verdict_separates_slower_from_not_significant():
    line = claim_verdicts(records_of(_results()))[0]
    assert line.startswith("- tf: the claim holds in part")
    assert "`parallel` slower in 2 of 2, faster in 0, n.s. in 0" in line
    # wait is 1/64 and the rest 3/64 of the epoch: 0.5 s more epoch -> +7.81 and +23.44 ms
    assert "input wait +7.81 ms, train step +23.44 ms" in line
    assert "`naive` waits for input 25%–25% of its epoch" in line
    assert "`cache` slower in 0 of 2, faster in 0, n.s. in 2" in line  # 1 % apart, 3 % spread


def test_advice_names_the_fastest_loader_beyond_the_spread():
    runs = _results("torch") + [_result("chainer", "eager", n, 1.0) for n in EPOCH
                                if n != "prefetch"]
    text = pipeline_section(records_of(runs))
    assert "torch `prefetch` (best in 2 of 2, 2.00× `naive` at best)" in text
    assert "chainer `naive` (best in 1 of 1)" in text  # 0.98 s is within naive's spread


def test_advice_keeps_naive_without_a_majority():
    runs = [_result("tf", "eager", n, 1.0 if n != "prefetch" else 0.5) for n in EPOCH]
    runs += [_result("tf", "graph", n, 1.0 if n != "cache" else 0.5) for n in EPOCH]
    assert "tf `naive` (no loader best in most of 2)" in pipeline_section(records_of(runs))


def test_newest_run_and_valid_losses_only():
    old = [_result("tf", "eager", "naive", 9.0, when="2000-01-01T00:00:00")]
    bad = [_result("tf", "graph", "naive", 0.1, loss=float("nan"), when="2030-01-01T00:00:00")]
    idx = (lambda found: Pipeline(records_of(found)))(old + _results() + bad)
    assert idx[("tf", "mnist_cnn", "eager", "naive")]["epoch_time"]["estimate"] == 1.0
    assert ("tf", "mnist_cnn", "graph", "naive") not in idx  # the newest run is not finite


def _paired_results():
    """Paired runs whose intervals disagree with the spreads: `parallel` (IQRs apart) is within
    its interval of naive, `cache` (IQRs overlap) is beyond it, `prefetch` has a wide interval."""
    ratios = {"parallel": (0.95, 0.85, 1.05), "cache": (0.93, 0.91, 0.95),
              "prefetch": (2.0, 0.9, 3.0), "vectorized": (1.02, 0.98, 1.06)}
    runs = _results()
    for r in runs:
        if r.info["loader"] == "naive":
            r.info.update(aa_ratio=1.01, aa_ci_low=0.97, aa_ci_high=1.04, aa_significant=False)
        else:
            ratio, low, high = ratios[r.info["loader"]]
            r.info.update(loader_ratio=ratio, loader_ci_low=low, loader_ci_high=high,
                          loader_significant=not low <= 1 <= high, processes=3, rounds=3)
    return runs


def test_paired_verdict_follows_the_interval_not_the_spread():
    from report.build.sections import pipeline_records
    runs = _paired_results()
    line = claim_verdicts(records_of(runs))[0]
    assert "`parallel` slower in 0 of 2, faster in 0, n.s. in 2" in line
    assert "mnist_cnn eager 0.95× [0.85, 1.05] ~, mnist_cnn graph 0.95× [0.85, 1.05] ~" in line
    assert "`cache` slower in 2 of 2, faster in 0, n.s. in 0" in line
    assert line.startswith("- tf: the claim holds in part")
    text = pipeline_section(records_of(runs))
    assert "tf `naive` (best in 2 of 2)" in text  # prefetch's 2× is within its interval of 1
    row = next(row for row in text.splitlines() if row.startswith("| tf | eager |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2].endswith(" · A/A 1.01× [0.97, 1.04] ~") and cells[4].endswith(
        " · 0.93× [0.91, 0.95]")
    found = [r for r in pipeline_records(runs) if r["kind"] == "loader_ratio"]
    assert len(found) == 8 and {r["interval"] for r in found} == {"95% paired bootstrap"}
    cache = next(r for r in found if r["case"] == "cache" and r["variant"] == "eager")
    assert (cache["estimate"], cache["low"], cache["high"], cache["significant"],
            cache["processes"]) == (0.93, 0.91, 0.95, True, 3)


def test_unpaired_results_say_so():
    line = claim_verdicts(records_of(_results()))[0]
    assert "mnist_cnn eager 0.67× (unpaired)" in line


def test_the_section_words_the_builds_claims_and_decides_none():
    """The build decides article 003's claim and the loader to use (report.build.claims); the
    view only words them: a changed claim record changes the words (issue 50)."""
    found = records_of(_results())
    said = {r["case"]: r for r in found if r["kind"] == "claim"}
    assert said["loaders_slower"]["claim"] == "holds in part"
    assert said["loader_to_use"]["claim"] == "prefetch"
    said["loaders_slower"]["claim"], said["loader_to_use"]["claim"] = "holds", "cache"
    text = pipeline_section(found)
    assert "- tf: the claim holds —" in text and "use tf `cache` (best in" in text
