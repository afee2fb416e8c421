#!/usr/bin/env bash
# Build the WebAssembly module of bozkir (crates/wasm) and check it against the `bozkir` binary.
#
# Usage: scripts/build_wasm.sh [--no-parity]
#   1. cargo build -p bozkir-wasm --release --target wasm32-unknown-unknown
#   2. if the wasm-bindgen CLI of the crate's wasm-bindgen version is on PATH (install it with
#      `cargo install wasm-bindgen-cli --version X`; X is printed below), the JS glue goes to
#      web/pkg/ (--target web: the page and node both load it; committed, so a fresh clone and
#      the `bozkir` binary, which embeds web/, need no WebAssembly toolchain);
#   3. the parity test: `bozkir terrain` and `bozkir classify` write the expected outputs into a
#      temporary folder and scripts/wasm_parity.mjs compares the module's results with them exactly.
set -euo pipefail
cd "$(dirname "$0")/.."
parity=1
[[ "${1:-}" == "--no-parity" ]] && parity=0

cargo build -p bozkir-wasm --release --target wasm32-unknown-unknown
wasm=target/wasm32-unknown-unknown/release/bozkir_wasm.wasm
echo "wasm module: $wasm, $(stat -c %s "$wasm") bytes"

# The wasm-bindgen version resolved in Cargo.lock; the CLI must match it exactly.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if ! command -v wasm-bindgen >/dev/null; then
  echo "wasm-bindgen CLI not found: cargo install wasm-bindgen-cli --version $want"
  exit 0
fi
have=$(wasm-bindgen --version | awk '{ print $2 }')
if [[ "$have" != "$want" ]]; then
  echo "wasm-bindgen CLI is $have, the crate uses $want: cargo install wasm-bindgen-cli --version $want --force"
  exit 1
fi
rm -rf web/pkg
wasm-bindgen --target web --no-typescript --out-dir web/pkg "$wasm"
echo "glue in web/pkg: $(stat -c %s web/pkg/bozkir_wasm_bg.wasm) bytes of wasm after wasm-bindgen"
[[ $parity == 1 ]] || exit 0

cargo build -p bozkir --release
bz=./target/release/bozkir
cases=$(mktemp -d)
trap 'rm -rf "$cases"' EXIT
$bz --quiet terrain --profile canyon --seed 3 --size 64 --out "$cases/terrain" >/dev/null
$bz --quiet classify "$cases/terrain" --grid 16 --share 0.3 --out "$cases/share" >/dev/null
$bz --quiet classify "$cases/terrain" --grid 24 --no-sediment --altitude 0.6 --coherence 1 \
  --sharpness 3 --relief 0.8 --detail 0.5 --out "$cases/free" >/dev/null
node scripts/wasm_parity.mjs web/pkg "$cases"
