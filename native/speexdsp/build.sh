#!/bin/sh
# Rebuilds assets/wasm/speexdsp-aec.wasm from Debian's speexdsp source package with Debian's
# clang and wasi-libc. One binary for every architecture hark runs on (x86-64, arm64, armhf).
#
#   apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32 dpkg-dev
#   (deb-src lines for Debian bookworm in the apt sources)
#   native/speexdsp/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source --download-only speexdsp=1.2.1-1 >/dev/null
dpkg-source -x speexdsp_1.2.1-1.dsc src >/dev/null
lib=src/libspeexdsp
clang --target=wasm32-wasi --sysroot=/usr -isystem /usr/include/wasm32-wasi -L/usr/lib/wasm32-wasi \
  -O2 -fno-math-errno -nostartfiles -Wl,--no-entry -Wl,--strip-all -Wl,--gc-sections \
  -Wl,-z,stack-size=65536 -Wl,--initial-memory=2097152 -Wl,--max-memory=33554432 \
  -DFLOATING_POINT -DUSE_SMALLFT -DEXPORT= -DOS_SUPPORT_CUSTOM -DRELEASE \
  -I"$here" -I"$lib" -Isrc/include -Isrc/include/speex \
  "$here/hark_aec.c" "$here/hark_denoise.c" "$lib/preprocess.c" "$lib/filterbank.c" "$lib/fftwrap.c" "$lib/smallft.c" \
  -o "$root/assets/wasm/speexdsp-aec.wasm"
cp src/COPYING "$root/assets/wasm/speexdsp-COPYING"
sha256sum "$root/assets/wasm/speexdsp-aec.wasm"
