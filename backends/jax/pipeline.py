"""JAX loaders (JAX has no input pipeline of its own): NumPy and Pillow on Python threads, each
batch put on the device as NHWC float32 and int32 labels."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import jax

from backends.pipeline import Examples, check_loader

NAME = "jax"
LABEL_DTYPE = "int32"  # what Runner.train_step takes
CHANNELS_LAST = True


def _device(x, y):
    return jax.device_put(np.ascontiguousarray(x.transpose(0, 2, 3, 1))), jax.device_put(y)


def _stack(pairs):
    xs, ys = zip(*pairs)
    return np.stack(xs), np.asarray(ys)


class _Epochs:
    """One epoch per iteration; `parallel` decodes a batch's examples on `workers` threads (Pillow
    releases the GIL while decoding), `prefetch` prepares the next batch on one thread."""

    def __init__(self, name, examples, batch, workers):
        self.name, self.examples = name, examples
        n = len(examples) // batch * batch
        self.groups = [list(range(s, s + batch)) for s in range(0, n, batch)]
        self.pool = ThreadPoolExecutor({"parallel": workers, "prefetch": 1}.get(name, 1))

    def _batch(self, indices):
        if self.name == "vectorized":
            return self.examples.batch(indices)
        if self.name == "parallel":
            return _stack(self.pool.map(self.examples.__getitem__, indices))
        return _stack([self.examples[i] for i in indices])

    def __iter__(self):
        if self.name != "prefetch":
            for indices in self.groups:
                yield _device(*self._batch(indices))
            return
        ahead = self.pool.submit(self._batch, self.groups[0]) if self.groups else None
        for i in range(len(self.groups)):
            ready = ahead.result()
            if i + 1 < len(self.groups):
                ahead = self.pool.submit(self._batch, self.groups[i + 1])
            yield _device(*ready)

    def close(self):
        self.pool.shutdown(wait=True)


def loader(name, paths, labels, offsets, side, batch, workers):
    """An epoch iterable (re-iterable), no shuffling, last partial batch dropped."""
    check_loader(name)
    return _Epochs(name, Examples(paths, labels, offsets, side, np.int32, cache=name == "cache"),
                   batch, workers)
