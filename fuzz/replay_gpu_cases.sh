#!/usr/bin/env bash
# Replays fuzz cases (directories with case.json, as the fuzz RegressionWriter writes them) on the GPU engine and
# prints one line per case: agree (bit for bit with the interpreter, `tilesim diff --engine gpu`, under the
# profile the case's "fuzz" block names; the triton profile reduces in the GPU's order), disagree (the first
# differing buffer), skipped (no GPU) or error. Then the NaN probe (fuzz/replay/nan_probe.ttir) on the GPU and on
# the interpreter, as hex. Then real Triton 3.6 on the two ptxas cases of docs/findings.md G2/G3
# (conformance/triton/fuzz_triton_gpu.py: Triton's own PTX has the same neg.s16 / abs.s16, and its ptxas 12.8
# the same SASS, so Triton is expected to disagree on the i16 cases). Results go to $OUT (default ./replay-out):
# replay_gpu_cases.txt, one log per case, triton/summary.txt.
#   OUT=$OUT bash fuzz/replay_gpu_cases.sh TILESIM DIR_OR_TGZ [DIR_OR_TGZ ...]
# A DIR is a case directory or a directory of them; a .tgz is unpacked under $OUT/cases first.
set -u
tilesim=$1; shift
out=${OUT:-replay-out}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/logs" "$out/cases"
report=$out/replay_gpu_cases.txt
: > "$report"
say() { echo "$*" | tee -a "$report"; }
cases=()
for target in "$@"; do
  if [[ $target == *.tgz || $target == *.tar.gz ]]; then
    tar -xzf "$target" -C "$out/cases" || { say "error: cannot unpack $target"; continue; }
    target=$out/cases
  fi
  if [ -f "$target/case.json" ]; then cases+=("$target"); continue; fi
  for d in "$target"/*/; do [ -f "$d/case.json" ] && cases+=("${d%/}"); done
done
agree=0 disagree=0 skipped=0 errors=0
say "replaying ${#cases[@]} cases with $tilesim ($(date -u +%FT%TZ))"
for case in "${cases[@]}"; do
  name=$(basename "$case")
  profile=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("fuzz", {}).get("profile", "exact"))' \
            "$case/case.json" 2>/dev/null || echo exact)
  log=$out/logs/$name.txt
  start=$(date +%s.%N)
  timeout 120 "$tilesim" diff "$case" --engine gpu --profile "$profile" > "$log" 2>&1
  rc=$?
  secs=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")
  case $rc in
    0) verdict=agree; agree=$((agree + 1)); detail="" ;;
    1) verdict=disagree; disagree=$((disagree + 1)); detail=$(grep -m1 -E ' differ|could not run|error' "$log") ;;
    4) verdict=skipped; skipped=$((skipped + 1)); detail=$(head -1 "$log") ;;
    *) verdict="error(rc=$rc)"; errors=$((errors + 1)); detail=$(head -1 "$log") ;;
  esac
  say "$(printf '%-44s %-7s %-12s %6ss  %s' "$name" "$profile" "$verdict" "$secs" "$detail")"
done
say "summary: ${#cases[@]} cases: agree $agree, disagree $disagree, skipped $skipped, errors $errors"

# The NaN probe: GPU engine, then the interpreter (exact profile).
probe=$out/nan_probe
mkdir -p "$probe/in" "$probe/gpu" "$probe/interp"
if python3 "$here/replay/nan_probe.py" "$probe/in" 2>>"$report"; then
  args=()
  for n in x y h b f o_mul o_div o_sub o_sqrt o_h32 o_h64 o_b64 o_f64; do args+=(--arg "$n=$probe/in/$n.npy"); done
  for engine in gpu interp; do
    if timeout 120 "$tilesim" run "$here/replay/nan_probe.ttir" --engine "$engine" --grid 1 --num-warps 1 "${args[@]}" \
         --out "$probe/$engine" --quiet > "$probe/$engine.log" 2>&1; then
      say "nan_probe on $engine:"
      python3 "$here/replay/nan_probe.py" --show "$probe/$engine" | tee -a "$report"
    else
      say "nan_probe on $engine: failed (rc=$?): $(tail -1 "$probe/$engine.log")"
    fi
  done
else
  say "nan_probe: cannot write its inputs (python3 with numpy needed)"
fi
# Real Triton on the ptxas cases (needs python3 with triton 3.6 and torch; a few seconds of compiling).
repo=$(cd "$here/.." && pwd)
tcases=$out/triton-cases
mkdir -p "$tcases"
for c in gpu_i16_neg_wrap_sext gpu_i16_abs_wrap_sext gpu_f16_high_half_after_loop; do
  [ -d "$repo/conformance/regressions/$c" ] && cp -r "$repo/conformance/regressions/$c" "$tcases/"
done
if timeout 240 python3 "$repo/conformance/triton/fuzz_triton_gpu.py" --tilesim "$tilesim" --out "$out/triton" \
     --seconds 180 --jobs 4 "$tcases" > "$out/triton.log" 2>&1; then
  say "triton on the ptxas cases: all agree with the interpreter"
else
  say "triton on the ptxas cases (rc=$?):"
fi
grep -E "compiled|agreed|disagree" "$out/triton.log" | tee -a "$report"
[ $disagree -eq 0 ] && [ $errors -eq 0 ]
