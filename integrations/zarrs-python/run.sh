#!/usr/bin/env bash
# zarrs-python (PyPI `zarrs` 0.2.3) with this crate: its released source distribution with two
# lines added (the dependency, and `use zarrs_scale_offset_cast as _;`), built with maturin against
# this checkout (its Cargo.lock kept; only zarrs moves to 0.23.14), installed into a virtual
# environment beside zarr-python 3.4.2, and run on every interop fixture (check.py); with
# `--bench`, the timing of bench.py too.
#
# Needs the zarr-python tool (../../../shared/tools/zarr-python) and the package registries. The
# build directory is kept in ZARRS_PYTHON_WORK (default ~/.cache/zarrs_scale_offset_cast/zarrs-python)
# so that a second run rebuilds only what changed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version=0.2.3
work="${ZARRS_PYTHON_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/zarrs_scale_offset_cast/zarrs-python}"
zpy_tools="$(cd "$repo/../shared/tools/zarr-python" && pwd)"
root="${ZPY_ROOT:-/opt/zarr-python-root}"
"$zpy_tools/setup.sh" "$root" > /dev/null

# The released source distribution (maturin installed first, so that pip does not build it).
python3 -m pip install -q "maturin>=1.5,<2"
mkdir -p "$work/sdist"
python3 -m pip download -q --no-deps --no-binary zarrs --no-build-isolation "zarrs==$version" -d "$work/sdist"
rm -rf "$work/src" && mkdir -p "$work/src"
tar xzf "$work/sdist/zarrs-$version.tar.gz" -C "$work/src" --strip-components 1

# The two lines.
printf '\n[dependencies.zarrs_scale_offset_cast]\npath = "%s"\n' "$repo" >> "$work/src/Cargo.toml"
printf '\nuse zarrs_scale_offset_cast as _;\n' >> "$work/src/src/lib.rs"
(cd "$work/src" && cargo update -q -p zarrs --precise 0.23.14)

# Build and install into a virtual environment of its own beside zarr-python.
rm -rf "$work/wheels"
(cd "$work/src" && CARGO_TARGET_DIR="$work/target" maturin build -q --release -i python3 \
  --compatibility linux --out "$work/wheels")
# The environment sees zarr-python's packages (numpy, zarr) through a .pth file.
chroot "$root" /bin/bash -c '[ -x /opt/zp-zarrs/bin/python ] || /opt/zp/bin/python -m venv /opt/zp-zarrs
  site() { "$1" -c "import site; print(site.getsitepackages()[0])"; }
  site /opt/zp/bin/python > "$(site /opt/zp-zarrs/bin/python)/zarr-python.pth"'
stage=$(mktemp -d /tmp/zarrs-python.XXXXXX)
cp "$work"/wheels/*.whl "$stage/"
chroot "$root" /bin/bash -c 'exec /opt/zp-zarrs/bin/pip install -q --no-index --no-deps --force-reinstall "$0"/*.whl' "$stage"

# The checks (and the benchmark), from /tmp, which the chroot shares.
cp -r "$repo/tests/data/interop" "$stage/interop"
cp "$here/check.py" "$here/bench.py" "$stage/"
python_zarrs() { chroot "$root" /bin/bash -c 'cd "$0" && exec /opt/zp-zarrs/bin/python "$@"' "$stage" "$@"; }
python_zarrs check.py interop out
if [ "${1:-}" = "--bench" ]; then
  python_zarrs bench.py
fi
rm -rf "$stage"
