#!/usr/bin/env bash
# zarrs_tools (crates.io 0.8.1) with this crate: its released source with two lines added (the
# dependency, and `use zarrs_scale_offset_cast as _;`), built against this checkout (its Cargo.lock
# kept; only zarrs moves to 0.23.14). zarrs_info describes a reflectance array zarr-python wrote
# with `[scale_offset, cast_value(uint16)]`; zarrs_reencode rewrites it as plain float32 and back
# with the two codecs; zarr-python reads all three and compares every value (compare.py).
#
# Needs Python 3.12 or newer (PYTHON=...) and the package registries: zarr-python goes into a
# virtual environment of the script's own. Everything is kept under the repository's target folder
# (target/integrations/zarrs_tools; ZARRS_TOOLS_WORK moves it), so that a second run rebuilds only
# what changed. ZARR_PYTHON="command" runs the comparison with another zarr-python 3.4.2 instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version=0.8.1
work="${ZARRS_TOOLS_WORK:-$repo/target/integrations/zarrs_tools}"
mkdir -p "$work"
if [ -n "${ZARR_PYTHON:-}" ]; then
  zarr_python=($ZARR_PYTHON)
else
  source "$here/../python-env.sh"
  zarr_python_env "$work/venv"
  zarr_python=("$VENV_PYTHON")
fi

# The released source, from the registry: a package that depends on it fetches it.
mkdir -p "$work/fetch/src"
printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\nzarrs_tools = "=%s"\n' \
  "$version" > "$work/fetch/Cargo.toml"
touch "$work/fetch/src/lib.rs"
(cd "$work/fetch" && cargo fetch -q)
source_dir=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 2 -type d -name "zarrs_tools-$version" | head -n 1)
rm -rf "$work/src"
cp -r "$source_dir" "$work/src"
chmod -R u+w "$work/src"

# The two lines.
printf '\n[dependencies.zarrs_scale_offset_cast]\npath = "%s"\n' "$repo" >> "$work/src/Cargo.toml"
printf '\nuse zarrs_scale_offset_cast as _;\n' >> "$work/src/src/lib.rs"
(cd "$work/src" && cargo update -q -p zarrs --precise 0.23.14)
(cd "$work/src" && CARGO_TARGET_DIR="$work/target" cargo build -q --release --features info \
  --bin zarrs_reencode --bin zarrs_info)
bin="$work/target/release"

# A reflectance array zarr-python wrote (sharded, Blosc zstd, edge chunks), to float32 and back.
stage=$(mktemp -d /tmp/zarrs-tools.XXXXXX)
cp -r "$repo/integrations/stores/tests/data/sentinel2.zarr/measurements/reflectance/r10m/b04" "$stage/b04"
"$bin/zarrs_info" "$stage/b04" metadata > "$stage/info.json"
grep -q '"scale_offset"' "$stage/info.json"
# (Not `zarrs_info range`: zarrs_tools 0.8.1 panics on any float array holding NaN, as this one does.)
"$bin/zarrs_reencode" "$stage/b04" "$stage/float32" --data-type float32 --array-to-array-codecs '[]'
codecs=$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["codecs"][0]["configuration"]["codecs"]; print(json.dumps(c[:2]))' "$stage/b04/zarr.json")
"$bin/zarrs_reencode" "$stage/float32" "$stage/back" --data-type float64 --array-to-array-codecs "$codecs"
cp "$here/compare.py" "$stage/"
(cd "$stage" && "${zarr_python[@]}" compare.py b04 float32 back)
rm -rf "$stage"
