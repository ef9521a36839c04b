"""Checks with zarr-python that migrated arrays read exactly as before the migration.

    zpy check_migrated.py ROOT MANIFEST

ROOT holds the arrays of MANIFEST (tests/data/legacy/manifest.json) after the `migrate` command
ran on each one that used fixedscaleoffset. Every value must be bit for bit the one numcodecs read.
"""

import json
import sys
from pathlib import Path

import numpy as np
import zarr

root, manifest = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
checked = 0
for case in manifest["cases"]:
    path = root / case["path"]
    metadata = json.loads((path / "zarr.json").read_text()) if (path / "zarr.json").exists() else {}
    names = [c["name"] for c in metadata.get("codecs", []) if isinstance(c, dict)]
    if "scale_offset" not in names:
        continue
    assert not (path / ".zarray").exists(), f"{path}: the Zarr V2 metadata is still there"
    got = zarr.open_array(str(path), mode="r", zarr_format=3)[...]
    want = np.array([float(v) for v in case["expected_values"]], dtype=case["data_type"])
    assert got.dtype == want.dtype, (path, got.dtype, want.dtype)
    same = got.ravel(order="C").view(f"u{got.dtype.itemsize}") == want.view(f"u{want.dtype.itemsize}")
    assert same.all(), f"{path}: {(~same).sum()} values differ"
    checked += 1
    print(f"zarr-python reads {case['path']} ({want.size} values) exactly as before")
print(f"{checked} migrated arrays read as before")
assert checked > 0
