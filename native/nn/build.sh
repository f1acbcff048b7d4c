#!/bin/sh
# Rebuilds assets/wasm/hark-nn.wasm from hark_nn.c with Debian's clang and lld (no libc).
# One binary for every architecture hark runs on (x86-64, arm64, armhf).
#
#   apt-get install clang lld
#   native/nn/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# -fno-unroll-loops: clang's unrolled loops hold more vectors than V8 has registers for; without
# them the wake word took 1.55 to 1.63 % of a core in steady speech against 1.92 to 2.01 (Silero
# the same).
clang --target=wasm32 -msimd128 -O3 -fno-unroll-loops -ffreestanding -nostdlib -fno-builtin \
  -Wl,--no-entry -Wl,--strip-all -Wl,--gc-sections -Wl,-z,stack-size=65536 \
  -Wl,--initial-memory=131072 -Wl,--max-memory=67108864 \
  "$here/hark_nn.c" -o "$root/assets/wasm/hark-nn.wasm"
sha256sum "$root/assets/wasm/hark-nn.wasm"
