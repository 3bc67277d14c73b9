"""Cold child: one variant from a fresh process: start-up, first call, peak memory over a few steps,
then one train step per retrace shape (time, traces, memory held, framework warnings)."""
import time

from backends.user import first_non_finite
from suites import rss
from suites.logs import count_log_signals


def measure(args, backend, adapter, device):
    """The process's start-up, then this variant's first call, memory and retrace run."""
    user, variant = args.user, args.arms[0]
    startup = time.perf_counter() - args.started  # interpreter, framework import and configure
    shape, shapes = user.shape(), user.shapes()[:None if args.shapes < 0 else args.shapes]
    example = user.batch(shape, 0)
    out = {"variant": variant, "startup_s": startup, "shape": list(shape),
           "framework_version": backend.version()}
    with backend.compile_cache(args.cache_dir), count_log_signals(backend.LOG_SIGNALS) as signals:
        baseline, method = rss.current(), rss.reset_peak()
        hits = backend.cache_hits()
        runner = adapter.Runner(user, variant, device, example=example)
        batch = runner.to_device(*example)
        t = time.perf_counter()
        losses = [runner.train_step(*batch)]
        out["first_call_s"] = time.perf_counter() - t
        out["first_call_peak_bytes"] = rss.peak(method) - baseline
        out["cache_hits"] = None if hits is None else backend.cache_hits() - hits
        rss.reset_peak()
        losses += [runner.train_step(*batch) for _ in range(args.memory_steps)]
        out.update(peak_rss_bytes=rss.peak(method) - baseline, peak_method=method,
                   losses=losses)
        t = time.perf_counter()
        runner.infer_step(batch[0])  # compiles the inference graph too: the steady child reuses it
        out["infer_first_call_s"] = time.perf_counter() - t
        out["traces_after_first"] = runner.traces()
        out["retrace"] = _retrace(runner, user, shapes, baseline, args.budget)
        out["retrace_planned"] = len(shapes)
        if variant == "eager" and hasattr(adapter, "graph_breaks"):
            out["graph_breaks"] = adapter.graph_breaks(runner, *batch)
    out["log_signals"] = signals
    trail = [*losses, *(s["loss"] for s in out["retrace"])]  # every train step, in order
    out["non_finite"] = first_non_finite(dict(enumerate(trail, 1)))
    out["loss_finite"] = out["non_finite"] is None
    return out


def _retrace(runner, user, shapes, baseline, budget_s):
    """One train step per shape, in order: its time, the traces so far and the memory held; once
    `budget_s` is spent the run stops after its current step."""
    steps, start = [], time.perf_counter()
    for i, shape in enumerate(shapes):
        if steps and time.perf_counter() - start > budget_s:
            break
        batch = runner.to_device(*user.batch(shape, 100 + i))
        t = time.perf_counter()
        loss = runner.train_step(*batch)
        steps.append({"shape": list(shape), "s": time.perf_counter() - t, "loss": loss,
                      "traces": runner.traces(), "held_bytes": rss.current() - baseline})
    return steps
