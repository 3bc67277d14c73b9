"""Whether torch.compile(mode="reduce-overhead") runs each answer model's steps as CUDA graphs or
silently leaves graphs out of them: per model and phase, the frames compiled, the graphs inductor
left out of CUDA graphs (its `cudagraph_skips` counter) and the reasons it logged.

python3 gpu/cudagraph_capture.py [--models mnist_cnn,vgg,resnet,decoder] [--device cuda]
[--steps 4] prints one JSON line per model and phase, at the answer's sizes (profile `default`).
A CPU has no CUDA graphs: there (a dry run) it runs `graph` along the same path and says so.
docs/METHOD.md, On a GPU."""
import argparse
import json
import logging
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VARIANT = "graph_cudagraphs"
# how inductor begins each reason it logs (torch/_inductor/cudagraph_utils.py, output_code.py)
SKIPPING = "skipping cudagraphs"
INDUCTOR = "torch._inductor"


class Reasons(logging.Handler):
    """The first line of each CUDA-graph skip inductor logs, in order."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.found = []

    def emit(self, record):
        message = record.getMessage()
        if SKIPPING in message:
            self.found.append(message.splitlines()[0])


def listen():
    """A Reasons handler on inductor's loggers, with the artifact logs that carry the reasons on
    (which log carries them moved between releases); the artifacts this torch knows."""
    import torch._logging
    enabled = []
    for artifact in ("cudagraphs", "perf_hints"):
        try:
            torch._logging.set_logs(**{**dict.fromkeys(enabled, True), artifact: True})
            enabled.append(artifact)
        except (ValueError, TypeError):  # an artifact this release does not have
            continue
    reasons = Reasons()
    # inductor's logs stop there (torch sets its propagate off): a handler on "torch" sees none
    logging.getLogger(INDUCTOR).addHandler(reasons)
    return reasons, enabled


def capture(backend, device, model, steps, reasons):
    """The train and infer lines of one model: `steps` calls each, after which the frames
    compiled and the graphs left out of CUDA graphs in that phase."""
    import models
    from torch._dynamo.utils import counters
    from suites.profiles import PROFILES
    config, batch = PROFILES["default"].models[model]
    spec = models.build(model, **config)
    variant = VARIANT if device.type == "cuda" else "graph"
    runner = backend.Runner(spec, models.init_params(spec), variant, device)
    x, y = runner.to_device(*models.synthetic_batch(spec, batch))
    out = []
    for phase, step in (("train", lambda: runner.train_step(x, y)),
                        ("infer", lambda: runner.infer_step(x))):
        skips, frames, said = counters["inductor"]["cudagraph_skips"], runner.traces(), \
            len(reasons.found)
        for _ in range(steps):
            step()
        out.append({"backend": backend.NAME, "model": model, "phase": phase, "variant": variant,
                    "device": device.type, "batch": batch, "steps": steps,
                    "frames": runner.traces() - frames,
                    "cudagraph_skips": counters["inductor"]["cudagraph_skips"] - skips,
                    "reasons": list(dict.fromkeys(reasons.found[said:]))})
    return out


def main(argv=None):
    """Each model in turn, in one process: its lines, flushed as each ends; a model that fails
    is a line with its error (the others still run); 1 where none ran."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mnist_cnn,vgg,resnet,decoder")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=4, help="calls of each phase (at least 3: "
                        "CUDA-graph trees record on the second and replay from the third)")
    args = parser.parse_args(argv)
    from suites import child
    backend, device, _ = child.start("torch", 16, args.device, "mnist_cnn", {})
    from backends.user import one_line
    reasons, enabled = listen()
    note = {} if device.type == "cuda" else {
        "note": f"no CUDA graphs on {device.type}: `graph` along the same path"}
    failed = 0
    for model in args.models.split(","):
        try:
            lines = capture(backend, device, model, max(args.steps, 3), reasons)
        except Exception as error:  # a compile that fails is a finding, not the end of the study
            traceback.print_exc()
            failed += 1
            lines = [{"backend": backend.NAME, "model": model, "device": device.type,
                      "error": one_line(error)}]
        for line in lines:
            print(json.dumps({**line, "logs": enabled, **note}), flush=True)
    return int(failed == len(args.models.split(",")))


if __name__ == "__main__":
    sys.exit(main())
