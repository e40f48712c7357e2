#!/usr/bin/env bash
# Register use and spills of the matrix benchmark's kernels (issue 22, "no spills at the tile sizes users pick"),
# without a GPU: each TTIR of bench/gpu/ttir/matrix (Triton 3.6's, bench/gpu/make_matrix_ttir.py) is compiled by
# tilesim under the triton profile at its num_warps as the benchmark's launches get it (their remainder guards
# hold: --assume-remainder-guards, gpu_backend/RemainderVersioning.h), assembled by `ptxas -v -arch=sm_90a` as the
# GPU worker assembles it (when the default level spills, -O1 too, kept when its stack frame is at most half the
# default's: the worker's compileWithFewestSpills), and its registers
# and spill-store bytes are compared with the ceilings of gpu_backend/tests/spill_ceilings.tsv: more spill bytes
# than the ceiling, or (for a kernel without spills) more registers, fail the check (a regression; ptxas may
# trade registers for spills, so a spilling kernel is judged by its spills alone); a kernel below its ceiling
# is reported, so the ceiling can be lowered. Triton's own
# numbers (triton_ptxas.tsv) are printed beside them.
# TENSOR_CORES=mma|wgmma (default wgmma) is passed as `--tensor-cores`; mma's ceilings are spill_ceilings.tsv,
# wgmma's spill_ceilings_wgmma.tsv (`auto` keeps mma.sync for the dot types whose wgmma path has not run on a GPU
# yet: lowering/DotWgmma.cpp wgmmaRanOnDevice).
#   gpu_backend/tests/spill_check.sh TILESIM [CEILINGS]       exit 0: all within; 1: a regression; 77: no ptxas
set -u
tilesim=${1:?usage: spill_check.sh TILESIM [CEILINGS]}
here=$(cd "$(dirname "$0")" && pwd)
tensor_cores=${TENSOR_CORES:-wgmma}
case $tensor_cores in mma) default_ceilings=$here/spill_ceilings.tsv ;; wgmma) default_ceilings=$here/spill_ceilings_wgmma.tsv ;;
  *) echo "TENSOR_CORES='$tensor_cores': expected mma or wgmma" >&2; exit 2 ;; esac
ceilings=${2:-$default_ceilings}
ttir_dir=$here/../../bench/gpu/ttir/matrix
command -v ptxas >/dev/null || { echo "SKIP: no ptxas on PATH"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
printf "%-32s %5s %14s %14s %8s %5s\n" kernel warps "registers" "spill bytes" "Triton" ptxas
assemble() { ptxas -v -arch=sm_90a "$@" "$work/k.ptx" -o /dev/null 2>&1; }
stack_of() { grep -oE "[0-9]+ bytes stack frame" <<<"$1" | grep -oE "^[0-9]+" | head -1; }
while read -r name warps max_registers max_spills; do
  case $name in ''|\#*) continue ;; esac
  stages=${name##*_s}  # the benchmark's num_stages, from the name (matmul_128x256x64_w8_s3)
  if ! "$tilesim" compile --profile triton --num-warps "$warps" --num-stages "$stages" --assume-remainder-guards --tensor-cores "$tensor_cores" --emit ptx \
      "$ttir_dir/$name.ttir" -o "$work/k.ptx" 2>"$work/err"; then
    echo "$name: tilesim could not compile it: $(head -c 300 "$work/err")"
    status=1
    continue
  fi
  report=$(assemble)
  level=-O3
  if [ "$(stack_of "$report")" -gt 0 ] 2>/dev/null; then
    retry=$(assemble -O1)
    if [ $((2 * $(stack_of "$retry"))) -le "$(stack_of "$report")" ] 2>/dev/null; then report=$retry; level=-O1; fi
  fi
  registers=$(grep -oE "Used [0-9]+ registers" <<<"$report" | grep -oE "[0-9]+")
  spills=$(grep -oE "[0-9]+ bytes spill stores" <<<"$report" | grep -oE "^[0-9]+")
  triton=$(awk -v n="$name" '$1 == n {print $3 "/" $4}' "$ttir_dir/triton_ptxas.tsv")
  verdict=ok
  if [ -z "$registers" ] || [ -z "$spills" ]; then
    verdict="FAIL (no ptxas report: $(head -c 200 <<<"$report"))"
  elif [ "$spills" -gt "$max_spills" ] || { [ "$max_spills" -eq 0 ] && [ "$registers" -gt "$max_registers" ]; }; then
    verdict="FAIL (ceiling $max_registers registers, $max_spills spill bytes)"
  elif [ "$registers" -lt "$max_registers" ] || [ "$spills" -lt "$max_spills" ]; then
    verdict="below the ceiling ($max_registers, $max_spills): lower it"
  fi
  [ "${verdict:0:4}" = FAIL ] && status=1
  printf "%-32s %5s %14s %14s %8s %5s  %s\n" "$name" "$warps" "$registers" "$spills" "$triton" "$level" "$verdict"
done <"$ceilings"
exit $status
