"""zarr-python's own codec pipeline against zarrs-python with this crate, on the reflectance array:

    python bench.py [SIZE]

A SIZE x SIZE (default 4096) float64 array stored as `[scale_offset(-0.1, 10000),
cast_value(uint16, NaN <-> 0, clamp), bytes, zstd]` in chunks of 1024 x 1024 and of 256 x 256,
on the local file system (in the page cache): the median of 5 whole reads and of 3 whole writes
with each pipeline, and their ratio. Both pipelines must read the same values.
"""

import statistics
import sys
import tempfile
import time

import numpy as np
import zarr
from zarr.codecs import CastValue, ScaleOffset, ZstdCodec

ZARRS = {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True}
size = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
rng = np.random.default_rng(1)
data = np.round(rng.uniform(0, 0.6, (size, size)), 4)
data[rng.random((size, size)) < 0.02] = np.nan


def median_time(action, repeats):
    action()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


print("| chunks | read, zarr-python | read, zarrs-python | speed-up | write, zarr-python | write, zarrs-python | speed-up |")
print("|---|---:|---:|---:|---:|---:|---:|")
with tempfile.TemporaryDirectory(dir="/tmp") as folder:
    for chunk in (1024, 256):
        path = f"{folder}/r{chunk}.zarr"
        array = zarr.create_array(
            path, shape=data.shape, dtype="float64", chunks=(chunk, chunk), fill_value=np.nan,
            filters=[ScaleOffset(offset=-0.1, scale=10000),
                     CastValue(data_type="uint16", out_of_range="clamp",
                               scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]})],
            compressors=[ZstdCodec(level=3)],
        )
        array[...] = data
        times = {}
        values = {}
        for name, config in (("python", {}), ("zarrs", ZARRS)):
            with zarr.config.set(config):
                opened = zarr.open_array(path, mode="r+")
                values[name] = opened[...]
                times[name, "read"] = median_time(lambda: opened[...], 5)
                times[name, "write"] = median_time(lambda: opened.__setitem__(Ellipsis, data), 3)
        a, b = values["python"], values["zarrs"]
        assert np.array_equal(a, b, equal_nan=True), "the pipelines read different values"
        ms = {key: t * 1e3 for key, t in times.items()}
        print(f"| {chunk} x {chunk} | {ms['python', 'read']:.0f} ms | {ms['zarrs', 'read']:.0f} ms | "
              f"{ms['python', 'read'] / ms['zarrs', 'read']:.1f}x | {ms['python', 'write']:.0f} ms | "
              f"{ms['zarrs', 'write']:.0f} ms | {ms['python', 'write'] / ms['zarrs', 'write']:.1f}x |")
