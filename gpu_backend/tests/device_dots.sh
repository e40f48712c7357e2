#!/usr/bin/env bash
# The tensor-core dots of the triton profile on a GPU (docs/gpu-backend.md "Dot"): for every conformance case whose
# kernel has a tt.dot (the suites tagged `gpu` in conformance/suites.txt, in its order), one line with
#   mma    mma.sync instructions in the triton-profile PTX (0: the dot keeps the FMA path; "-": not compiled),
#          then "+wN" for N wgmma.mma_async (with TILESIM_TENSOR_CORES=wgmma, which the runs obey too) and "+cN"
#          for N cp.async (a k loop pipelined at the case's num_stages: lowering/PipelinedLoop.cpp)
#   gpu~interp  the GPU's triton-profile outputs judged by the interpreter's triton-profile bounds: a copy of the
#          case whose expected files are the GPU's outputs, run on the interpreter (`tilesim run COPY`)
#   triton~interp  the recorded outputs (Triton's, for golden/real-kernels/captured) judged the same way
#   gpu~recorded   the GPU's outputs against the recorded ones element for element (bit-exact count, max ulp, max
#          abs error: `tilesim run CASE --engine gpu`, which compares bit for bit, so FAIL there is expected)
#   exact  `tilesim diff CASE --engine gpu` under the exact profile (the FMA path): bit-exact with the interpreter
# Builds nothing; run from the repository root with a prebuilt tilesim (the static one on the GPU machine):
#   OUT=DIR gpu_backend/tests/device_dots.sh [TILESIM]
# ENGINE=interp runs the same flow without a GPU (the interpreter stands in: every judgement must pass), which is
# how the script itself is tested. Logs and the GPU outputs go to $OUT/dots (default /tmp/dots). Exit 0 when every
# compiled case's GPU outputs are within the interpreter's bounds and the exact profile agrees bit for bit.
set -u
tilesim=${1:-build-static/tools/cli/tilesim}
engine=${ENGINE:-gpu}
out=${OUT:-/tmp}/dots
rm -rf "$out" && mkdir -p "$out"
log=$out/device_dots.log
: >"$log"
[ "$engine" = gpu ] && nvidia-smi -L 2>&1 | head -1
summary() { grep -E "^(PASS|FAIL)" "$1" | head -1 | sed -E 's/^(PASS|FAIL) +[^ ]+ +//' | cut -c1-110; }
verdict() { case $1 in 0) echo pass ;; 1) echo FAIL ;; *) echo "rc$1" ;; esac; }
rows=() compiled=0 within=0 exact=0 total=0
source tools/conformance_suites.sh
mapfile -t case_dirs < <(suite_case_dirs gpu)
for dir in "${case_dirs[@]}"; do
  [ -f "$dir/kernel.ttir" ] && grep -q "tt.dot " "$dir/kernel.ttir" || continue
  name=${dir%/}; name=${name#conformance/}; slug=${name//\//__}
  total=$((total + 1))
  warps=$(sed -n 's/.*"num_warps": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
  stages=$(sed -n 's/.*"num_stages": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
  work=$out/$slug
  mkdir -p "$work"
  if ! "$tilesim" compile "$dir/kernel.ttir" --emit=ptx --profile triton --num-warps "${warps:-4}" \
      --num-stages "${stages:-3}" --tensor-cores "${TILESIM_TENSOR_CORES:-auto}" -o "$work/kernel.ptx" \
      >"$work/compile.txt" 2>&1; then
    rows+=("$(printf '%-62s %4s  %s' "$name" - "not compiled: $(sed -n 's/.*error: //p' "$work/compile.txt" | head -1 | cut -c1-70)")")
    continue
  fi
  compiled=$((compiled + 1))
  mma=$(grep -c "mma.sync" "$work/kernel.ptx")
  wgmma=$(grep -c "wgmma.mma_async" "$work/kernel.ptx")
  [ "$wgmma" -gt 0 ] && mma="$mma+w$wgmma"
  copies=$(grep -c "cp.async.c[ag].shared" "$work/kernel.ptx")
  [ "$copies" -gt 0 ] && mma="$mma+c$copies"
  # 1. the GPU's triton-profile outputs (also judged against the recorded outputs, bit for bit).
  { echo "=== $name: run --engine $engine --profile triton"; timeout 120 "$tilesim" run "$dir" --engine "$engine" \
      --profile triton --out "$work/outputs" --quiet; } >"$work/gpu_run.txt" 2>&1
  cat "$work/gpu_run.txt" >>"$log"
  # 2. a copy whose expected outputs are the GPU's, judged by the interpreter's bounds.
  rm -rf "$work/case" && cp -r "$dir" "$work/case" && rm -f "$work/case/"*.ptx "$work/case/"*.ttgir
  missing=0
  for expected in "$work/case/"*.expected.npy; do
    [ -e "$expected" ] || continue
    base=$(basename "$expected" .expected.npy)
    if [ -f "$work/outputs/$base.npy" ]; then cp "$work/outputs/$base.npy" "$expected"; else missing=1; fi
  done
  { echo "=== $name: the GPU's outputs judged by the interpreter"; timeout 120 "$tilesim" run "$work/case" \
      --profile triton --quiet; } >"$work/gpu_bound.txt" 2>&1
  gpu_rc=$?
  cat "$work/gpu_bound.txt" >>"$log"
  { echo "=== $name: the recorded outputs judged by the interpreter"; timeout 120 "$tilesim" run "$dir" --profile triton \
      --quiet; } >"$work/recorded_bound.txt" 2>&1
  recorded_rc=$?
  cat "$work/recorded_bound.txt" >>"$log"
  # 3. the exact profile (FMA path): bit-exact with the interpreter (not with ENGINE=interp: nothing to compare).
  exact_rc=4
  if [ "$engine" != interp ]; then
    { echo "=== $name: diff --engine $engine (exact profile)"; timeout 120 "$tilesim" diff "$dir" --engine "$engine"; } \
        >"$work/exact.txt" 2>&1
    exact_rc=$?
    cat "$work/exact.txt" >>"$log"
  fi
  gpu_verdict=$(verdict $gpu_rc)
  [ $missing -eq 1 ] && gpu_verdict="FAIL(no output)"
  [ "$gpu_verdict" = pass ] && within=$((within + 1))
  case $exact_rc in 0) exact_verdict=bit-exact; exact=$((exact + 1)) ;; 4) exact_verdict=skip; exact=$((exact + 1)) ;; *) exact_verdict="NO(rc$exact_rc)" ;; esac
  rows+=("$(printf '%-62s %4s  gpu~interp %-5s triton~interp %-5s exact %-9s | gpu~recorded: %s | gpu~interp: %s' "$name" "$mma" \
      "$gpu_verdict" "$(verdict $recorded_rc)" "$exact_verdict" "$(summary "$work/gpu_run.txt")" \
      "$(summary "$work/gpu_bound.txt")")")
done
printf '%-62s %4s  %s\n' case mma judgements
echo "tensor cores: ${TILESIM_TENSOR_CORES:-auto}"
printf '%s\n' "${rows[@]}"
echo "dot cases: $total; compiled under the triton profile: $compiled; GPU ($engine) outputs within the interpreter's" \
     "triton-profile bounds: $within of $compiled; exact profile bit-exact with the interpreter (or skipped): $exact of $compiled"
[ "$within" -eq "$compiled" ] && [ "$exact" -eq "$compiled" ]
