#!/usr/bin/env bash
# TTIR -> PTX compile latency of tilesim's GPU backend, in-process (`tilesim compile --time N`: the module is
# parsed once, then the whole pipeline — AxisInfo, layouts, lowering, LLVM O1, NVPTX codegen — runs N times
# and the median is printed). No GPU needed. Every kernel of conformance/golden, golden-extra, real-kernels
# that the backend compiles, at its case's num_warps, triton profile, and the bench/gpu kernels.
#   bash bench/gpu/compile_latency.sh TILESIM [RUNS]      (prints a Markdown table and a summary line)
set -u
tilesim=$1 runs=${2:-21}
root=$(cd "$(dirname "$0")/../.." && pwd)
medians=()
echo "| kernel | num_warps | TTIR -> PTX median ms | min ms |"
echo "|---|---|---|---|"
row() {  # NAME FILE WARPS
  local line
  line=$("$tilesim" compile "$2" --emit=ptx --profile triton --num-warps "$3" --time "$runs" -o /dev/null 2>&1) || return
  line=$(grep "compile-time" <<<"$line") || return
  local median=${line#*median_ms=} min=${line#*min_ms=}
  median=${median%% *} min=${min%% *}
  medians+=("$median")
  echo "| $1 | $3 | $median | $min |"
}
for dir in "$root"/conformance/golden/*/ "$root"/conformance/golden-extra/*/ "$root"/conformance/real-kernels/*/; do
  [ -f "$dir/case.json" ] || continue
  warps=$(sed -n 's/.*"num_warps": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
  name=${dir%/}; name=${name#"$root"/conformance/}
  row "$name" "$dir/kernel.ttir" "${warps:-4}"
done
golden=("${medians[@]}")
for spec in vadd_f32_2p28:4 softmax_f32_32768x4096:8 softmax_f32_4096x32768:16 layernorm_f16_16384x8192:8 \
            transpose_f32_8192x8192:4; do
  row "bench/gpu/${spec%%:*}" "$root/bench/gpu/ttir/${spec%%:*}.ttir" "${spec##*:}"
done
sorted=$(printf '%s\n' "${golden[@]}" | sort -g)
count=${#golden[@]}
echo
echo "conformance kernels compiled: $count; median of medians $(sed -n "$(( (count + 1) / 2 ))p" <<<"$sorted") ms;" \
     "max $(tail -1 <<<"$sorted") ms; over 50 ms: $(awk '$1 > 50' <<<"$sorted" | wc -l)"
