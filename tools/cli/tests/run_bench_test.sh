#!/usr/bin/env bash
# `tilesim bench --autotune` on the interpreter (wall times): tools/cli/tests/autotune holds tutorial 03's matmul
# in three configurations for one problem and two for another (make_autotune_cases.py, exact expected outputs).
# Checks: every case passes; one autotune line per problem, naming that problem's fastest case by the printed
# times; the --record JSON lists every case and both choices; a configuration whose output is wrong fails the
# run (exit 1) and is never chosen, even when it is the fastest.
#   run_bench_test.sh TILESIM PYTHON
set -u
tilesim=${1:?usage: run_bench_test.sh TILESIM PYTHON}
python=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The fastest case of each problem, by the table's wall_ms, as "problem-prefix case" lines.
fastest_by_table() {
  awk '$1 == "pass" { n = split($NF, p, "/"); key = substr(p[n], 1, 3); if (!(key in best) || $2 < best[key]) { best[key] = $2; name[key] = $NF } }
       END { for (k in name) print k, name[k] }' "$1" | sort
}
fastest_by_autotune() {
  sed -n 's/^autotune .*: fastest \([^ ]*\) (.*/\1/p' "$1" | awk '{ n = split($1, p, "/"); print substr(p[n], 1, 3), $1 }' | sort
}

"$tilesim" bench --autotune "$here/autotune" --record "$work/record.json" >"$work/out.txt" 2>&1
rc=$?
cat "$work/out.txt"
[ $rc -eq 0 ] || fail "bench exited $rc"
[ "$(grep -c '^pass ' "$work/out.txt")" -eq 5 ] || fail "expected 5 passing cases"
[ "$(grep -c '^autotune ' "$work/out.txt")" -eq 2 ] || fail "expected one autotune line per problem (2)"
[ "$(fastest_by_table "$work/out.txt")" = "$(fastest_by_autotune "$work/out.txt")" ] || fail "autotune did not pick the fastest"
"$python" - "$work/record.json" <<'PY' || fail "the --record JSON"
import json, sys
record = json.load(open(sys.argv[1]))
assert len(record["cases"]) == 5, record["cases"]
assert all(c["status"] == "pass" and c["median_ms"] > 0 for c in record["cases"])
assert len(record["autotune"]) == 2 and all(c["fastest"] for c in record["autotune"])
for choice in record["autotune"]:
    timings = [c["median_ms"] for c in record["cases"] if c["problem"] == choice["problem"]]
    assert choice["median_ms"] == min(timings), (choice, timings)
PY

# A wrong configuration: fails, is reported, and is not chosen, though it was the fastest.
cp -r "$here/autotune" "$work/cases"
# The problem's fastest configuration in the run above gets a wrong expected output.
wrong_name=$(fastest_by_table "$work/out.txt" | awk '$1 == "m64" { n = split($2, p, "/"); print p[n] }')
wrong=$work/cases/$wrong_name
"$python" - "$wrong/c_ptr.expected.npy" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[-2:] = b"\x00\x7c"
open(sys.argv[1], "wb").write(data)
PY
"$tilesim" bench --autotune "$work/cases" >"$work/wrong.txt" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a failing configuration: exit $rc, want 1"
grep -q "^FAIL .*$wrong_name" "$work/wrong.txt" || fail "the wrong configuration ($wrong_name) is not reported as FAIL"
grep "^autotune " "$work/wrong.txt" | grep -q "$wrong_name" && fail "the wrong configuration ($wrong_name) was chosen"

# Bad input: no case directories; an option out of range.
"$tilesim" bench "$work/nothing-here" >/dev/null 2>&1; [ $? -eq 2 ] || fail "a missing directory: want exit 2"
"$tilesim" bench --time 0 "$here/autotune" >/dev/null 2>&1; [ $? -eq 2 ] || fail "--time 0: want exit 2"
[ $failures -eq 0 ] && echo "bench test: all checks passed"
exit $((failures > 0))
