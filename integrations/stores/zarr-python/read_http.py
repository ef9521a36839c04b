"""Reads an array over HTTP with zarr-python (fsspec's HTTP file system) and compares it with
what zarrs read from the same URL:

    zpy read_http.py URL ARRAY ZARRS_VALUES ZARRS_MS [REPEATS]

ZARRS_VALUES holds zarrs' read (little-endian float64, C order, from `read-http`) and ZARRS_MS
the fastest median time of zarrs' reads; every element must agree (NaN with NaN, otherwise
exactly). Prints zarr-python's median time of REPEATS (default 5) whole reads after one warm-up.
"""

import statistics
import sys
import time

import numpy as np
import zarr
from zarr.storage import FsspecStore

url, path, values_file, zarrs_ms = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
repeats = int(sys.argv[5]) if len(sys.argv) > 5 else 5
store = FsspecStore.from_url(url, read_only=True)
array = zarr.open_array(store, path=path, mode="r")
read = array[...]
times = []
for _ in range(repeats):
    start = time.perf_counter()
    array[...]
    times.append(time.perf_counter() - start)
zarrs = np.fromfile(values_file, dtype="<f8").reshape(read.shape)
same = (np.isnan(read) & np.isnan(zarrs)) | (read == zarrs)
if not same.all():
    first = tuple(int(i) for i in np.argwhere(~same)[0])
    sys.exit(f"{path}: {int((~same).sum())} elements differ, first at {first}: "
             f"zarr-python {read[first]!r}, zarrs {zarrs[first]!r}")
ms = statistics.median(times) * 1e3
print(f"{path}: {read.size} elements equal; zarr-python {ms:.1f} ms, zarrs {zarrs_ms:.1f} ms "
      f"({ms / zarrs_ms:.1f}x faster)")
