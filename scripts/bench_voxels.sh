#!/usr/bin/env bash
# Voxel-world benchmarks (issue 22): bozkir-world's chunk generation, chunk meshing, surface nets
# and palette storage beside pyworldgen 0.1.8 and scikit-image, measured in one session on one
# machine, printed as one side-by-side table (figures for docs/benchmarks.md, "Worlds III").
#
#   scripts/bench_voxels.sh [OUT_DIR]          # default OUT_DIR: target/bench_voxels
#
# Environment:
#   PY=PATH           python of a venv with pyworldgen 0.1.8, numpy, scikit-image
#                     (default /work/scratch/pwg/venv/bin/python)
#   PEER_BUDGET=S     pyworldgen generates mixed chunks until S seconds are spent (default 60;
#                     about 1-2 s a chunk)
#   MESH_BUDGET=S     the same for each of pyworldgen's two meshers (default 30)
#   MAX_LOAD=L        before each phase, wait until the 1-minute load average is below L
#                     (default 2.5), at most WAIT_MAX seconds (default 60); the loads are logged
#                     in OUT_DIR/load.txt either way
#   SKIP_OURS=1       reuse OUT_DIR/export and target/criterion/voxels
#   SKIP_PEERS=1      reuse OUT_DIR/peer_chunks.json and OUT_DIR/peer_mc.json
#   CRITERION_ARGS    extra arguments for criterion (e.g. a filter: "greedy")
#
# Steps:
#   1. build the voxels bench (bench profile: release + thin LTO);
#   2. export (BOZKIR_VOXELS_EXPORT): the region's mixed chunks, their blocks, the cave lattice,
#      the palette statistics and the single-threaded meshing times (OUT_DIR/export/stats.json);
#   3. criterion: the four `voxels/*` cases (medians in target/criterion/voxels/*/new/);
#   4. pyworldgen: the same passes on the same mixed chunks, then its naive and greedy meshers
#      (scripts/bench_voxels_peer.py chunks);
#   5. scikit-image marching_cubes on the same cave lattice (scripts/bench_voxels_peer.py mc);
#   6. the table (scripts/bench_voxels_peer.py table) to stdout and OUT_DIR/table.md.
# About 3 minutes after the build on the 2-vCPU VM.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/bench_voxels}
PY=${PY:-/work/scratch/pwg/venv/bin/python}
MAX_LOAD=${MAX_LOAD:-2.5}
WAIT_MAX=${WAIT_MAX:-60}
mkdir -p "$OUT"

quiet() { # $1: phase name
  local waited=0
  while awk -v m="$MAX_LOAD" '{exit !($1 >= m)}' /proc/loadavg && [ "$waited" -lt "$WAIT_MAX" ]; do
    sleep 10
    waited=$((waited + 10))
  done
  echo "$(date -Is) $1: load $(cut -d' ' -f1-3 /proc/loadavg) (waited ${waited} s)" | tee -a "$OUT/load.txt"
}

lscpu | grep -E "Model name|^CPU\(s\)" | tee "$OUT/machine.txt" || true
"$PY" -c 'import pyworldgen, numpy, skimage; print("pyworldgen", pyworldgen.__version__, "numpy", numpy.__version__, "scikit-image", skimage.__version__)' | tee -a "$OUT/machine.txt"
rustc --version | tee -a "$OUT/machine.txt"

BIN=$(cargo bench -p bozkir-bench --bench voxels --no-run --message-format=json 2>/dev/null |
  "$PY" -c 'import sys, json
for l in sys.stdin:
    j = json.loads(l)
    if j.get("reason") == "compiler-artifact" and j.get("executable") and j["target"]["name"] == "voxels":
        print(j["executable"])' | tail -1)
[ -n "$BIN" ] || { echo "the voxels bench did not build" >&2; exit 1; }
echo "bench binary: $BIN"

if [ -z "${SKIP_OURS:-}" ]; then
  quiet export
  BOZKIR_VOXELS_EXPORT="$OUT/export" "$BIN" | tee "$OUT/export.txt"
  quiet criterion
  # shellcheck disable=SC2086
  "$BIN" --bench ${CRITERION_ARGS:-} 2>&1 | tee "$OUT/criterion.txt"
fi

if [ -z "${SKIP_PEERS:-}" ]; then
  quiet pyworldgen
  "$PY" scripts/bench_voxels_peer.py chunks --export "$OUT/export" --out "$OUT/peer_chunks.json" \
    --budget "${PEER_BUDGET:-60}" --mesh-budget "${MESH_BUDGET:-30}"
  quiet marching_cubes
  "$PY" scripts/bench_voxels_peer.py mc --export "$OUT/export" --out "$OUT/peer_mc.json"
fi

"$PY" scripts/bench_voxels_peer.py table --stats "$OUT/export/stats.json" --criterion target/criterion \
  --chunks "$OUT/peer_chunks.json" --mc "$OUT/peer_mc.json" | tee "$OUT/table.md"
echo "load averages: $OUT/load.txt"
