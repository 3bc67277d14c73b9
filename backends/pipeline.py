"""Input-pipeline loaders (seed 003): seeded image files, per-example crops, a NumPy reference."""
import numpy as np
from PIL import Image

from backends import check_choice, load_part
from catalog import LOADERS  # noqa: F401  (the loaders' names and what each does)

UNSUPPORTED = {}  # (backend, loader) -> why it is a skip; every backend has all five today
PARALLEL_WORKERS = {"tf": "AUTOTUNE"}  # a backend that picks its own degree of parallelism


def load_pipeline(backend):
    """The backend's pipeline module (its framework imported on demand)."""
    return load_part(backend, "pipeline")


def check_loader(name):
    """Raise a one-line ValueError unless `name` is one of LOADERS."""
    check_choice("loader", name, LOADERS)


def workers_used(backend, name, workers):
    """Background workers a loader runs: 0 (inline), 1 (prefetch) or the parallel degree."""
    return {"parallel": PARALLEL_WORKERS.get(backend, workers), "prefetch": 1}.get(name, 0)


def write_images(folder, n, side, channels, seed, classes=10):
    """Seeded random uint8 images as PNG files in `folder`; returns (paths, int32 labels)."""
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (n, side, side, channels), dtype=np.uint8)
    labels = rng.integers(0, classes, n).astype(np.int32)
    paths = []
    for i, image in enumerate(pixels):
        path = f"{folder}/{i:06d}.png"
        # PNG is lossless: every decoder (Pillow, tf.io.decode_png) yields these exact pixels,
        # so loaders and backends can be compared bit for bit (JPEG decoders may differ)
        Image.fromarray(image[..., 0] if channels == 1 else image).save(path)
        paths.append(path)
    return paths, labels


def crop_offsets(n, stored_side, side, seed):
    """Seeded (row, column) crop corners, one per example index: the same 'random crop' everywhere."""
    return np.random.default_rng(seed + 1).integers(0, stored_side - side + 1, (n, 2))


def decode(path):
    """One PNG as an HWC uint8 array (Pillow)."""
    with Image.open(path) as image:
        array = np.asarray(image)
    return array.reshape(array.shape[0], array.shape[1], -1)


def scale(hwc):
    """uint8 NHWC or HWC -> float32 in [0, 1], channels first."""
    return np.moveaxis(hwc, -1, -3).astype(np.float32) / np.float32(255)


def crop_batch(images, offsets, side):
    """Crop a stacked NHWC batch at per-example offsets in one indexing op; NCHW float32."""
    span = np.arange(side)
    rows, cols = offsets[:, :1] + span, offsets[:, 1:] + span
    picked = images[np.arange(len(images))[:, None, None], rows[:, :, None], cols[:, None, :]]
    return scale(picked)


class Examples:
    """dataset[i] -> (CHW float32 crop, label); a list of indices -> the batch, cropped at once."""

    def __init__(self, paths, labels, offsets, side, label_dtype=np.int32, cache=False):
        self.paths, self.offsets, self.side = paths, offsets, side
        self.labels = np.asarray(labels).astype(label_dtype)
        self.images = [decode(p) for p in paths] if cache else None  # cache: decode once, here

    def __len__(self):
        return len(self.paths)

    def _image(self, i):
        return decode(self.paths[i]) if self.images is None else self.images[i]

    def __getitem__(self, i):
        if isinstance(i, slice):  # Chainer's SerialIterator slices: still one example at a time
            return [self[j] for j in range(*i.indices(len(self)))]
        if isinstance(i, (list, tuple, np.ndarray)):
            return self.batch(i)
        (top, left), s = self.offsets[i], self.side
        return scale(self._image(i)[top:top + s, left:left + s]), self.labels[i]

    def batch(self, indices):
        """The vectorized path: decode each, stack, then crop and scale the batch in one op."""
        images = np.stack([self._image(i) for i in indices])
        return crop_batch(images, self.offsets[indices], self.side), self.labels[indices]


def reference_batches(paths, labels, offsets, side, batch):
    """The expected epoch, in plain NumPy: NCHW float32 crops and int32 labels, last partial dropped."""
    batches = []
    for start in range(0, len(paths) - batch + 1, batch):
        xs = []
        for i in range(start, start + batch):
            with Image.open(paths[i]) as image:
                pixels = np.asarray(image)
            pixels = pixels[..., None] if pixels.ndim == 2 else pixels
            top, left = offsets[i]
            crop = pixels[top:top + side, left:left + side].astype(np.float32) / np.float32(255)
            xs.append(crop.transpose(2, 0, 1))
        batches.append((np.stack(xs), np.asarray(labels[start:start + batch], np.int32)))
    return batches


def close(loader):
    """Stop a loader's background workers, if it has any."""
    if hasattr(loader, "close"):
        loader.close()
