"""torch.compile (inductor, CPU) vs eager: conv weight gradients of a small CNN, float64 oracle.

Standalone: needs only torch and NumPy. Exit 1 while a compiled gradient is wrong, 0 when right.
Usage: python torch_inductor_conv_grad.py [--batch 4] [--dynamic none|true|false] [--backend inductor]
                                          [--compile loss|model] [--net sequential|own]
--compile loss (default): torch.compile of the loss function (nn.Sequential model + cross-entropy);
--compile model: the model alone (its own nn.Module, F.max_pool2d and flatten in forward), the loss
computed outside the compiled region, as most training loops do. The wrong batches differ.
--net swaps the network's form (default: sequential with loss, own with model) to tell the two apart.
"""
import argparse
import platform
import sys

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

TOL = 1e-3  # relative error of a float32 gradient against float64; eager's is ~1e-7


def network():
    """The seed-004 MNIST CNN: three 3x3 convs, ReLU, 2x2 max-pool, linear; torch's default init."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1),
                         nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.Flatten(), nn.Linear(8 * 14 * 14, 10))


class Net(nn.Module):
    """The same CNN as its own module (same layers in the same order, so the same initial weights
    after the same seed), pooling and flattening in forward: the way a training loop compiles it."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)
        self.conv3, self.fc = nn.Conv2d(8, 8, 3, padding=1), nn.Linear(8 * 14 * 14, 10)

    def forward(self, x):
        x = F.relu(self.conv3(self.conv2(self.conv1(x))))
        return self.fc(torch.flatten(F.max_pool2d(x, 2, 2), 1))


def module():
    """Net with torch's default init after the same seed as network()."""
    torch.manual_seed(0)
    return Net()


def gradients(model, x, y, compile_kwargs=None, optimizer_inside=False, boundary="loss"):
    """{parameter name: gradient} of cross-entropy after one backward; the loss, too.

    optimizer_inside: compile the whole step (zero_grad, loss, backward, SGD step), not the loss;
    boundary "model": compile the model alone, the loss outside (optimizer_inside does not apply)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    if boundary == "model" and compile_kwargs is not None:
        compiled = torch.compile(model, **compile_kwargs)
        model.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(compiled(x), y)
        loss.backward()
        return loss.item(), {n: p.grad.detach().double().clone()
                             for n, p in model.named_parameters()}

    def loss_fn(x, y):
        return nn.functional.cross_entropy(model(x), y)

    def train_step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(x, y)
        loss.backward()
        optimizer.step()
        return loss

    if optimizer_inside:
        fn = torch.compile(train_step, **compile_kwargs) if compile_kwargs is not None else train_step
        loss = fn(x, y)
    else:
        fn = torch.compile(loss_fn, **compile_kwargs) if compile_kwargs is not None else loss_fn
        model.zero_grad(set_to_none=True)
        loss = fn(x, y)
        loss.backward()
    return loss.item(), {n: p.grad.detach().double().clone() for n, p in model.named_parameters()}


def rel_errors(grads, oracle):
    return {n: float((g - oracle[n]).norm() / oracle[n].norm()) for n, g in grads.items()}


def norm_ratios(grads, oracle):
    return {n: float(g.norm() / oracle[n].norm()) for n, g in grads.items()}


def cpu_isa():
    return torch.backends.cpu.get_cpu_capability()


def run(batch, dynamic, backend="inductor", optimizer_inside=False, norms=False, boundary="loss",
        net=None):
    """Relative gradient errors of eager and compiled float32 against a float64 eager oracle
    (norms: also the compiled gradients' norms relative to the oracle's); net: "sequential" or
    "own" (default: the boundary's own form)."""
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, batch))
    build = {"sequential": network, "own": module}[net or ("own" if boundary == "model"
                                                          else "sequential")]
    model = build()
    torch._dynamo.reset()
    _, oracle = gradients(build().double(), x.double(), y)
    _, eager = gradients(model, x, y)
    _, compiled = gradients(model, x, y, {"backend": backend, "dynamic": dynamic},
                            optimizer_inside, boundary)
    errors = rel_errors(eager, oracle), rel_errors(compiled, oracle)
    return (*errors, norm_ratios(compiled, oracle)) if norms else errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--dynamic", choices=("none", "true", "false"), default="none")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--compile", choices=("loss", "model"), default="loss",
                        help="compile the loss with the model, or the model alone")
    parser.add_argument("--net", choices=("sequential", "own"),
                        help="nn.Sequential or its own nn.Module (default: as --compile says)")
    args = parser.parse_args()
    dynamic = {"none": None, "true": True, "false": False}[args.dynamic]
    print(f"torch {torch.__version__}, numpy {np.__version__}, python {platform.python_version()}, "
          f"{platform.machine()}, ATen CPU capability {cpu_isa()}, threads {torch.get_num_threads()}")
    eager, compiled, norms = run(args.batch, dynamic, args.backend, norms=True,
                                 boundary=args.compile, net=args.net)
    print(f"batch {args.batch}, torch.compile(backend={args.backend!r}, dynamic={dynamic}) of the "
          f"{'model alone' if args.compile == 'model' else 'loss'}; relative error of each "
          "gradient against float64 eager:")
    print(f"{'parameter':<12}{'eager fp32':>12}{'compiled':>12}{'|compiled|/|float64|':>22}")
    for name in eager:
        print(f"{name:<12}{eager[name]:>12.2e}{compiled[name]:>12.2e}{norms[name]:>22.2e}")
    wrong = [n for n, e in compiled.items() if e > TOL]
    if wrong:
        print(f"WRONG: compiled gradients of {', '.join(wrong)} are off by more than {TOL:g}")
        return 1
    print(f"OK: every compiled gradient within {TOL:g} of float64")
    return 0


if __name__ == "__main__":
    sys.exit(main())
