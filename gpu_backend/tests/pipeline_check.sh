#!/usr/bin/env bash
# Software pipelining of k loops (gpu_backend/lowering/PipelinedLoop.cpp), checked on the PTX without a GPU: the
# matrix benchmark's matmul kernels (Triton 3.6's TTIR, bench/gpu/ttir/matrix), compiled under the triton profile
# for sm_90a at their num_warps and num_stages as the benchmark launches them (--assume-remainder-guards), must
# stage a and b with cp.async, num_stages - 1 groups ahead (cp.async.wait_group num_stages - 2), leave one wgmma
# group in flight across iterations (wgmma.wait_group 1; the w2 kernels take mma.sync, which reads its operands
# from the stages with ldmatrix instead) and load nothing from global memory with ld.global in the loop; with
# --num-stages 1 the same kernel has no cp.async at all. ptxas must accept the pipelined PTX. Attention: below.
#   gpu_backend/tests/pipeline_check.sh TILESIM        exit 0: as above; 1: not
set -u
tilesim=${1:?usage: pipeline_check.sh TILESIM}
here=$(cd "$(dirname "$0")" && pwd)
ttir_dir=$here/../../bench/gpu/ttir/matrix
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL $1"; status=1; }
count() { grep -c -- "$1" "$2" || true; }

for name in matmul_128x256x64_w8_s3 matmul_128x128x32_w4_s4 matmul_64x256x32_w4_s4 matmul_64x64x32_w4_s3 \
    matmul_64x32x32_w2_s5 matmul_32x64x32_w2_s5; do
  warps=${name#*_w}; warps=${warps%%_*}
  stages=${name##*_s}
  compile() {
    "$tilesim" compile --profile triton --num-warps "$warps" --num-stages "$1" --assume-remainder-guards \
      --tensor-cores wgmma --emit ptx "$ttir_dir/$name.ttir" -o "$2"
  }
  if ! compile "$stages" "$work/k.ptx" 2>"$work/err"; then fail "$name: does not compile: $(head -c 300 "$work/err")"; continue; fi
  copies=$(count "cp.async.cg.shared.global" "$work/k.ptx")
  waits=$(count "cp.async.wait_group $((stages - 2));" "$work/k.ptx")
  in_flight=$(count "wgmma.wait_group.sync.aligned 1;" "$work/k.ptx")
  ldmatrix=$(count "ldmatrix" "$work/k.ptx")
  global_loads=$(count "ld.global" "$work/k.ptx")
  echo "$name (num_warps $warps, num_stages $stages): $copies cp.async, $waits wait_group $((stages - 2)), $in_flight wgmma wait_group 1, $ldmatrix ldmatrix, $global_loads ld.global"
  [ "$copies" -gt 0 ] || fail "$name: no cp.async"
  [ "$waits" -ge 1 ] || fail "$name: no cp.async.wait_group $((stages - 2))"
  if [ "$warps" -ge 4 ]; then
    [ "$in_flight" -ge 1 ] || fail "$name: no wgmma group left in flight"
  else
    [ "$ldmatrix" -ge 1 ] || fail "$name: mma.sync's operands not read with ldmatrix"
  fi
  [ "$global_loads" -eq 0 ] || fail "$name: $global_loads ld.global left (the operands should all be copied)"
  if command -v ptxas >/dev/null; then
    ptxas -arch=sm_90a "$work/k.ptx" -o /dev/null 2>"$work/ptxas" || fail "$name: ptxas rejects it: $(head -c 300 "$work/ptxas")"
  fi
  if ! compile 1 "$work/one.ptx" 2>"$work/err"; then fail "$name --num-stages 1: does not compile"; continue; fi
  unstaged=$(count "cp.async" "$work/one.ptx")
  [ "$unstaged" -eq 0 ] || fail "$name --num-stages 1: $unstaged cp.async"
done
# Attention (Triton's tutorial-06 forward pass): k is loaded as [d][n] with d contiguous, so its load is coalesced
# along d and its wgmma tile is K-major (tnspB 0); k and v are both staged with cp.async (they share their
# address arithmetic), P is wgmma's a from registers (the instruction's register form, "{%r..}"), q is pinned
# in shared memory before the loop: the loop loads nothing with ld.global.
for name in attention_d128_128x128_w8_s3 attention_d128_64x64_w4_s3 attention_d64_128x64_w8_s3; do
  warps=${name#*_w}; warps=${warps%%_*}
  stages=${name##*_s}
  if ! "$tilesim" compile --profile triton --num-warps "$warps" --num-stages "$stages" --assume-remainder-guards \
      --tensor-cores wgmma --emit ptx "$ttir_dir/$name.ttir" -o "$work/k.ptx" 2>"$work/err"; then
    fail "$name: does not compile: $(head -c 300 "$work/err")"; continue
  fi
  copies=$(count "cp.async.cg.shared.global" "$work/k.ptx")
  k_major=$(grep -cE "wgmma.mma_async.*, p, 1, 1, 0, 0;" "$work/k.ptx" || true)
  register_a=$(grep -cE "wgmma.mma_async.*\}, \{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+\}, %rd[0-9]+, p, 1, 1, 1;" "$work/k.ptx" || true)
  global_loads=$(count "ld.global" "$work/k.ptx")
  echo "$name (num_warps $warps, num_stages $stages): $copies cp.async, $k_major wgmma with a K-major b, $register_a wgmma with a from registers, $global_loads ld.global (q's, before the loop)"
  [ "$copies" -gt 0 ] || fail "$name: k and v not staged with cp.async"
  [ "$k_major" -gt 0 ] || fail "$name: no wgmma reads a K-major b (k)"
  [ "$register_a" -gt 0 ] || fail "$name: P is not wgmma's a from registers"
  # q: one tile of [BLOCK_M][d] f16 in 16-byte loads, num_warps * 32 threads
  m=${name#*_d*_}; m=${m%%x*}; d=${name#attention_d}; d=${d%%_*}
  q_loads=$((m * d * 2 / 16 / (warps * 32)))
  [ "$global_loads" -le "$q_loads" ] || fail "$name: $global_loads ld.global, more than q's $q_loads (k or v not staged)"
  if command -v ptxas >/dev/null; then
    ptxas -arch=sm_90a "$work/k.ptx" -o /dev/null 2>"$work/ptxas" || fail "$name: ptxas rejects it: $(head -c 300 "$work/ptxas")"
  fi
done
# A causal mask reading `start_n + offs_n`, which k's and v's addresses read too (gpu_backend/tests/cases/
# pipeline_attention_causal_d64_w4_s3): the consumer computes it again, k and v are still staged.
causal=$here/cases/pipeline_attention_causal_d64_w4_s3/kernel.ttir
if "$tilesim" compile --profile triton --num-warps 4 --num-stages 3 --assume-remainder-guards --tensor-cores wgmma \
    --emit ptx "$causal" -o "$work/k.ptx" 2>"$work/err"; then
  copies=$(count "cp.async.cg.shared.global" "$work/k.ptx")
  echo "causal attention (num_warps 4, num_stages 3): $copies cp.async"
  [ "$copies" -gt 0 ] || fail "causal attention: k and v not staged (the mask's shared index arithmetic)"
else
  fail "causal attention: does not compile: $(head -c 300 "$work/err")"
fi

# Operands wgmma reads K-major only (gpu_backend/tests/cases/pipeline_matmul_*_w4_s3, made by
# make_transposed_cases.py): fp8 e4m3 and i8 with a column-major b (coalesced along k and carried in that layout),
# tf32 with a column-major b and with a row-major one (copied transposed, 4 bytes at a time): both operands staged
# with cp.async, wgmma of the case's types with no transpose operands, no ld.global and no pointers through shared
# memory. fp8 and i8 with a row-major b: a staged, b loaded (ld.global) and stored transposed into its K-major tile
# (1-byte elements: no cp.async can transpose them), wgmma all the same.
k_major_case() {  # name, the wgmma's shape and types, its operands after the descriptors, "b-registers" if so
  local kernel=$here/cases/pipeline_matmul_$1_w4_s3/kernel.ttir
  if ! "$tilesim" compile --profile triton --num-warps 4 --num-stages 3 --assume-remainder-guards --tensor-cores wgmma \
      --emit ptx "$kernel" -o "$work/k.ptx" 2>"$work/err"; then
    fail "$1: does not compile: $(head -c 300 "$work/err")"; return
  fi
  local copies wgmma global_loads shared_pointers
  copies=$(grep -cE "cp.async.c[ag].shared.global" "$work/k.ptx" || true)
  wgmma=$(grep -cE "wgmma.mma_async.sync.aligned.$2 .*, p$3;" "$work/k.ptx" || true)
  global_loads=$(count "ld.global" "$work/k.ptx")
  shared_pointers=$(count "st.shared.v2.u64" "$work/k.ptx")
  echo "$1 (num_warps 4, num_stages 3): $copies cp.async, $wgmma wgmma $2, $global_loads ld.global, $shared_pointers pointer pairs through shared memory"
  [ "$copies" -gt 0 ] || fail "$1: a and b not staged with cp.async"
  [ "$wgmma" -gt 0 ] || fail "$1: no wgmma $2"
  if [ "${4:-}" = b-registers ]; then
    [ "$global_loads" -gt 0 ] || fail "$1: b not loaded into registers"
  else
    [ "$global_loads" -eq 0 ] || fail "$1: $global_loads ld.global left"
    [ "$shared_pointers" -eq 0 ] || fail "$1: b's pointers converted through shared memory"
  fi
  if command -v ptxas >/dev/null; then
    ptxas -arch=sm_90a "$work/k.ptx" -o /dev/null 2>"$work/ptxas" || fail "$1: ptxas rejects it: $(head -c 300 "$work/ptxas")"
  fi
}
k_major_case fp8_colmajor m64n64k32.f32.e4m3.e4m3 ", 1, 1"
k_major_case i8_colmajor m64n64k32.s32.s8.s8 ""
k_major_case tf32_colmajor m64n64k8.f32.tf32.tf32 ", 1, 1"
k_major_case tf32_rowmajor m64n64k8.f32.tf32.tf32 ", 1, 1"
k_major_case fp8_rowmajor m64n64k32.f32.e4m3.e4m3 ", 1, 1" b-registers
k_major_case i8_rowmajor m64n64k32.s32.s8.s8 "" b-registers
command -v ptxas >/dev/null || echo "note: no ptxas on PATH: the PTX was not assembled"
exit $status
