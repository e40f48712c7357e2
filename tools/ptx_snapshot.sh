#!/usr/bin/env bash
# Writes the GPU backend's PTX of every kernel the project holds — each conformance case's kernel.ttir at its
# case's num_warps, the fuzz regressions, bench/gpu/ttir and bench/interpreter/kernels — under both float
# profiles, one file per (kernel, profile): NAME.exact.ptx / NAME.triton.ptx, or NAME.PROFILE.err with the
# diagnostic when the backend does not compile it. No GPU needed. A refactoring of the backend or the IR is
# behaviour-preserving for the GPU path when two snapshots are identical:
#   bash tools/ptx_snapshot.sh build/tools/cli/tilesim /tmp/ptx-before    # on the old commit
#   bash tools/ptx_snapshot.sh build/tools/cli/tilesim /tmp/ptx-after     # on the new one
#   diff -r /tmp/ptx-before /tmp/ptx-after && echo identical
set -u
if [ $# -ne 2 ]; then echo "usage: $0 TILESIM OUTDIR" >&2; exit 2; fi
tilesim=$(realpath "$1") out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$tilesim" ] || { echo "$0: $1 is not an executable" >&2; exit 2; }
mkdir -p "$out"
cd "$root"  # kernels are named by their path in the repository (an assert's message holds it), not where it lies

kernels=()  # NAME|FILE|WARPS
while IFS= read -r file; do
  dir=$(dirname "$file") warps=4
  if [ -f "$dir/case.json" ]; then
    found=$(sed -n 's/.*"num_warps": *\([0-9]*\).*/\1/p' "$dir/case.json" | head -1)
    warps=${found:-4}
  fi
  name=${file%.ttir}
  kernels+=("${name//\//__}|$file|$warps")
done < <(find conformance bench/gpu/ttir bench/interpreter/kernels -name '*.ttir' -not -path '*/malformed/*' |
           LC_ALL=C sort)

count=0 compiled=0
for kernel in "${kernels[@]}"; do
  IFS='|' read -r name file warps <<<"$kernel"
  for profile in exact triton; do
    if "$tilesim" compile "$file" --emit=ptx --profile "$profile" --num-warps "$warps" -o "$out/$name.$profile.ptx" \
        2>"$out/$name.$profile.err"; then
      rm -f "$out/$name.$profile.err"; compiled=$((compiled + 1))
    else
      rm -f "$out/$name.$profile.ptx"
    fi
    count=$((count + 1))
  done
done
echo "ptx snapshot: $compiled of $count (kernel, profile) pairs compiled, written to $out"
