#!/usr/bin/env bash
# The GPU worker process on a machine with a GPU, in one command (issue 7): fault recovery (a wild store, a
# tt.assert trap, a runaway loop, each followed by a vadd that must pass, in one process), the conformance
# cases of the suites tagged `triton-core` in conformance/suites.txt judged against the recorded Triton outputs
# with the interpreter's error bounds, `--time` and the disk cache through the worker, and `tilesim diff`. Writes
# everything under $OUT (default /tmp/worker_check) and prints a summary; takes about a minute.
#   OUT=DIR gpu_backend/tests/worker_check.sh TILESIM        (run from the repository root)
set -u
tilesim=$(realpath "$1")
out=${OUT:-/tmp/worker_check}
mkdir -p "$out"
cd "$(dirname "$0")/../.."
export OMP_WAIT_POLICY=passive
summary=()

timeout 180 bash gpu_backend/tests/fault_recovery.sh "$tilesim" gpu_backend/tests/fault-recovery >"$out/fault_recovery.txt" 2>&1
summary+=("fault_recovery.sh: exit $? (0 = the fault, the assert and the runaway were reported and each next vadd passed); $(tail -1 "$out/fault_recovery.txt")")

source tools/conformance_suites.sh
mapfile -t core_folders < <(suite_folders triton-core)
timeout 300 "$tilesim" conformance "${core_folders[@]}" --engine gpu --profile triton >"$out/conformance_gpu_triton.txt" 2>&1
summary+=("conformance --engine gpu --profile triton (${core_folders[*]}), interpreter bounds: exit $?: $(grep -E '^[0-9]+ cases?:' "$out/conformance_gpu_triton.txt" | tail -1)")
summary+=("  failing/erroring: $(grep -E '^\[ *[0-9]+/[0-9]+\] (FAIL|ERROR)' "$out/conformance_gpu_triton.txt" | awk '{print $3}' | tr '\n' ' ')")

export TILESIM_CACHE_DIR="$out/cache"
rm -rf "$TILESIM_CACHE_DIR"
for round in 1 2; do
  timeout 60 "$tilesim" run conformance/golden/vadd_f32 --engine gpu --time 20 --warmup 5 >"$out/time_$round.txt" 2>&1
  summary+=("run vadd --time 20 (process $round): exit $?: $(grep -m1 '^timing' "$out/time_$round.txt")")
done

timeout 60 "$tilesim" diff conformance/golden/vadd_f32 --engine gpu >"$out/diff_vadd.txt" 2>&1
summary+=("diff vadd_f32 --engine gpu: exit $? (0 = bit-exact): $(tail -1 "$out/diff_vadd.txt")")

printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
