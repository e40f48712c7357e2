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
import sys
import threading
import warnings
from dataclasses import dataclass, replace

from triton.compiler.errors import CompilationError
from triton.runtime.autotuner import Autotuner, Heuristics
from triton.runtime.jit import JITFunction

from . import _arguments, _environment, _frontend, _memory
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
    waive: frozenset = frozenset()  # report kinds that warn (tilesim.KernelWarning) instead of raising
    schedule_seed: int = 0    # ttg.warp_specialize (Gluon): 0 = round robin at blocking waits; else a random schedule

    def __post_init__(self):
        _check_choice("profile", self.profile, ("exact", "triton"))
        _check_choice("engine", self.engine, ("interp", "gpu"))
        _check_choice("autotune", self.autotune, ("first", "all"))
        for name in ("checks", "check_ub", "raise_on_report"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"tilesim: option {name} must be True or False, not {getattr(self, name)!r}")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or not 0 <= self.threads <= 4096:
            raise ValueError(f"tilesim: option threads must be an integer from 0 (all cores) to 4096, not {self.threads!r}")
        if isinstance(self.schedule_seed, bool) or not isinstance(self.schedule_seed, int) or \
                not 0 <= self.schedule_seed < 2 ** 64:
            raise ValueError(f"tilesim: option schedule_seed must be an integer from 0 to 2**64 - 1, not {self.schedule_seed!r}")
        if isinstance(self.max_reports, bool) or not isinstance(self.max_reports, int) or not 1 <= self.max_reports <= 100000:
            raise ValueError(f"tilesim: option max_reports must be an integer from 1 to 100000, not {self.max_reports!r}")
        object.__setattr__(self, "waive", _waive_set(self.waive, "option waive"))


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"tilesim: option {name} must be one of {', '.join(map(repr, choices))}, not {value!r}")


def _waive_set(kinds, source) -> frozenset:
    if isinstance(kinds, str):
        kinds = kinds.split(",")
    return _environment.waived_kinds(",".join(kinds), source)


class KernelWarning(UserWarning):
    """Reports of a kind the launch waived (Options.waive, tilesim.waive, TILESIM_WAIVE): said, not raised."""


KernelWarning.__module__ = "tilesim"

# The options in force: interpret() blocks are per thread (two threads' blocks never see each other's), on top
# of the process-wide options enable() / TILESIM_INTERPRET=1 set.
_process: list = []
_local = threading.local()
_installed = {}


def _thread_stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current():
    stack = _thread_stack()
    if stack:
        return stack[-1]
    return _process[-1] if _process else None


@contextlib.contextmanager
def interpret(**options):
    """Runs every Triton launch inside the block on tilesim (in this thread). Options: see Options."""
    install()
    stack = _thread_stack()
    stack.append(replace(current() or Options(), **options))
    try:
        yield stack[-1]
    finally:
        stack.pop()


def enable(**options):
    """Turns interpretation on for the rest of the process, in every thread (what TILESIM_INTERPRET=1 does)."""
    install()
    _process.append(Options(**options))


class waive(contextlib.ContextDecorator):
    """Report kinds that warn instead of raising: `@tilesim.waive("race")` on a kernel (above @triton.jit) waives
    them for that kernel's launches; as a context manager or on a test function, for the launches inside."""

    def __init__(self, *kinds):
        self.kinds = _waive_set(kinds, "tilesim.waive")

    def __call__(self, target):
        if not isinstance(target, (JITFunction, Autotuner, Heuristics)):
            return super().__call__(target)  # a test function (or any callable): waived while it runs
        kernel = target
        while isinstance(kernel, (JITFunction, Autotuner, Heuristics)):  # through autotune/heuristics to the jit
            kernel.tilesim_waive = getattr(kernel, "tilesim_waive", frozenset()) | self.kinds
            kernel = getattr(kernel, "fn", None)
        return target

    def __enter__(self):
        install()
        stack = _thread_stack()
        base = current() or Options()
        stack.append(replace(base, waive=base.waive | self.kinds))
        return stack[-1]

    def __exit__(self, *exc):
        _thread_stack().pop()
        return False


def options_from_environment() -> dict:
    return _environment.options()


def install():
    """Routes JITFunction.run and Autotuner.run through tilesim, once per process. The patched methods fall
    through to Triton's own when no interpret() block is active, and hand each launch to the recorder first when
    tilesim.capture.record() is active (so recording works on a GPU and, for tests, under interpret())."""
    with _install_lock:
        if not _installed:
            _install()


_install_lock = threading.Lock()


def _install():
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
    _refuse_interpreted_functions()


def _refuse_interpreted_functions():
    """A kernel made by @triton.jit while Triton's interpreter was on is an InterpretedFunction; inside an
    interpret() block its launch is an error that says so, never a silent run on Triton's interpreter."""
    from triton.runtime.interpreter import InterpretedFunction
    original = InterpretedFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        if current() is None:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        raise RuntimeError(
            f"tilesim: kernel {self.fn.__name__} was made by @triton.jit while Triton's own interpreter was on "
            "(TRITON_INTERPRET=1), so tilesim cannot compile it: set TILESIM_INTERPRET=1 before Python starts "
            "(tilesim then keeps TRITON_INTERPRET=1 for code that asks), or unset TRITON_INTERPRET")

    InterpretedFunction.run = run


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
    try:
        compiled = _frontend.compile_ttir(fn, bound, specialization, wrapped_kwargs)
    except CompilationError as error:
        _also_interpreter_error(error)
        raise
    _frontend.check_globals_unchanged(fn)
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

    arguments = _arguments.launch_arguments(bound, compiled.signature, len(compiled.parameters), fn.__name__)
    result = native.launch(compiled.program, compiled.entry, arguments, list(grid),
                           num_warps=compiled.num_warps, profile=options.profile, checks=options.checks,
                           check_ub=options.check_ub, threads=options.threads, engine=options.engine,
                           max_reports=options.max_reports, echo_prints=False, schedule_seed=options.schedule_seed)
    for line in result["printed"]:
        print(line)
    if result["read_only_written"]:
        raise KernelError(f"{fn.__name__}: the kernel wrote to read-only memory "
                          f"({', '.join(result['read_only_written'])}); the arrays were left unchanged",
                          kernel=fn.__name__)
    if result["total"]:
        _judge_reports(fn, grid, result, options)
    return compiled


# KernelError's order: what corrupts memory first (out-of-bounds writes, races, undefined values reaching memory),
# then out-of-bounds reads, then the rest.
_WRITE_OPS = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.descriptor_store", "tt.descriptor_reduce",
              "tt.descriptor_scatter")
_SEVERITY = {"race": 1, "same-value-race": 2, "undefined-value": 3}


def _severity(group) -> int:
    if group["kind"] == "out-of-bounds":
        return 0 if group["op"] in _WRITE_OPS else 4
    return _SEVERITY.get(group["kind"], 5)


def _judge_reports(fn, grid, result, options: Options):
    """Raises KernelError for the reports not waived (Options.waive, the kernel's tilesim.waive); waived ones
    are a KernelWarning."""
    waived = options.waive | getattr(fn, "tilesim_waive", frozenset())
    kept = {**result, "groups": [g for g in result["groups"] if g["kind"] not in waived],
            "reports": [r for r in result["reports"] if r["kind"] not in waived],
            "totals": {k: n for k, n in result["totals"].items() if k not in waived}}
    kept["total"] = sum(kept["totals"].values())
    dropped = {k: n for k, n in result["totals"].items() if k in waived}
    if dropped:
        warnings.warn(KernelWarning(f"{fn.__name__}: waived " +
                                    ", ".join(f"{n} {k}" for k, n in dropped.items()) + " report(s)"), stacklevel=4)
    if kept["total"] and options.raise_on_report:
        _raise_kernel_error(fn, grid, kept)


def _raise_kernel_error(fn, grid, result, shown: int = 8):
    """The message leads with the worst report; each distinct (kind, op, TTIR line) appears once before any
    repeat is folded."""
    groups = sorted(result["groups"], key=_severity)  # stable: the engine's order within a severity
    first_seen, repeats = [], []
    seen = set()
    for group in groups:
        key = (group["kind"], group["op"], group["ttir"])
        (repeats if key in seen else first_seen).append(group)
        seen.add(key)
    ordered = first_seen + repeats
    lead = ordered[0]
    reports = sorted(result["reports"], key=_severity)
    first = next((r for r in reports if (r["kind"], r["op"], r["ttir"]) == (lead["kind"], lead["op"], lead["ttir"])),
                 reports[0] if reports else lead)
    where = first["source"] or first["ttir"] or "an unknown location"
    lines = [f"{fn.__name__}[{', '.join(map(str, grid))}]: {first['kind']} at {where} ({first['op']}), "
             f"program {tuple(first['program'])}, lane {list(first['lane'])}"
             + (f", buffer {first['buffer']}" if first["buffer"] else "")]
    limit = max(shown, len(first_seen))
    for group in ordered[:limit]:
        lines.append("  " + group["text"])
    if len(ordered) > limit:
        lines.append(f"  ... {len(ordered) - limit} more groups (repeats of the kinds, ops and lines above)")
    totals = ", ".join(f"{count} {kind}" for kind, count in result["totals"].items())
    lines.append(f"  {result['total']} report(s) in all: {totals}")
    error = KernelError("\n".join(lines), kernel=fn.__name__, reports=[first] + [r for r in reports if r is not first],
                        groups=ordered, total=result["total"])
    _raise_at_kernel_line(error, fn.__name__)


_interpreter_flavours: dict = {}


def _also_interpreter_error(error: CompilationError) -> CompilationError:
    """A kernel that does not compile raises Triton's CompilationError, as a GPU launch does, and is also an
    InterpreterError, what Triton's interpreter raises for it: suites written for TRITON_INTERPRET=1 catch that.
    The cause (`__cause__`, the message Triton's front end gave) is unchanged."""
    from triton.runtime.errors import InterpreterError
    cls = type(error)
    if not issubclass(cls, InterpreterError):
        flavour = _interpreter_flavours.get(cls)
        if flavour is None:
            flavour = _interpreter_flavours[cls] = type(cls.__name__, (cls, InterpreterError), {"__module__": cls.__module__})
        error.__class__ = flavour
    return error


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
