#!/bin/bash
# Packs this machine's Debian Chromium (the binary, its resources and every shared library it
# links besides glibc) into a tar.xz split into parts, for a machine that has a GPU but no
# Chromium and no package registry (the lent H200 host), where `bozkir bench-viewer --gpu
# --chromium /opt/cr/chromium` then runs the viewer's and the erosion page's benchmarks.
#
#   scripts/pack_chromium.sh OUTDIR [PART_BYTES]    (default parts of 37 500 000 bytes)
#
# On the target: cat the parts in order | xz -d | tar xf - -C /opt, then link into
# /opt/cr/need only the bundled libraries the system lacks (`ldconfig -p`), and run Chromium with
# LD_LIBRARY_PATH=/opt/cr/need FONTCONFIG_FILE=/opt/cr/fonts/fonts.conf.
set -euo pipefail
out=${1:?usage: pack_chromium.sh OUTDIR [PART_BYTES]}
part=${2:-37500000}
src=/usr/lib/chromium
[ -x $src/chromium ] || { echo "no $src/chromium: apt-get install chromium" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cr/lib" "$tmp/cr/fonts" "$tmp/cr/locales" "$out"
(cd $src && tar cf - --exclude=libVkLayer_khronos_validation.so --exclude='locales/*' .) | (cd "$tmp/cr" && tar xf -)
cp $src/locales/en-US.pak "$tmp/cr/locales/"
ldd $src/chromium | awk '{print $3}' | grep '^/' | grep -Ev '/(libc|libm|libpthread|libdl|librt)\.so|ld-linux' \
  | while read -r l; do cp -L "$l" "$tmp/cr/lib/"; done
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$tmp/cr/fonts/" 2>/dev/null || true
printf '<?xml version="1.0"?>\n<fontconfig><dir>/opt/cr/fonts</dir><cachedir>/tmp/fccache</cachedir></fontconfig>\n' \
  > "$tmp/cr/fonts/fonts.conf"
(cd "$tmp" && tar cf - cr) | xz -8 -T0 > "$tmp/cr.tar.xz"
split -b "$part" -d -a 1 "$tmp/cr.tar.xz" "$out/part"
ls -l "$out"
