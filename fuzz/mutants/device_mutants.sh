#!/usr/bin/env bash
# The GPU half of the mutation score, one command on the GPU machine (docs/fuzzing.md, "Mutation score"): every
# gpu mutant of fuzz/mutants/Mutants.def fuzzed with `tilesim fuzz --engine gpu` for SECONDS, stopping at its first
# failure, then the liveness of the survivors (does the PTX of the conformance kernels or of 1,000 generated programs
# change). Builds nothing; run from the repository root with a static mutation build of tilesim
# (-DTILESIM_STATIC_TOOLS=ON -DTILESIM_MUTATION_TESTING=ON):
#   OUT=/some/dir fuzz/mutants/device_mutants.sh build-static-mut/tools/cli/tilesim [SECONDS [JOBS]]
# Defaults: 20 s a mutant, 8 jobs: 14 mutants + the unmutated build take at most ~5 minutes of campaigns when every
# mutant survives, plus the liveness compiles of the survivors (inside one 10-minute device command). The issue's
# bound is 120 s: run it as several commands, each with MUTANTS=id,id,... (a subset). Results: $OUT/mutation-gpu-*.txt / .json (the table), $OUT/nvidia-smi.txt.
# Exit: 0, 2 when the binary is not a mutation build, 4 when the GPU engine is unavailable.
set -u
tilesim=${1:-build-static-mut/tools/cli/tilesim}
seconds=${2:-20}
jobs=${3:-8}
out=${OUT:-/tmp/mutants-device}
mkdir -p "$out"
nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
export OMP_WAIT_POLICY=passive
# Seed 3: its unmutated campaign is clean for its first ~7,900 programs on an H100 (seed 1 fails at program 1544,
# a real disagreement: docs/fuzzing.md "GPU mutants"), so a kill within the bound is the mutant's.
python3 "$(dirname "$0")/mutation_score.py" --tilesim "$tilesim" --engine-set gpu --seconds "$seconds" --jobs "$jobs" --seed "${SEED:-3}" \
  --liveness-programs 1000 --results "$out" ${MUTANTS:+--only "$MUTANTS"}
