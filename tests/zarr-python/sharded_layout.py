"""Writes zarr-python's sharded layout of the README's example for the same data as the example.

    zpy tests/zarr-python/sharded_layout.py tests/data/sharded-layout/reflectance.zarr [CHECK]

float64 reflectances in shards of 24 x 40 holding inner chunks of 8 x 20, through
scale_offset(-0.1, 10000) and cast_value to uint16 (clamp, NaN as 0) inside the shards, Blosc zstd
level 5 as zarr-python configures it for the stored uint16, a crc32c index at the end. The values:
element (i, j) is ((37 i + 11 j) mod 9000) * 1e-4, NaN where (7 i + j) mod 23 is 0, as
`examples/readme.rs` computes them.

With CHECK, reads the array at that path instead (the one the example wrote) and checks that
zarr-python reads every element as the example wrote it, within half a step of 1e-4.
"""

import sys

import numpy as np
import zarr
from zarr.codecs import BloscCodec


def reflectance(shape):
    i, j = np.indices(shape)
    data = ((37 * i + 11 * j) % 9000).astype("f8") * 1e-4
    data[(7 * i + j) % 23 == 0] = np.nan
    return data


if len(sys.argv) > 2:
    array = zarr.open_array(sys.argv[1], mode="r")
    read = array[...]
    want = reflectance(read.shape)
    assert np.array_equal(np.isnan(read), np.isnan(want)), "NaN positions differ"
    finite = np.isfinite(want)
    error = float(np.max(np.abs(read[finite] - want[finite])))
    assert error <= 0.5e-4 + 1e-12, f"largest error {error}"
    shards = array.metadata.codecs[0]
    print(f"zarr-python reads {sys.argv[1]}: {read.size} elements in shards {array.shards} of "
          f"{array.chunks}, largest error {error:.3g}")
    sys.exit(0)

filters = [
    {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
    {"name": "cast_value", "configuration": {
        "data_type": "uint16", "rounding": "nearest-even", "out_of_range": "clamp",
        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
]
array = zarr.create_array(sys.argv[1], shape=(48, 40), shards=(24, 40), chunks=(8, 20),
                          dtype="f8", fill_value=np.nan, filters=filters,
                          compressors=BloscCodec(cname="zstd", clevel=5), zarr_format=3,
                          dimension_names=["y", "x"])
array[...] = reflectance((48, 40))
print(f"wrote {sys.argv[1]}")
