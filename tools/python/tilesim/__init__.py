"""tilesim from Python: run @triton.jit kernels on the CPU, exactly and with checks, and record real launches.

    import tilesim
    with tilesim.interpret():                      # or TILESIM_INTERPRET=1 for unchanged scripts
        add_kernel[grid](x, y, out, n, BLOCK=1024)  # numpy arrays or CPU torch tensors; results land in `out`

A launch inside the block is specialised and compiled to TTIR by Triton's own front end (the TTIR an H200 launch
would compile), run by tilesim in-process, and any report (out-of-bounds, undefined lanes, races, failed asserts)
raises KernelError pointing at the kernel's Python line. `tilesim.capture` records launches on a GPU as
conformance cases. docs/python.md has the whole story.
"""
from __future__ import annotations

import os
import sys

from ._environment import REPORT_KINDS
from ._memory import as_dtype
from ._native import native

try:
    TtirError = native.TtirError
    LaunchError = native.LaunchError
    EngineUnavailable = native.EngineUnavailable
except ImportError:  # no native module: capture still works; running a kernel raises the ImportError
    class TtirError(Exception):
        pass

    class LaunchError(Exception):
        pass

    class EngineUnavailable(Exception):
        pass

__all__ = ["interpret", "enable", "waive", "KernelError", "KernelWarning", "Options", "REPORT_KINDS", "as_dtype", "run_ttir", "TtirError", "LaunchError",
           "EngineUnavailable", "engine_available"]


def engine_available(engine: str = "interp"):
    """None when `engine` ("interp" or "gpu") can run here, else the reason it cannot."""
    return native.engine_available(engine)


def run_ttir(ttir: str, args: dict, grid, entry: str = "", num_warps: int = 4, **options):
    """Runs TTIR text directly: `args` maps parameter names to arrays and scalars (like `tilesim run --arg`).
    Returns the result dict of the launch (reports, groups, totals, unused, printed); raises KernelError on any
    report unless raise_on_report=False."""
    from . import _memory
    from ._interpret import KernelError, Options

    opts = Options(**options)
    program = native.Program.parse(ttir, "<ttir>")
    views, scalars = {}, []
    for name, value in args.items():
        view = _memory.view_of(value)
        if view is not None:
            views[name] = view
        elif isinstance(value, (bool, int)):
            scalars.append(("int", name, int(value)))
        else:
            scalars.append(("float", name, float(value)))
    grid = [grid] if isinstance(grid, int) else list(grid)
    result = native.launch(program, entry, _memory.plan_buffers(views).arguments + scalars, grid,
                           num_warps=num_warps, profile=opts.profile, checks=opts.checks, check_ub=opts.check_ub,
                           threads=opts.threads, engine=opts.engine, max_reports=opts.max_reports, echo_prints=False)
    if result["total"] and opts.raise_on_report:
        raise KernelError("\n".join(g["text"] for g in result["groups"]), reports=result["reports"],
                          groups=result["groups"], total=result["total"])
    return result


def __getattr__(name):
    # The Triton-facing half imports triton; load it only when asked for.
    if name in ("interpret", "enable", "KernelError", "KernelWarning", "Options", "waive"):
        from . import _interpret
        return getattr(_interpret, name)
    raise AttributeError(name)


def _start_from_environment():
    """TILESIM_INTERPRET=1: tilesim runs every Triton launch of this process (see _dropin.py). A bad value of
    a TILESIM_* variable is one clear line on stderr and exit status 2, never a traceback or a silent fallback
    to Triton."""
    from . import _environment
    try:
        wanted = _environment.interpret_requested()
        options = _environment.options() if wanted else {}
    except _environment.BadEnvironment as bad:
        # Usually raised while Python starts (the .pth hook), where an exception is a "Fatal Python error" and a
        # traceback: one line and exit status 2 instead, before the user's program runs on the wrong engine.
        sys.stdout.flush()
        print(f"tilesim: {bad}", file=sys.stderr, flush=True)
        os._exit(2)
    if wanted:
        from . import _dropin
        _dropin.activate()  # before anything imports triton
        from . import _interpret
        _interpret.enable(**options)


_start_from_environment()
