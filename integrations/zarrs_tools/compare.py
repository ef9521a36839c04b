"""Compares what zarrs_reencode wrote with zarr-python's read of the original:

    python compare.py ORIGINAL FLOAT32 BACK

FLOAT32 must hold the original's values cast to float32 with no array-to-array codec; BACK, with
the original's `scale_offset` and `cast_value`, exactly the original's values (NaN as NaN).
"""

import json
import sys
from pathlib import Path

import numpy as np
import zarr

original, float32, back = (zarr.open_array(path, mode="r") for path in sys.argv[1:4])
values = original[...]
as_float32 = float32[...]
assert as_float32.dtype == np.float32, as_float32.dtype
codecs = json.loads((Path(sys.argv[2]) / "zarr.json").read_text())["codecs"]
assert not any(c.get("name") in ("scale_offset", "cast_value") for c in codecs if isinstance(c, dict))
same32 = (np.isnan(as_float32) & np.isnan(values)) | (as_float32 == values.astype(np.float32))
assert same32.all(), f"{int((~same32).sum())} float32 values differ"
again = back[...]
assert again.dtype == np.float64
same = (np.isnan(again) & np.isnan(values)) | (again == values)
assert same.all(), f"{int((~same).sum())} values differ after the round trip"
print(f"zarrs_tools: {values.size} values re-encoded to float32 and back with scale_offset and "
      f"cast_value, as zarr-python reads them")
