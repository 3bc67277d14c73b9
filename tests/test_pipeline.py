"""Every loader of the backend yields the reference examples, in order, for a fixed seed."""
import numpy as np
import pytest

from backends.pipeline import (LOADERS, UNSUPPORTED, close, crop_offsets, load_pipeline,
                               reference_batches, write_images)

SIDE, PAD, N, BATCH = 8, 3, 11, 4  # 11 files: the last partial batch (3) is dropped


@pytest.fixture(scope="module", params=[1, 3], ids=["gray", "rgb"])
def files(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"images{request.param}")
    paths, labels = write_images(folder, N, SIDE + PAD, request.param, seed=5)
    return paths, labels, crop_offsets(N, SIDE + PAD, SIDE, seed=5)


@pytest.mark.parametrize("name", LOADERS)
def test_loader_yields_the_reference_epoch(backend_name, backend, files, name):
    if reason := UNSUPPORTED.get((backend_name, name)):
        pytest.skip(f"{backend_name}/{name}: {reason}")
    pipeline = load_pipeline(backend_name)
    expected = reference_batches(*files, SIDE, BATCH)
    loader = pipeline.loader(name, *files, SIDE, BATCH, workers=2)
    try:
        for _ in range(2):  # re-iterable: a second epoch is the same epoch
            got = [(np.asarray(x), np.asarray(y)) for x, y in loader]
            assert len(got) == len(expected) == N // BATCH
            for (x, y), (want_x, want_y) in zip(got, expected):
                assert (x.dtype, y.dtype) == (np.float32, pipeline.LABEL_DTYPE)
                np.testing.assert_array_equal(x.transpose(0, 3, 1, 2) if pipeline.CHANNELS_LAST
                                              else x, want_x)
                np.testing.assert_array_equal(y, want_y)
    finally:
        close(loader)


def test_crop_offsets_are_seeded_and_in_range():
    a, b = crop_offsets(500, 12, 8, seed=3), crop_offsets(500, 12, 8, seed=3)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (500, 2) and a.min() == 0 and a.max() == 4
    assert not np.array_equal(a, crop_offsets(500, 12, 8, seed=4))


def test_unknown_loader_is_one_line_naming_the_valid_ones(backend_name, backend, files):
    with pytest.raises(ValueError) as error:
        load_pipeline(backend_name).loader("turbo", *files, SIDE, BATCH, workers=2)
    message = str(error.value)
    assert "\n" not in message and "'turbo'" in message and all(n in message for n in LOADERS)
