#!/usr/bin/env bash
# The GPU engine's redzones on a real GPU (ir/launch/Redzones.h), in one command on the GPU machine:
#   1. gpu_backend/tests/redzone/store_past_end (a vadd whose store mask is `offs <= n`: lane n writes out_ptr[10],
#      one f32 past the buffer): `tilesim run --engine gpu` must print the redzone finding (out_ptr, byte offset
#      40, the bytes written) and fail (exit 1); `tilesim diff --engine gpu` must print it, say that the
#      interpreter reports the same write, and fail; the interpreter must report the write too.
#   2. the same kernel with the right mask (a copy with `sle` made `slt`): no finding, the run passes.
#   3. a short `tilesim fuzz --engine gpu --profile exact` campaign: no oob-write failure (no false positives).
# Builds nothing; run from the repository root with a prebuilt tilesim:
#   OUT=/some/dir bash fuzz/gpu_redzone_check.sh build-static/tools/cli/tilesim [SECONDS [JOBS]]
# Defaults: 60 s, 8 jobs (about 2 minutes in all). Everything goes to $OUT (default /tmp/redzone-check): one log
# per step and the campaign's summary (fuzz-gpu-redzones.txt/.json, regressions/). Exit 0 when every step holds,
# 1 when one does not, 4 when the GPU engine is unavailable.
set -u
tilesim=${1:-build-static/tools/cli/tilesim}
seconds=${2:-60}
jobs=${3:-8}
out=${OUT:-/tmp/redzone-check}
here=$(cd "$(dirname "$0")/.." && pwd)
case_dir=$here/gpu_backend/tests/redzone/store_past_end
mkdir -p "$out/regressions"
export OMP_WAIT_POLICY=passive
nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
status=0
fail() { echo "FAIL: $*"; status=1; }

# expect NAME WANTED_EXIT PATTERN... : the step's log has every pattern and the command exited WANTED_EXIT.
expect() {
  local name=$1 wanted=$2 rc=$3; shift 3
  [ "$rc" -eq 4 ] && { cat "$out/$name.txt"; echo "the GPU engine is not available here"; exit 4; }
  [ "$rc" -eq "$wanted" ] || fail "$name: exit $rc, expected $wanted"
  for pattern in "$@"; do grep -q -- "$pattern" "$out/$name.txt" || fail "$name: no line matching '$pattern'"; done
  echo "== $name (exit $rc)"; grep -E "out-of-bounds|redzone|PASS|FAIL|diff:" "$out/$name.txt" | head -8
}

"$tilesim" run "$case_dir" --engine gpu >"$out/run-gpu.txt" 2>&1
expect run-gpu 1 $? "out-of-bounds: write of 4 bytes at byte offset 40..43 of out_ptr (40 bytes; 0 bytes past the end), seen in its redzone after the GPU run of @store_past_end" "^FAIL$"

"$tilesim" diff "$case_dir" --engine gpu >"$out/diff-gpu.txt" 2>&1
expect diff-gpu 1 $? "gpu wrote outside a buffer" "the interpreter reports them too" "diff: gpu wrote outside a buffer"

"$tilesim" run "$case_dir" >"$out/run-interp.txt" 2>&1
expect run-interp 1 $? "out-of-bounds: write of 4 bytes at byte offset 40 of out_ptr (40 bytes)"

fixed=$out/store_past_end_fixed
rm -rf "$fixed"; cp -r "$case_dir" "$fixed"
sed -i 's/%wrong = arith.cmpi sle/%wrong = arith.cmpi slt/' "$fixed/kernel.ttir"
"$tilesim" run "$fixed" --engine gpu >"$out/run-gpu-fixed.txt" 2>&1
expect run-gpu-fixed 0 $? "^PASS$"
if grep -q "redzone" "$out/run-gpu-fixed.txt"; then fail "run-gpu-fixed: a redzone finding on the right mask"; fi

timeout $(( seconds + 90 )) "$tilesim" fuzz --engine gpu --profile exact --seconds "$seconds" --seed 20 --jobs "$jobs" \
  --regressions "$out/regressions" --json "$out/fuzz-gpu-redzones.json" --quiet >"$out/fuzz-gpu-redzones.txt" 2>&1
rc=$?
echo "== fuzz --engine gpu --seconds $seconds (exit $rc)"; head -3 "$out/fuzz-gpu-redzones.txt"
[ "$rc" -eq 4 ] && { cat "$out/fuzz-gpu-redzones.txt"; exit 4; }
if grep -q "oob-write" "$out/fuzz-gpu-redzones.txt"; then
  fail "the campaign has oob-write failures (a redzone finding the interpreter does not make):"
  grep -A3 "oob-write" "$out/fuzz-gpu-redzones.txt" | head -20
fi
[ "$rc" -ne 0 ] && echo "note: the campaign found other failures (exit $rc): see $out/fuzz-gpu-redzones.txt"
echo "gpu_redzone_check: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
