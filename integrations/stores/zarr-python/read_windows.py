"""Reads windows and map tiles of an array over HTTP with zarr-python (fsspec's HTTP file system)
and compares them with what zarrs read (`read-windows`):

    zpy read_windows.py URL ARRAY ZARRS_VALUES REPEATS READ...

A READ is a window, `R0:R1,C0:C1`, or map tiles read one after the other, `tiles:N:SIZE:SEED`
(`N` tiles of `SIZE`x`SIZE` at random positions on a grid of `SIZE`, drawn as `read-windows`
draws them). ZARRS_VALUES.N holds zarrs' read of the Nth READ (the tiles one after the other;
little-endian float64, C order); every element must agree (NaN with NaN, otherwise exactly).
Prints a Markdown table row per READ: zarr-python's median time per window or tile over REPEATS
reads after one warm-up, and the requests and KiB per window or tile that the `serve` server
counted (`/.stats`).
"""

import statistics
import sys
import time
import urllib.request

import numpy as np
import zarr
from zarr.storage import FsspecStore

url, path, values_prefix, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
reads = sys.argv[5:]


def stats():
    with urllib.request.urlopen(url + ".stats") as response:
        words = response.read().decode().split()
    return int(words[1]), int(words[3])


def parts(text, shape):
    """The (row, row end, column, column end) of each window or tile `text` names."""
    if text.startswith("tiles:"):
        n, size, state = (int(x) for x in text[len("tiles:"):].split(":"))
        tiles = []
        for _ in range(n):
            start = []
            for extent in shape:
                state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
                start.append((state >> 33) % (extent // size) * size)
            tiles.append((start[0], start[0] + size, start[1], start[1] + size))
        return tiles
    (r0, r1), (c0, c1) = (tuple(int(x) for x in part.split(":")) for part in text.split(","))
    return [(r0, r1, c0, c1)]


store = FsspecStore.from_url(url, read_only=True)
array = zarr.open_array(store, path=path, mode="r")
for n, text in enumerate(reads):
    windows = parts(text, array.shape)
    read = np.concatenate([array[r0:r1, c0:c1].ravel() for r0, r1, c0, c1 in windows])
    before = stats()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for r0, r1, c0, c1 in windows:
            array[r0:r1, c0:c1]
        times.append(time.perf_counter() - start)
    after = stats()
    zarrs = np.fromfile(f"{values_prefix}.{n}", dtype="<f8")
    same = (np.isnan(read) & np.isnan(zarrs)) | (read == zarrs)
    if read.shape != zarrs.shape or not same.all():
        sys.exit(f"{text}: {int((~same).sum())} of {read.size} elements differ from zarrs'")
    count = len(windows)
    ms = statistics.median(times) * 1e3 / count
    requests = (after[0] - before[0]) / repeats / count
    kib = (after[1] - before[1]) / repeats / count / 1024
    print(f"| {text} | zarr-python (fsspec) | {ms:.1f} ms | {requests:.1f} | {kib:.0f} |")
