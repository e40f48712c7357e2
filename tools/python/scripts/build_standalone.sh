#!/usr/bin/env bash
# Builds the extension _tilesim without CMake, for a machine that has a C++20 compiler, Python headers and
# pybind11 headers (from the pybind11 package, or the copy inside torch) but not the project's other build
# dependencies — the GPU machine. The engine libraries need only the standard library and OpenMP.
#   bash tools/python/scripts/build_standalone.sh [OUTPUT_DIR]    (default: tools/python/tilesim)
# The package finds the module inside itself (tools/python/tilesim/_tilesim*.so).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
out="${1:-$root/tools/python/tilesim}"
python="${PYTHON:-python3}"
py_include="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
suffix="$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
pybind="$("$python" -c 'import pybind11; print(pybind11.get_include())' 2>/dev/null || true)"
if [ -z "$pybind" ]; then
  pybind="$("$python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "include"))')"
fi
[ -f "$pybind/pybind11/pybind11.h" ] || { echo "build_standalone: no pybind11 headers found" >&2; exit 1; }
cxx="${CXX:-$(command -v g++ || command -v c++ || command -v clang++ || true)}"
[ -n "$cxx" ] || { echo "build_standalone: no C++ compiler (g++, c++ or clang++) found" >&2; exit 1; }
objects="$(mktemp -d)"
# interpreter/MeasuredBounds.cpp includes a table CMake generates from conformance/triton/measured_bounds.tsv
# (cmake/GenerateMeasuredBounds.cmake): made here with cmake -P when there is a cmake, else by the same rules in
# Python (the GPU host has no cmake).
generated="$objects/generated"
mkdir -p "$generated"
tsv="$root/conformance/triton/measured_bounds.tsv"
if command -v cmake > /dev/null; then
  cmake -DINPUT="$tsv" -DOUTPUT="$generated/MeasuredBoundsTable.inc" -P "$root/cmake/GenerateMeasuredBounds.cmake"
else
  "$python" - "$tsv" "$generated/MeasuredBoundsTable.inc" <<'PY'
import sys
source, target = sys.argv[1], sys.argv[2]
provenance, body = [], []
for line in open(source).read().split("\n"):
    if line.startswith("#"):
        provenance.append(f"// {line}\n")
        continue
    if line.startswith("function\t") or line == "":
        continue
    fields = line.split("\t")
    if len(fields) != 10:
        sys.exit(f"{source}: a row needs 10 tab-separated fields, got {len(fields)}: {line}")
    function, dtype, sign, low, high, ulp, _, ftz_input, ftz_result, _ = fields
    kind = {"f32": "ScalarKind::F32", "f64": "ScalarKind::F64"}.get(dtype) or sys.exit(f"{source}: unknown dtype '{dtype}'")
    sign_value = 1 if sign == "+" else -1 if sign == "-" else 0
    ulp = "INFINITY" if ulp in ("inf", "nan") else ulp
    body.append(f'    {{"{function}", {kind}, {sign_value}, {low}, {high}, {ulp}, {ftz_input} != 0, {ftz_result} != 0}},\n')
open(target, "w").write(f"// Generated from {source} by cmake/GenerateMeasuredBounds.cmake; do not edit.\n" + "".join(provenance + body))
PY
fi
sources=()
for dir in ir ir/text ir/verify ir/launch ir/eval interpreter interpreter/ptx engines; do
  for file in "$root/$dir"/*.cpp; do sources+=("$file"); done
done
sources+=("$root/tools/python/Binding.cpp")
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
  'f="{}"; o="'"$objects"'/$(echo "$f" | tr / _).o"; '"$cxx"' -std=c++20 -O3 -fPIC -fopenmp -fvisibility=hidden \
   -I"'"$root"'" -I"'"$generated"'" -isystem "'"$py_include"'" -isystem "'"$pybind"'" -c "$f" -o "$o"'
"$cxx" -shared -fopenmp -o "$out/_tilesim$suffix" "$objects"/*.o
rm -rf "$objects"
echo "build_standalone: $out/_tilesim$suffix"
