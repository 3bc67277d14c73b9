"""Micro workloads (seed 001's claims), one module per framework, loaded lazily like the backends."""
from backends import BACKENDS, load_part

WORKLOADS = {
    "matmul10": "a 10x10 matmul: the first call (trace, compile) against later ones",
    "conv": "one large convolution: 100 3x3 filters on a 1x200x200x100 input (the guide's Conv2D)",
    "lstm_cell": "an LSTM cell, 10 units, batch 10: many small ops",
    "mlp_step": "a train step of a 784-100-10 MLP, batch 32",
    "dispatch": "100 dependent scalar adds: per-op dispatch cost",
    "square_if_positive": "data-dependent if on a scalar tensor",
    "sum_even": "loop with continue over 100 integers",
    "fizzbuzz": "loop over a tensor range counting fizz, buzz and fizzbuzz up to 15 (seed 001's fizzbuzz(15))",
    "train_loop": "20 SGD steps of the MLP over a dataset inside one function",
    "square_naive": "per-element loop squaring the positive entries of 100 values",
    "square_vectorized": "the same with one vectorized where",
}
VARIANTS = ("eager", "graph")
DISPATCH_OPS = 100
FIZZBUZZ_N = 15  # seed 001 calls fizzbuzz(tf.constant(15)); torch.compile unrolls the loop


def add_chain(x):
    """The dispatch workload, the same Python in every framework: DISPATCH_OPS dependent adds."""
    for _ in range(DISPATCH_OPS):
        x = x + 1.0
    return x


def registry(namespace):
    """{workload: its builder `_<workload>`} from a backend module's namespace; all must exist."""
    return {name: namespace[f"_{name}"] for name in WORKLOADS}


def load_micro(backend):
    """The backend's micro module (its framework imported on demand)."""
    return load_part(backend, "micro")


__all__ = ["BACKENDS", "DISPATCH_OPS", "VARIANTS", "WORKLOADS", "add_chain", "load_micro", "registry"]
