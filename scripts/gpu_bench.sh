#!/usr/bin/env bash
# GPU kernels against their CPU reference, timed in the same run (docs/gpu.md, docs/benchmarks.md).
# Usage: scripts/gpu_bench.sh [sizes…] [--ds2 N]   (default sizes 1024 4096 8192 16384)
# Needs a Vulkan driver with shader-f64 (NVIDIA, or Mesa's lavapipe for a slow functional run).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release -p bozkir-gpu --example gpu_bench
CI=true cargo test --release -p bozkir-gpu
"$CARGO_TARGET_DIR/release/examples/gpu_bench" "$@"
