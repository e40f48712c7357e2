#!/usr/bin/env bash
# The GPU benchmark in one command (docs/performance.md): vadd, softmax, layernorm and transpose on tilesim's GPU engine
# (compiling the TTIR Triton produced), on Triton 3.6 and on torch, in one run, with the device-to-device copy
# bandwidth as the ceiling; then compile latency; then the matrix rows (bench_matrix.py: matmul fp16/bf16/fp8 and
# attention, every configuration, into $OUT/matrix/matrix.md); then the one table of all rows against their ceilings
# (table.py: $OUT/table.md and the plot $OUT/table.png). Needs a GPU, python3 with torch + triton + numpy (+
# matplotlib for the PNG), and a tilesim built with the GPU backend (the static one: docs/gpu-backend.md). Writes
# $OUT/bench.md and bench.json, and first checks GPU fault recovery (gpu_backend/tests/fault_recovery.sh ->
# $OUT/fault_recovery.txt). On an H100 the whole run takes about 11 minutes.
#   OUT=DIR bash bench/gpu/run_h200.sh PATH/TO/tilesim [--cases a,b]
# MATRIX=0 skips the matrix rows; MATRIX_PROBLEMS=a,b picks problems; MATRIX_CONFIGS=N runs only the first N
# configurations of each list; MATRIX_TIMEOUT (seconds, default 3600) bounds that step.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tilesim=${1:?usage: run_h200.sh TILESIM [--cases NAME,...]}
shift
out=${OUT:-$PWD/bench-gpu-out}
mkdir -p "$out"
if [ "${tilesim%.xz}" != "$tilesim" ]; then  # a carried, xz-compressed binary
  python3 -c "import lzma,sys;open('/tmp/tilesim-bench','wb').write(lzma.open(sys.argv[1]).read())" "$tilesim"
  chmod +x /tmp/tilesim-bench && tilesim=/tmp/tilesim-bench
fi
tilesim=$(cd "$(dirname "$tilesim")" && pwd)/$(basename "$tilesim")
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >"$out/machine.txt" 2>&1 || true
echo "tilesim: $tilesim, sha256 $(sha256sum "$tilesim" | cut -c1-16), $("$tilesim" --version 2>&1 | head -1)" \
  >>"$out/machine.txt"
for option in MATRIX_CONFIGS MATRIX_TIMEOUT; do
  value=${!option:-}
  case $value in ''|*[!0-9]*) [ -z "$value" ] || { echo "run_h200.sh: $option must be a number, not '$value'" >&2; exit 2; } ;; esac
done
# Fault recovery first (a second, cheap check of the runtime): an illegal address, then a launch that must pass.
set +e
bash "$here/../../gpu_backend/tests/fault_recovery.sh" "$tilesim" >"$out/fault_recovery.txt" 2>&1
echo "fault recovery: exit $? (0 = reported and recovered; $out/fault_recovery.txt)" | tee -a "$out/machine.txt"
# The reduction order (docs/gpu-backend.md "Reductions"): the interpreter vs the GPU bit for bit, in the contract
# order (exact profile) and in the GPU's Triton order (triton profile, the interpreter told the GPU's layouts).
for profile in exact triton; do
  timeout 60 "$tilesim" diff "$here/../../gpu_backend/tests/cases/reduce_order_f32" --engine gpu --profile $profile
  echo "reduce_order_f32 diff --profile $profile: exit $? (0 = bit-exact)"
done >"$out/reduce_order.txt" 2>&1
tail -n 20 "$out/reduce_order.txt" | grep -E "exit|differ" | tee -a "$out/machine.txt"
set -e
timeout 450 python3 "$here/bench.py" --tilesim "$tilesim" --out "$out" "$@"
# The matrix rows (issue 22): matmul and attention, tilesim vs Triton vs torch, every configuration of
# kernels_matrix.py's lists; MATRIX=0 skips them.
if [ "${MATRIX:-1}" != 0 ]; then
  timeout "${MATRIX_TIMEOUT:-3600}" python3 "$here/bench_matrix.py" --tilesim "$tilesim" --out "$out/matrix" \
    ${MATRIX_PROBLEMS:+--problems "$MATRIX_PROBLEMS"} ${MATRIX_CONFIGS:+--configs "$MATRIX_CONFIGS"}
fi
python3 "$here/table.py" --out "$out"
