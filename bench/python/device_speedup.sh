#!/usr/bin/env bash
# tilesim.interpret against TRITON_INTERPRET=1 on the GPU host's CPUs (16 cores), one command:
#     OUT=/some/dir bash bench/python/device_speedup.sh [speedup.py options, e.g. --kernel vadd]
# writes $OUT/device_speedup.log (default OUT: /tmp/tilesim-speedup-out).
# Needs: the repository checkout (nothing carried), python3 with torch (CPU tensors), Triton 3.6 and numpy, and a
# C++20 g++. No GPU is used (CUDA_VISIBLE_DEVICES is emptied for the runs).
# 1. Builds the native module from source with tools/python/scripts/build_standalone.sh (g++ -O3, Python's headers,
#    torch's copy of pybind11) into a scratch directory: about 1-2 minutes on 16 cores.
# 2. bench/python/speedup.py --torch: every kernel of interpret_bench.py on CPU torch tensors (as Triton's
#    interpreter is used), tilesim checks on with all threads, on with 1 thread, off, then Triton's interpreter;
#    one table with the factors. Then the same on numpy arrays (Triton's interpreter through numpy_tensor.py).
#    Under numpy >= 2.5 interpret_bench.py applies its tensor.__index__ shim to Triton's interpreter (the header
#    says so), without which Triton's interpreter fails on every kernel with a tl.range over a tensor bound.
# Stage limits 200 + 190 + 150 s keep the whole under 9 minutes; expected about 5 (build 1-2, tables 1.5 each).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-/tmp/tilesim-speedup-out}"
mkdir -p "$out"
work=/tmp/tilesim-speedup
rm -rf "$work" && mkdir -p "$work/ext"
started=$(date +%s)
main() {
stamp() { echo "device_speedup [$(( $(date +%s) - started )) s]: $*"; }
stamp "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); load $(cut -d' ' -f1-3 /proc/loadavg); $(python3 -c 'import sys, numpy, triton; print("Python", sys.version.split()[0], "numpy", numpy.__version__, "triton", triton.__version__)') torch $(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null || echo missing)"
stamp "checkout $(git -C "$root" log -1 --format='%h %s' 2>/dev/null | cut -c1-100)"
if [ -n "${TILESIM_PREBUILT:-}" ]; then  # a module already built for this Python (for trying the script elsewhere)
  cp "$TILESIM_PREBUILT" "$work/ext/"
else
  PYTHON=python3 timeout 200 bash "$root/tools/python/scripts/build_standalone.sh" "$work/ext" > "$work/build.log" 2>&1
  stamp "build_standalone exit $?: $(tail -1 "$work/build.log")"
fi
extension="$(ls "$work"/ext/_tilesim*.so 2>/dev/null | head -1)"
if [ -z "$extension" ]; then
  tail -20 "$work/build.log"
  stamp "no native module: nothing to measure"
  return 1
fi
export TILESIM_EXTENSION="$extension" PYTHONPATH="$root/tools/python" TRITON_CACHE_DIR="$work/triton-cache"
export OMP_WAIT_POLICY=passive PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=
cd "$root"
stamp "speedup.py --torch"
timeout 190 python3 bench/python/speedup.py --torch --repeat 5 --timeout 150 "$@"
stamp "speedup --torch exit $?"
stamp "speedup.py (numpy arrays)"
timeout 150 python3 bench/python/speedup.py --repeat 3 --timeout 120 "$@"
stamp "speedup (numpy) exit $?"
}
main "$@" 2>&1 | tee "$out/device_speedup.log"
