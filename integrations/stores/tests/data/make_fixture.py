"""Writes tests/data/sentinel2.zarr and tests/data/sentinel2.zip with zarr-python 3.4.2: a group laid out as the Sentinel-2
GeoZarr products are, its reflectances stored as uint16 by `scale_offset` and `cast_value`
(DN = (reflectance + 0.1) * 10000, NaN as 0), compressed with Blosc zstd.

Run from this package's folder (integrations/stores) with zarr-python 3.4.2, for example the
Python that `zarr-python/setup_http.sh` prints:

    "$(zarr-python/setup_http.sh)" tests/data/make_fixture.py tests/data

- `measurements/reflectance/r10m/b04`: 150 x 170, in shards of 128 x 128 of inner chunks of
  32 x 32 (edge shards and edge inner chunks);
- `measurements/reflectance/r20m/b05`: 75 x 85, in chunks of 32 x 32.

`sentinel2.zip` holds the same group in a zip archive (zarr-python's `ZipStore`).
`sentinel2.json` lists both arrays; `<array>.f64` holds each array's values as zarr-python reads
them back (C order, little-endian float64).
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import zarr
from zarr.codecs import BloscCodec, CastValue, ScaleOffset

root = Path(sys.argv[1])
group_path = root / "sentinel2.zarr"
shutil.rmtree(group_path, ignore_errors=True)
rng = np.random.default_rng(20261126)


def reflectance(shape):
    y, x = np.meshgrid(np.linspace(0, 3, shape[0]), np.linspace(0, 4, shape[1]), indexing="ij")
    data = 0.25 + 0.2 * np.sin(y) * np.cos(x) + rng.normal(0, 0.02, shape)
    data = np.round(data, 4)
    data[rng.random(shape) < 0.03] = np.nan
    return data


codecs = dict(
    filters=[
        ScaleOffset(offset=-0.1, scale=10000),
        CastValue(
            data_type="uint16",
            out_of_range="clamp",
            scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
        ),
    ],
    compressors=[BloscCodec(cname="zstd", clevel=5, shuffle="bitshuffle")],
)

zip_path = root / "sentinel2.zip"
zip_path.unlink(missing_ok=True)
zip_store = zarr.storage.ZipStore(zip_path, mode="w")
attributes = {"product_type": "S2MSI2A-like"}
zarr.open_group(str(group_path), mode="w", attributes=attributes)
zarr.open_group(zip_store, mode="w", attributes=attributes)
arrays = []
for path, shape, chunks, shards in [
    ("measurements/reflectance/r10m/b04", (150, 170), (32, 32), (128, 128)),
    ("measurements/reflectance/r20m/b05", (75, 85), (32, 32), None),
]:
    data = reflectance(shape)
    for store in (str(group_path), zip_store):
        array = zarr.create_array(
            store,
            name=path,
            shape=shape,
            dtype="float64",
            chunks=chunks,
            shards=shards,
            fill_value=np.nan,
            dimension_names=["y", "x"],
            **codecs,
        )
        array[...] = data
    read = zarr.open_array(str(group_path), path=path, mode="r")[...]
    values = root / f"{path.replace('/', '_')}.f64"
    read.astype("<f8").tofile(values)
    arrays.append({"path": path, "shape": list(shape), "values": values.name})

zip_store.close()
zip_read = zarr.storage.ZipStore(zip_path, mode="r")
for entry in arrays:
    read = zarr.open_array(str(group_path), path=entry["path"], mode="r")[...]
    from_zip = zarr.open_array(zip_read, path=entry["path"], mode="r")[...]
    assert np.array_equal(read, from_zip, equal_nan=True), entry["path"]
(root / "sentinel2.json").write_text(
    json.dumps({"generator": f"zarr-python {zarr.__version__}", "arrays": arrays}, indent=1) + "\n"
)
print(f"wrote {group_path} with {len(arrays)} arrays")
