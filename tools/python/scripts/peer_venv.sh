#!/usr/bin/env bash
# Makes .venv-peer (git-ignored): a Python with what Triton 3.6's language tests need (conformance/peer/
# requirements.txt: triton, torch, pytest, pytest-xdist), plus tools/python on its path and the
# TILESIM_INTERPRET start-up hook, so `TILESIM_INTERPRET=1 .venv-peer/bin/python -m pytest ...` runs the suite on
# tilesim. Made once and reused while the requirements are unchanged. Measured on the 2-core machine with an
# empty pip cache: 199 s (torch 2.11.0 + triton 3.6.0 + numpy, `pip install --no-cache-dir`, 2026-12-06).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
venv="$root/.venv-peer"
requirements="$root/conformance/peer/requirements.txt"
stamp="$venv/.tilesim-requirements"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$requirements" "$stamp"; then
  echo "peer_venv: .venv-peer up to date"
else
  start=$(date +%s)
  echo "peer_venv: making .venv-peer from conformance/peer/requirements.txt (PyPI; torch and its CUDA libraries, ~4 GB)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install --disable-pip-version-check --progress-bar off -q -r "$requirements"; then
    rm -rf "$venv"  # no half-made venv for the tests to trip over: they skip, saying .venv-peer is not here
    echo "peer_venv: pip install failed; .venv-peer removed" >&2
    exit 1
  fi
  cp "$requirements" "$stamp"
  echo "peer_venv: .venv-peer ready in $(( $(date +%s) - start )) s"
fi
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$root/tools/python" > "$site/tilesim-dev.pth"
cp "$root/tools/python/tilesim-interpret.pth" "$site/tilesim-interpret.pth"
