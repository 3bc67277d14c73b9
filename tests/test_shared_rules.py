"""Rules both the suites and the report need live once, in catalog.py (framework-free, below both):
skip matching, the saved ratio keys, each backend's colour and the names of its calls."""
import ast
import dataclasses
from pathlib import Path

from catalog import BACKENDS, COLORS, SAVED_RATIOS, call_name, skip_matches
from report.views.user_md import how
from suites.profiles import PROFILES, Skip

ROOT = Path(__file__).resolve().parent.parent
A_A_BAND = "#999"  # charts.speedup_chart's noise-floor band


def test_every_backend_has_its_own_colour_never_the_a_a_grey():
    assert set(COLORS) == set(BACKENDS)
    found = {_hex(c) for c in COLORS.values()}
    assert len(found) == len(COLORS) and not found & {_hex(A_A_BAND), "#808080"}  # grey


def _hex(colour):
    """'#999' or '#7B3FA0' as '#999999' / '#7b3fa0' (no matplotlib: framework envs run this)."""
    digits = colour.lstrip("#").lower()
    return "#" + ("".join(d * 2 for d in digits) if len(digits) == 3 else digits)


def test_a_graph_variant_is_named_by_its_own_framework_or_generically():
    assert how("jax", "graph") == "`jax.jit` of the whole step"
    assert how("torch", "graph_dynamic") == "`torch.compile(dynamic=True)`"
    assert "tf.function" not in how("mxnet", "graph") and "`graph`" in how("mxnet", "graph")
    assert call_name("chainer", "graph") == "`@static_graph` on the forward"


def test_a_skip_rule_matches_alike_in_a_profile_and_as_a_run_saved_it():
    """The suites match a Skip, the report the same rule read back from a run's JSON plan."""
    as_saved = lambda rule: {k: list(v) if isinstance(v, tuple) else v
                             for k, v in dataclasses.asdict(rule).items()}
    rules = [r for p in PROFILES.values() for r in p.skips] + [
        Skip("x", backend="tf", labels=("resnet",), variants=("xla",))]
    cases = [(b, m, v, p) for b in BACKENDS for m in ("resnet", "vgg", "resnet101")
             for v in ("graph", "xla") for p in ("train", "infer")]
    for rule in rules:
        for case in cases:
            assert rule.matches(*case) == skip_matches(as_saved(rule), *case), (rule, case)


def test_saved_ratio_keys_are_spelled_in_catalog_only():
    keys = {k for names in SAVED_RATIOS.values() for k in names[1:] if k != "significant"}
    found = {}
    for path in [*ROOT.glob("suites/*.py"), *ROOT.glob("report/*.py")]:
        spelled = {n.value for n in ast.walk(ast.parse(path.read_text()))
                   if isinstance(n, ast.Constant) and n.value in keys}
        if spelled:
            found[path.name] = sorted(spelled)
    assert not found, f"saved ratio keys typed outside catalog.SAVED_RATIOS: {found}"
