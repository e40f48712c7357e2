#!/usr/bin/env bash
# On the H200 (one command, well under a minute): the exact-profile cases branch exactfix changed, each through
# `tilesim diff CASE --engine gpu` (exact profile), plus the GPU's outputs saved for offline replay
# (`tilesim run CASE --engine gpu --profile exact --out`). Run from the repository root:
#   gpu_backend/tests/device_exactfix.sh [TILESIM]      (default devrun/tilesim; logs under $OUT, else /tmp)
# Expected: the two G8 regressions bit-exact (0x7FFFFFFF, before the fix 0x7FC00000 / 0x7FFF0000);
# corpus10/inline_asm_ops_i32 "712 bit-exact, 56 within the interpreter's bound (approximate inline PTX)";
# the two float-atomic captured cases "within the interpreter's bound (arrival order)"; every diff exit 0.
set -u
tilesim=${1:-devrun/tilesim}
out=${OUT:-/tmp}
log=$out/device_exactfix.log
: >"$log"
nvidia-smi -L 2>&1 | head -1 | tee -a "$log"
failed=0
for dir in conformance/regressions/gpu_nan_fold_divf_select conformance/regressions/gpu_nan_fold_maxnumf_bf16 \
    conformance/corpus10/inline_asm_ops_i32 conformance/captured/layer_norm_bwd_fccb1115_0 \
    conformance/captured/triton_per_fused_add_embedding_dense_backward_native_layer_norm_native_layer_norm_backward_nll_loss_forward_view_12_c859f5ba_0; do
  echo "=== $dir" >>"$log"
  timeout 120 "$tilesim" diff "$dir" --engine gpu >>"$log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || failed=$((failed + 1))
  printf '%-40s exit %d  %s\n' "${dir:0:40}" "$rc" "$(tail -1 "$log")"
  saved=$out/gpu-outputs/$(basename "$dir")
  mkdir -p "$saved"
  timeout 120 "$tilesim" run "$dir" --engine gpu --profile exact --out "$saved" >>"$log" 2>&1 || true
done
echo "$failed of 5 diffs did not agree (full log: $log; GPU outputs under $out/gpu-outputs)"
[ $failed -eq 0 ]
