#!/usr/bin/env bash
# The side-by-side figure of issue 25: the RMNP DEM in the mesh look with bozkir's baked albedo
# beside the same view with the satellite image as the albedo (docs/figures/side_by_side_rmnp.png).
# Needs Chromium and web/node_modules (npm --prefix web ci), as the browser tests do.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p bozkir
node web/tools/side-by-side.mjs docs/figures/side_by_side_rmnp.png
