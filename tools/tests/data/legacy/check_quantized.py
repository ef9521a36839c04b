"""Checks with zarr-python that a quantized array reads as its source within a bound.

    zpy check_quantized.py SOURCE TARGET BOUND

SOURCE is any array zarr-python opens; TARGET the array the `quantize` command wrote from it.
Compares shape, dimension names, attributes, NaN positions and every value (within BOUND).
"""

import sys

import numpy as np
import zarr

source = zarr.open_array(sys.argv[1], mode="r")
target = zarr.open_array(sys.argv[2], mode="r")
bound = float(sys.argv[3])
a, b = source[...].astype("f8"), target[...].astype("f8")
assert a.shape == b.shape, (a.shape, b.shape)
assert dict(source.attrs) == dict(target.attrs), (dict(source.attrs), dict(target.attrs))
if source.metadata.zarr_format == 3:
    assert source.metadata.dimension_names == target.metadata.dimension_names
assert np.array_equal(np.isnan(a), np.isnan(b)), "NaN positions differ"
finite = np.isfinite(a)
error = float(np.max(np.abs(a[finite] - b[finite]), initial=0.0))
assert error <= bound, f"largest error {error} over {bound}"
print(f"zarr-python reads {sys.argv[2]}: {a.size} elements, largest error {error:.6g} <= {bound:.6g}")
