#!/usr/bin/env bash
# tt.print on the GPU against the interpreter (needs an NVIDIA GPU): runs gpu_backend/tests/print/kernel.ttir on
# both engines and compares their `pid (...)` lines after sorting (device printf has no order between threads;
# the text of each line must be the interpreter's). Exit 0 = the same lines, 1 = they differ, 4 = no GPU.
#   gpu_backend/tests/print_check.sh [TILESIM]
set -u
tilesim=${1:-build-static/tools/cli/tilesim}
dir=$(dirname "$0")/print
work=${OUT:-/tmp}/print_check
mkdir -p "$work"
args=(--grid 2 --arg x_ptr="$dir/x.npy" --arg n=5)
"$tilesim" run "$dir/kernel.ttir" "${args[@]}" --profile exact >"$work/interp.txt" 2>&1
"$tilesim" run "$dir/kernel.ttir" "${args[@]}" --profile exact --engine gpu >"$work/gpu.txt" 2>&1
rc=$?
[ $rc -eq 4 ] && { echo "skipped: no GPU"; exit 4; }
grep '^pid (' "$work/interp.txt" | sort >"$work/interp.sorted"
grep '^pid (' "$work/gpu.txt" | sort >"$work/gpu.sorted"
if diff "$work/interp.sorted" "$work/gpu.sorted" >"$work/print.diff"; then
  echo "print_check: $(wc -l <"$work/gpu.sorted") lines, the same on both engines"
  exit 0
fi
echo "print_check: the lines differ (interp $(wc -l <"$work/interp.sorted"), gpu $(wc -l <"$work/gpu.sorted")); first differences:"
head -10 "$work/print.diff"
exit 1
