#!/usr/bin/env bash
# `tilesim fuzz --shard I/N` through the command line: N shards of a campaign, merged with --merge, give the same
# programs, results and op counts (the digest and the counts in the summary) as the unsharded campaign.
#   shards_cli.sh TILESIM WORKDIR
set -euo pipefail
tilesim=$1
work=$2
rm -rf "$work" && mkdir -p "$work"
count=120
"$tilesim" fuzz --count $count --seed 42 --jobs 2 --quiet --regressions "$work/r" --json "$work/whole.json" >/dev/null
for i in 0 1 2; do
  "$tilesim" fuzz --count $count --seed 42 --shard $i/3 --quiet --regressions "$work/r" --json "$work/s$i.json" >/dev/null
done
"$tilesim" fuzz --merge "$work/s0.json" "$work/s1.json" "$work/s2.json" --json "$work/merged.json" >/dev/null
field() { sed -n "s/^ \"$2\": \(.*\),\$/\1/p" "$1"; }
for key in programs passed failed skipped digest; do
  a=$(field "$work/whole.json" $key) b=$(field "$work/merged.json" $key)
  if [ "$a" != "$b" ]; then echo "FAIL: $key: unsharded $a, 3 shards merged $b"; exit 1; fi
done
# The op and feature counts too (everything between "ops" and "skips").
extract() { sed -n '/^ "ops": {/,/^ "skips"/p' "$1"; }
if ! diff <(extract "$work/whole.json") <(extract "$work/merged.json") >/dev/null; then
  echo "FAIL: op/feature counts differ"; diff <(extract "$work/whole.json") <(extract "$work/merged.json") | head; exit 1
fi
echo "ok: 3 shards of $count programs = the unsharded campaign (digest $(field "$work/whole.json" digest))"
