"""Chainer iterator loaders: NCHW float32 NumPy arrays and int32 labels, decoded with Pillow."""
from chainer.dataset import concat_examples
from chainer.iterators import MultiprocessIterator, MultithreadIterator, SerialIterator

from backends.pipeline import Examples, check_loader

NAME = "chainer"
LABEL_DTYPE = "int32"  # what Runner.train_step takes
CHANNELS_LAST = False


class _Epochs:
    """One epoch of `steps` batches per iteration from a repeating Chainer iterator, reset each time."""

    def __init__(self, iterator, steps, convert):
        self.iterator, self.steps, self.convert = iterator, steps, convert

    def __iter__(self):
        self.iterator.reset()  # an epoch left half-read (the first call's batch) starts over
        for _ in range(self.steps):
            yield self.convert(next(self.iterator))

    def close(self):
        self.iterator.finalize()


def loader(name, paths, labels, offsets, side, batch, workers):
    """An iterator wrapper over one epoch (re-iterable), no shuffling, last partial batch dropped."""
    check_loader(name)
    steps = len(paths) // batch
    n = steps * batch  # whole batches only, so the repeating iterators never wrap mid-batch
    examples = Examples(paths[:n], labels[:n], offsets[:n], side, cache=name == "cache")
    if name == "vectorized":  # batches of indices; one NumPy crop per batch
        return _Epochs(SerialIterator(range(n), batch, shuffle=False), steps, examples.batch)
    if name == "parallel":
        iterator = MultiprocessIterator(examples, batch, shuffle=False, n_processes=workers)
    elif name == "prefetch":  # one thread decodes the next batch while the step runs
        iterator = MultithreadIterator(examples, batch, shuffle=False, n_threads=1)
    else:
        iterator = SerialIterator(examples, batch, shuffle=False)
    return _Epochs(iterator, steps, concat_examples)
