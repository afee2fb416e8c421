#!/usr/bin/env bash
# End-to-end `bozkir terrain` timings and peak memory (GNU time's maximum resident set size).
# Usage: scripts/bench_terrain.sh [SIZES...]   (default: 512 4096)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p bozkir >/dev/null
sizes=("${@:-512 4096}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for n in ${sizes[@]}; do
  /usr/bin/time -f "size $n: wall %e s, user %U s, peak RSS %M KiB" \
    ./target/release/bozkir --quiet terrain --profile canyon --seed 3 --size "$n" --out "$out/t$n" \
    | grep -E "timings" | sed "s/^/size $n: /"
  rm -rf "$out/t$n"
done
