"""`TILESIM_INTERPRET=1`: tilesim is the interpreter a test suite sees, in place of `TRITON_INTERPRET=1`.

Suites written for Triton's interpreter (Triton's own, and the many projects that copy its idiom) decide
"interpreter mode" by reading `TRITON_INTERPRET` (`triton._internal_testing.is_interpreter()`): CPU tensors,
no GPU driver asked for. Triton's `@triton.jit` reads the same variable and then returns an
`InterpretedFunction`, whose launches never reach `JITFunction.run`. So when tilesim is asked for:
- `TRITON_INTERPRET` is set to 1 in this process (code that asks whether it runs in an interpreter hears yes),
  while Triton's `knobs.runtime.interpret` reads False, so `@triton.jit` makes `JITFunction`s and every
  launch goes to tilesim (`_interpret.install`). If the user had set `TRITON_INTERPRET=1`, this is said once.
- kernels whose source was `exec()`d run: `JITFunction` needs the source text (`inspect.getsource`), which an
  `exec`'d string has nowhere; while tilesim is on, `exec` of a string registers it in `linecache` under a
  unique file name first (as IPython does for its cells), so Triton's front end can read it.
A launch of an `InterpretedFunction` inside `tilesim.interpret()` (a kernel made while Triton's interpreter was
on) is an error that says so (`_interpret.install`), never a silent run on Triton's interpreter.
"""
from __future__ import annotations

import __future__
import builtins
import functools
import itertools
import linecache
import operator
import os
import sys

_state = {"active": False}
_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag
                                                for name in __future__.all_feature_names), 0)
_counter = itertools.count()


def activate():
    """Makes tilesim the interpreter of this process (what TILESIM_INTERPRET=1 does at start-up)."""
    if _state["active"]:
        return
    _state["active"] = True
    user_asked_for_triton = os.environ.get("TRITON_INTERPRET") == "1" and not os.environ.get("TILESIM_ACTIVE")
    already = "triton" in sys.modules
    # Triton's own @jit functions (tl.cdiv, ...) are made when triton is imported: import it with its
    # interpreter off, so they are JITFunctions too.
    os.environ["TRITON_INTERPRET"] = "0"
    try:
        _pin_triton_interpret_off()
    finally:
        os.environ["TRITON_INTERPRET"] = "1"
    os.environ["TILESIM_ACTIVE"] = "1"  # child processes (pytest-xdist workers) know the note was given
    plugins = [p for p in os.environ.get("PYTEST_PLUGINS", "").split(",") if p]
    if "tilesim.pytest_plugin" not in plugins:  # waiver markers, interpreter-limit skips (pytest_plugin.py)
        os.environ["PYTEST_PLUGINS"] = ",".join(plugins + ["tilesim.pytest_plugin"])
    if already:
        from triton.language import standard
        from triton.runtime.jit import JITFunction
        if not isinstance(standard.cdiv, JITFunction):
            raise RuntimeError("tilesim: triton was imported with TRITON_INTERPRET=1 before tilesim was turned on; "
                               "set TILESIM_INTERPRET=1 in the environment before Python starts")
    _install_exec_hook()
    from . import _source_memo
    _source_memo.install()
    if user_asked_for_triton and not os.environ.get("TILESIM_QUIET"):
        print("tilesim: TILESIM_INTERPRET=1: Triton launches run on tilesim; TRITON_INTERPRET=1 only tells the "
              "code that it runs in an interpreter", file=sys.stderr)


def _pin_triton_interpret_off():
    """`knobs.runtime.interpret` reads False from now on, whatever TRITON_INTERPRET says and whatever a test's
    knob reset or scope does (they restore the knob's value, not its class attribute): @triton.jit makes
    JITFunctions, constexpr functions return constexprs, autotuners may cache, as for a compiled launch."""
    import triton  # noqa: F401  (the whole package, triton.language included)
    from triton import knobs

    class PinnedOff:
        def __get__(self, obj, objclass=None):
            return False

        def __set__(self, obj, value):
            pass  # Triton's knob resets write here; tilesim stays the interpreter

        def __delete__(self, obj):
            pass

    type(knobs.runtime).interpret = PinnedOff()


def active() -> bool:
    return _state["active"]


def _install_exec_hook():
    original = builtins.exec

    def exec_with_source(source, globals=None, locals=None, /, **kwargs):
        if isinstance(source, (str, bytes)):
            text = source.decode() if isinstance(source, bytes) else source
            filename = f"<tilesim-exec-{next(_counter)}>"
            linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
            caller = sys._getframe(1)
            # As exec does: the caller's __future__ features apply to the text, and nothing of this module's.
            source = compile(text, filename, "exec", flags=caller.f_code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
            if globals is None:  # exec(text) alone runs in the caller's namespace
                globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        return original(source, globals, locals, **kwargs)

    exec_with_source.__doc__ = original.__doc__
    exec_with_source.__wrapped__ = original
    builtins.exec = exec_with_source
