#!/usr/bin/env bash
# Packs what device_check.sh needs on the GPU machine into DIR (default build-device/, git-ignored by /build*/):
# the static tilesim (xz-compressed; build it first, see docs/gpu-backend.md), the backend's own cases and the
# script. The GPU machine gets the repository's tracked files (conformance/ included) plus DIR as a carried path:
#   gpu_backend/tests/device_payload.sh [DIR]
# then, on the machine (the device tool: carry ["build-device"]):
#   python3 -c "import lzma;open('/tmp/tilesim','wb').write(lzma.open('build-device/tilesim.xz').read())" &&
#   chmod +x /tmp/tilesim && bash build-device/device_check.sh /tmp/tilesim build-device/cases
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/build-device}
binary=$root/build-static/tools/cli/tilesim
[ -x "$binary" ] || { echo "no $binary: cmake -S . -B build-static -DTILESIM_STATIC_TOOLS=ON && cmake --build build-static --target tilesim" >&2; exit 2; }
rm -rf "$dir" && mkdir -p "$dir"
cp -r "$root/gpu_backend/tests/cases" "$root/gpu_backend/tests/device_check.sh" "$root/gpu_backend/tests/device_dots.sh" "$dir/"
xz -T2 -6 -c "$binary" >"$dir/tilesim.xz"
du -sh "$dir"
