#!/usr/bin/env bash
# On a GPU machine with torch and Triton 3.6 (no tilesim build needed: recording uses no native module): runs
# examples/capture_workload.py under `python -m tilesim.capture`, prints the recorder's summary, and packs the
# recorded cases into $OUT/captured_cases.tar.gz, to replay anywhere with `tilesim conformance captured/`.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"   # tools/python
out="${OUT:-/tmp/tilesim-capture-out}"
mkdir -p "$out"
rm -rf /tmp/captured
cd "$here"
PYTHONPATH="$here" python -m tilesim.capture -o /tmp/captured -- python examples/capture_workload.py
tar czf "$out/captured_cases.tar.gz" -C /tmp captured
echo "device_capture: $(find /tmp/captured -name case.json | wc -l) cases in $out/captured_cases.tar.gz"
