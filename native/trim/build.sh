#!/bin/sh
# Rebuilds assets/native/linux-<arch>/hark-trim.node from hark_trim.c for the two architectures
# the tarball carries, with Debian's gcc and its arm64 cross compiler. Node-API: one binary per
# architecture serves every Node.js from 20 on. glibc only: where it does not load (musl, armhf),
# hark goes without it.
#
#   apt-get install gcc gcc-aarch64-linux-gnu
#   native/trim/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
headers=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")/include/node
[ -f "$headers/node_api.h" ] || headers=/usr/include/node
for target in x64:gcc arm64:aarch64-linux-gnu-gcc; do
  arch=${target%%:*}
  out="$root/assets/native/linux-$arch/hark-trim.node"
  mkdir -p "$(dirname "$out")"
  "${target#*:}" -shared -fPIC -O2 -Wall -Wextra -Werror -s -DNAPI_VERSION=6 -I"$headers" \
    "$here/hark_trim.c" -o "$out"
  sha256sum "$out"
done
