#!/usr/bin/env bash
# Whole processes side by side, as a user runs them, on the same 1024² DEM (an NPZ, 30 m cells):
#   * `bozkir erode` with its default outputs (height.tif, preview.png, terrain.json): start,
#     read, fill once, N steps, write;
#   * a Python process running fastscapelib 0.3 (`scripts/bench_fastscapelib.py --run-npz`):
#     start, import, read, N steps (it re-fills every step), save the heights as .npy.
# Same physics on both sides: U = 1e-3 m/yr on interior cells, K = 1e-5, m = 0.5, n = 1,
# dt = 1000 yr, no diffusion, fixed borders. Best of REPEAT (default 3) wall times per side.
#   scripts/bench_erode_process.sh [BOZKIR]      (STEPS="10 20 50" by default; OUTPUTS=height
#                                                 for the heights alone instead of the defaults)
# Needs python3.11 with a venv at scripts/.venv (created here on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
BOZKIR=${1:-target/release/bozkir}
[ -x "$BOZKIR" ] || cargo build --release -p bozkir
if [ ! -x scripts/.venv/bin/python ]; then
  python3.11 -m venv scripts/.venv
  scripts/.venv/bin/pip install -q fastscapelib numpy
fi
PY=scripts/.venv/bin/python
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
lscpu | grep -E "Model name|^CPU\(s\)" || true
$PY scripts/bench_fastscapelib.py --size 1024 --write-npz "$WORK/dem.npz"
best() { # best wall seconds of REPEAT runs of "$@"
  local b=""
  for _ in $(seq "${REPEAT:-3}"); do
    local t0 t1
    t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N)
    b=$(python3 -c "t=$t1-$t0; b='$b'; print(t if b=='' else min(t, float(b)))")
  done
  echo "$b"
}
printf "%-6s %-14s %-14s %s\n" steps "bozkir (s)" "fastscapelib (s)" ratio
for steps in ${STEPS:-10 20 50}; do
  ours=$(best "$BOZKIR" erode "$WORK/dem.npz" --out "$WORK/out" --force -q --steps "$steps" \
    --uplift 1e-3 --diffusion 0 --k 1e-5 --m 0.5 --dt 1000 ${OUTPUTS:+--outputs "$OUTPUTS"})
  peer=$(best "$PY" scripts/bench_fastscapelib.py --size 1024 --steps "$steps" \
    --run-npz "$WORK/dem.npz" --save "$WORK/peer.npy")
  python3 -c "print(f'{$steps:<6} {$ours:<14.3f} {$peer:<16.3f} {$peer/$ours:.2f}x')"
done
ls "$WORK/out"
