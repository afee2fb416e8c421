#!/usr/bin/env bash
# Blender import check (issue 23): writes one file of every GLB, OBJ and PLY kind bozkir writes,
# small, then imports them all in headless Blender with scripts/blender_import.py, which compares
# Blender's vertex and face counts with what each file declares and with the counts the writers
# reported here (export's and capture's summaries, the geometry example's lines), and checks that
# vertex colours came through.
#
# Usage: scripts/blender_check.sh [OUT_DIR]    (default: a new temporary folder, removed after)
# Needs: target/debug/bozkir (cargo build -p bozkir; or $BOZKIR_BIN), cargo (for the
# bozkir-io example that writes the OBJ/PLY meshes and the PLY cloud), and Blender with NumPy
# (Debian: apt-get install blender python3-numpy; or $BLENDER). Exits non-zero when a file
# fails to import or its counts differ; prints Blender's per-file report either way.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BOZKIR_BIN:-target/debug/bozkir}
BLENDER=${BLENDER:-blender}
if [[ ! -x $BIN ]]; then
  echo "blender_check: no bozkir binary at $BIN (cargo build -p bozkir, or set BOZKIR_BIN)" >&2
  exit 2
fi
if ! command -v "$BLENDER" >/dev/null; then
  echo "blender_check: no $BLENDER (apt-get install blender python3-numpy, or set BLENDER)" >&2
  exit 2
fi
if [[ $# -ge 1 ]]; then
  OUT=$1
  mkdir -p "$OUT"
else
  OUT=$(mktemp -d)
  trap 'rm -rf "$OUT"' EXIT
fi

bz() { "$BIN" -q "$@"; }
# The triangle count of FILE in an export summary line `FILE: N chunk(s), T triangles; …`.
triangles() { sed -n "s/^$1: [0-9]* chunk(s), \([0-9]*\) triangles.*/\1/p"; }
# The splat count of `wrote N splats …`.
splats() { sed -n 's/^wrote \([0-9]*\) splats.*/\1/p'; }

bz terrain --profile canyon --seed 1 --size 48 --out "$OUT/t" >/dev/null
glb_tri=$(bz export "$OUT/t" --engine gltf --chunk 16 --out "$OUT/glb" | triangles terrain.glb)
obj_tri=$(bz export "$OUT/t" --engine obj --chunk 16 --out "$OUT/obj" | triangles terrain.obj)
bz world forest --size 32 --out "$OUT/forest" >/dev/null
bz world composite --size 64 --out "$OUT/composite" >/dev/null
bz world implicit_cave --param length=24 --out "$OUT/cave" >/dev/null
bz world voxels --chunks 0,0,0:0,0,0 --param chunk_size=16 --out "$OUT/voxels" >/dev/null
ply_n=$(bz capture synth --out "$OUT/capture.ply" --side 1 --density 400 | splats)
glb_n=$(bz capture synth --out "$OUT/capture.glb" --side 1 --density 400 | splats)
# OBJ and PLY meshes and the PLY cloud: the CLI has no command for them yet.
geom=$(cargo run -q -p bozkir-io --example geometry_files -- "$OUT/geom")

expect=(
  --expect "$OUT/glb/terrain.glb" - "$glb_tri"
  --expect "$OUT/obj/terrain.obj" - "$obj_tri"
  --expect "$OUT/capture.ply" "$ply_n" 0
  --expect "$OUT/capture.glb" "$glb_n" 0
)
files=(
  "$OUT/glb/terrain.glb" "$OUT/obj/terrain.obj"
  "$OUT/forest/ground.glb" "$OUT/forest/trees.glb" "$OUT/forest/branches.glb"
  "$OUT/composite/ground.glb" "$OUT/composite/roads.glb" "$OUT/composite/trees.glb"
  "$OUT/cave/blocks.glb" "$OUT/cave/smooth.glb" "$OUT/voxels/blocks.glb"
  "$OUT/capture.glb" "$OUT/capture.ply"
)
# Lines `PATH vertices=V faces=F colours=yes` from the example.
while read -r path v f _; do
  expect+=(--expect "$path" "${v#vertices=}" "${f#faces=}")
  files+=("$path")
done <<<"$geom"

start=$(date +%s)
set +e
"$BLENDER" -b --factory-startup --python scripts/blender_import.py -- "${expect[@]}" "${files[@]}" >"$OUT/blender.log" 2>&1
rc=$?
set -e
grep '^BOZKIR_' "$OUT/blender.log" || tail -20 "$OUT/blender.log"
echo "blender_check: Blender ran $(($(date +%s) - start)) s, exit status $rc"
exit $rc
