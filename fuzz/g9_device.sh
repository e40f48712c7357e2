#!/usr/bin/env bash
# Findings G9 on the H200, one command (docs/findings.md G9): the triton-profile bounds now follow approximate
# floats into integers, so the gpu target compares the programs it used to skip as `target-unspecified`.
#   OUT=/some/dir fuzz/g9_device.sh TILESIM [SECONDS [JOBS]]
# TILESIM: a static tilesim of this branch (devrun/tilesim); run from the repository root. Defaults: 240 s, 8 jobs;
# the whole run takes at most about 6 minutes. Results under $OUT:
#   replay-INDEX.txt/.json   the 4 original G9 programs (seed 102, not shrunk) under --engine gpu --profile triton:
#                            each should now be compared ("checks run: ... target") and pass
#   fuzz-gpu-triton.txt/.json  a triton-profile GPU campaign (seed 102): failures, and how many programs are still
#                            skipped as target-unspecified (the JSON's "skips")
#   regressions/             minimal cases of any failure; recorded-g9.txt: the 4 committed cases judged offline
# Exit: 0 when everything passed, 1 when something failed, 4 when the GPU engine is unavailable.
set -u
tilesim=${1:-devrun/tilesim}
seconds=${2:-240}
jobs=${3:-8}
out=${OUT:-/tmp/g9-device}
. "$(dirname "$0")/device_common.sh"
device_prepare
for case in conformance/regressions/gpu_triton_fptosi_quotient_*; do
  "$tilesim" diff "$case" --recorded gpu --profile triton >>"$out/recorded-g9.txt" 2>&1 || status=1
done
for index in 7915 14517 23257 32650; do
  timeout 120 "$tilesim" fuzz --engine gpu --profile triton --seed 102 --first "$index" --count $((index + 1)) \
    --no-shrink --regressions "$out/regressions" --json "$out/replay-$index.json" --quiet >"$out/replay-$index.txt" 2>&1
  rc=$?
  echo "replay $index: exit $rc; $(grep -E '^  (passed|checks run)' "$out/replay-$index.txt" | tr '\n' ' ')"
  if [ "$rc" -eq 4 ]; then cat "$out/replay-$index.txt"; exit 4; fi
  if [ "$rc" -ne 0 ]; then status=1; fi
done
run_campaign triton triton "$seconds" 102
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('skips:', d.get('skips'))" "$out/fuzz-gpu-triton.json" 2>/dev/null
ls "$out/regressions" | head -50
exit $status
