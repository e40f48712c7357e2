#!/usr/bin/env bash
# Cases that replay as found, through the command line (docs/fuzzing.md "Failures become regression cases"):
#   cases/exact_last_bit records "profile": "exact" and expects quotients whose last bit is flipped (inside the
#     triton bound of arith.divf): `tilesim run` with no flag must judge it under exact and fail; --profile triton
#     overrides and passes; `tilesim conformance` follows the record too;
#   cases/oracle_reports_undefined records the oracle's undefined-value report for the interpreter only: it passes
#     on the interpreter; without expect_reports (as the fuzzer wrote cases before) it fails, and with the entry
#     limited to another engine ("engines": ["gpu"]) the interpreter is expected to report nothing, so it fails.
#   replay_cli.sh TILESIM SCRATCH_DIR
set -u
tilesim=$1
scratch=$2
cases=$(cd "$(dirname "$0")" && pwd)/cases
rm -rf "$scratch"; mkdir -p "$scratch"
failures=0
check() {  # check WANTED_EXIT PATTERN -- COMMAND...
  local wanted=$1 pattern=$2; shift 3
  "$@" >"$scratch/out.txt" 2>&1
  local rc=$?
  if [ "$rc" -ne "$wanted" ] || ! grep -q -- "$pattern" "$scratch/out.txt"; then
    echo "FAIL: $* exited $rc (wanted $wanted), pattern '$pattern':"; cat "$scratch/out.txt"; failures=$((failures + 1))
  else
    echo "ok: $* (exit $rc)"
  fi
}
check 1 "exact profile as the case records; --profile overrides" -- "$tilesim" run "$cases/exact_last_bit"
check 0 "^PASS$" -- "$tilesim" run "$cases/exact_last_bit" --profile triton
check 1 "0 passed" -- "$tilesim" conformance "$cases/exact_last_bit"
check 0 "1 passed" -- "$tilesim" conformance "$cases/exact_last_bit" --profile triton
check 0 "the planted bug reported" -- "$tilesim" run "$cases/oracle_reports_undefined"
cp -r "$cases/oracle_reports_undefined" "$scratch/without"
edit() { python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(c, open(sys.argv[1], "w"))' "$@"; }
edit "$scratch/without/case.json" 'del c["expect_reports"]'
check 1 "undefined-value" -- "$tilesim" run "$scratch/without"
cp -r "$cases/oracle_reports_undefined" "$scratch/gpu_only"
edit "$scratch/gpu_only/case.json" 'c["expect_reports"][0]["engines"] = ["gpu"]'
check 1 "undefined-value" -- "$tilesim" run "$scratch/gpu_only"
exit $((failures > 0))
