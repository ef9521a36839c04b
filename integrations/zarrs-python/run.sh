#!/usr/bin/env bash
# zarrs-python (PyPI `zarrs` 0.2.3) with this crate: its released source distribution with two
# lines added (the dependency, and `use zarrs_scale_offset_cast as _;`), built with maturin against
# this checkout (its Cargo.lock kept; only zarrs moves to 0.23.14), installed into a virtual
# environment beside zarr-python 3.4.2, and run on every interop fixture (check.py); with
# `--bench`, the timing of bench.py too.
#
# Needs Python 3.12 or newer (PYTHON=...) and the package registries. zarr-python, maturin and the
# wheel go into a virtual environment of the script's own; everything is kept under the
# repository's target folder (target/integrations/zarrs-python; ZARRS_PYTHON_WORK moves it), so
# that a second run rebuilds only what changed. The wheel's path and the line that installs it into
# any environment are printed at the end. ZARR_PYTHON_CHROOT=ROOT instead installs it beside the
# zarr-python 3.4.2 of a chroot made for the project's checks and runs them there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version=0.2.3
work="${ZARRS_PYTHON_WORK:-$repo/target/integrations/zarrs-python}"
mkdir -p "$work"
source "$here/../python-env.sh"
# The build environment (maturin), and where the checks run unless a chroot is given.
if [ -n "${ZARR_PYTHON_CHROOT:-}" ]; then
  zarr_python_env "$work/build-venv" build
else
  zarr_python_env "$work/venv"
fi

# The released source distribution (pip asks its build backend, maturin, for the metadata, and
# the backend runs the `maturin` command: the environment's, which is on no PATH unless it is
# active).
mkdir -p "$work/sdist"
PATH="$(dirname "$VENV_PYTHON"):$PATH" "$VENV_PYTHON" -m pip download -q --no-deps --no-binary zarrs \
  --no-build-isolation "zarrs==$version" -d "$work/sdist"
rm -rf "$work/src" && mkdir -p "$work/src"
tar xzf "$work/sdist/zarrs-$version.tar.gz" -C "$work/src" --strip-components 1

# The two lines.
printf '\n[dependencies.zarrs_scale_offset_cast]\npath = "%s"\n' "$repo" >> "$work/src/Cargo.toml"
printf '\nuse zarrs_scale_offset_cast as _;\n' >> "$work/src/src/lib.rs"
(cd "$work/src" && cargo update -q -p zarrs --precise 0.23.14)

# The wheel (abi3: one for every Python 3.11 or newer).
rm -rf "$work/wheels"
(cd "$work/src" && CARGO_TARGET_DIR="$work/target" "$(dirname "$VENV_PYTHON")/maturin" build -q --release \
  -i "$VENV_PYTHON" --compatibility linux --out "$work/wheels")
wheel=$(ls "$work"/wheels/*.whl)

# The checks (and the benchmark), from a folder in /tmp.
stage=$(mktemp -d /tmp/zarrs-python.XXXXXX)
cp -r "$repo/tests/data/interop" "$stage/interop"
cp "$here/check.py" "$here/bench.py" "$stage/"
if [ -n "${ZARR_PYTHON_CHROOT:-}" ]; then
  root="$ZARR_PYTHON_CHROOT"
  # A venv beside the chroot's zarr-python, which it sees through a .pth file.
  chroot "$root" /bin/bash -c '[ -x /opt/zp-zarrs/bin/python ] || /opt/zp/bin/python -m venv /opt/zp-zarrs
    site() { "$1" -c "import site; print(site.getsitepackages()[0])"; }
    site /opt/zp/bin/python > "$(site /opt/zp-zarrs/bin/python)/zarr-python.pth"'
  cp "$wheel" "$stage/"
  chroot "$root" /bin/bash -c 'exec /opt/zp-zarrs/bin/pip install -q --no-index --no-deps --force-reinstall "$0"/*.whl' "$stage"
  python_zarrs() { chroot "$root" /bin/bash -c 'cd "$0" && exec /opt/zp-zarrs/bin/python "$@"' "$stage" "$@"; }
else
  "$VENV_PYTHON" -m pip install -q --no-deps --force-reinstall "$wheel"
  python_zarrs() { (cd "$stage" && "$VENV_PYTHON" "$@"); }
fi
python_zarrs check.py interop out
if [ "${1:-}" = "--bench" ]; then
  python_zarrs bench.py
fi
rm -rf "$stage"
echo "zarrs-python with the codecs: $wheel"
echo "install it into your environment with: python -m pip install --force-reinstall $wheel"
