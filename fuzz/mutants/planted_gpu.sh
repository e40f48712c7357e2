#!/bin/bash
# The GPU plants of issue 20's table, found and replayed (docs/fuzzing.md, "Mutation score"), on a GPU machine
# with a static mutation build:  bash fuzz/mutants/planted_gpu.sh bin/tilesim OUTDIR
# Per plant: a campaign of at most 120 s under its mutant that stops at the first failure and shrinks it
# (cases in OUTDIR/<mutant>/cases), then each shrunk case run on the GPU engine with the mutant (must fail) and
# without it (must pass). Prints one block per plant.
set -u
T=${1:?usage: planted_gpu.sh TILESIM OUTDIR}; OUTD=${2:?usage: planted_gpu.sh TILESIM OUTDIR}; mkdir -p "$OUTD"
export TILESIM_CACHE_DIR=$(mktemp -d)
for m in gpu_store_mask_lt_as_le gpu_align8_as_16 gpu_uitofp_i8_bf16_sext; do
  d=$OUTD/$m; mkdir -p $d
  start=$(date +%s.%N)
  TILESIM_MUTANT=$m timeout 170 $T fuzz --engine gpu --seconds 120 --jobs 8 --seed 3 --max-failures 1 --regressions $d/cases --quiet > $d/campaign.txt 2>&1
  rc=$?; end=$(date +%s.%N)
  echo "== $m: campaign exit $rc, $(python3 -c "print(round($end-$start,1))") s"; grep -E "programs|failed|found|shrunk" $d/campaign.txt | head -4
  for c in $d/cases/*/; do
    [ -d "$c" ] || continue
    TILESIM_MUTANT=$m timeout 60 $T run $c --engine gpu --quiet > $d/replay-mutant.txt 2>&1; a=$?
    timeout 60 $T run $c --engine gpu --quiet > $d/replay-plain.txt 2>&1; b=$?
    echo "   case $(basename $c): ops $(grep -c ' = ' $c/kernel.ttir), replay with mutant exit $a (want 1), without exit $b (want 0)"
    head -c 400 $d/replay-mutant.txt | sed 's/^/      /'; echo
  done
done
