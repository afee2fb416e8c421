#!/usr/bin/env bash
# GPU kernels against their CPU reference, timed in the same run (docs/gpu.md, docs/benchmarks.md).
# Usage: scripts/gpu_bench.sh [sizes…] [--cpu-max N]   (default sizes 1024 4096 8192 16384)
# Then the ds2 recipe's erosion stages (stream power, droplets, thermal) at 8192² on the GPU,
# timed per stage by the CLI, and its stream-power stage phase by phase with 3, 1 and 0 typed
# rounds (`ds2_phases`; BOZKIR_DS2=0 skips both).
# Needs a Vulkan driver with shader-f64 (NVIDIA, or Mesa's lavapipe for a slow functional run).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release -p bozkir-gpu --example gpu_bench
cargo build --release -p bozkir
cargo build --release -p bozkir --example ds2_phases
CI=true cargo test --release -p bozkir-gpu
"$CARGO_TARGET_DIR/release/examples/gpu_bench" "$@"
if [ "${BOZKIR_DS2:-1}" != 0 ]; then
  out=$(mktemp -d)
  "$CARGO_TARGET_DIR/release/bozkir" terrain --recipe ds2 --size 8192 --cell-size 0.1708984375 --until 6 \
    --gpu=auto --out "$out"
  rm -rf "$out"
  "$CARGO_TARGET_DIR/release/examples/ds2_phases" 8192 4 3,1,0
fi
