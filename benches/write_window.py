"""zarr-python's write of a 512 x 512 window into an existing sharded array, as the `array`
bench's `window_write/inside` writes it through zarrs:

    zpy write_window.py OUT [REPEATS]

OUT/a: 4096 x 4096 float64 stored as uint16 by `scale_offset(-0.1, 10000)` and
`cast_value(uint16, clamp, NaN <-> 0)` inside shards of 1024 x 1024 holding inner chunks of
256 x 256 (zarr-python's `filters=` with `shards=`), no compressor, written once. Then the window
(rows and columns 300..812) is written REPEATS times (default 20), the shard file restored before
each write outside the timing; prints the median.
"""

import shutil
import statistics
import sys
import time

import numpy as np
import zarr
from zarr.codecs import CastValue, ScaleOffset

out = sys.argv[1]
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 20
rng = np.random.default_rng(7)
data = np.round(rng.uniform(0.0, 0.5, (4096, 4096)), 4)
data[rng.random((4096, 4096)) < 0.02] = np.nan
array = zarr.create_array(
    out,
    name="a",
    shape=data.shape,
    dtype="float64",
    chunks=(256, 256),
    shards=(1024, 1024),
    fill_value=np.nan,
    filters=[
        ScaleOffset(offset=-0.1, scale=10000),
        CastValue(
            data_type="uint16",
            out_of_range="clamp",
            scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
        ),
    ],
    compressors=None,
    overwrite=True,
)
array[...] = data
shard = f"{out}/a/c/0/0"
shutil.copy(shard, f"{out}/saved")
window = data[:512, :512] + 0.0001
times = []
for _ in range(repeats):
    shutil.copy(f"{out}/saved", shard)
    start = time.perf_counter()
    array[300:812, 300:812] = window
    times.append(time.perf_counter() - start)
back = array[300:812, 300:812]
assert np.allclose(back, window, atol=1e-4, equal_nan=True)
print(f"zarr-python {zarr.__version__}: 512 x 512 window write, median of {repeats}: "
      f"{statistics.median(times) * 1e3:.2f} ms")
