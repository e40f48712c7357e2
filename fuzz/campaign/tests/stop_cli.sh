#!/usr/bin/env bash
# `tilesim fuzz` stopped by SIGTERM (what `timeout` and batch systems send) still prints and writes its summary of
# the programs that finished, within seconds, and exits 0 when none of them failed.
#   stop_cli.sh TILESIM WORKDIR
set -uo pipefail
tilesim=$1
work=$2
rm -rf "$work" && mkdir -p "$work"
start=$(date +%s)
"$tilesim" fuzz --seconds 600 --seed 5 --jobs 2 --quiet --regressions "$work/r" --json "$work/summary.json" \
  >"$work/summary.txt" 2>&1 &
pid=$!
sleep 4
kill -TERM $pid
wait $pid
rc=$?
took=$(( $(date +%s) - start ))
programs=$(sed -n 's/^ "programs": \(.*\),$/\1/p' "$work/summary.json" 2>/dev/null)
echo "exit $rc after ${took} s; summary: $(head -1 "$work/summary.txt")"
if [ "$took" -gt 40 ]; then echo "FAIL: took ${took} s to stop"; exit 1; fi
if [ -z "$programs" ] || [ "$programs" -le 0 ]; then echo "FAIL: no JSON summary with programs"; exit 1; fi
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then echo "FAIL: exit $rc"; exit 1; fi
echo "ok: stopped by SIGTERM with a summary of $programs programs"
