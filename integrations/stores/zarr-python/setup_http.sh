#!/bin/bash
# Adds fsspec and aiohttp (zarr-python's HTTP store) to the zarr-python 3.4.2 chroot that
# ../../../shared/tools/zarr-python/setup.sh made (ROOT as there). Idempotent.
set -euo pipefail
ROOT="${1:-${ZPY_ROOT:-/opt/zarr-python-root}}"
if chroot "$ROOT" /opt/zp/bin/python -c 'import fsspec, aiohttp' 2>/dev/null; then
  exit 0
fi
WH="$ROOT/root/wheels-http"
mkdir -p "$WH"
python3 -m pip download -q --only-binary=:all: --python-version 3.13 --implementation cp --abi cp313 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$WH" fsspec aiohttp
chroot "$ROOT" /opt/zp/bin/pip install -q --no-index --find-links /root/wheels-http fsspec aiohttp
