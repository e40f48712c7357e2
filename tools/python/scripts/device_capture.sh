#!/usr/bin/env bash
# One command on the GPU machine (python3 with torch 2.11 + Triton 3.6 + numpy, CUDA, g++; nothing carried, no
# tilesim build needed for recording):
#     bash tools/python/scripts/device_capture.sh          # writes under $OUT (default /tmp/tilesim-capture-out)
# 1. Records scripts/model_workload.py (two torch.compile'd training steps of a transformer block, forward and
#    backward, plus hand-written and autotuned @triton.jit kernels) under `python -m tilesim.capture`, with
#    per-launch and total size limits; packs the cases into $OUT/captured_cases.tar.gz (split into .partNN files
#    of 15 MiB if larger) to replay anywhere with `tilesim conformance captured/`.
# 2. Meanwhile builds the native module from source (build_standalone.sh: g++, Python's headers, torch's copy of
#    pybind11), then runs device_torch_check.py (tilesim.interpret on real CPU torch tensors) and
#    bench/python/speedup.py --torch: tilesim.interpret and TRITON_INTERPRET=1 on the same CPU torch tensors.
# Everything it prints is also in $OUT/device_capture.log. About 3-5 minutes on the H200 host; the stages' time
# limits (240 + 90 + 200 s) keep the whole under 9 minutes.
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${OUT:-/tmp/tilesim-capture-out}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 OMP_WAIT_POLICY=passive
work=/tmp/tilesim-device
rm -rf "$work" && mkdir -p "$work/ext"
started=$(date +%s)
main() {
stamp() { echo "device_capture [$(( $(date +%s) - started )) s]: $*"; }
stamp "$(nproc) CPUs; $(python3 -c 'import sys, torch, triton; print("Python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__, "cuda", torch.cuda.is_available())')"

# -- the native module, built in the background while the GPU records -------------------------------------------
# ($TILESIM_PREBUILT: a module already built for this Python, used instead; for trying the script elsewhere.)
if [ -n "${TILESIM_PREBUILT:-}" ]; then
  (cp "$TILESIM_PREBUILT" "$work/ext/" && echo "prebuilt $TILESIM_PREBUILT" > "$work/build.log") &
else
  (PYTHON=python3 timeout 240 bash "$root/tools/python/scripts/build_standalone.sh" "$work/ext" > "$work/build.log" 2>&1
   echo "build_standalone exit $?" >> "$work/build.log") &
fi
build=$!

# -- 1. record -----------------------------------------------------------------------------------------------
export TORCHINDUCTOR_CACHE_DIR="$work/inductor" TRITON_CACHE_DIR="$work/triton-cache"
cd "$root/tools/python"
PYTHONPATH="$root/tools/python" timeout 240 python3 -m tilesim.capture -o "$work/captured" --max-bytes $((8 << 20)) \
  --max-total-bytes $((40 << 20)) -- python3 scripts/model_workload.py
stamp "capture exit $?; $(find "$work/captured" -name case.json | wc -l) case(s), $(du -sh "$work/captured" | cut -f1)"
tar czf "$work/captured_cases.tar.gz" -C "$work" captured
if [ "$(stat -c %s "$work/captured_cases.tar.gz")" -gt $((15 << 20)) ]; then
  split -b 15M -d "$work/captured_cases.tar.gz" "$out/captured_cases.tar.gz.part"
  stamp "cases split: cat $out/captured_cases.tar.gz.part* > captured_cases.tar.gz"
else
  cp "$work/captured_cases.tar.gz" "$out/"
fi
ls -l "$out"

# -- 2. CPU torch tensors through tilesim.interpret, and the speed against TRITON_INTERPRET=1 -------------------
wait "$build"
tail -3 "$work/build.log"
extension="$(ls "$work"/ext/_tilesim*.so 2>/dev/null | head -1)"
if [ -z "$extension" ]; then
  stamp "no native module built (see above): torch tensor checks and benchmark skipped"
  return 0
fi
stamp "native module $extension"
export TILESIM_EXTENSION="$extension" PYTHONPATH="$root/tools/python" TRITON_CACHE_DIR="$work/triton-cache-cpu"
cd "$root"
timeout 90 python3 tools/python/scripts/device_torch_check.py
stamp "device_torch_check exit $?"
CUDA_VISIBLE_DEVICES= timeout 200 python3 bench/python/speedup.py --torch --timeout 150
stamp "speedup exit $?"
}
main 2>&1 | tee "$out/device_capture.log"
