"""The profiles' coverage cuts: each rule leaves out only the cases it names, with its reason."""
from suites.profiles import PROFILES

DEFAULT, QUICK = PROFILES["default"], PROFILES["quick"]


def test_a_default_skip_names_its_suite_backend_model_and_variant():
    reason = DEFAULT.skip_reason("construction", "torch", "resnet", "graph_static")
    assert reason and "--profile paper" in reason
    assert DEFAULT.skip_reason("memory", "torch", "resnet", "graph_static")
    for cut in (("memory", "tf", "resnet", "xla"), ("memory", "torch", "resnet", "graph"),
                ("memory", "chainer", "vgg", "graph"),
                ("construction", "torch", "mnist_cnn", "graph_dynamic"),
                ("construction", "torch", "vgg", "graph_dynamic"),
                ("micro", "jax", "conv", "graph"), ("micro", "torch", "matmul10", "eager"),
                ("micro", "tf", "fizzbuzz", "graph_relaxed"),
                ("steady", "torch", "resnet", "graph_static", "train"),
                ("steady", "jax", "resnet", "eager", "infer")):
        assert DEFAULT.skip_reason(*cut), cut
    for kept in (("construction", "torch", "mnist_cnn", "graph"),
                 ("construction", "torch", "resnet", "graph"),
                 ("construction", "torch", "vgg", "graph"),  # the worst break-even (issue 50)
                 ("construction", "tf", "resnet", "graph_dynamic"),
                 ("memory", "torch", "mnist_cnn", "graph_static"),
                 ("memory", "tf", "mnist_cnn", "graph_relaxed"),
                 ("micro", "torch", "fizzbuzz", "graph"),
                 ("steady", "torch", "resnet", "graph", "train"),
                 ("steady", "tf", "resnet", "xla_dynamic", "train"),
                 ("steady", "jax", "vgg", "eager", "infer")):
        assert DEFAULT.skip_reason(*kept) is None, kept


def test_default_times_bfloat16_on_the_train_step_only():
    from suites.test_steady import _profile_skip
    assert "training feature" in _profile_skip(DEFAULT, "tf", "mnist_cnn", "graph", "bfloat16",
                                               "infer")
    assert _profile_skip(DEFAULT, "tf", "mnist_cnn", "graph", "bfloat16", "train") is None
    assert _profile_skip(DEFAULT, "tf", "mnist_cnn", "graph", "float32", "infer") is None
    assert "graph_static" in _profile_skip(DEFAULT, "torch", "vgg", "graph_static", "float32",
                                           "train")
    assert _profile_skip(PROFILES["paper"], "tf", "resnet", "graph", "bfloat16", "infer") is None


def test_a_saved_quick_run_times_the_headline_suites_only():
    assert QUICK.bench_skip("steady") is None and QUICK.bench_skip("retrace") is None
    assert "the test command runs this suite" in QUICK.bench_skip("micro")
    assert QUICK.bench_skip("memory") and QUICK.bench_skip("pipeline")
    for profile in (DEFAULT, PROFILES["paper"]):
        assert profile.bench_skip("micro") is None


def test_quick_and_paper_leave_nothing_out_by_rule():
    for profile in (QUICK, PROFILES["paper"]):
        assert profile.skips == ()
        assert profile.skip_reason("construction", "torch", "resnet", "graph_dynamic") is None


def test_default_retraces_torch_on_vgg_only():
    assert DEFAULT.retrace.skip_reason("torch", "resnet50", "graph", "train")
    assert DEFAULT.retrace.skip_reason("torch", "vgg", "graph", "train") is None
    assert DEFAULT.retrace.skip_reason("tf", "resnet50", "graph", "train") is None


def test_quick_runs_each_frameworks_default_graph_mode_against_eager_only():
    assert "--profile default" in QUICK.variant_skip("torch", "graph_static")
    assert QUICK.variant_skip("tf", "graph_dynamic")
    for backend, variant in (("torch", "graph"), ("tf", "xla"), ("chainer", "eager")):
        assert QUICK.variant_skip(backend, variant) is None
    assert DEFAULT.variant_skip("torch", "graph_static") is None


def test_a_quick_variant_skip_is_a_visible_skip_of_the_case():
    from suites.cases import skip_reason
    env = {"profile": QUICK, "device": "cpu"}
    assert skip_reason("torch", "graph_dynamic", "float32", env, "vgg").startswith("profile 'quick'")
    assert skip_reason("torch", "graph", "float32", env, "vgg") is None
    assert skip_reason("torch", "xla", "float32", env, "vgg").startswith("torch/xla")


def test_seed_004s_comparison_gets_its_own_time_share():
    adaptive = DEFAULT.adaptive
    assert adaptive.limits(("chainer", "mnist_cnn", "train")) == (180.0, 60)
    for other in (("chainer", "mnist_cnn", "infer"), ("chainer", "vgg", "train"),
                  ("tf", "mnist_cnn", "train")):
        assert adaptive.limits(other) == (adaptive.budget_s, adaptive.max_processes), other


def test_the_hook_skips_a_saved_quick_runs_other_suites_and_leaves_the_test_command_alone():
    """conftest's collection hook: with benchmarks on, a suite outside bench_suites is a visible
    skip naming why; tests/ and the headline suites run; --benchmark-disable skips nothing."""
    import types

    import conftest

    def item(module):
        found = types.SimpleNamespace(module=types.SimpleNamespace(__name__=module), marks=[])
        found.add_marker = found.marks.append
        return found

    for disabled, skipped in ((False, ["suites.test_micro"]), (True, [])):
        config = types.SimpleNamespace(graphbench={"profile": QUICK},
                                       getoption=lambda name, default=None: disabled)
        items = [item(m) for m in ("suites.test_micro", "suites.test_steady", "tests.test_micro")]
        conftest.pytest_collection_modifyitems(config, items)
        assert [i.module.__name__ for i in items if i.marks] == skipped
        for found in items:
            for mark in found.marks:
                assert mark.name == "skip" and mark.kwargs["reason"] == QUICK.bench_skip("micro")


def test_the_user_report_knows_each_profiles_steady_rounds():
    """report.build.user names the next longer profile without importing suites.profiles."""
    from report.build.user import STEADY_ROUNDS
    assert STEADY_ROUNDS == tuple((name, p.steady_processes * p.steady_process_rounds)
                                  for name, p in PROFILES.items())
