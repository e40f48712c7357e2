#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: `tilesim diff CASE --engine gpu` on every conformance case the GPU backend
# compiles (the suites tagged `gpu` in conformance/suites.txt, OWN_CASES_DIR standing in for
# gpu_backend/tests/cases), then a table:
# case, supported?, agree? (yes: bit for bit; bound: every differing element within the interpreter's exact-profile
# bound, which only approximate inline PTX and contended float atomic adds carry, docs/gpu-backend.md; design: a
# difference by design, which the case's case.json states in "gpu_differs_by_design"), time.
# Builds nothing; run from the repository root with a prebuilt tilesim:
#   gpu_backend/tests/device_check.sh [TILESIM [OWN_CASES_DIR]]
# (defaults: build-static/tools/cli/tilesim and gpu_backend/tests/cases)
# Without a GPU every compiled case reads "skip" (engine unavailable) and the run fails: nothing is reported as
# agreeing. Full logs go to $OUT/device_check.log when OUT is set (else /tmp). Exit 0 when every supported case
# agrees or differs by design.
set -u
tilesim=${1:-build-static/tools/cli/tilesim}
own=${2:-gpu_backend/tests/cases}
log=${OUT:-/tmp}/device_check.log
: >"$log"
nvidia-smi -L 2>&1 | head -2
# A case whose GPU run differs from the interpreter's on purpose says why in its case.json,
# "gpu_differs_by_design": such a case is listed as "design", not counted as agreeing, and does not fail the run.
by_design_reason() {  # CASE_DIR: the reason, or nothing
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("gpu_differs_by_design", ""))' \
    "$1/case.json" 2>/dev/null
}
table=() supported=0 agree=0 bounded=0 designed=0 total=0
source tools/conformance_suites.sh
mapfile -t case_dirs < <(suite_case_dirs gpu "" "$own")
for dir in "${case_dirs[@]}"; do
  name=${dir%/}
  total=$((total + 1))
  warps=$(sed -n 's/.*"num_warps": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
  if ! why=$("$tilesim" compile "$dir/kernel.ttir" --emit=ptx --num-warps "${warps:-4}" -o /dev/null 2>&1); then
    why=$(sed -n 's/.*error: //p' <<<"$why" | head -1)
    table+=("$(printf '%-78s %-4s %-5s %6s  %s' "${name#conformance/}" no - - "${why:0:60}")")
    continue
  fi
  supported=$((supported + 1))
  start=$EPOCHREALTIME
  { echo "=== $name"; timeout 120 "$tilesim" diff "$dir" --engine gpu; } >>"$log" 2>&1
  rc=$?
  seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  case $rc in
    0) verdict=yes; agree=$((agree + 1)); note=""
       if tail -1 "$log" | grep -q "within bound"; then
         verdict=bound; bounded=$((bounded + 1)); note=$(tail -1 "$log")
       fi ;;
    1) verdict=NO; note=$(grep -E "differ|error|could not" "$log" | tail -1)
       reason=$(by_design_reason "$dir")
       if [ -n "$reason" ]; then verdict=design; designed=$((designed + 1)); note="by design: $reason"; fi ;;
    4) verdict=skip; note="engine unavailable" ;;
    *) verdict="rc$rc"; note=$(tail -1 "$log") ;;
  esac
  table+=("$(printf '%-78s %-4s %-5s %6.2f  %s' "${name#conformance/}" yes "$verdict" "$seconds" "${note:0:80}")")
done
# The suites tagged `triton` judged against the real Triton outputs they were recorded with (triton profile, bounds):
# what the GPU backend gives next to what Triton gave. Cases with unsupported ops fail here; the summary counts.
mapfile -t triton_folders < <(suite_folders triton)
{ echo "=== tilesim conformance --engine gpu"; "$tilesim" conformance "${triton_folders[@]}" --engine gpu; } >>"$log" 2>&1
# Triton's reduction order: the GPU's triton-profile lowering against the interpreter told the GPU's layouts.
{ echo "=== diff --profile triton $own/reduce_order_f32"; timeout 120 "$tilesim" diff "$own/reduce_order_f32" --engine gpu \
    --profile triton; } >>"$log" 2>&1
echo "reduce_order_f32 under the triton profile (the interpreter in the GPU's order): exit $? (0 = bit-exact)"
echo
grep -E "^[0-9]+ cases:" "$log" | tail -1 | sed 's/^/conformance --engine gpu, triton profile, vs the recorded Triton outputs: /'
printf '%-78s %-4s %-5s %6s  %s\n' case supp agree secs note
printf '%s\n' "${table[@]}"
echo "supported $supported of $total cases; $agree of $supported agree with the interpreter: $((agree - bounded)) bit for bit, $bounded within its bounds; $designed differ by design (their case.json says why)"
[ $((agree + designed)) -eq "$supported" ]
