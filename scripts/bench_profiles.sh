#!/usr/bin/env bash
# The profile generator end to end (`bozkir terrain --profile P --seed 7 --size N`, default
# outputs) at 1 thread and at every core, with peak memory: the figures of docs/benchmarks.md,
# "The 19 profiles on every core". Usage: scripts/bench_profiles.sh [BOZKIR] [CASES...]
# (cases PROFILE:SIZE, default canyon:1024 alpine:1024 canyon:4096); BOZKIR defaults to
# target/release/bozkir (built if missing), so a copied binary can run where there is no cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
bz=${1:-target/release/bozkir}
[[ -x $bz ]] || cargo build --release -p bozkir >/dev/null
shift || true
cases=("${@:-canyon:1024 alpine:1024 canyon:4096}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cores=$(nproc)
for c in ${cases[@]}; do
  p=${c%%:*}; n=${c##*:}
  for t in $(printf '%s\n' 1 2 4 8 16 "$cores" | awk -v m="$cores" '$1 <= m' | sort -nu); do
    RAYON_NUM_THREADS=$t /usr/bin/time -f "$p $n² threads $t: wall %e s, user %U s, peak RSS %M KiB" \
      "$bz" --quiet terrain --profile "$p" --seed 7 --size "$n" --out "$out/t" | grep -E "timings" | sed "s/^/$p $n² threads $t: /"
    rm -rf "$out/t"
  done
done
