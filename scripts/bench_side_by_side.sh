#!/usr/bin/env bash
# Peers and bozkir measured in the same run on the same inputs (figures for docs/benchmarks.md).
#   1. fastscapelib 0.3 stream power (SingleFlowRouter + PFloodSinkResolver + SPLEroder) at 1024²,
#      then `bozkir-bench --bench stream_power`, which reads the same DEM and the peer's result.
#   2. the hydrology benches (priority flood, accumulation) and the terrain generator.
# Needs python3.11 with a venv at scripts/.venv (created here on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x scripts/.venv/bin/python ]; then
  python3.11 -m venv scripts/.venv
  scripts/.venv/bin/pip install -q fastscapelib numpy
fi
lscpu | grep -E "Model name|^CPU\(s\)" || true
# Whole runs at two step counts (fill once + N steps for bozkir; fastscapelib re-fills every step).
for steps in ${STEPS:-10 50}; do
  scripts/.venv/bin/python scripts/bench_fastscapelib.py --size 1024 --steps "$steps"
  BOZKIR_SP_STEPS=$steps cargo bench -p bozkir-bench --bench stream_power -- --warm-up-time 1 --measurement-time 3 accumulate_cells
done
cargo bench -p bozkir-bench --bench stream_power -- --warm-up-time 2 --measurement-time 5
cargo bench -p bozkir-bench --bench hydrology -- --warm-up-time 2 --measurement-time 5
