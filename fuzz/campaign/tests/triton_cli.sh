#!/usr/bin/env bash
# `tilesim fuzz --engine triton` through the command line (fuzz/campaign/TritonTarget.h): real Triton 3.6's TTIR
# passes and make_ttgir on 500 generated programs, the optimised TTIR against the original in the interpreter.
#  1. the campaign: 500 programs, none failed (the known Triton bugs T3/T8 are skipped and counted), the Triton
#     checks ran on most of them;
#  2. a planted optimiser bug (the worker's TILESIM_TRITON_PLANT swaps arith.maxsi for arith.minsi in Triton's
#     output) is found as triton-opt-mismatch, shrunk, and written with Triton's optimised TTIR beside the case;
#  3. a worker that aborts is a triton-crash finding and the campaign goes on with a new worker;
#  4. --triton-run gpu end to end, with the interpreter standing in for the GPU (TILESIM_TRITON_LAUNCHER=tilesim);
# and 2 shards of a smaller campaign merge into the unsharded one (digest, counts, the Triton checks).
# Exit 4 (ctest: skipped) when no Python here imports triton (TILESIM_PYTHON, .venv, .venv-peer, python3).
#   triton_cli.sh TILESIM WORKDIR [COUNT]     (COUNT: programs of the main campaign, default 500; the sanitizer
#                                              build of tools/test runs fewer)
set -uo pipefail
tilesim=$1
work=$2
count=${3:-500}
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
field() { sed -n "s/^ *\"$2\": \([0-9]*\),\$/\1/p" "$1" | head -1; }

"$tilesim" fuzz --engine triton --count "$count" --seed 1 --jobs 2 --quiet --regressions "$work/r" \
  --json "$work/campaign.json" >"$work/campaign.txt" 2>&1
status=$?
if [ $status -eq 4 ]; then cat "$work/campaign.txt"; exit 4; fi
head -4 "$work/campaign.txt"
[ $status -eq 0 ] || { cat "$work/campaign.txt"; fail "the campaign exited $status (findings above)"; }
[ "$(field "$work/campaign.json" programs)" = "$count" ] ||
  fail "programs: $(field "$work/campaign.json" programs), expected $count"
[ "$(field "$work/campaign.json" failed)" = 0 ] || fail "failed: $(field "$work/campaign.json" failed)"
grep -q '"target": "triton"' "$work/campaign.json" || fail "the summary's target is not triton"
# The Triton checks ran on most programs (500 of seed 1 on 2026-12-06: triton-ttir 500, triton-compare 451,
# triton-ttgir 417; the others are T3/T8 and programs with undefined behaviour). Percent of the programs:
for check in triton-ttir:90 triton-compare:70 triton-ttgir:60; do
  n=$(field "$work/campaign.json" "${check%%:*}")
  least=$((count * ${check##*:} / 100))
  [ -n "$n" ] && [ "$n" -ge "$least" ] || fail "check ${check%%:*} ran on ${n:-0} programs, expected >= $least"
done

# Shards merge into the unsharded campaign, the Triton checks included (60 programs of seed 5, 2 shards).
"$tilesim" fuzz --engine triton --count 60 --seed 5 --jobs 2 --quiet --regressions "$work/r" --json "$work/whole.json" \
  >/dev/null 2>&1 || fail "the 60-program campaign failed"
for i in 0 1; do
  "$tilesim" fuzz --engine triton --count 60 --seed 5 --shard $i/2 --quiet --regressions "$work/r" \
    --json "$work/shard$i.json" >/dev/null 2>&1 || fail "shard $i/2 failed"
done
"$tilesim" fuzz --merge "$work/shard0.json" "$work/shard1.json" --json "$work/merged.json" >/dev/null || fail "--merge"
for key in programs passed skipped digest triton-ttir triton-ttgir triton-compare; do
  a=$(sed -n "s/^ *\"$key\": \([^,]*\),\?\$/\1/p" "$work/whole.json" | head -1)
  b=$(sed -n "s/^ *\"$key\": \([^,]*\),\?\$/\1/p" "$work/merged.json" | head -1)
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "$key: unsharded '$a', 2 shards merged '$b'"
done

# 2. A planted optimiser bug: found, shrunk, written with the optimised TTIR.
# (Seed 1's program 61 has an arith.maxsi whose result reaches memory and differs under arith.minsi; the
# generator of 2026-12-06 made it so: programs 26, 32 and 36 were the ones before.)
TILESIM_TRITON_PLANT=mismatch:arith.maxsi:arith.minsi "$tilesim" fuzz --engine triton --first 60 --count 70 --seed 1 --quiet \
  --regressions "$work/planted" --json "$work/planted.json" >"$work/planted.txt" 2>&1
status=$?
[ $status -eq 1 ] || { cat "$work/planted.txt"; fail "the planted mismatch campaign exited $status, expected 1"; }
case_dir=$(ls -d "$work"/planted/fuzz_triton_triton-opt-mismatch_* 2>/dev/null | head -1)
[ -n "$case_dir" ] || fail "no triton-opt-mismatch case written for the planted bug"
grep -q "arith.minsi" "$case_dir/triton-optimised.ttir" || fail "$case_dir/triton-optimised.ttir lacks the planted op"
ops=$(grep -c " = " "$case_dir/kernel.ttir")
[ "$ops" -le 30 ] || fail "the planted mismatch shrank to $ops ops only"
"$tilesim" run "$case_dir" >/dev/null || fail "the shrunk case does not replay on tilesim: $case_dir"

# 3. Triton aborting: a finding, and the next program gets a new worker (seed 1's program 25 has a tt.histogram).
TILESIM_TRITON_PLANT=abort:tt.histogram "$tilesim" fuzz --engine triton --count 30 --seed 1 --quiet --no-shrink \
  --regressions "$work/abort" --json "$work/abort.json" >"$work/abort.txt" 2>&1
status=$?
[ $status -eq 1 ] || { cat "$work/abort.txt"; fail "the planted abort campaign exited $status, expected 1"; }
grep -q "signal 6" "$work/abort.txt" || fail "the abort is not reported as signal 6"
[ "$(field "$work/abort.json" programs)" = 30 ] || fail "the campaign did not go on after the abort"
# 4. --triton-run gpu with the interpreter standing in for the GPU (the compile to a cubin is Triton's, for real):
# the case written per program, Triton's compile, the launch request and the outputs read back all work.
TILESIM_TRITON_LAUNCHER=tilesim "$tilesim" fuzz --engine triton --triton-run gpu --count 12 --seed 1 --jobs 2 \
  --quiet --no-shrink --regressions "$work/gpu" --json "$work/gpu.json" >"$work/gpu.txt" 2>&1
status=$?
[ $status -eq 0 ] || { cat "$work/gpu.txt"; fail "--triton-run gpu (stand-in launcher) exited $status"; }
launched=$(field "$work/gpu.json" triton-launch)
[ -n "$launched" ] && [ "$launched" -ge 5 ] || fail "--triton-run gpu launched ${launched:-0} of 12 programs"

echo "ok: $count programs, no findings; a planted mismatch shrank to $ops ops; an abort cost one program;" \
     "--triton-run gpu launched $launched of 12 (stand-in launcher)"
