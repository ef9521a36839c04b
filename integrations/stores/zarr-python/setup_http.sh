#!/bin/bash
# Makes a zarr-python 3.4.2 with fsspec and aiohttp (its HTTP store), for make_large.py,
# read_http.py and read_windows.py. Idempotent.
#
# By default a virtual environment of its own in target/integrations/stores/venv (made by
# ../../python-env.sh from Python 3.12 or newer, PYTHON=...; needs the package index); it prints
# the Python to run the scripts with. With ZPY_ROOT=DIR, instead a chroot holding zarr-python
# 3.4.2 in /opt/zp (wheels downloaded here, installed there without an index).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
if [ -z "${ZPY_ROOT:-}" ]; then
  source "$repo/integrations/python-env.sh"
  zarr_python_env "$repo/target/integrations/stores/venv"
  "$VENV_PYTHON" -m pip install -q fsspec aiohttp
  echo "$VENV_PYTHON"
  exit 0
fi
ROOT="$ZPY_ROOT"
if chroot "$ROOT" /opt/zp/bin/python -c 'import fsspec, aiohttp' 2>/dev/null; then
  exit 0
fi
WH="$ROOT/root/wheels-http"
mkdir -p "$WH"
python3 -m pip download -q --only-binary=:all: --python-version 3.13 --implementation cp --abi cp313 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$WH" fsspec aiohttp
chroot "$ROOT" /opt/zp/bin/pip install -q --no-index --find-links /root/wheels-http fsspec aiohttp
