"""The memory probe: its JSON result, a peak that really measures, and one-line refusals."""
import subprocess

import numpy as np
import pytest

from backends import BACKENDS, VARIANTS
from suites import rss
from suites.profiles import PROFILES
from suites.test_memory import from_median_child, median_child, probe_command, run_probe

MIB = 2 ** 20


def probe(backend, profile=PROFILES["quick"]):
    """The probe's command line for mnist_cnn eager at a profile's size and memory plan."""
    config, batch = profile.models["mnist_cnn"]
    return probe_command(backend, "mnist_cnn", config, batch, "eager", profile.memory)


def test_probe_reports_peak_and_cache_growth(backend, backend_name):
    plan = PROFILES["quick"].memory
    found = run_probe(probe(backend_name), timeout=300)
    assert found["peak_memory_bytes"] > 0
    assert found["first_call_peak_bytes"] > 0
    assert [g["batch"] for g in found["cache_growth"]] == list(plan.extra_batches)
    assert len(found["losses"]) == 1 + plan.steps and found["loss_finite"]
    assert found["peak_method"] == rss.reset_peak() and found["peak_source"] == "rss"
    assert found["prime_cache"] == "session"  # quick's plan: --warm-prime


def test_the_median_child_is_the_median_low_peak_first_of_equals():
    assert median_child([5, 1, 3]) == 2
    assert median_child([3, 1, 3, 1]) == 1  # median_low of 1, 1, 3, 3 is 1: the first 1
    assert median_child([2, 2]) == 0
    assert median_child([7]) == 0


def test_every_field_comes_from_the_median_child():
    rounds = [{"peak_memory_bytes": p, "first_call_peak_bytes": f, "held_after_steady_bytes": h,
               "cache_growth": [{"batch": 9, "held_bytes": h}]}
              for p, f, h in ((30, 1, 100), (10, 2, 200), (20, 9, 300))]
    found = from_median_child(rounds)
    assert found == {**rounds[2], "median_child": 2, "processes": 3,
                     "peak_memory_bytes_rounds": [30, 10, 20],
                     "first_call_peak_bytes_rounds": [1, 2, 9]}  # 9: not the median first call
    assert rounds[2] == {"peak_memory_bytes": 20, "first_call_peak_bytes": 9,
                         "held_after_steady_bytes": 300,
                         "cache_growth": [{"batch": 9, "held_bytes": 300}]}  # left as it was


def test_peak_reset_measures_an_allocation_and_forgets_it():
    if rss.reset_peak() != rss.VMHWM_RESET:
        pytest.skip("this kernel cannot reset VmHWM (/proc/self/clear_refs): peaks since start")
    base = rss.current()
    rss.reset_peak()
    block = np.ones(200 * MIB // 8)  # written, so every page is resident
    assert rss.peak() - base >= 190 * MIB
    del block
    base = rss.current()
    rss.reset_peak()
    assert rss.peak() - base < 20 * MIB


@pytest.mark.parametrize("flag, value, choices", [
    ("--backend", "nope", BACKENDS), ("--model", "nope", ("mnist_cnn", "vgg", "resnet")),
    ("--variant", "nope", VARIANTS)])
def test_bad_argument_is_one_line_naming_the_choices(backend_name, flag, value, choices):
    command = probe(backend_name)
    command[command.index(flag) + 1] = value
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{value!r}" in lines[0]
    assert all(choice in lines[0] for choice in choices)
