"""Random arrays written by zarr-python through `scale_offset` and `cast_value`:

    zpy random_arrays.py SEED COUNT OUT

For `tests/zarr_python_random.rs`: COUNT arrays `OUT/aNNN` of random data types (every integer and
float type zarr-python has), chains (`[scale_offset, cast_value]`, either alone, two casts in a
row), roundings, `out_of_range` modes, NaN maps, fill values, shapes (1-D to 3-D, edge chunks),
shards, byte orders and compressors, some written only in part. Beside each: `aNNN.input` (the values given to
zarr-python, little-endian, C order) and `aNNN.read` (what zarr-python reads back). `OUT/cases.json`
describes each; `fill_changes` says whether zarr-python stores the fill value as something that
reads back differently (which the specification forbids, so the crate refuses to write it), and
`zarr_python_error` where zarr-python refused the array (values out of the chain's range).
"""

import json
import shutil
import sys
import tempfile

import numpy as np
import zarr
from zarr.codecs import BloscCodec, BytesCodec, CastValue, GzipCodec, ScaleOffset, ZstdCodec

seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(seed)
FLOATS = ["float64", "float32", "float16"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
ROUNDINGS = ["nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away"]


def pick(options):
    return options[int(rng.integers(len(options)))]


def as_json(value, dtype):
    if dtype in FLOATS:
        value = float(value)
        if np.isnan(value):
            return "NaN"
        if np.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    return int(value)


def chain():
    """A decoded data type, the filters, and what the values need to know of them."""
    dtype = pick(FLOATS * 3 + INTS)
    kinds = ["scale_offset+cast_value", "scale_offset+cast_value", "cast_value", "scale_offset"]
    # float64 narrowed to float32 first, then cast to the target: two roundings in a row.
    kind = pick(kinds + (["float32+cast_value"] if dtype == "float64" else []))
    filters, offset, scale, target, out_of_range, nan_code = [], 0, 1, None, None, None
    cast_from = dtype
    if kind.startswith("float32+"):
        filters.append(CastValue(data_type="float32", rounding=pick(ROUNDINGS)))
        cast_from = "float32"
    if "scale_offset" in kind:
        if dtype in FLOATS:
            offset = pick([0.0, 0.5, -1.0, 1.25, -0.1, 3.0, 0.3, -273.15])
            scale = pick([1.0, 2.0, 4.0, 10.0, 100.0, 0.5, 0.3, 3.0, 7.0, 0.1]
                         + ([1000.0, 10000.0, 1 / 3, 12345.678] if dtype != "float16" else []))
        else:
            offset = int(rng.integers(0 if dtype.startswith("u") else -10, 11))
            scale = pick([1, 2, 3, 5])
        filters.append(ScaleOffset(offset=offset, scale=scale))
    if "cast_value" in kind:
        choices = INTS + INTS + FLOATS if cast_from in FLOATS else INTS + FLOATS
        if np.dtype(dtype).itemsize == 1:
            # zarr-python 3.4.2 takes the byte order of such arrays for the decoded data type.
            choices = ["int8", "uint8"]
        target = pick([t for t in choices if t not in (dtype, cast_from)])
        config = {"data_type": target, "rounding": pick(ROUNDINGS)}
        out_of_range = pick([None, "clamp"] + ([] if target in FLOATS else ["wrap"]))
        if out_of_range:
            config["out_of_range"] = out_of_range
        if cast_from in FLOATS and target in INTS and rng.random() < 0.7:
            info = np.iinfo(target)
            nan_code = int(pick([info.max, info.min, 0]))
            config["scalar_map"] = {"encode": [["NaN", nan_code]], "decode": [[nan_code, "NaN"]]}
        filters.append(CastValue(**config))
    return dtype, filters, offset, scale, target, out_of_range, nan_code


def values(size, dtype, offset, scale, target, out_of_range):
    """Values whose encodings mostly fall in the target's range (beyond it where out_of_range
    allows), with ties and fractions to round."""
    if dtype in FLOATS:
        if target in INTS:
            info = np.iinfo(target)
            low, high = max(int(info.min), -3000), min(int(info.max), 3000)
            codes = rng.integers(low, high + 1, size).astype(np.float64)
            codes += np.where(rng.random(size) < 0.3, pick([0.0, 0.5, 0.25]), rng.random(size) - 0.5)
            if out_of_range:
                codes = np.where(rng.random(size) < 0.1, codes * 40, codes)
            else:
                codes = np.clip(codes, low - 0.49, high + 0.49)
            x = codes / scale + offset
        else:
            x = rng.normal(0, 100 if target else 50, size) / scale + offset
        if (dtype == "float16" or target == "float16") and not out_of_range:
            x = np.clip(x, -6e4 / scale + offset, 6e4 / scale + offset)
        return x.astype(dtype)
    # Integers: encodings k * scale within the data type (and the target, unless out_of_range
    # allows more), from decoded values k + offset within the data type.
    info = np.iinfo(dtype)
    low, high = max(int(info.min), -3000), min(int(info.max), 3000)
    if target in INTS and not out_of_range:
        low, high = max(low, int(np.iinfo(target).min)), min(high, int(np.iinfo(target).max))
    k_low = max(-(-low // scale), int(info.min) - offset)
    k_high = min(high // scale, int(info.max) - offset)
    return (rng.integers(k_low, max(k_low, k_high) + 1, size) + offset).astype(dtype)


def survives(path, dtype, filters, fill):
    """Whether the fill value, written as an element by zarr-python, reads back as itself."""
    array = zarr.create_array(path, shape=[1], dtype=dtype, fill_value=fill, filters=filters,
                              config={"write_empty_chunks": True}, overwrite=True)
    array[0] = fill
    back = np.asarray(array[0:1]).astype(dtype)
    want = np.asarray([fill]).astype(dtype)
    return bool(back.tobytes() == want.tobytes() or (np.isnan(back).all() and np.isnan(want).all())
                if dtype in FLOATS else back.tobytes() == want.tobytes())


cases = []
scratch = tempfile.mkdtemp()
for i in range(count):
    name = f"a{i:03d}"
    dtype, filters, offset, scale, target, out_of_range, nan_code = chain()
    ndim = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 30 if ndim < 3 else 12)) for _ in range(ndim)]
    chunks = [int(rng.integers(1, extent + 3)) for extent in shape]
    shards = [c * int(rng.integers(1, 4)) for c in chunks] if rng.random() < 0.5 else None
    x = values(int(np.prod(shape)), dtype, offset, scale, target, out_of_range).reshape(shape)
    nan = dtype in FLOATS and (target is None or target in FLOATS or nan_code is not None)
    if nan:
        x.reshape(-1)[rng.random(x.size) < 0.1] = np.nan
    fill = (np.nan if nan and rng.random() < 0.7 else offset) if dtype in FLOATS else offset
    endian = pick(["little", "big"]) if np.dtype(target or dtype).itemsize > 1 else "little"
    compressor = pick([None, None, "zstd", "gzip", "blosc"])
    compressors = {None: None, "zstd": [ZstdCodec(level=3)], "gzip": [GzipCodec(level=5)],
                   "blosc": [BloscCodec(cname="zstd", clevel=5, shuffle="shuffle")]}[compressor]
    if rng.random() < 0.3:
        region = [[a, b] if a < b else [a, a + 1] for a, b in
                  (sorted(int(v) for v in rng.integers(0, extent, 2)) for extent in shape)]
    else:
        region = [[0, extent] for extent in shape]
    case = {"name": name, "data_type": dtype, "shape": shape, "chunks": chunks, "shards": shards,
            "fill_value": as_json(fill, dtype), "compressor": compressor, "region": region,
            "codecs": [f.to_dict() for f in filters]}
    step = "the fill value"
    try:
        case["fill_changes"] = not survives(f"{scratch}/{name}", dtype, filters, fill)
        step = "the array"
        array = zarr.create_array(f"{out}/{name}", shape=shape, dtype=dtype, chunks=chunks,
                                  shards=shards, fill_value=fill, filters=filters,
                                  serializer=BytesCodec(endian=endian), compressors=compressors,
                                  overwrite=True)
        window = tuple(slice(a, b) for a, b in region)
        array[window] = x[window]
        read = np.asarray(array[...])
        x.astype(np.dtype(dtype).newbyteorder("<")).tofile(f"{out}/{name}.input")
        read.astype(np.dtype(dtype).newbyteorder("<")).tofile(f"{out}/{name}.read")
    except Exception as error:  # noqa: BLE001 (any refusal of zarr-python's is recorded)
        case["zarr_python_error"] = f"{step}: {type(error).__name__}: {error}"[:300]
    cases.append(case)
shutil.rmtree(scratch)
with open(f"{out}/cases.json", "w") as f:
    json.dump({"seed": seed, "zarr_python": zarr.__version__, "cases": cases}, f, indent=1)
refused = sum("zarr_python_error" in c for c in cases)
print(f"seed {seed}: {count} arrays, {refused} refused by zarr-python, "
      f"{sum(c.get('fill_changes', False) for c in cases)} with a fill value that changes")
