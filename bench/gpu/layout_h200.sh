#!/usr/bin/env bash
# Shared-memory layout conversions on the GPU, in one command (docs/conformance.md "Engine cases", family layout;
# docs/performance.md "What one run does"): on a machine with an NVIDIA GPU, from the repository root,
#   OUT=DIR bash bench/gpu/layout_h200.sh PATH/TO/tilesim
# 1. `tilesim conformance conformance/engine/layout --engine gpu`, triton and exact profiles: every layout case on
#    tilesim's GPU engine against the NumPy oracle's expected outputs (bit for bit) -> $OUT/layout_gpu_PROFILE.txt;
# 2. `tilesim diff CASE --engine gpu` for each layout case: the interpreter against the GPU bit for bit
#    -> $OUT/layout_diff.txt (one line per case, exit codes: 0 = bit-exact);
# 3. the transpose benchmark, bench.py --cases transpose_f32_8192x8192 (tilesim on Triton's TTIR, Triton 3.6 and
#    torch's x.t().contiguous(), the copy ceiling, compile latency) -> $OUT/bench/bench.md, bench.json.
# Needs python3 with torch, Triton 3.6 and numpy, and a tilesim built with the GPU backend (the static one,
# docs/gpu-backend.md). A few minutes in all; each step has its own timeout. The summary goes to stdout and
# $OUT/summary.txt. Exit 0 when every case passes on the GPU and every diff is bit-exact.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tilesim=${1:?usage: layout_h200.sh TILESIM}
tilesim=$(cd "$(dirname "$tilesim")" && pwd)/$(basename "$tilesim")
out=${OUT:-$PWD/layout-gpu-out}
mkdir -p "$out/bench"
cd "$root"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/summary.txt" 2>&1 || true
status=0
for profile in triton exact; do
  timeout 200 "$tilesim" conformance conformance/engine/layout --engine gpu --profile "$profile" \
    >"$out/layout_gpu_$profile.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "conformance/engine/layout --engine gpu --profile $profile: exit $rc; $(grep -E '^[0-9]+ cases:' \
    "$out/layout_gpu_$profile.txt" | tail -1)" >>"$out/summary.txt"
  grep -E "^\[ *[0-9]+/[0-9]+\] (FAIL|ERROR)" "$out/layout_gpu_$profile.txt" >>"$out/summary.txt"
done
exact=0 total=0
: >"$out/layout_diff.txt"
for dir in conformance/engine/layout/*/; do
  total=$((total + 1))
  timeout 60 "$tilesim" diff "$dir" --engine gpu >"$out/diff.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then exact=$((exact + 1)); else status=1; fi
  echo "exit $rc  ${dir%/}  $(tail -1 "$out/diff.log" | cut -c1-160)" >>"$out/layout_diff.txt"
done
rm -f "$out/diff.log"
echo "tilesim diff --engine gpu: $exact of $total layout cases bit-exact against the interpreter" >>"$out/summary.txt"
grep -v "^exit 0 " "$out/layout_diff.txt" >>"$out/summary.txt"
timeout 300 python3 "$here/bench.py" --tilesim "$tilesim" --out "$out/bench" --cases transpose_f32_8192x8192 \
  >"$out/bench/stdout.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
echo "bench.py --cases transpose_f32_8192x8192: exit $rc" >>"$out/summary.txt"
[ -f "$out/bench/bench.md" ] && cat "$out/bench/bench.md" >>"$out/summary.txt"
[ $rc -eq 0 ] || tail -20 "$out/bench/stdout.txt" >>"$out/summary.txt"
cat "$out/summary.txt"
exit $status
