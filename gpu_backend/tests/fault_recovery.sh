#!/usr/bin/env bash
# A GPU fault in a user's kernel is reported as such, naming the kernel, and leaves the process usable: one
# `tilesim conformance --engine gpu` process runs fault-recovery/a_wild_store (a store 2^48 bytes past its
# buffer: CUDA_ERROR_ILLEGAL_ADDRESS, after which the CUDA context is broken until it is reset) and then
# fault-recovery/b_vadd_after_fault, which must pass. Exit 0 = both as expected, 1 = not, 4 = skipped (no GPU).
#   fault_recovery.sh TILESIM [CASES_DIR]
set -u
tilesim=$1 dir=${2:-$(dirname "$0")/fault-recovery}
out=$("$tilesim" conformance "$dir" --engine gpu 2>&1)
rc=$?
echo "$out"
[ $rc -eq 4 ] && exit 4
fail=0
grep -q "kernel @wild_store faulted" <<<"$out" || { echo "FAIL: no fault reported for @wild_store"; fail=1; }
grep -q "ILLEGAL_ADDRESS" <<<"$out" || { echo "FAIL: the fault is not named an illegal address"; fail=1; }
grep -q "PASS  b_vadd_after_fault" <<<"$out" || { echo "FAIL: the launch after the fault did not pass"; fail=1; }
[ $fail -eq 0 ] && echo "fault recovery: the fault was reported and the next launch passed"
exit $fail
