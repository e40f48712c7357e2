#!/usr/bin/env bash
# One command for the GPU machine: real Triton 3.6 compiles and runs every generated case on the H200 and the
# interpreter judges the outputs (conformance/triton/fuzz_triton_gpu.py; docs/fuzzing.md). Results under $OUT:
# summary.txt (counts, compile-failure reasons, each disagreement classified and reduced), summary.json,
# disagreements/NAME/{case,reduced}, triton.log, console.txt, gpu.txt.
#
#   OUT=/path conformance/triton/device_triton_fuzz.sh TILESIM CASES_DIR [extra fuzz_triton_gpu.py options]
#
# TILESIM: a tilesim binary that runs there (the static build); CASES_DIR: `tilesim fuzz --emit-dir` output
# (a directory, or a .tar.gz of one: it is unpacked into a temporary directory first).
# Needs python3 with torch, triton 3.6.0 and numpy; no network. Finishes in under 8 minutes (--seconds 360,
# a hard stop at 450 s).
set -uo pipefail
TILESIM=${1:?usage: device_triton_fuzz.sh TILESIM CASES_DIR [options]}
CASES=${2:?usage: device_triton_fuzz.sh TILESIM CASES_DIR [options]}
shift 2
OUT=${OUT:-$PWD/triton-fuzz-out}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"
case "$CASES" in
  *.tar.gz|*.tgz) unpacked=$(mktemp -d); tar xzf "$CASES" -C "$unpacked"; CASES=$unpacked ;;
esac
HERE=$(cd "$(dirname "$0")" && pwd)
chmod +x "$TILESIM" 2>/dev/null || true
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
  "$PYTHON" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.cuda.is_available())' 2>&1
  "$TILESIM" --version 2>&1 | head -1 || true
  echo "cases: $(find "$CASES" -name case.json | wc -l) in $CASES"; } > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"
timeout -k 10 450 "$PYTHON" "$HERE/fuzz_triton_gpu.py" --tilesim "$TILESIM" --out "$OUT" --seconds 360 "$CASES" "$@" \
  2>&1 | tee "$OUT/console.txt"
status=${PIPESTATUS[0]}
echo "fuzz_triton_gpu.py exit status $status" | tee -a "$OUT/console.txt"
exit "$status"
