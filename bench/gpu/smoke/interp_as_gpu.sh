#!/usr/bin/env bash
# For smoke_test.py: `tilesim run --engine gpu --time N ...` answered by the interpreter (the outputs are real,
# the timing line is made up); everything else goes to tilesim unchanged. TILESIM_REAL names the binary.
args=() timed=0 skip=0
for a in "$@"; do
  if [ $skip -eq 1 ]; then skip=0; continue; fi
  case $a in gpu) args+=(interp) ;; --time | --warmup) timed=1 skip=1 ;; *) args+=("$a") ;; esac
done
[ "$1" = compile ] && exec "$TILESIM_REAL" "$@"
"$TILESIM_REAL" "${args[@]}" || exit $?
[ $timed -eq 1 ] && echo "timing @k: source=compiled compile_ms=1.0 load_ms=2.0 launches=3 median_ms=1.0 min_ms=1.0 max_ms=1.0 bytes=100 gbps=1.0 threads=128 shared_bytes=0 registers=-1"
exit 0
