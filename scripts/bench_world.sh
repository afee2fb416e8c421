#!/usr/bin/env bash
# World benchmarks (issue 21): bozkir-world beside pyworldgen 0.1.8 and scikit-image, measured in
# one session on one machine, printed as a side-by-side table (figures for docs/benchmarks.md).
#
#   scripts/bench_world.sh [OUT_DIR]           # default OUT_DIR: target/bench_world
#
# Environment:
#   PY=PATH           python of a venv with pyworldgen 0.1.8, numpy, scipy, scikit-image
#                     (default /work/scratch/pwg/venv/bin/python)
#   PEER_TIMEOUT=S    wall-clock limit of one pyworldgen case, seconds (default 1800; a case
#                     over it is reported as "> S s")
#   PEER_BUDGET=S     stop repeating a pyworldgen case once its runs took S seconds (default 60)
#   MAX_LOAD=L        before each phase, wait until the 1-minute load average is below L
#                     (default 2.5), at most WAIT_MAX seconds (default 1800); the loads are
#                     logged in OUT_DIR/load.txt either way
#   SKIP_OURS=1       reuse our figures already in OUT_DIR and target/criterion
#   SKIP_PEERS=1      reuse OUT_DIR/peer_gen.jsonl and OUT_DIR/peer_mcp.jsonl
#   PEER_ONLY=LIST    run only these pyworldgen cases (comma-separated, e.g.
#                     "roads_default,roads_product_default"); MCP runs as usual
#   PEER_GEN_MORE=F   further pyworldgen results (JSON lines) for the table; OUT_DIR's win
#   CRITERION_ARGS    extra arguments for criterion (e.g. a filter: "world_gen")
#
# Steps:
#   1. build the world bench (release profile of the bench crate);
#   2. criterion: `cargo bench -p bozkir-bench --bench world` (medians land in
#      target/criterion/world_*/*/new/estimates.json);
#   3. our peak memory: every case once in its own process (BOZKIR_WORLD_RSS), the heavy
#      full-curvature case three times (its timing comes from these runs);
#   4. export the 1024² composite terrain and our single routes (BOZKIR_WORLD_EXPORT);
#   5. pyworldgen for every generator at its default size and at 256², 512², 1024²
#      (scripts/bench_world_peer.py gen), each case in its own process;
#   6. scikit-image MCP_Geometric on the exported terrain (scripts/bench_world_peer.py mcp);
#   7. the table (scripts/bench_world_peer.py table) to stdout and OUT_DIR/table.md.
# The whole run takes about an hour on the 2-vCPU VM, most of it pyworldgen at 1024².
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-target/bench_world}
PY=${PY:-/work/scratch/pwg/venv/bin/python}
MAX_LOAD=${MAX_LOAD:-2.5}
WAIT_MAX=${WAIT_MAX:-1800}
mkdir -p "$OUT"

quiet() { # $1: phase name
  local waited=0
  while awk -v m="$MAX_LOAD" '{exit !($1 >= m)}' /proc/loadavg && [ "$waited" -lt "$WAIT_MAX" ]; do
    sleep 30
    waited=$((waited + 30))
  done
  echo "$(date -Is) $1: load $(cut -d' ' -f1-3 /proc/loadavg) (waited ${waited} s)" | tee -a "$OUT/load.txt"
}

lscpu | grep -E "Model name|^CPU\(s\)" | tee "$OUT/machine.txt" || true
"$PY" -c 'import pyworldgen, numpy, scipy, skimage; print("pyworldgen", pyworldgen.__version__, "numpy", numpy.__version__, "scipy", scipy.__version__, "scikit-image", skimage.__version__)' | tee -a "$OUT/machine.txt"
rustc --version | tee -a "$OUT/machine.txt"

cargo build --release -p bozkir-bench --bench world
BIN=$(cargo bench -p bozkir-bench --bench world --no-run --message-format=json 2>/dev/null |
  "$PY" -c 'import sys, json
for l in sys.stdin:
    j = json.loads(l)
    if j.get("reason") == "compiler-artifact" and j.get("executable") and j["target"]["name"] == "world":
        print(j["executable"])' | tail -1)
echo "bench binary: $BIN"

if [ -z "${SKIP_OURS:-}" ]; then
  quiet criterion
  # shellcheck disable=SC2086
  "$BIN" --bench ${CRITERION_ARGS:-} 2>&1 | tee "$OUT/criterion.txt"
  quiet rss
  : > "$OUT/ours_rss.jsonl"
  for id in $(BOZKIR_WORLD_LIST=1 "$BIN"); do
    reps=1
    [ "$id" = world_roads/curv_full_512 ] && reps=3
    case "$id" in world_roads/network_k5_12hubs_1024_hubs_*) reps=3 ;; esac
    BOZKIR_WORLD_REPS=$reps BOZKIR_WORLD_RSS=$id "$BIN" | tee -a "$OUT/ours_rss.jsonl"
  done
  quiet export
  BOZKIR_WORLD_EXPORT="$OUT/export" "$BIN" 2>&1 | tee "$OUT/export.txt"
fi

if [ -z "${SKIP_PEERS:-}" ]; then
  quiet pyworldgen
  : > "$OUT/peer_gen.jsonl"
  "$PY" scripts/bench_world_peer.py gen --out "$OUT/peer_gen.jsonl" \
    --budget "${PEER_BUDGET:-60}" --timeout "${PEER_TIMEOUT:-1800}" ${PEER_ONLY:+--only "$PEER_ONLY"}
  quiet mcp
  : > "$OUT/peer_mcp.jsonl"
  "$PY" scripts/bench_world_peer.py mcp --export "$OUT/export" --out "$OUT/peer_mcp.jsonl"
fi

"$PY" scripts/bench_world_peer.py table --ours "$OUT/ours_rss.jsonl" --criterion target/criterion \
  --gen ${PEER_GEN_MORE:-} "$OUT/peer_gen.jsonl" --mcp "$OUT/peer_mcp.jsonl" | tee "$OUT/table.md"
echo "load averages: $OUT/load.txt"
