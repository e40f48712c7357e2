#!/usr/bin/env bash
# The hand-written kernels that kill the GPU mutants the generated programs did not (fuzz/mutants/cases/<mutant id>/,
# docs/fuzzing.md "Mutation score"): in a mutation build, each case's PTX must change when its mutant is active
# (the mutant is reached), and the unmutated build must pass the case in the interpreter. What the change does on
# a GPU (a misaligned or illegal address, elements read from the wrong place) is checked by device_mutants.sh.
#   fuzz/mutants/mutant_cases_ptx.sh TILESIM    (ctest mutant_cases_ptx, mutation builds only)
set -u
tilesim=${1:?usage: mutant_cases_ptx.sh TILESIM}
cases=$(dirname "$0")/cases
status=0
"$tilesim" conformance "$cases" >/dev/null || { echo "FAIL: the interpreter does not pass $cases"; status=1; }
for dir in "$cases"/*/; do
  mutant=$(basename "$dir")
  warps=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['num_warps'])" "$dir/case.json")
  plain=$("$tilesim" compile "$dir/kernel.ttir" --emit ptx --num-warps "$warps") || { echo "FAIL: $mutant: no PTX"; status=1; continue; }
  mutated=$(TILESIM_MUTANT=$mutant "$tilesim" compile "$dir/kernel.ttir" --emit ptx --num-warps "$warps") ||
    { echo "FAIL: $mutant: no PTX under the mutant (or not a mutation build)"; status=1; continue; }
  if [ "$plain" = "$mutated" ]; then
    echo "FAIL: $mutant does not change the PTX of its case"; status=1
  else
    echo "ok: $mutant changes the PTX of its case ($(diff <(echo "$plain") <(echo "$mutated") | grep -c '^>') lines)"
  fi
done
exit $status
