#!/usr/bin/env bash
# TTIR -> PTX compile latency of tilesim's GPU backend, in-process (`tilesim compile --time N`: the module is
# parsed once, then the whole pipeline — AxisInfo, layouts, lowering, LLVM O1, NVPTX codegen — runs N times
# and the median is printed, with each stage's). No GPU needed. Every kernel of the suites tagged `triton-core` in
# conformance/suites.txt (golden, golden-extra, real-kernels) that the backend compiles, at its case's num_warps,
# triton profile, and the bench/gpu kernels.
#   bash bench/gpu/compile_latency.sh TILESIM [ROUNDS]     (prints a Markdown table and a summary line)
#   taskset -c 5 bash bench/gpu/compile_latency.sh ...     (one core: no migrations, what docs/performance.md reports)
# The kernels are measured in ROUNDS rounds (default 7), each round one process per kernel compiling it 3
# times, so that a slow spell of a shared host falls on every kernel alike instead of on the few measured
# during it; a kernel's number is the median of its rounds' medians (and the minimum of all its compiles).
set -u
tilesim=$1 rounds=${2:-7}
root=$(cd "$(dirname "$0")/../.." && pwd)
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT

kernels=()  # NAME|FILE|WARPS
source "$root/tools/conformance_suites.sh"
mapfile -t case_dirs < <(suite_case_dirs triton-core "$root")
for dir in "${case_dirs[@]}"; do
  [ -f "$dir/case.json" ] || continue
  warps=$(sed -n 's/.*"num_warps": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
  name=${dir%/}; name=${name#"$root"/conformance/}
  kernels+=("$name|$dir/kernel.ttir|${warps:-4}")
done
for spec in vadd_f32_2p28:4 softmax_f32_32768x4096:8 softmax_f32_4096x32768:16 layernorm_f16_16384x8192:8 \
            transpose_f32_8192x8192:4; do
  kernels+=("bench/gpu/${spec%%:*}|$root/bench/gpu/ttir/${spec%%:*}.ttir|${spec##*:}")
done

for ((round = 0; round < rounds; ++round)); do
  for kernel in "${kernels[@]}"; do
    IFS='|' read -r name file warps <<<"$kernel"
    line=$("$tilesim" compile "$file" --emit=ptx --profile triton --num-warps "$warps" --time 3 -o /dev/null 2>&1) || continue
    line=$(grep "compile-time" <<<"$line") || continue
    median=${line#*median_ms=} min=${line#*min_ms=} optimiser=${line#*optimiser } codegen=${line#*codegen }
    echo "$name $warps ${median%% *} ${min%% *} ${optimiser%%,*} ${codegen%%)*}" >>"$samples"
  done
done

# One row per kernel, in the order above: medians over the rounds, the minimum over every compile.
python3 - "$samples" "${kernels[@]}" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, warps, median, low, optimiser, codegen = line.split()
    row = rows.setdefault(name, {"warps": warps, "median": [], "min": [], "optimiser": [], "codegen": []})
    for key, value in (("median", median), ("min", low), ("optimiser", optimiser), ("codegen", codegen)):
        row[key].append(float(value))
print("| kernel | num_warps | TTIR -> PTX median ms | min ms | LLVM optimiser median ms | NVPTX codegen median ms |")
print("|---|---|---|---|---|---|")
conformance = []
for spec in sys.argv[2:]:
    name = spec.split("|")[0]
    if name not in rows:
        continue
    row = rows[name]
    median = statistics.median(row["median"])
    if not name.startswith("bench/"):
        conformance.append(median)
    print(f"| {name} | {row['warps']} | {median:.2f} | {min(row['min']):.2f} | "
          f"{statistics.median(row['optimiser']):.2f} | {statistics.median(row['codegen']):.2f} |")
conformance.sort()
golden_over = [n for n in rows if n.startswith("golden/") and statistics.median(rows[n]["median"]) > 50]
print()
print(f"conformance kernels compiled: {len(conformance)}; median of medians "
      f"{conformance[(len(conformance) - 1) // 2]:.2f} ms; max {conformance[-1]:.2f} ms; "
      f"over 50 ms: {sum(m > 50 for m in conformance)} (golden over 50 ms: {len(golden_over)}"
      f"{': ' + ', '.join(golden_over) if golden_over else ''})")
EOF
