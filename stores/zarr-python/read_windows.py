"""Reads windows of an array over HTTP with zarr-python (fsspec's HTTP file system) and compares
them with what zarrs read (`read-windows`):

    zpy read_windows.py URL ARRAY ZARRS_VALUES REPEATS WINDOW...

ZARRS_VALUES.N holds zarrs' read of the Nth window (little-endian float64, C order); every
element must agree (NaN with NaN, otherwise exactly). A window is `R0:R1,C0:C1`. Prints a
Markdown table row per window: zarr-python's median time of REPEATS reads after one warm-up, and
the requests and KiB per read that the `serve` server counted (`/.stats`).
"""

import statistics
import sys
import time
import urllib.request

import numpy as np
import zarr
from zarr.storage import FsspecStore

url, path, values_prefix, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
windows = sys.argv[5:]


def stats():
    with urllib.request.urlopen(url + ".stats") as response:
        words = response.read().decode().split()
    return int(words[1]), int(words[3])


store = FsspecStore.from_url(url, read_only=True)
array = zarr.open_array(store, path=path, mode="r")
for n, text in enumerate(windows):
    (r0, r1), (c0, c1) = (tuple(int(x) for x in part.split(":")) for part in text.split(","))
    read = array[r0:r1, c0:c1]
    before = stats()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        array[r0:r1, c0:c1]
        times.append(time.perf_counter() - start)
    after = stats()
    zarrs = np.fromfile(f"{values_prefix}.{n}", dtype="<f8").reshape(read.shape)
    same = (np.isnan(read) & np.isnan(zarrs)) | (read == zarrs)
    if not same.all():
        first = tuple(int(i) for i in np.argwhere(~same)[0])
        sys.exit(f"{text}: {int((~same).sum())} elements differ, first at {first}: "
                 f"zarr-python {read[first]!r}, zarrs {zarrs[first]!r}")
    ms = statistics.median(times) * 1e3
    requests = (after[0] - before[0]) / repeats
    kib = (after[1] - before[1]) / repeats / 1024
    print(f"| {text} | zarr-python (fsspec) | {ms:.1f} ms | {requests:.0f} | {kib:.0f} |")
