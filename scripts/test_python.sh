#!/usr/bin/env bash
# The Python face's tests (issue 26): builds the `bozkir` wheel with maturin, installs it into a
# fresh virtual environment with numpy and pytest from PyPI, and runs crates/py/tests. Part of
# the README's test command; needs python3 with venv, and the `bozkir` binary cargo built (the
# tests compare the bindings' output with the CLI's).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/pyvenv
rm -rf "$venv" target/wheels-py
python3 -m venv "$venv"
# pyworldgen 0.1.8 is the peer of `generate` (its worlds must come out the same); xarray for
# the DataArray helpers; dask.distributed and zarr for the tiled worlds (a LocalCluster, the store).
"$venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.9,<2" "numpy>=1.21" "pytest>=7" \
  "pyworldgen==0.1.8" "xarray>=2023.1" "dask[distributed]>=2024.1" "zarr>=3"
# A debug-profile wheel reuses what `cargo test --workspace` already compiled.
"$venv/bin/maturin" build --quiet --manifest-path crates/py/Cargo.toml --out target/wheels-py
"$venv/bin/pip" install --quiet --disable-pip-version-check target/wheels-py/bozkir-*.whl
cargo build --quiet -p bozkir
"$venv/bin/python" -m pytest -q crates/py/tests
