#!/usr/bin/env bash
# FileCheck tests of `tilesim compile --emit=...`: FILE.ttir carries its checks in comments, one prefix per stage:
#   // LAYOUT: (--emit=layout)  // LLVM: (--emit=llvm)  // OPT: (--emit=llvm-opt)  // PTX: (--emit=ptx)
#   // TRITON: (--emit=ptx --profile triton);  // MMA: (the same with --tensor-cores mma: mma.sync on sm_90a too)
#   // NUM-WARPS: N sets --num-warps.
# Exit 4 (skipped) when FileCheck (Debian's llvm-19-tools) is not installed.
#   filecheck.sh TILESIM FILECHECK FILE
set -u
tilesim=$1 filecheck=$2 file=$3
[ -x "$filecheck" ] || { echo "skipped: FileCheck not found at $filecheck (install llvm-19-tools)"; exit 4; }
warps=$(sed -n 's|^// NUM-WARPS: *||p' "$file" | head -1)
ran=0
for spec in LAYOUT:layout:exact:auto LLVM:llvm:exact:auto OPT:llvm-opt:exact:auto PTX:ptx:exact:auto \
    TRITON:ptx:triton:auto MMA:ptx:triton:mma; do
  prefix=${spec%%:*} rest=${spec#*:}
  emit=${rest%%:*} rest=${rest#*:}
  profile=${rest%%:*} tensor_cores=${rest#*:}
  grep -qE "^// $prefix(-NOT|-NEXT|-SAME|-DAG)?:" "$file" || continue
  set -o pipefail
  "$tilesim" compile "$file" --emit="$emit" --profile="$profile" --tensor-cores "$tensor_cores" --num-warps "${warps:-4}" |
    "$filecheck" "$file" --check-prefix="$prefix" || { echo "FAIL: $prefix checks of $file"; exit 1; }
  ran=$((ran + 1))
done
[ $ran -gt 0 ] || { echo "no checks in $file"; exit 1; }
echo "$ran stage(s) checked"
