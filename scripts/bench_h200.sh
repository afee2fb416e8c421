#!/bin/bash
# The GPU-host measurements that issues 24, 27 and 28 still need, in one run (docs/benchmarks.md
# says what each row is for). Run on the GPU host:
#
#   scripts/bench_h200.sh BOZKIR_BIN OUTDIR [CHROMIUM]
#
# 1. `terrain --recipe ds2 --size 8192 --until 6 --gpu=require`, three runs (issue 24: < 15 s);
# 2. `terrain --profile canyon|alpine --size 4096 --gpu=require` with the GPU fills, canyon
#    at 8192², and at 16384² with the buffers split in two bindings (issue 27: 4096² ≤ 5 s,
#    16384² ≤ 60 s);
# 3. with CHROMIUM (e.g. /opt/cr/chromium from scripts/pack_chromium.sh): the erosion page's
#    WebGPU benchmark and the splat viewer's benchmark at 1920×1080, WebGL2 and WebGPU (issue 28).
# Each process is timed by GNU time (wall clock, peak RSS, minor faults); logs go to OUTDIR.
set -u
b=${1:?usage: bench_h200.sh BOZKIR_BIN OUTDIR [CHROMIUM]}
out=${2:?usage: bench_h200.sh BOZKIR_BIN OUTDIR [CHROMIUM]}
cr=${3:-}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timed() {
  local name=$1
  shift
  /usr/bin/time -v "$@" > "$out/$name.log" 2>&1
  echo "== $name (exit $?)"
  grep -E "^timings|Elapsed \(wall|Maximum resident|Minor" "$out/$name.log"
  rm -rf "$work/o"
}
nvidia-smi -L 2>/dev/null
echo "cores: $(nproc); THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
for r in 1 2 3; do
  timed "ds2_8192_$r" "$b" terrain --recipe ds2 --size 8192 --until 6 --gpu=require --seed 7 --out "$work/o"
done
for p in canyon alpine; do
  timed "${p}_4096" "$b" terrain --profile $p --seed 7 --size 4096 --gpu=require --out "$work/o"
done
timed canyon_4096_again "$b" terrain --profile canyon --seed 7 --size 4096 --gpu=require --out "$work/o"
timed canyon_8192 "$b" terrain --profile canyon --seed 7 --size 8192 --gpu=require --out "$work/o"
timed canyon_16384 "$b" terrain --profile canyon --seed 7 --size 16384 --gpu=require --out "$work/o"
if [ -n "$cr" ]; then
  "$b" bench-viewer --page erode --gpu --chromium "$cr" --window 1920x1080 --timeout 200 \
    --json "$out/erode.json" 2>&1 | grep -v -i dbus | tail -30
  "$b" bench-viewer --gpu --chromium "$cr" --window 1920x1080 --grids 4,8,16,24,32,40,64,128,256 \
    --frames 40 --timeout 300 --json "$out/viewer.json" 2>&1 | grep -v -i dbus | tail -30
  "$b" bench-viewer --gpu --renderer webgpu --chromium "$cr" --window 1920x1080 \
    --grids 4,8,16,24,32,40,64,128,256 --frames 40 --timeout 300 --json "$out/viewer_webgpu.json" 2>&1 |
    grep -v -i dbus | tail -30
fi
