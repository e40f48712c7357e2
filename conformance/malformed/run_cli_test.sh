#!/usr/bin/env bash
# Runs `tilesim check FILE` on every malformed .ttir file and checks what a user sees: a non-zero exit and
# exactly one `FILE:LINE:COL: error: ...` line on stderr, at the line:col that expected.txt gives.
# Usage: run_cli_test.sh path/to/tilesim [directory]
set -u
tilesim=${1:?usage: run_cli_test.sh path/to/tilesim [directory]}
directory=${2:-$(dirname "$0")}
failures=0
count=0
while IFS= read -r row; do
  case "$row" in ''|'#'*) continue ;; esac
  file=${row%%: *}
  rest=${row#*: }
  linecol=${rest%%: *}
  path="$directory/$file"
  count=$((count + 1))
  stderr=$("$tilesim" check "$path" 2>&1 >/dev/null)
  status=$?
  lines=$(printf '%s\n' "$stderr" | grep -c .)
  if [ "$status" -eq 0 ] || [ "$status" -ge 128 ]; then
    echo "FAIL $file: exit status $status (want 1, no crash)"; failures=$((failures + 1)); continue
  fi
  if [ "$lines" -ne 1 ]; then
    echo "FAIL $file: $lines lines on stderr (want 1):"; printf '%s\n' "$stderr"; failures=$((failures + 1)); continue
  fi
  case "$stderr" in
    "$path:$linecol: error: "?*) ;;
    *) echo "FAIL $file: got '$stderr', want '$path:$linecol: error: ...'"; failures=$((failures + 1)) ;;
  esac
done < "$directory/expected.txt"
echo "$((count - failures))/$count malformed files rejected with one located diagnostic"
[ "$count" -gt 0 ] && [ "$failures" -eq 0 ]
