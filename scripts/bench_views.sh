#!/usr/bin/env bash
# Views benchmarks (issue 23, speed): bozkir's point-cloud, renderer and GLB-export criterion
# benches beside pyworldgen 0.1.8's renderer and point functions, fpsample and open3d, on the
# same inputs, in one run on one machine; prints one side-by-side table (docs/benchmarks.md,
# "Views (issue 23)").
#
#   scripts/bench_views.sh [OUT_DIR]          # default OUT_DIR: target/bench_views
#
# Environment:
#   PY=PATH          python of a venv with pyworldgen 0.1.8, numpy, fpsample, open3d
#                    (default /work/scratch/pwg/venv/bin/python)
#   SKIP_OURS=1      reuse target/criterion (our medians)
#   SKIP_PEERS=1     reuse OUT_DIR/peers.json
#   SKIP_GLB=1       leave out the GLB export bench (about a minute and 1 GB of writes a sample)
#   MAX_LOAD=L      before each phase, wait until the 1-minute load average is below L (default
#                    2.5), at most WAIT_MAX seconds (default 60); loads go to OUT_DIR/load.txt
#   MESH_SUBSET, REPEAT, BIG_TIMEOUT: see scripts/bench_views_peer.py
#
# Steps: 1. write the shared inputs (views_inputs example) to OUT_DIR/inputs; 2. criterion:
# bozkir-points `points`, bozkir-render `raster`, bozkir-io `glb` (one cargo command at a
# time); 3. the peers (bench_views_peer.py peers); 4. the table (bench_views_peer.py table) to
# stdout and OUT_DIR/table.md.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/bench_views}
PY=${PY:-/work/scratch/pwg/venv/bin/python}
MAX_LOAD=${MAX_LOAD:-2.5}
WAIT_MAX=${WAIT_MAX:-60}
mkdir -p "$OUT"

quiet() { # $1: phase name; wait (at most WAIT_MAX s) for the 1-minute load to drop below MAX_LOAD
  local waited=0
  while awk -v m="$MAX_LOAD" '{exit !($1 >= m)}' /proc/loadavg && [ "$waited" -lt "$WAIT_MAX" ]; do
    sleep 10
    waited=$((waited + 10))
  done
  echo "$(date -Is) $1: load $(cut -d' ' -f1-3 /proc/loadavg) (waited ${waited} s)" | tee -a "$OUT/load.txt"
}

{
  echo "nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -Is)"
  rustc --version
} | tee "$OUT/machine.txt"

if [ ! -f "$OUT/inputs/mesh_idx.npy" ] || [ ! -f "$OUT/inputs/fps_terrain_10M.npy" ]; then
  cargo run --release -p bozkir-points --example views_inputs -- "$OUT/inputs"
fi

if [ -z "${SKIP_OURS:-}" ]; then
  quiet points
  cargo bench -p bozkir-points --bench points -- --noplot 2>&1 | tee "$OUT/ours_points.txt"
  quiet render
  cargo bench -p bozkir-render --bench raster -- --noplot 2>&1 | tee "$OUT/ours_render.txt"
  if [ -z "${SKIP_GLB:-}" ]; then
    quiet glb
    cargo bench -p bozkir-io --bench glb -- --noplot 2>&1 | tee "$OUT/ours_glb.txt"
  fi
fi

if [ -z "${SKIP_PEERS:-}" ]; then
  quiet peers
  "$PY" scripts/bench_views_peer.py peers "$OUT/inputs" "$OUT/peers.json"
fi
"$PY" scripts/bench_views_peer.py table "$OUT/peers.json" target/criterion "$OUT/table.md"
grep -h "GLB of" "$OUT/ours_glb.txt" 2>/dev/null || true
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -Is)" | tee -a "$OUT/machine.txt"
