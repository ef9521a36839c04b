"""Writes the legacy fixtures of tests/data/legacy with zarr-python 3.4.2 and numcodecs.

Run from the tools crate's folder with zarr-python 3.4.2 (`pip install "zarr[cast-value-rs]==3.4.2"`,
which brings numcodecs):

    python tests/data/legacy/make_fixtures.py tests/data/legacy

Arrays using `numcodecs.fixedscaleoffset` (Zarr V3) and the `fixedscaleoffset` filter (Zarr V2),
to migrate, and plain float arrays of both formats (one sharded with Blosc), to quantize. `manifest.json` holds each
array's values as zarr-python reads them (through numcodecs), C order, "NaN"/"Infinity" as strings.
"""

import json
import shutil
import sys
import warnings
from pathlib import Path

import numcodecs
import numcodecs.zarr3
import numpy as np
import zarr

warnings.filterwarnings("ignore")
root = Path(sys.argv[1])
arrays = root / "arrays"
shutil.rmtree(arrays, ignore_errors=True)
arrays.mkdir(parents=True)
rng = np.random.default_rng(20261124)


def reflectance(shape, dtype):
    data = rng.uniform(-0.05, 1.1, size=shape).astype(dtype)
    data.flat[::17] = np.nan
    return data


def value(x):
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return float(x)


cases = []


def add(name, array, note):
    read = zarr.open_array(str(arrays / name), mode="r")[...]
    cases.append({
        "path": f"arrays/{name}",
        "zarr_format": array.metadata.zarr_format,
        "shape": list(read.shape),
        "data_type": str(read.dtype),
        "note": note,
        "expected_values": [value(x) for x in read.ravel(order="C")],
    })


def v3_fso(name, data, offset, scale, dtype, astype, compressors, fill_value, note, chunks=(8, 8)):
    fso = numcodecs.zarr3.FixedScaleOffset(offset=offset, scale=scale, dtype=dtype, astype=astype)
    array = zarr.create_array(str(arrays / name), shape=data.shape, chunks=chunks, dtype=data.dtype,
                              filters=[fso], compressors=compressors, fill_value=fill_value,
                              zarr_format=3)
    array[...] = data
    add(name, array, note)


def v2_fso(name, data, offset, scale, dtype, astype, order, fill_value, note, chunks=(8, 8),
           compressor=None):
    fso = numcodecs.FixedScaleOffset(offset=offset, scale=scale, dtype=dtype, astype=astype)
    array = zarr.create_array(str(arrays / name), shape=data.shape, chunks=chunks, dtype=data.dtype,
                              filters=[fso], compressors=compressor, fill_value=fill_value, order=order,
                              zarr_format=2, chunk_key_encoding={"name": "v2", "separator": "."})
    array[...] = data
    add(name, array, note)


# Reflectances with offset -0.1: zarrs' built-in codec (float32 parameters, ties away from zero)
# decodes many of them differently from numcodecs.
data = rng.uniform(-0.1, 1.2, size=(20, 30)).round(4)
data[3, :5] = 70.0  # beyond uint16 after scaling: numcodecs wraps them
v3_fso("v3-f64-u16-zstd", data, -0.1, 10000, "<f8", "<u2", [zarr.codecs.ZstdCodec()], 0.0,
       "float64 as uint16 with offset -0.1, scale 10000, zstd; row 3 holds values that wrapped")
v3_fso("v3-f32-u8", (rng.uniform(10, 35, size=(12, 10))).astype("<f4"), 10, 10, "<f4", "|u1",
       None, 10.0, "float32 as uint8, offset 10, scale 10 (float32 arithmetic in numcodecs)",
       chunks=(5, 4))
v3_fso("v3-f64-i8-partial", rng.uniform(-1, 1, size=(10,)).round(2), 0, 100, "<f8", "|i1",
       None, 0.0, "float64 as int8, 1-D with an edge chunk", chunks=(4,))
v2_fso("v2-f8-u2", rng.uniform(0, 600, size=(15, 9)).round(2), 0, 100, "<f8", "<u2", "C", 0.0,
       "Zarr V2 filter, float64 as uint16, scale 100")
v2_fso("v2-f4-i2-F", rng.uniform(-30, 30, size=(9, 7)).astype("<f4"), -0.5, 1000, "<f4", "<i2",
       "F", 0.0, "Zarr V2 filter, float32 as int16, Fortran order", chunks=(4, 4))

# Plain float arrays to quantize.
plain = zarr.create_array(str(arrays / "v3-f64-plain"), shape=(40, 50), chunks=(16, 16),
                          dtype="<f8", fill_value=np.nan, zarr_format=3,
                          dimension_names=["y", "x"], compressors=None)
plain.attrs["units"] = "reflectance"
plain[...] = reflectance((40, 50), "<f8")
add("v3-f64-plain", plain, "float64 reflectances with NaN, dimension names and attributes")
plain2 = zarr.create_array(str(arrays / "v2-f4-plain"), shape=(30, 20), chunks=(8, 8),
                           dtype="<f4", fill_value=0.0, zarr_format=2, compressors=None)
plain2.attrs["long_name"] = "temperature"
plain2[...] = rng.uniform(250, 310, size=(30, 20)).astype("<f4")
add("v2-f4-plain", plain2, "Zarr V2 float32 temperatures, fill value 0")

# The compressors zarr-python 2 wrote by default (Blosc) and zlib.
v2_fso("v2-f8-u2-blosc", rng.uniform(-0.1, 1.0, size=(16, 16)).round(3), -0.1, 1000, "<f8", "<u2",
       "C", 0.0, "Zarr V2 filter with the Blosc compressor", compressor=numcodecs.Blosc())
v2_fso("v2-f4-u1-zlib", rng.uniform(0, 25, size=(10, 10)).astype("<f4"), 0, 10, "<f4", "|u1",
       "C", 0.0, "Zarr V2 filter with the zlib compressor", compressor=numcodecs.Zlib(level=5))

# Fill values that (fill - offset) * scale does not take to an integer: NaN (with NaN in the
# data, which numcodecs stores as whatever NumPy's cast gives) and a fill value off the grid.
fso = numcodecs.zarr3.FixedScaleOffset(offset=-0.1, scale=1000, dtype="<f8", astype="<u2")
partial = zarr.create_array(str(arrays / "v3-f64-u16-nan-fill"), shape=(20, 20), chunks=(8, 8),
                            dtype="<f8", filters=[fso], compressors=None, fill_value=np.nan,
                            zarr_format=3)
block = rng.uniform(0, 1, size=(10, 10)).round(3)
block[2, 3] = np.nan
partial[:10, :10] = block
add("v3-f64-u16-nan-fill", partial, "fill value NaN, a NaN element, chunks never written")
v3_fso("v3-f32-i16-fill-off-grid", rng.uniform(250, 300, size=(9, 9)).astype("<f4"), 273.15, 100,
       "<f4", "<i2", None, 0.0, "float32 temperatures, offset 273.15: fill value 0 is off the grid",
       chunks=(4, 4))

# zarr-python's sharded layout with Blosc, to quantize: shards of inner chunks, Blosc as zarr-python
# configures it for float64 (typesize 8, shuffle).
sharded = zarr.create_array(str(arrays / "v3-f64-sharded-blosc"), shape=(60, 50), chunks=(10, 25),
                            shards=(30, 50), dtype="<f8", fill_value=np.nan, zarr_format=3,
                            dimension_names=["y", "x"],
                            compressors=zarr.codecs.BloscCodec(cname="zstd", clevel=5))
sharded.attrs["units"] = "reflectance"
sharded[...] = reflectance((60, 50), "<f8")
add("v3-f64-sharded-blosc", sharded, "float64 reflectances in shards of inner chunks, Blosc zstd")

(root / "manifest.json").write_text(json.dumps({
    "generator": f"zarr-python {zarr.__version__}, numcodecs {numcodecs.__version__}, numpy {np.__version__}",
    "cases": cases,
}, indent=1) + "\n")
print(f"{len(cases)} arrays written")
