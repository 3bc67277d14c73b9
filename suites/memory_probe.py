"""Child process: memory of one backend x model x variant's train steps, printed as one JSON line.

python -m suites.memory_probe --backend B --model M --config JSON --batch N --variant V
    --device D --threads T --steps S --extra-batches 9,10,...

Everything but the JSON line goes to stderr (Chainer's @static_graph prints on stdout).
Bytes are above the baseline: this process's RSS after the framework's imports and start-up."""
import json
import math
import sys

from suites import child, rss


def parse(argv):
    parser = child.parser("memory_probe", __doc__, warm_prime=True)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--steps", type=int, default=3, help="train steps measured for the peak")
    parser.add_argument("--extra-batches", default="", help="comma list of batch sizes traced "
                                                            "one after another after the steps")
    args = parser.parse_args(argv)
    args.extra_batches = [int(b) for b in args.extra_batches.split(",") if b]
    return args


def check(args):
    """Raise a one-line error for a backend, model, variant or device that cannot run here."""
    from backends import BACKENDS, VARIANTS, check_choice, load, unsupported_reason
    import models  # NumPy loads here: after the thread variables are set
    check_choice("backend", args.backend, BACKENDS)
    check_choice("model", args.model, models.MODELS)
    check_choice("variant", args.variant, VARIANTS)
    check_choice("device", args.device, ("cpu", "cuda"))
    if reason := unsupported_reason(args.backend, args.variant, args.device):
        raise ValueError(f"{args.backend}/{args.variant} is not supported: {reason}")
    load(args.backend)  # a missing framework: BackendUnavailable, naming the tox env


def measure(args):
    """Baseline, first call, steady peak and cache growth of one case: a JSON-ready dict."""
    import models
    from suites.logs import count_log_signals
    backend, device, spec = child.start(args.backend, args.threads, args.device, args.model,
                                        json.loads(args.config), cold=not args.warm_prime)
    baseline = rss.current()  # "after imports": framework loaded, configured and started up
    method = rss.reset_peak()
    backend.reset_peak_memory(device)
    out = {"baseline_bytes": baseline, "peak_method": method, "losses": [],
           "prime_cache": "session" if args.warm_prime else "empty"}
    with count_log_signals(backend.LOG_SIGNALS) as signals:
        runner = backend.Runner(spec, models.init_params(spec), args.variant, device)
        x, y = runner.to_device(*models.synthetic_batch(spec, args.batch))
        out["losses"].append(runner.train_step(x, y))
        out["first_call_peak_bytes"] = rss.peak(method) - baseline
        out["held_after_first_bytes"] = rss.current() - baseline
        out["device_first_call_peak_bytes"] = backend.peak_memory(device)
        rss.reset_peak()
        backend.reset_peak_memory(device)
        for _ in range(args.steps):
            out["losses"].append(runner.train_step(x, y))
        out["peak_rss_bytes"] = rss.peak(method) - baseline
        # GPU path (untested on hardware): the framework's peak-allocation counter is the figure,
        # the RSS figures above stay as the host side
        device_peak = backend.peak_memory(device)
        out["peak_source"] = "rss" if device_peak is None else f"{args.backend}.peak_memory"
        out["peak_memory_bytes"] = out["peak_rss_bytes"] if device_peak is None else device_peak
        out["held_after_steady_bytes"] = rss.current() - baseline
        out["traces"] = runner.traces()
        out["cache_growth"] = []
        for seed, batch in enumerate(args.extra_batches, start=1):
            loss = runner.train_step(*runner.to_device(*models.synthetic_batch(spec, batch, seed)))
            out["cache_growth"].append({"batch": batch, "held_bytes": rss.current() - baseline,
                                        "traces": runner.traces(), "loss": loss})
    out["log_signals"] = signals
    out["framework_version"] = backend.version()
    return out


def main(argv=None):
    """Run one case; the JSON line goes to the real stdout, everything else to stderr."""
    args = parse(argv)

    def result():
        out = measure(args)
        losses = out["losses"] + [g["loss"] for g in out["cache_growth"]]
        out["loss_finite"] = all(math.isfinite(v) for v in losses)
        return out
    return child.run("memory_probe", args.threads, lambda: check(args), result)


if __name__ == "__main__":
    sys.exit(main())
