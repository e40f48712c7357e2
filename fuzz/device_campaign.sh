#!/usr/bin/env bash
# One command on the GPU machine: a time-bounded `tilesim fuzz --engine gpu` campaign (the interpreter is the oracle,
# tilesim's GPU backend the target), then a shorter one under the triton profile (error bounds), writing everything
# under $OUT. Builds nothing; run from the repository root with a prebuilt static tilesim:
#   OUT=/some/dir fuzz/device_campaign.sh build-static/tools/cli/tilesim [EXACT_SECONDS [TRITON_SECONDS [JOBS]]]
# Defaults: 270 s exact + 90 s triton, 8 jobs; shrinking stops 30 s after each campaign's end, so the whole run
# takes at most about 7 minutes (inside an 8-minute device slot). Results:
#   $OUT/fuzz-gpu-exact.json, $OUT/fuzz-gpu-triton.json   machine-readable summaries (tilesim fuzz --merge adds them)
#   $OUT/fuzz-gpu-*.txt                                     the human summaries
#   $OUT/regressions/fuzz_gpu_*/                            one minimal conformance case per failure
#   $OUT/nvidia-smi.txt
# Exit: 0 when both campaigns found nothing, 1 when one found a disagreement, 4 when the GPU engine is unavailable.
set -u
tilesim=${1:-build-static/tools/cli/tilesim}
exact_seconds=${2:-270}
triton_seconds=${3:-90}
jobs=${4:-8}
out=${OUT:-/tmp/fuzz-device}
mkdir -p "$out/regressions"
export OMP_WAIT_POLICY=passive
nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
status=0
run() {  # NAME PROFILE SECONDS SEED
  timeout $(( $3 + 60 )) "$tilesim" fuzz --engine gpu --profile "$2" --seconds "$3" --seed "$4" --jobs "$jobs" \
    --regressions "$out/regressions" --json "$out/fuzz-gpu-$1.json" --quiet >"$out/fuzz-gpu-$1.txt" 2>&1
  local rc=$?
  head -3 "$out/fuzz-gpu-$1.txt"
  grep -A2 "^  failures:" "$out/fuzz-gpu-$1.txt" | head -20
  echo "fuzz-gpu-$1: exit $rc"
  if [ "$rc" -eq 4 ]; then cat "$out/fuzz-gpu-$1.txt"; exit 4; fi
  if [ "$rc" -ne 0 ]; then status=1; fi
}
run exact exact "$exact_seconds" 1
run triton triton "$triton_seconds" 2
ls "$out/regressions" | head -50
exit $status
