"""torch.compile (inductor, CPU) of a pre-activation ResNet block corrupts the heap with AVX2 code.

Standalone: needs only torch and NumPy. Runs the compiled training step of a stem + one
bottleneck block in fresh child processes with AVX2 kernels (ATEN_CPU_CAPABILITY=avx2 steers ATen
and inductor's generated C++, ONEDNN_MAX_CPU_ISA=AVX2 oneDNN: what an AVX2-only CPU gets by
itself) and checks each child's gradients against a float64 eager oracle.
Exit 1 while any child aborts, hangs (heap corruption can deadlock malloc) or computes a wrong
gradient, 0 when all are right.
Usage: python torch_inductor_avx2_heap.py [--runs 3] [--batch 4] [--dynamic true|none|false]
       [--child-timeout 120] [--until-bad]
"""
import argparse
import os
import platform
import signal
import subprocess
import sys
import tempfile

import numpy as np
import torch
from torch import nn

AVX2 = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
TOL = 1e-3  # relative gradient error against float64 (float32 eager: ~1e-6)


class Block(nn.Module):
    """Keras ResNetV2 block2 with a conv shortcut and stride 2: BN-ReLU, then 1x1/3x3/1x1 + 1x1."""

    def __init__(self, cin, filters, stride):
        super().__init__()
        self.pre = nn.Sequential(nn.BatchNorm2d(cin), nn.ReLU())
        self.shortcut = nn.Conv2d(cin, 4 * filters, 1, stride)
        self.body = nn.Sequential(
            nn.Conv2d(cin, filters, 1, bias=False), nn.BatchNorm2d(filters), nn.ReLU(),
            nn.Conv2d(filters, filters, 3, stride, 1, bias=False), nn.BatchNorm2d(filters),
            nn.ReLU(), nn.Conv2d(filters, 4 * filters, 1))

    def forward(self, x):
        p = self.pre(x)
        return self.body(p) + self.shortcut(p)


class Net(nn.Module):
    """ResNetV2 stem (pad, 7x7/2 conv, pad, 3x3/2 max-pool), one block, global average, linear."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.ZeroPad2d(3), nn.Conv2d(3, 4, 7, 2), nn.ZeroPad2d(1),
                                      nn.MaxPool2d(3, 2), Block(4, 4, 2))
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=(2, 3)))


def child(batch, dynamic):
    """One compiled backward; prints the worst gradient error (biases before BatchNorm excluded)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((batch, 3, 64, 64)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, batch))
    torch.manual_seed(0)
    model = Net()
    torch.manual_seed(0)
    oracle = Net().double()
    nn.functional.cross_entropy(oracle(x.double()), y).backward()
    step = torch.compile(lambda x, y: nn.functional.cross_entropy(model(x), y), dynamic=dynamic)
    step(x, y).backward()
    scale = np.median([float(q.grad.norm()) for q in oracle.parameters()])
    errors = {n: float((p.grad.double() - q.grad).norm() / max(float(q.grad.norm()), 1e-3 * scale))
              for (n, p), q in zip(model.named_parameters(), oracle.parameters())
              if n != "features.1.bias"}  # the stem bias feeds BatchNorm: its gradient is ~0
    name = max(errors, key=errors.get)
    print(f"worst gradient {name} relative error {errors[name]:.2e} "
          f"(ATen {torch.backends.cpu.get_cpu_capability()})")
    return 1 if errors[name] > TOL else 0


def _run_child(args, env):
    """One fresh child process; its exit code (None if it hung and was killed) and output."""
    command = [sys.executable, __file__, "--child", "--batch", str(args.batch),
               "--dynamic", args.dynamic]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, start_new_session=True) as child_process:
        try:
            out, _ = child_process.communicate(timeout=args.child_timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child_process.pid, signal.SIGKILL)  # with its compile workers
            return None, ""
    return child_process.returncode, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--dynamic", choices=("true", "none", "false"), default="true")
    parser.add_argument("--native", action="store_true", help="the CPU's own ISA, not AVX2")
    parser.add_argument("--child-timeout", type=float, default=120.0,
                        help="seconds before a child counts as hung (a cold compile takes ~25 s)")
    parser.add_argument("--until-bad", action="store_true",
                        help="stop at the first bad run (the exit code is the same, sooner)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    dynamic = {"none": None, "true": True, "false": False}[args.dynamic]
    if args.child:
        return child(args.batch, dynamic)
    print(f"torch {torch.__version__}, numpy {np.__version__}, python {platform.python_version()}, "
          f"{platform.machine()}, native ATen CPU capability {torch.backends.cpu.get_cpu_capability()}")
    extra = {} if args.native else AVX2
    runs = f"up to {args.runs}" if args.until_bad else f"{args.runs}"
    print(f"batch {args.batch}, torch.compile(dynamic={dynamic}), 1 thread, env {extra}, "
          f"{runs} fresh processes sharing one inductor cache")
    bad = done = 0
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, **extra, "TORCHINDUCTOR_CACHE_DIR": cache}
        for run in range(args.runs):
            code, out = _run_child(args, env)
            lines = [l for l in out.splitlines()
                     if "worst gradient" in l or "free" in l or "corrupt" in l]
            hung = f"HUNG (no exit after {args.child_timeout:g} s)"
            status = {0: "right", 1: "WRONG", None: hung}.get(code, f"ABORTED (exit {code})")
            print(f"run {run + 1}: {status}: {'; '.join(lines) or '(no output)'}")
            bad, done = bad + (code != 0), done + 1
            if bad and args.until_bad:
                break
    if bad:
        print(f"BUG PRESENT: {bad} of {done} runs aborted, hung or computed a wrong gradient")
        return 1
    print("OK: every run finished with gradients within tolerance of float64")
    return 0


if __name__ == "__main__":
    sys.exit(main())
