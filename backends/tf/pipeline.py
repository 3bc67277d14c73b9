"""tf.data loaders: NHWC float32 images and int32 labels, decoded with tf.io.decode_png."""
import tensorflow as tf

from backends.pipeline import check_loader

NAME = "tf"
LABEL_DTYPE = "int32"  # what Runner.train_step takes
CHANNELS_LAST = True
_AUTOTUNE = tf.data.AUTOTUNE


def _decode(path, label, offset):
    return tf.io.decode_png(tf.io.read_file(path)), label, offset


def _cropper(side):
    """Crop one HWC image at its offset and scale it to [0, 1]."""
    def crop(image, label, offset):
        pixels = tf.slice(image, tf.concat([offset, [0]], 0), [side, side, -1])
        return tf.cast(pixels, tf.float32) / 255.0, label
    return crop


def _batch_cropper(side):
    """The same on a whole NHWC batch: gather rows, then columns, with per-example index grids."""
    def crop(images, labels, offsets):
        span = tf.range(side, dtype=offsets.dtype)
        rows, cols = offsets[:, :1] + span, offsets[:, 1:] + span
        pixels = tf.gather(tf.gather(images, rows, axis=1, batch_dims=1), cols, axis=2, batch_dims=1)
        return tf.cast(pixels, tf.float32) / 255.0, labels
    return crop


def loader(name, paths, labels, offsets, side, batch, workers):
    """A tf.data.Dataset of one epoch (re-iterable), no shuffling, last partial batch dropped."""
    check_loader(name)
    files = tf.data.Dataset.from_tensor_slices(
        (list(map(str, paths)), tf.constant(labels, tf.int32), tf.constant(offsets, tf.int32)))
    crop = _cropper(side)
    decode_crop = lambda path, label, offset: crop(*_decode(path, label, offset))
    if name == "naive":
        return files.map(decode_crop).batch(batch, drop_remainder=True)
    if name == "parallel":  # `workers` unused: AUTOTUNE picks the degree, as in seed 003
        return files.map(decode_crop, num_parallel_calls=_AUTOTUNE).batch(batch, drop_remainder=True)
    if name == "prefetch":
        return files.map(decode_crop).batch(batch, drop_remainder=True).prefetch(_AUTOTUNE)
    if name == "cache":
        decoded = files.map(_decode).cache()
        for _ in decoded:  # fill the in-memory cache now, while the loader is built
            pass
        return decoded.map(crop).batch(batch, drop_remainder=True)
    return files.map(_decode).batch(batch, drop_remainder=True).map(_batch_cropper(side))
