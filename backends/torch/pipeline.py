"""PyTorch DataLoader loaders: NCHW float32 tensors and int64 labels, decoded with Pillow."""
import numpy as np
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler

from backends.pipeline import Examples, check_loader

NAME = "torch"
LABEL_DTYPE = "int64"  # what Runner.train_step takes
CHANNELS_LAST = False
_PREFETCH_FACTOR = 4  # batches the prefetch loader's one worker prepares ahead


def loader(name, paths, labels, offsets, side, batch, workers):
    """A DataLoader over one epoch (re-iterable), no shuffling, last partial batch dropped."""
    check_loader(name)
    examples = Examples(paths, labels, offsets, side, np.int64, cache=name == "cache")
    if name == "vectorized":  # the dataset gets a list of indices and crops the stacked batch
        sampler = BatchSampler(SequentialSampler(examples), batch, drop_last=True)
        return DataLoader(examples, batch_size=None, sampler=sampler)
    # worker processes persist across epochs: they start once, in the first (untimed) pass
    background = {"parallel": dict(num_workers=workers, persistent_workers=True),
                  "prefetch": dict(num_workers=1, prefetch_factor=_PREFETCH_FACTOR,
                                   persistent_workers=True)}
    return DataLoader(examples, batch_size=batch, drop_last=True, **background.get(name, {}))
