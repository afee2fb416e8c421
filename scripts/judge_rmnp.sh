#!/usr/bin/env bash
# How the material rule and the ground photos compare with reality on the RMNP DEM and image
# (issue 25): prints the table of docs/benchmarks.md, "Against reality", and writes the figure
# docs/figures/judge_rmnp.png (the image's east half | rule on, hex-vp | rule off).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q -p bozkir-bench --example judge_rmnp -- docs/figures/judge_rmnp.png
