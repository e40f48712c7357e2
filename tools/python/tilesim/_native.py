"""Finds and loads the extension module `_tilesim` (tools/python/Binding.cpp).

Three places, in order: inside this package (a wheel from `pip install tools/python`), the file named by
$TILESIM_EXTENSION (ctest sets it), and the repository's build tree (`build/tools/python/_tilesim*.so`, what
`cmake --build build --target tilesim_python` makes). The first that exists is loaded; none is an ImportError
that says how to build one.
"""
from __future__ import annotations

import glob
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path


def _load_from(path: str):
    loader = importlib.machinery.ExtensionFileLoader("tilesim._tilesim", path)
    spec = importlib.util.spec_from_file_location("tilesim._tilesim", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    # The interpreter's worker threads (interpreter/ProgramPool.h) sleep on a condition variable between launches
    # and a launch never waits for one that has not started, so nothing here tunes threads (no OMP_WAIT_POLICY).
    loader.exec_module(module)
    sys.modules["tilesim._tilesim"] = module
    return module


def _candidates():
    package = Path(__file__).resolve().parent
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for suffix in suffixes:
        yield str(package / f"_tilesim{suffix}")
    if os.environ.get("TILESIM_EXTENSION"):
        yield os.environ["TILESIM_EXTENSION"]
    root = package.parents[2]  # tools/python/tilesim -> repository root
    build = os.environ.get("TILESIM_BUILD_DIR", str(root / "build"))
    for suffix in suffixes:
        yield from sorted(glob.glob(os.path.join(build, "tools", "python", f"_tilesim{suffix}")))


def load():
    tried = []
    for path in _candidates():
        if os.path.isfile(path):
            return _load_from(path)
        tried.append(path)
    raise ImportError("tilesim: the native module _tilesim was not found (looked in: " + ", ".join(tried) +
                      "). Build it with `cmake --build build --target tilesim_python` or install the package "
                      "with `pip install tools/python` (docs/python.md).")


class _Unavailable:
    """Stands in for the native module when it is not built: recording launches (tilesim.capture) needs no
    extension, so a GPU machine without a build of it can still record; anything that runs a kernel raises the
    ImportError that says how to build one."""

    def __init__(self, error: ImportError):
        self._error = error

    def __getattr__(self, name):
        raise self._error


try:
    native = load()
except ImportError as missing:
    native = _Unavailable(missing)
