"""Every interop fixture through zarrs-python's codec pipeline, in strict mode:

    python check.py INTEROP OUT

For each array zarr-python 3.4.2 wrote (INTEROP/manifest.json), with
`codec_pipeline.path = zarrs.ZarrsCodecPipeline` and `codec_pipeline.strict = True`:
- the whole array and subsets across chunk (and shard) boundaries read as the manifest expects;
- the array written again into OUT from its metadata and input values, whole, and read back by
  zarr-python's own pipeline as the manifest expects;
- written once more with each write region in two halves (so that the second half updates chunks
  the first half wrote: partial writes), by the zarrs pipeline and by zarr-python's own, which
  must store the same chunks (byte for byte where no compressor is involved). (A lossy chain that decodes and encodes again a chunk
  written before may move its values by a step; both pipelines must move them alike.)

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
# Where the specification and zarr-python disagree, zarrs reads as the specification says
# (tests/common/mod.rs, SPEC_OVERRIDES): without offset and scale, scale_offset does no arithmetic.
SPEC_OVERRIDES = {("so-f64-noop", 1): -0.0}
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


reads = writes = identical = 0
for case in cases:
    expected = to_numpy(case["expected_values"], case)
    by_spec = expected.copy()
    for (case_id, index), value in SPEC_OVERRIDES.items():
        if case_id == case["id"]:
            by_spec.flat[index] = value
    with zarr.config.set(ZARRS):
        array = zarr.open_array(root / case["path"], mode="r")
        assert pipeline(array) == "ZarrsCodecPipeline", (case["id"], pipeline(array))
        for subset in subsets(case["shape"], case["chunk_shape"]):
            got = array[subset]
            assert same(got, by_spec[subset]), (case["id"], subset)
            reads += 1

    inputs = to_numpy(case["input_values"], case)

    def write(target, config, halves):
        global writes
        target.mkdir(parents=True)
        shutil.copy(root / case["path"] / "zarr.json", target / "zarr.json")
        with zarr.config.set(config):
            array = zarr.open_array(target, mode="r+")
            if config is ZARRS:
                assert pipeline(array) == "ZarrsCodecPipeline", (case["id"], pipeline(array))
            for region in case["writes"]:
                region = [slice(a, b) for a, b in zip(region["start"], region["stop"])]
                first = region[0]
                middle = first.start + max((first.stop - first.start) // 2, 1)
                parts = [slice(first.start, middle), slice(middle, first.stop)] if halves else [first]
                for part in parts:
                    if part.start < part.stop:
                        piece = tuple([part] + region[1:])
                        array[piece] = inputs[piece]
                        if config is ZARRS:
                            writes += 1

    def chunks(target):
        return {p.relative_to(target): p.read_bytes() for p in sorted(target.rglob("*")) if p.is_file() and p.name != "zarr.json"}

    write(out / "whole" / case["id"], ZARRS, halves=False)
    write(out / "halves" / case["id"], ZARRS, halves=True)
    # zarr-python's own pipeline (which may warn about sharding placed after other codecs).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", zarr.errors.ZarrUserWarning)
        back = zarr.open_array(out / "whole" / case["id"], mode="r")
        assert pipeline(back) != "ZarrsCodecPipeline"
        assert same(back[...], expected), case["id"]
        write(out / "python" / case["id"], {}, halves=True)
        ours, theirs = (zarr.open_array(out / name / case["id"], mode="r")[...] for name in ("halves", "python"))
    a, b = chunks(out / "halves" / case["id"]), chunks(out / "python" / case["id"])
    assert a.keys() == b.keys(), (case["id"], sorted(a), sorted(b))
    assert same(ours, theirs), (case["id"], "partial writes read back other values than zarr-python's")
    if not any(name in json.dumps(case["codecs"]) for name in ("gzip", "zstd", "blosc")):
        differing = [str(k) for k in a if a[k] != b[k]]
        assert not differing, (case["id"], "partial writes store other chunks than zarr-python's", differing)
        identical += 1

print(f"zarrs-python: {len(cases)} arrays, {reads} reads and {writes} writes (whole and in halves) "
      "through the zarrs pipeline in strict mode, as zarr-python reads and writes them "
      f"({identical} uncompressed arrays written in halves byte for byte as zarr-python writes them)")
assert len(cases) == 44
