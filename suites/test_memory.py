"""Memory: peak RSS of a train step per case, each in a child process of its own, and the memory
held by the graph cache as the number of traced shapes grows."""
import math
import statistics

import pytest

from suites import child
from suites.cases import extra_info

TIMED = "child process wall time (imports, build, steps): not a step time"
KEYS = ("peak_memory_bytes", "first_call_peak_bytes", "held_after_first_bytes",
        "held_after_steady_bytes", "baseline_bytes", "cache_growth", "peak_method", "peak_source",
        "peak_rss_bytes", "device_first_call_peak_bytes", "log_signals",
        "peak_memory_bytes_rounds", "first_call_peak_bytes_rounds", "median_child", "processes",
        "prime_cache")


def probe_command(backend, model, config, batch, variant, plan, device="cpu", threads=1):
    """The child's command line for one case under a profile's memory plan."""
    return child.command("memory_probe", backend=backend, model=model, config=config,
                         batch=batch, variant=variant, device=device, threads=threads,
                         steps=plan.steps, extra_batches=plan.extra_batches,
                         warm_prime=plan.warm_prime)


def run_probe(command, timeout=child.TIMEOUT_S):
    """Run the child (inheriting this environment); its JSON result, or a one-line failure."""
    try:
        return child.result(command, timeout, "memory probe")
    except RuntimeError as error:
        failure = str(error)
    pytest.fail(failure)


def median_child(peaks):
    """Index of the child whose peak is the median (median_low; of equal peaks, the first)."""
    return peaks.index(statistics.median_low(peaks))


def from_median_child(rounds):
    """Every field of the median child's result, with each child's peaks and the child's index."""
    median = median_child([r["peak_memory_bytes"] for r in rounds])
    found = dict(rounds[median], median_child=median, processes=len(rounds))
    for key in ("peak_memory_bytes", "first_call_peak_bytes"):
        found[f"{key}_rounds"] = [r[key] for r in rounds]
    return found


def test_memory(benchmark, case, env):
    """Peak train-step memory above the child's post-import baseline; cache growth per shape."""
    plan = env["profile"].memory
    if plan is None or case.model not in plan.models:
        pytest.skip(f"profile {env['profile'].name!r} measures memory only for "
                    f"{', '.join(plan.models) if plan else 'no model'}")
    if reason := env["profile"].skip_reason("memory", case.backend.NAME, case.model, case.variant):
        pytest.skip(reason)
    rounds = []
    command = probe_command(case.backend.NAME, case.spec.name, case.spec.config, case.batch,
                            case.variant, plan, env["device"], env["threads"])
    benchmark.pedantic(lambda: rounds.append(run_probe(command)), rounds=plan.repeats,
                       iterations=1)
    found = from_median_child(rounds)
    every = found["losses"] + [g["loss"] for g in found["cache_growth"]]
    loss = next((v for v in every if not math.isfinite(v)), found["losses"][-1])
    info = extra_info(case, "memory", found["traces"], env["threads"], env["device"], loss)
    benchmark.extra_info.update(info, steps=plan.steps, timed=TIMED,
                                **{k: found[k] for k in KEYS})
    if not found["loss_finite"]:
        case.reject_non_finite(f"a train step produced a non-finite loss ({every}): memory not valid")
