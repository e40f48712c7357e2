#!/usr/bin/env bash
# The H200 probe of docs/findings.md G10 (element 18 of each thread stored its element-15 boolean), one command,
# under a minute: the case through the GPU engine of TILESIM (with the fix: expected to agree; its JIT cubin kept
# by the kernel cache), then g10_probe.py on the PTX before the fix (gpu_backend/tests/g10/kernel.ptx: the JIT
# at each optimization level, the device's ptxas with and without -c, PTX rewrites) and on TILESIM's PTX, 20 runs
# of each. Needs python3 + numpy and libcuda; writes $OUT.
#   OUT=$OUT bash gpu_backend/tests/g10/g10_probe.sh TILESIM        (from the repository root)
set -u
ts=$1
out=${OUT:-g10-out}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
case=$repo/conformance/regressions/gpu_i64_sitofp_cmpf_bool_store
mkdir -p "$out"
{
  echo "g10 probe $(date -u +%FT%TZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  "$ts" compile "$case/kernel.ttir" --emit=ptx --profile triton --num-warps 1 -o "$out/kernel.ptx"
  echo "tilesim compile: exit $?; $(grep -c 'cvt.rn.f32.s64' "$out/kernel.ptx") cvt.rn.f32.s64 left (0 with the fix), $(grep -c 'clz.b64' "$out/kernel.ptx") clz.b64"
  TILESIM_CACHE_DIR=$out/kcache timeout 120 "$ts" diff "$case" --engine gpu --profile triton > "$out/tilesim_diff.txt" 2>&1
  echo "tilesim diff --engine gpu: exit $? ($(grep -m1 -E " differ;|bit-exact|skipped|error" "$out/tilesim_diff.txt" || tail -1 "$out/tilesim_diff.txt"))"
  # The new i64 -> f32 sequence on the GPU against numpy (2 x 1M values) and the two other conformance kernels
  # that convert i64 to f32.
  big=$(mktemp -d)  # 24 MB of inputs: kept out of $OUT
  python3 "$here/i64_to_f32/make_case.py" "$big/i64_to_f32" &&
    timeout 120 "$ts" run "$big/i64_to_f32" --engine gpu > "$out/i64_to_f32.txt" 2>&1
  echo "i64 -> f32 vs numpy on the GPU: exit $? ($(grep -m1 -E '^(PASS|FAIL)' "$out/i64_to_f32.txt" || tail -1 "$out/i64_to_f32.txt"))"
  for c in golden-extra/cast_int_conv captured/triton_per_fused__log_softmax_nll_loss_forward_sub_view_11_85634aed_0; do
    timeout 120 "$ts" run "$repo/conformance/$c" --engine gpu > "$out/run_${c##*/}.txt" 2>&1
    echo "$c on the GPU: exit $? ($(grep -m1 -E '^(PASS|FAIL)' "$out/run_${c##*/}.txt" || tail -1 "$out/run_${c##*/}.txt"))"
  done
} 2>&1 | tee "$out/g10_summary.txt"
timeout 400 python3 "$here/g10_probe.py" --case "$case" --ptx "$here/kernel.ptx" --fixed-ptx "$out/kernel.ptx" \
  --out "$out" --repeat 20 2>&1 |
  tee -a "$out/g10_summary.txt"
