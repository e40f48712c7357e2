#!/usr/bin/env bash
# The GPU half of the mutation score, one command on the GPU machine (docs/fuzzing.md, "Mutation score"), sized
# to about 6 minutes of device time. Builds nothing; run from the repository root with a static mutation build of
# tilesim (-DTILESIM_STATIC_TOOLS=ON -DTILESIM_MUTATION_TESTING=ON):
#   OUT=/some/dir bash fuzz/mutants/device_mutants.sh bin/tilesim [PROGRAMS [JOBS]]
# 1. The cases of fuzz/mutants/cases/<mutant id>/ (hand-written kernels for the mutants generated programs used
#    to miss): each must pass on the unmutated build and fail under its mutant (`tilesim conformance --engine gpu`).
# 2. Replays of the open H100 mismatch e3712160 (bf16 math.absf of a NaN; fixed in gpu_backend/NvptxWorkarounds.h)
#    and of the half-precision sign-op case: both must pass on the GPU engine.
# 3. mutation_score.py on every gpu mutant of Mutants.def: the unmutated build's campaign of PROGRAMS programs
#    (default 4000, seed 3, JOBS jobs, default 8) first, then each mutant on the same programs, stopping once it
#    fails a program the unmutated build passes (a shared failure decides nothing); survivors' liveness from the
#    PTX of the conformance kernels and 300 generated programs. Each campaign is bounded by programs (about 16 s
#    on an H100 at 8 jobs when nothing fails: 7,800 programs took 30.9 s on 2026-12-06), the whole step by
#    `timeout 300`.
# Results in $OUT: device_mutants.txt (everything printed), mutation-gpu-*.txt/.json (the table), nvidia-smi.txt.
# Exit: 0 when every check above held, 1 when one did not, 2 when the binary is not a mutation build, 4 without
# a GPU engine.
set -u
tilesim=$(realpath "${1:-bin/tilesim}")
programs=${2:-4000}
jobs=${3:-8}
out=${OUT:-/tmp/mutants-device}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$out"
log=$out/device_mutants.txt
: >"$log"
say() { echo "$*" | tee -a "$log"; }
nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
export OMP_WAIT_POLICY=passive
# A fresh kernel cache: the cache key carries the mutant (ir/MutantTag.h), but nothing from another build may count.
TILESIM_CACHE_DIR=$(mktemp -d)
export TILESIM_CACHE_DIR
status=0
say "device_mutants: $tilesim, $programs programs a campaign, --jobs $jobs, $(date -u +%FT%TZ); $(head -1 "$out/nvidia-smi.txt")"
if ! TILESIM_MUTANT=gpu_align8_as_16 "$tilesim" --help >/dev/null 2>&1; then
  say "error: $tilesim is not a mutation build (configure with -DTILESIM_MUTATION_TESTING=ON)"
  exit 2
fi

# 1. The hand-written cases: the unmutated build passes each, its mutant fails it.
say "== 1. hand-written cases (fuzz/mutants/cases), tilesim conformance CASE --engine gpu"
for dir in "$here"/cases/*/; do
  mutant=$(basename "$dir")
  timeout 120 "$tilesim" conformance "$dir" --engine gpu >"$out/case-plain.log" 2>&1
  plain=$?
  if [ "$plain" -eq 4 ]; then say "no GPU engine here:"; cat "$out/case-plain.log" | tee -a "$log"; exit 4; fi
  TILESIM_MUTANT=$mutant timeout 120 "$tilesim" conformance "$dir" --engine gpu >"$out/case-mutant.log" 2>&1
  mutated=$?
  verdict="ok"
  if [ "$plain" -ne 0 ] || [ "$mutated" -eq 0 ]; then verdict="UNEXPECTED"; status=1; fi
  say "  $mutant: unmutated exit $plain (want 0), mutant exit $mutated (want 1): $verdict"
  grep -m2 -E "FAIL|ERROR|faulted|got " "$out/case-mutant.log" | cut -c1-300 | sed 's/^/      mutant: /' | tee -a "$log"
  [ "$plain" -ne 0 ] && grep -m3 -E "FAIL|ERROR|got " "$out/case-plain.log" | cut -c1-300 | sed 's/^/      unmutated: /' | tee -a "$log"
done
rm -f "$out/case-plain.log" "$out/case-mutant.log"

# 2. The open mismatch e3712160 and the sign-op case, on the unmutated build.
say "== 2. replays on the GPU engine (unmutated)"
for case in fuzz/results/gpu-open-2026-12-06/fuzz_gpu_target-mismatch_e3712160 \
            conformance/regressions/gpu_absf_bf16_nan_payload conformance/regressions/gpu_half_sign_ops_nan_payload; do
  timeout 120 "$tilesim" run "$root/$case" --engine gpu >"$out/replay.log" 2>&1
  rc=$?
  [ "$rc" -ne 0 ] && status=1
  say "  $(basename "$case"): exit $rc (want 0): $(grep -m1 -E '^(PASS|FAIL|ERROR)' "$out/replay.log" | cut -c1-250)"
  [ "$rc" -ne 0 ] && grep -m4 "got " "$out/replay.log" | sed 's/^/      /' | tee -a "$log"
done
rm -f "$out/replay.log"

# 3. The score.
say "== 3. mutation_score.py --engine-set gpu --programs $programs --jobs $jobs --seed 3"
# At most 5 minutes: past it the mutants already judged are in the log (printed as they finish), the table is not.
timeout 300 python3 "$here/mutation_score.py" --tilesim "$tilesim" --engine-set gpu --programs "$programs" --jobs "$jobs" \
  --seed "${SEED:-3}" --liveness-programs 300 --results "$out" ${MUTANTS:+--only "$MUTANTS"} 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" -ne 0 ] && status=1
say "device_mutants: exit $status, $(date -u +%FT%TZ)"
exit $status
