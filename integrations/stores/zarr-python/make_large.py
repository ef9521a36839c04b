"""Writes a Sentinel-2-like reflectance array for the HTTP timing of `.ci/run`:

    zpy make_large.py OUT SIZE [CHUNK SHARD]

`OUT/b04`: SIZE x SIZE float64 stored as uint16 by `scale_offset(-0.1, 10000)` and
`cast_value(uint16, NaN <-> 0, clamp)` (and `OUT/b04_u16`, the same integers as a plain uint16
array laid out alike), in shards of SHARD x SHARD (default 1024) of inner chunks
of CHUNK x CHUNK (default 256), compressed with Blosc zstd (bitshuffle); 2% NaN. A Sentinel-2
band at 10 m: SIZE 10980, CHUNK 1830, SHARD 3660.
"""

import sys

import numpy as np
import zarr
from zarr.codecs import BloscCodec, CastValue, ScaleOffset

out, size = sys.argv[1], int(sys.argv[2])
chunk, shard = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (256, 1024)
rng = np.random.default_rng(7)
y, x = np.meshgrid(np.linspace(0, 6, size), np.linspace(0, 8, size), indexing="ij")
data = np.round(0.25 + 0.2 * np.sin(y) * np.cos(x) + rng.normal(0, 0.02, (size, size)), 4)
data[rng.random((size, size)) < 0.02] = np.nan


def create(name, dtype, fill_value, filters):
    """An array of the band's shape and layout, Blosc zstd compressed."""
    return zarr.create_array(
        out,
        name=name,
        shape=data.shape,
        dtype=dtype,
        chunks=(chunk, chunk),
        shards=(shard, shard),
        fill_value=fill_value,
        filters=filters,
        compressors=[BloscCodec(cname="zstd", clevel=5, shuffle="bitshuffle")],
        overwrite=True,
    )


create("b04", "float64", np.nan, [
    ScaleOffset(offset=-0.1, scale=10000),
    CastValue(
        data_type="uint16",
        out_of_range="clamp",
        scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
    ),
])[...] = data
# The same integers as plain uint16, identically laid out: what a read costs without the codecs.
codes = np.where(np.isnan(data), 0, np.clip(np.round((data + 0.1) * 10000), 0, 65535))
create("b04_u16", "uint16", 0, None)[...] = codes.astype("uint16")
print(f"wrote {out}/b04 and {out}/b04_u16: {size} x {size}")
