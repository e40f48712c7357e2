"""`with tilesim.interpret(): kernel[grid](...)`: Triton launches run by tilesim on the CPU, with checks.

While an interpret() block is active (or TILESIM_INTERPRET=1 is set), `JITFunction.run` and `Autotuner.run` are
routed here: the call is bound and specialised by Triton's own binder, compiled to TTIR by Triton's front end
(_frontend.py), and run by a tilesim engine in-process on the caller's arrays (_memory.py). Any report (out of
bounds, undefined lanes, races, failed asserts, UB with check_ub) raises KernelError, whose traceback ends in a
frame at the kernel's Python line that caused the first report. Outside a block, Triton behaves as usual.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from dataclasses import dataclass, replace

from triton.runtime.autotuner import Autotuner
from triton.runtime.jit import JITFunction

from . import _frontend, _memory
from ._native import native


class KernelError(Exception):
    """A kernel did something the GPU would hide or leave undefined. `reports` has every stored report (dicts with
    kind, program, lane, op, ttir, source, buffer, byte_offset, message, text), `groups` their summaries, `total`
    the count of all reports; `kind`, `source`, `filename`, `lineno`, `program`, `lane`, `buffer` describe the
    first one."""

    def __init__(self, message, kernel="", reports=(), groups=(), total=0):
        super().__init__(message)
        self.kernel = kernel
        self.reports = list(reports)
        self.groups = list(groups)
        self.total = total
        first = self.reports[0] if self.reports else {}
        self.kind = first.get("kind", "")
        self.source = first.get("source", "")
        self.program = first.get("program")
        self.lane = first.get("lane")
        self.buffer = first.get("buffer", "")
        self.filename, self.lineno, self.column = _split_source(self.source)


KernelError.__module__ = "tilesim"


def _split_source(source: str):
    parts = source.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    return "", 0, 0


@dataclass(frozen=True)
class Options:
    profile: str = "exact"    # float profile: "exact" (correctly rounded) or "triton" (the GPU's approximations)
    checks: bool = True       # out-of-bounds, undefined lanes, races, asserts
    check_ub: bool = False    # also integer division by zero, oversized shifts, float->int overflow
    threads: int = 0          # host threads; 0 = all cores
    engine: str = "interp"    # "interp" or "gpu" (the GPU engine, when built in and a GPU is present)
    autotune: str = "first"   # autotuned kernels: run the "first" config left after pruning, or "all" of them
    max_reports: int = 10     # stored per report kind; all are counted
    raise_on_report: bool = True


_stack: list = []
_installed = {}


def current():
    return _stack[-1] if _stack else None


@contextlib.contextmanager
def interpret(**options):
    """Runs every Triton launch inside the block on tilesim. Options: see Options."""
    install()
    _stack.append(replace(current() or Options(), **options))
    try:
        yield _stack[-1]
    finally:
        _stack.pop()


def enable(**options):
    """Turns interpretation on for the rest of the process (what TILESIM_INTERPRET=1 does)."""
    install()
    _stack.insert(0, Options(**options))


def options_from_environment() -> dict:
    options = {}
    if os.environ.get("TILESIM_PROFILE"):
        options["profile"] = os.environ["TILESIM_PROFILE"]
    if os.environ.get("TILESIM_THREADS"):
        options["threads"] = int(os.environ["TILESIM_THREADS"])
    if os.environ.get("TILESIM_ENGINE"):
        options["engine"] = os.environ["TILESIM_ENGINE"]
    if os.environ.get("TILESIM_CHECK") == "ub":
        options["check_ub"] = True
    if os.environ.get("TILESIM_CHECK") == "none":
        options["checks"] = False
    return options


def install():
    """Routes JITFunction.run and Autotuner.run through tilesim, once per process. The patched methods fall
    through to Triton's own when no interpret() block is active, and hand each launch to the recorder first when
    tilesim.capture.record() is active (so recording works on a GPU and, for tests, under interpret())."""
    if _installed:
        return
    _installed["jit"] = JITFunction.run
    _installed["autotune"] = Autotuner.run
    _installed["bench"] = Autotuner._bench

    def execute(fn, *args, grid, warmup, **kwargs):
        options = current()
        if options is None:
            return _installed["jit"](fn, *args, grid=grid, warmup=warmup, **kwargs)
        return launch(fn, args, kwargs, grid, options, warmup=warmup)

    def jit_run(self, *args, grid, warmup, **kwargs):
        recorder = _recorder()
        if recorder is not None:
            return recorder.launch(execute, self, args, kwargs, grid, warmup)
        return execute(self, *args, grid=grid, warmup=warmup, **kwargs)

    def autotune_run(self, *args, **kwargs):
        recorder = _recorder()
        if recorder is not None:
            recorder.launch_path = "Autotuner.run"
        try:
            options = current()
            if options is None:
                return _installed["autotune"](self, *args, **kwargs)
            return autotuned_launch(self, args, kwargs, options)
        finally:
            if recorder is not None:
                recorder.launch_path = "JITFunction.run"

    def autotune_bench(self, *args, **kwargs):  # benchmarking launches are never recorded
        recorder = _recorder()
        if recorder is not None:
            recorder.benchmarking += 1
        try:
            return _installed["bench"](self, *args, **kwargs)
        finally:
            if recorder is not None:
                recorder.benchmarking -= 1

    JITFunction.run = jit_run
    Autotuner.run = autotune_run
    Autotuner._bench = autotune_bench


def _recorder():
    capture = sys.modules.get("tilesim.capture")
    return capture._active[-1] if capture is not None and capture._active else None


def launch(fn, args, kwargs, grid, options: Options, warmup=False):
    """One launch of JITFunction `fn` on tilesim; returns the Compiled kernel (TTIR, entry, parameters)."""
    wrapped_args, wrapped_kwargs = _frontend.wrap_arguments(args, kwargs)
    wrapped_kwargs.setdefault("debug", fn.debug)
    for hook in fn.pre_run_hooks:
        hook(*args, **kwargs)
    bound, specialization, launch_options = _frontend._binder(fn)(*wrapped_args, **wrapped_kwargs)
    compiled = _frontend.compile_ttir(fn, bound, specialization, wrapped_kwargs)
    if warmup:
        return compiled
    if callable(grid):
        grid = grid({name: (value.obj if isinstance(value, _memory.ArrayView) else value)
                     for name, value in bound.items()})
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"tilesim: {fn.__name__}: a grid has 1 to 3 dimensions, got {grid}")
    if any(g == 0 for g in grid):
        return compiled  # an empty grid launches nothing, as on the GPU

    views, scalars = {}, []
    for name, value in bound.items():
        if compiled.signature.get(name) == "constexpr" or value is None:
            continue  # folded into the TTIR
        if isinstance(value, _memory.ArrayView):
            views[name] = value
        elif isinstance(value, bool):
            scalars.append(("int", name, int(value)))
        elif isinstance(value, int):
            scalars.append(("int", name, value))
        elif isinstance(value, float):
            scalars.append(("float", name, value))
        elif hasattr(value, "item") and callable(value.item):  # numpy / torch scalars
            item = value.item()
            scalars.append(("float" if isinstance(item, float) else "int", name, item))
        else:
            raise TypeError(f"tilesim: {fn.__name__}: argument '{name}' of type {type(value).__name__} cannot be "
                            "passed to a kernel (arrays, ints, floats and bools can)")
    plan = _memory.plan_buffers(views)
    result = native.launch(compiled.program, compiled.entry, plan.arguments + scalars, list(grid),
                           num_warps=compiled.num_warps, profile=options.profile, checks=options.checks,
                           check_ub=options.check_ub, threads=options.threads, engine=options.engine,
                           max_reports=options.max_reports, echo_prints=False)
    for line in result["printed"]:
        print(line)
    if result["read_only_written"]:
        raise KernelError(f"{fn.__name__}: the kernel wrote to read-only memory "
                          f"({', '.join(result['read_only_written'])}); the arrays were left unchanged",
                          kernel=fn.__name__)
    if result["total"] and options.raise_on_report:
        _raise_kernel_error(fn, grid, result)
    return compiled


def _raise_kernel_error(fn, grid, result):
    reports, groups = result["reports"], result["groups"]
    first = reports[0]
    where = first["source"] or first["ttir"] or "an unknown location"
    lines = [f"{fn.__name__}[{', '.join(map(str, grid))}]: {first['kind']} at {where} ({first['op']}), "
             f"program {tuple(first['program'])}, lane {list(first['lane'])}"
             + (f", buffer {first['buffer']}" if first["buffer"] else "")]
    for group in groups[:8]:
        lines.append("  " + group["text"])
    if len(groups) > 8:
        lines.append(f"  ... {len(groups) - 8} more groups")
    totals = ", ".join(f"{count} {kind}" for kind, count in result["totals"].items())
    lines.append(f"  {result['total']} report(s) in all: {totals}")
    error = KernelError("\n".join(lines), kernel=fn.__name__, reports=reports, groups=groups, total=result["total"])
    _raise_at_kernel_line(error, fn.__name__)


def _raise_at_kernel_line(error: KernelError, function: str):
    """Raises `error` from a frame that claims to be the kernel's source line, so the traceback (and debuggers)
    show the Python line of the first report, with its source text."""
    if error.lineno < 2 or not error.filename:
        raise error
    text = "\n" * (error.lineno - 2) + "if 1:\n" + " " * max(error.column, 1) + "raise __tilesim_error__\n"
    code = compile(text, error.filename, "exec")
    code = code.replace(co_name=function, co_qualname=function) if sys.version_info >= (3, 11) else \
        code.replace(co_name=function)
    exec(code, {"__tilesim_error__": error, "__name__": "tilesim.kernel"})


def _snapshot(views):
    return [(view.low, ctypes.string_at(view.low, view.high - view.low)) for view in views]


def _restore(snapshot):
    for low, data in snapshot:
        ctypes.memmove(low, data, len(data))


def autotuned_launch(tuner: Autotuner, args, kwargs, options: Options):
    """An @triton.autotune kernel: no benchmarking on a CPU; run the first config left after pruning (the one a
    GPU would run when the autotuner has a single config), or every config from the same inputs."""
    tuner.nargs = dict(zip(tuner.arg_names, args))
    configs = tuner.prune_configs(kwargs)
    if options.autotune not in ("first", "all"):
        raise ValueError(f"tilesim: autotune option must be 'first' or 'all', not {options.autotune!r}")
    chosen = configs[:1] if options.autotune == "first" else configs
    views = [v for v in (_memory.view_of(a) for a in list(args) + list(kwargs.values())) if v is not None]
    snapshot = _snapshot(views) if len(chosen) > 1 else None
    result = None
    # Every config starts from the same inputs; the first config runs last, so its results are what remain.
    for index, config in reversed(list(enumerate(chosen))):
        if snapshot is not None and index != len(chosen) - 1:
            _restore(snapshot)
        if config.pre_hook is not None:
            config.pre_hook({**tuner.nargs, **kwargs, **config.all_kwargs()})
        tuner.best_config = config
        result = tuner.fn.run(*args, **kwargs, **config.all_kwargs())
    tuner.nargs = None
    return result
