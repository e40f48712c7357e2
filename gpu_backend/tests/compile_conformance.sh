#!/usr/bin/env bash
# Compiles every conformance kernel of the suites tagged `gpu` in conformance/suites.txt with the GPU backend
# (`tilesim compile --emit=ptx`, each case's num_warps) and assembles the PTX with `ptxas -arch=sm_90a`. A kernel
# listed in supported.txt must compile and assemble; any other kernel must either compile and assemble or be
# refused with "the GPU engine does not support ... yet" (never a crash, never another error). Both float
# profiles, one summary line each: the triton profile lowers dots to tensor-core mma.sync where it can
# (docs/gpu-backend.md "Dot"), so its PTX differs from the exact one's. Each case at its num_warps and num_stages;
# under the triton profile a kernel with a tt.dot is compiled and assembled once more as a launch whose remainder
# guards hold gets it (--assume-remainder-guards), where k loops are software-pipelined (lowering/PipelinedLoop.cpp):
# the summary counts those with cp.async.
# Exit 0 = all good, 1 = a failure, 4 = skipped (no ptxas: compiled only).
#   compile_conformance.sh TILESIM SOURCE_DIR [PTXAS]
set -u
tilesim=$1 source=$2 ptxas=${3:-/usr/local/cuda/bin/ptxas}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
have_ptxas=1
[ -x "$ptxas" ] || have_ptxas=0
failures=0
mapfile -t required < <(grep -v '^#' "$source/gpu_backend/tests/supported.txt" | sed '/^$/d')
source "$source/tools/conformance_suites.sh"
mapfile -t case_dirs < <(suite_case_dirs gpu "$source")
for profile in exact triton; do
compiled=0 refused=0 assembled=0 mma=0 pipelined=0
for dir in "${case_dirs[@]}"; do
  name=${dir%/}; name=${name#"$source"/}
  warps=$(sed -n 's/.*"num_warps": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
  stages=$(sed -n 's/.*"num_stages": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
  rm -f "$work/k.ptx"
  out=$("$tilesim" compile "$dir/kernel.ttir" --emit=ptx --profile "$profile" --num-warps "${warps:-4}" \
          --num-stages "${stages:-3}" -o "$work/k.ptx" 2>&1)
  rc=$?
  is_required=0
  for r in "${required[@]}"; do [ "$r" = "$name" ] && is_required=1; done
  if [ $rc -eq 0 ]; then
    compiled=$((compiled + 1))
    grep -q "mma.sync" "$work/k.ptx" && mma=$((mma + 1))
    if [ $have_ptxas -eq 1 ]; then
      if asm=$("$ptxas" -arch=sm_90a "$work/k.ptx" -o "$work/k.cubin" 2>&1); then
        assembled=$((assembled + 1))
      else
        echo "FAIL  $name ($profile): ptxas rejected the PTX: $asm"; failures=$((failures + 1))
      fi
    fi
    if [ "$profile" = triton ] && grep -q "tt.dot " "$dir/kernel.ttir"; then
      if ! guarded=$("$tilesim" compile "$dir/kernel.ttir" --emit=ptx --profile triton --num-warps "${warps:-4}" \
             --num-stages "${stages:-3}" --assume-remainder-guards -o "$work/g.ptx" 2>&1); then
        echo "FAIL  $name (triton, remainder guards assumed): $guarded"; failures=$((failures + 1))
      else
        grep -q "cp.async" "$work/g.ptx" && pipelined=$((pipelined + 1))
        if [ $have_ptxas -eq 1 ] && ! asm=$("$ptxas" -arch=sm_90a "$work/g.ptx" -o "$work/g.cubin" 2>&1); then
          echo "FAIL  $name (triton, remainder guards assumed): ptxas rejected the PTX: $asm"; failures=$((failures + 1))
        fi
      fi
    fi
  elif [ $rc -eq 1 ] && grep -q "the GPU engine does not support" <<<"$out"; then
    refused=$((refused + 1))
    if [ $is_required -eq 1 ]; then echo "FAIL  $name ($profile) is in supported.txt but: $out"; failures=$((failures + 1)); fi
  else
    echo "FAIL  $name ($profile): tilesim compile exited $rc: $out"; failures=$((failures + 1))
  fi
done
echo "$profile profile: compiled $compiled kernels to PTX ($assembled assembled by ptxas, $mma with mma.sync, $pipelined dot kernels with a pipelined k loop as guarded launches get them), $refused refused as not supported yet"
done
echo "$failures failures"
[ $failures -eq 0 ] || exit 1
if [ $have_ptxas -eq 0 ]; then echo "skipped: ptxas not found at $ptxas (PTX not assembled)"; exit 4; fi
exit 0
