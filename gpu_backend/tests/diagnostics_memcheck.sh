#!/usr/bin/env bash
# The planted-bug kernels of conformance/diagnostics on the GPU engine under compute-sanitizer's memcheck: masked
# stays masked on the GPU. Each case runs once (`tilesim run CASE --engine gpu`, triton profile, the worker
# process included: --target-processes all) and the table gives memcheck's error count. Every case must report
# 0 errors except those whose planted bug is itself an out-of-bounds access (oob_*: the GPU does what the
# kernel says, and memcheck must see it) and the failing assert (it traps). Needs a GPU and compute-sanitizer
# (the CUDA toolkit; not on gVisor hosts: docs/gpu-backend.md).
#   gpu_backend/tests/diagnostics_memcheck.sh TILESIM      (from the repository root; logs under $OUT or /tmp)
# Exit 0 when every case is as expected, 1 when not, 4 when there is no GPU or no compute-sanitizer.
set -u
tilesim=$(realpath "$1")
log_dir=${OUT:-/tmp}/memcheck
mkdir -p "$log_dir"
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[ -n "$sanitizer" ] || { echo "skipped: no compute-sanitizer"; exit 4; }
"$tilesim" diff conformance/golden/vadd_f32 --engine gpu >/dev/null 2>&1
[ $? -eq 4 ] && { echo "skipped: no GPU engine"; exit 4; }

bad=0 clean=0 total=0
printf '%-34s %-8s %-14s %s\n' case memcheck expected verdict
for dir in conformance/diagnostics/*/; do
  [ -f "$dir/case.json" ] || continue
  name=$(basename "$dir")
  total=$((total + 1))
  log="$log_dir/$name.log"
  timeout 120 "$sanitizer" --tool memcheck --target-processes all --error-exitcode 0 \
    "$tilesim" run "$dir" --engine gpu --profile triton >"$log" 2>&1
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
  summaries=$(grep -c "ERROR SUMMARY" "$log")
  case $name in
    oob_*) expected="its planted oob" ;;
    assert_*) expected="a trap" ;;
    *) expected=0 ;;
  esac
  if [ "$summaries" -eq 0 ]; then
    verdict="NO SUMMARY ($log)"; bad=1
  elif [ "$expected" = 0 ] && [ "$errors" -ne 0 ]; then
    verdict="UNEXPECTED ($log)"; bad=1
  else
    verdict=ok; [ "$expected" = 0 ] && clean=$((clean + 1))
  fi
  printf '%-34s %-8s %-14s %s\n' "$name" "$errors" "$expected" "$verdict"
done
echo "diagnostics under memcheck: $total cases; $clean of the masked ones with 0 errors; $([ $bad -eq 0 ] && echo "every case as expected" || echo "NOT as expected")"
exit $bad
