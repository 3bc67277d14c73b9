"""Where torch.compile's wrong CNN gradients hold: ISA x batch x mode x optimizer placement x backend
x compile boundary (the loss compiled with the model, or the model alone).

Runs torch_inductor_conv_grad.py's case in one child process per vector ISA (AVX2 is emulated on
an AVX-512 CPU with ATEN_CPU_CAPABILITY=avx2 and ONEDNN_MAX_CPU_ISA=AVX2, which steer ATen,
inductor's generated C++ and oneDNN) and writes results/findings/torch_inductor_conv_grad.json.
Usage: python torch_sweep.py [--out PATH] [--batches 1,2,...] [--boundaries loss,model]
                             [--isas all|native|avx2] [--short] [--no-cache]
--short: the three inductor modes only (no SGD-inside and aot_eager rows); --no-cache: no FX graph
or AOTAutograd cache, so a dynamic=True graph is compiled at every batch, not reused from an earlier
one. The torch is this Python's: run it with the python of the env under test.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BATCHES = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32)
MODES = {"default": None, "dynamic=True": True, "dynamic=False": False}
WRONG = 1e-3  # relative error against float64 above which a gradient is wrong


def configs(batches, boundaries=("loss",), short=False):
    """(batch, mode, backend, optimizer_inside, boundary) to measure."""
    for boundary in boundaries:
        for batch in batches:
            for mode in MODES:
                yield batch, mode, "inductor", False, boundary
            if not short:
                if boundary == "loss":
                    yield batch, "default", "inductor", True, boundary
                yield batch, "default", "aot_eager", False, boundary


def child(batches, boundaries, short, no_cache):
    """Measure every config in this process (dynamo reset between them); JSON lines on stdout."""
    sys.path.insert(0, str(HERE))
    import torch
    import torch_inductor_conv_grad as repro
    torch.set_num_threads(2)
    if no_cache:  # else a dynamic=True graph compiled at one batch is reused at the next
        torch._inductor.config.fx_graph_cache = False
        torch._functorch.config.enable_autograd_cache = False
    for batch, mode, backend, inside, boundary in configs(batches, boundaries, short):
        eager, compiled = repro.run(batch, MODES[mode], backend, inside, boundary=boundary)
        print(json.dumps({"batch": batch, "mode": mode, "backend": backend,
                          "optimizer_inside": inside, "boundary": boundary, "eager": eager,
                          "compiled": compiled, "isa": torch.backends.cpu.get_cpu_capability()}),
              flush=True)


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def cpu_flags():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return sorted(f for f in line.split(":", 1)[1].split()
                          if f.startswith(("avx", "amx", "fma")))
    return []


def isas():
    """{label: extra environment} for the ISAs this CPU can run."""
    native = {"native": {}}
    if "avx512f" in cpu_flags():
        native["avx2 (emulated)"] = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    return native


def verdict(row):
    wrong = {n: e for n, e in row["compiled"].items() if e > WRONG}
    return ", ".join(f"{n} {e:.2g}" for n, e in wrong.items()) or "right"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE.parent / "results/findings/torch_inductor_conv_grad.json"))
    parser.add_argument("--batches", default=",".join(map(str, BATCHES)))
    parser.add_argument("--boundaries", default="loss",
                        help="comma list: loss (compiled with the model), model (compiled alone)")
    parser.add_argument("--isas", choices=("all", "native", "avx2"), default="all",
                        help="all, native (no emulated AVX2) or avx2 (emulated only)")
    parser.add_argument("--short", action="store_true", help="the three inductor modes only")
    parser.add_argument("--no-cache", action="store_true", help="compile every config afresh")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    boundaries = [b for b in args.boundaries.split(",") if b]
    if args.child:
        return child(batches, boundaries, args.short, args.no_cache)
    import torch
    rows = []
    for label, extra in isas().items():
        if args.isas == "native" and extra or args.isas == "avx2" and not extra:
            continue
        with tempfile.TemporaryDirectory() as cache:  # cold inductor cache per ISA
            env = {**os.environ, **extra, "TORCHINDUCTOR_CACHE_DIR": cache}
            command = [sys.executable, __file__, "--child", "--batches", args.batches,
                       "--boundaries", args.boundaries] + ["--short"] * args.short + [
                       "--no-cache"] * args.no_cache
            with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) as child_:
                for line in child_.stdout:  # each row as it comes: a sweep takes many minutes
                    row = {**json.loads(line), "isa_label": label, "env": extra}
                    rows.append(row)
                    print(f"{label:16} batch {row['batch']:>2} {row['mode']:14} "
                          f"{row['backend']:9} {row['boundary']} compiled, "
                          f"{'opt inside' if row['optimizer_inside'] else 'opt outside':11} "
                          f"{verdict(row)}", flush=True)
            if child_.returncode:
                raise subprocess.CalledProcessError(child_.returncode, command)
    record = {"finding": "torch_inductor_conv_grad", "torch": torch.__version__,
              "boundaries": boundaries, "no_cache": args.no_cache,
              "python": platform.python_version(), "cpu": cpu_model(), "cpu_flags": cpu_flags(),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "wrong_above": WRONG, "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(record, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
