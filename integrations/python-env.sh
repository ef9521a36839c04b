# Sourced by the integrations' run.sh: `zarr_python_env DIR` makes (once) a virtual environment in
# DIR with zarr-python 3.4.2 and maturin, from PYTHON (3.12 or newer; default the first of
# python3.13, python3.12 and python3 that is), and sets VENV_PYTHON to its Python. Nothing is
# installed into that Python itself. `zarr_python_env DIR build` makes one with maturin alone,
# from any Python 3 (PYTHON, default python3).
zarr_python_env() {
  local dir="$1" python="${PYTHON:-}"
  if [ "${2:-}" = build ]; then
    python="${python:-python3}"
    [ -x "$dir/bin/python" ] || "$python" -m venv "$dir"
    "$dir/bin/python" -m pip install -q "maturin>=1.5,<2"
    VENV_PYTHON="$dir/bin/python"
    return
  fi
  if [ -z "$python" ]; then
    for candidate in python3.13 python3.12 python3; do
      if command -v "$candidate" > /dev/null \
          && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2> /dev/null; then
        python="$candidate"
        break
      fi
    done
  fi
  if [ -z "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2> /dev/null; then
    echo "zarr-python 3.4.2 needs Python 3.12 or newer: set PYTHON=/path/to/python3.12 (found ${python:-none})" >&2
    return 2
  fi
  if [ ! -x "$dir/bin/python" ]; then
    "$python" -m venv "$dir"
  fi
  "$dir/bin/python" -m pip install -q "zarr[cast-value-rs]==3.4.2" "maturin>=1.5,<2"
  VENV_PYTHON="$dir/bin/python"
}
