"""torch.compile (inductor, CPU) + bfloat16 autocast: every conv gradient of a small VGG is zero.

Standalone: needs only torch and NumPy. Exit 1 while compiled gradients vanish, 0 when right.
The network is VGG-style (3x3 convs with ReLU, a 2x2 max-pool after each of 5 blocks, global
average pooling, linear) at VGG16's widths / 8, 32x32 inputs, batch 16, with
torch.autocast("cpu", dtype=torch.bfloat16) inside the compiled loss. Default: 1,1,2,2,2 convs
per block (8 convs, the smallest tried that shows it); --blocks 2,2,3,3,3 is VGG16's layout.
The compiled backward zero-fills the last max-pool's gradient buffer and reads it (fused into one
kernel) before the loss backward and the scatter that should fill it run, so every conv gradient
is exactly zero while the linear layer's is right. Gradients are compared with a float64 eager
oracle and with eager bfloat16 (which dynamic=True and aot_eager reproduce bit for bit).
Usage: python torch_bf16_vgg.py [--batch 16] [--dynamic none|true|false] [--backend inductor]
       [--blocks 1,1,2,2,2]
"""
import argparse
import platform
import sys

import numpy as np
import torch
from torch import nn

VANISHED = 0.01  # a compiled gradient whose norm is below 1% of float64's has vanished
CHANNELS = (8, 16, 32, 64, 64)  # VGG16's 64, 128, 256, 512, 512 at width 1/8


class GlobalAvgPool(nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3))


def network(repeats_per_block):
    """VGG layout at 1/8 width; He-normal weights from NumPy (seed 0), zero biases."""
    layers, cin = [], 3
    for repeats, channels in zip(repeats_per_block, CHANNELS):
        for _ in range(repeats):
            layers += [nn.Conv2d(cin, channels, 3, padding=1), nn.ReLU()]
            cin = channels
        layers.append(nn.MaxPool2d(2, 2))
    model = nn.Sequential(*layers, GlobalAvgPool(), nn.Linear(cin, 10))
    rng = np.random.default_rng(0)
    with torch.no_grad():
        for m in model:
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                shape = tuple(m.weight.shape)
                std = np.sqrt(2.0 / np.prod(shape[1:]))
                m.weight.copy_(torch.from_numpy(rng.normal(0.0, std, shape).astype(np.float32)))
                m.bias.zero_()
    return model


def loss_function(model, bf16):
    def loss_fn(x, y):
        if bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return nn.functional.cross_entropy(model(x).float(), y)
        return nn.functional.cross_entropy(model(x), y)
    return loss_fn


def gradients(model, fn, x, y):
    model.zero_grad(set_to_none=True)
    loss = fn(x, y)
    loss.backward()
    return loss.item(), {n: p.grad.detach().double().clone() for n, p in model.named_parameters()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--dynamic", choices=("none", "true", "false"), default="none")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--blocks", default="1,1,2,2,2",
                        help="convs per block; 2,2,3,3,3 is VGG16 (slower to compile, same bug)")
    args = parser.parse_args()
    dynamic = {"none": None, "true": True, "false": False}[args.dynamic]
    print(f"torch {torch.__version__}, numpy {np.__version__}, python {platform.python_version()}, "
          f"{platform.machine()}, ATen CPU capability {torch.backends.cpu.get_cpu_capability()}, "
          f"threads {torch.get_num_threads()}")
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.random((args.batch, 3, 32, 32), dtype=np.float32))
    y = torch.from_numpy(rng.integers(0, 10, args.batch))

    blocks = tuple(int(b) for b in args.blocks.split(","))
    print(f"convs per block {blocks}, channels {CHANNELS}, input {args.batch}x3x32x32")
    oracle_model = network(blocks).double()
    _, oracle = gradients(oracle_model, loss_function(oracle_model, False), x.double(), y)
    model = network(blocks)
    eager_loss, eager = gradients(model, loss_function(model, True), x, y)
    model = network(blocks)
    compiled_fn = torch.compile(loss_function(model, True), backend=args.backend, dynamic=dynamic)
    compiled_loss, compiled = gradients(model, compiled_fn, x, y)

    print(f"batch {args.batch}, bfloat16 autocast, torch.compile(backend={args.backend!r}, "
          f"dynamic={dynamic}); loss eager {eager_loss:.6f}, compiled {compiled_loss:.6f}")
    print("relative error of each gradient against float64 eager, and its norm over float64's:")
    print(f"{'parameter':<12}{'eager bf16':>12}{'compiled':>12}{'|eager|':>10}{'|compiled|':>12}")
    wrong = []
    for name, ref in oracle.items():
        e, c = eager[name], compiled[name]
        rel_e, rel_c = float((e - ref).norm() / ref.norm()), float((c - ref).norm() / ref.norm())
        ratio_e, ratio_c = float(e.norm() / ref.norm()), float(c.norm() / ref.norm())
        print(f"{name:<12}{rel_e:>12.2e}{rel_c:>12.2e}{ratio_e:>10.3f}{ratio_c:>12.3f}")
        if ratio_c < VANISHED <= ratio_e:
            wrong.append(name)
    if wrong:
        print(f"WRONG: {len(wrong)} of {len(oracle)} compiled gradients vanished (norm below "
              f"{VANISHED:g} of float64's; eager bfloat16 keeps them): {', '.join(wrong)}")
        return 1
    print("OK: no compiled gradient vanished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
