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
. "$(dirname "$0")/device_common.sh"
device_prepare
run_campaign exact exact "$exact_seconds" 1
run_campaign triton triton "$triton_seconds" 2
ls "$out/regressions" | head -50
exit $status
