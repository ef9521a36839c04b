"""Every interop fixture through zarrs-python's codec pipeline, in strict mode:

    python check.py INTEROP OUT

For each array zarr-python 3.4.2 wrote (INTEROP/manifest.json), with
`codec_pipeline.path = zarrs.ZarrsCodecPipeline` and `codec_pipeline.strict = True`:
- the whole array and subsets across chunk (and shard) boundaries read as the manifest expects;
- the array written again into OUT from its metadata and input values, each write region in two
  halves (so that the second half updates chunks the first half wrote: partial writes), and read
  back by zarr-python's own pipeline as the manifest expects.

Any warning is an error (zarrs-python warns before it falls back to zarr-python's pipeline), and
every array must be handled by the zarrs pipeline. Prints the number of reads and writes checked.
"""

import json
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import zarr

warnings.simplefilter("error")
ZARRS = {"codec_pipeline.path": "zarrs.ZarrsCodecPipeline", "codec_pipeline.strict": True}
root, out = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(out, ignore_errors=True)
cases = json.loads((root / "manifest.json").read_text())["cases"]


def to_numpy(values, case):
    def scalar(v):
        if v is None:
            return 0
        if isinstance(v, str):
            return {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}[v]
        return v

    flat = np.array([scalar(v) for v in values], dtype=case["data_type"])
    return flat.reshape(case["shape"])


def same(a, b):
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.all((np.isnan(a) & np.isnan(b)) | ((a == b) & (np.signbit(a) == np.signbit(b)))))
    return bool(np.array_equal(a, b))


def subsets(shape, chunks):
    yield tuple(slice(0, n) for n in shape)
    yield tuple(slice(max(c - 1, 0), min(c + 2, n)) if c < n else slice(0, n) for n, c in zip(shape, chunks))
    yield tuple(slice(n // 3, n - n // 4) for n in shape)
    yield tuple(slice(n - 1, n) for n in shape)


def pipeline(array):
    return type(array._async_array.codec_pipeline).__name__


reads = writes = 0
for case in cases:
    expected = to_numpy(case["expected_values"], case)
    with zarr.config.set(ZARRS):
        array = zarr.open_array(root / case["path"], mode="r")
        assert pipeline(array) == "ZarrsCodecPipeline", (case["id"], pipeline(array))
        for subset in subsets(case["shape"], case["chunk_shape"]):
            got = array[subset]
            assert same(got, expected[subset]), (case["id"], subset)
            reads += 1

    target = out / case["id"]
    target.mkdir(parents=True)
    shutil.copy(root / case["path"] / "zarr.json", target / "zarr.json")
    inputs = to_numpy(case["input_values"], case)
    with zarr.config.set(ZARRS):
        array = zarr.open_array(target, mode="r+")
        assert pipeline(array) == "ZarrsCodecPipeline", (case["id"], pipeline(array))
        for write in case["writes"]:
            region = [slice(a, b) for a, b in zip(write["start"], write["stop"])]
            first = region[0]
            middle = first.start + max((first.stop - first.start) // 2, 1)
            for part in (slice(first.start, middle), slice(middle, first.stop)):
                if part.start < part.stop:
                    piece = tuple([part] + region[1:])
                    array[piece] = inputs[piece]
                    writes += 1
    back = zarr.open_array(target, mode="r")
    assert pipeline(back) != "ZarrsCodecPipeline"
    assert same(back[...], expected), case["id"]

print(f"zarrs-python: {len(cases)} arrays, {reads} reads and {writes} writes (in halves) "
      "through the zarrs pipeline in strict mode, as zarr-python reads them")
assert len(cases) == 44
