#!/usr/bin/env bash
# A GPU fault in a user's kernel is reported as such, naming the kernel, and leaves the process usable. One
# `tilesim conformance --engine gpu` process runs, in this order:
#   1 fault-recovery/a_wild_store (a store 2^48 bytes past its buffer: CUDA_ERROR_ILLEGAL_ADDRESS, after which
#     the CUDA context — on the H200 the whole process's CUDA — is unusable: the GPU worker process exits),
#   2 fault-recovery/b_vadd_after_fault, which must pass (a new worker),
#   3 conformance/engine/control/assert_first_failing_lane (tt.assert fails: the kernel traps; reported as an
#     assertion of kernel @check),
#   4 b_vadd_after_fault again,
#   5 fault-recovery/c_runaway_loop (never ends: the watchdog kills the worker after --gpu-timeout 10 s),
#   6 b_vadd_after_fault again.
# Exit 0 = all as expected, 1 = not, 4 = skipped (no GPU).
#   fault_recovery.sh TILESIM [CASES_DIR]
set -u
tilesim=$1 dir=${2:-$(dirname "$0")/fault-recovery}
root=$(cd "$(dirname "$0")/../.." && pwd)
vadd=$dir/b_vadd_after_fault
start=$(date +%s)
out=$("$tilesim" conformance "$dir/a_wild_store" "$vadd" "$root/conformance/engine/control/assert_first_failing_lane" \
      "$vadd" "$dir/c_runaway_loop" "$vadd" --engine gpu --gpu-timeout 10 2>&1)
rc=$?
echo "$out"
echo "($(( $(date +%s) - start )) s)"
[ $rc -eq 4 ] && exit 4
fail=0
expect() { grep -qF -- "$1" <<<"$out" || { echo "FAIL: $2 (no line with: $1)"; fail=1; }; }
expect "kernel @wild_store faulted" "no fault reported for @wild_store"
expect "ILLEGAL_ADDRESS" "the fault is not named an illegal address"
expect "the next launch starts a new one" "the fault does not say the next launch gets a new worker"
expect "[2/6] PASS  b_vadd_after_fault" "the launch after the illegal address did not pass"
expect "kernel @check faulted: the kernel asserted" "the tt.assert trap is not reported as an assertion of @check"
expect "[4/6] PASS  b_vadd_after_fault" "the launch after the assert did not pass"
expect "the GPU run of kernel @spin was stopped: it did not finish within 10 s" "the runaway @spin was not stopped by the watchdog"
expect "[6/6] PASS  b_vadd_after_fault" "the launch after the runaway kernel did not pass"
[ $fail -eq 0 ] && echo "fault recovery: the fault, the assert and the runaway kernel were reported, and each next launch passed"
exit $fail
