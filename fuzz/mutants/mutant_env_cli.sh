#!/usr/bin/env bash
# TILESIM_MUTANT is never silently ignored (ir/Mutation.h): in a normal build any value stops `tilesim` with exit 2;
# in a mutation build an unknown id stops it with exit 2 and the list of known ids, and a known one runs.
#   mutant_env_cli.sh TILESIM normal|mutation
set -uo pipefail
tilesim=$1 build=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$(TILESIM_MUTANT=no_such_mutant "$tilesim" --help 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "TILESIM_MUTANT=no_such_mutant: exit $rc, expected 2"
if [ "$build" = normal ]; then
  grep -q "this build has no mutants" <<<"$out" || fail "no explanation: $out"
else
  grep -q "names no mutant" <<<"$out" || fail "no explanation: $out"
  grep -q "interp_cmpi_ult_i8_signed" <<<"$out" || fail "the known ids are not listed: $out"
  TILESIM_MUTANT=interp_cmpi_ult_i8_signed "$tilesim" --help >/dev/null 2>&1 || fail "a known id is refused"
fi
TILESIM_MUTANT= "$tilesim" --help >/dev/null 2>&1 || fail "an empty TILESIM_MUTANT is refused"
"$tilesim" --help >/dev/null 2>&1 || fail "tilesim --help fails without TILESIM_MUTANT"
echo "ok: TILESIM_MUTANT checked at startup ($build build)"
