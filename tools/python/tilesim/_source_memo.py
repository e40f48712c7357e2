"""Memos that make `@triton.jit` cheap for suites that make the same kernel thousands of times.

Triton's interpreter makes an `InterpretedFunction` at decoration, which reads nothing; a `JITFunction` (what
tilesim runs) reads its source at decoration (`inspect.getsourcelines`: a tokenizer pass over the function) and
hashes it with its dependencies at its first launch (`cache_key`: an AST walk over the function and what it
calls). Test suites make the same kernel again and again: a kernel defined inside a test function is made anew
by every parametrisation, and `exec`'d templates (Triton's `patch_kernel`) give the same text for every dtype.
Both results depend only on things that can be checked cheaply, so they are memoised:

- the source lines of a function (`inspect.getsourcelines`, which `inspect.getsource` calls too), per (file,
  first line, name) of its code while linecache holds the same lines for the file (checked as inspect checks
  it); for text run by `exec` (tilesim registers it under a unique name, `_dropin`), per text, line and name;
- the cache key and the used globals of a `JITCallable`, per (source text, first line, name, globals namespace)
  and the identity of every global and closure value the code names — with, for each one that is itself a
  `JITCallable`, its current cache key (a callee whose source was changed with `_unsafe_update_src` gives a new
  key, as Triton's own hash would). The memo holds a reference to every value in its key, so no identity it
  compares can be reused by a new object.

What it cannot see: a module attribute the kernel reaches through a module (`helpers.fn`) replaced in place;
Triton's own per-object hash does not see that either once computed.
"""
from __future__ import annotations

import inspect
import linecache
import threading
import types

_EXEC_PREFIX = "<tilesim-exec-"
_lock = threading.Lock()
_source_lines: dict = {}
_cache_keys: dict = {}
_MEMO_LIMIT = 65536
_in_progress = threading.local()  # the JITCallables whose memo key is being formed on this thread


def _getsourcelines_with_memo(obj, _original=inspect.getsourcelines):
    """`inspect.getsourcelines`, memoised for plain functions (what `@triton.jit` and `inspect.getsource` of a
    kernel ask for); anything else, or anything unusual, goes to the original."""
    if type(obj) is not types.FunctionType or hasattr(obj, "__wrapped__"):
        return _original(obj)
    code = obj.__code__
    filename = code.co_filename
    if filename.startswith(_EXEC_PREFIX):
        lines = linecache.getlines(filename)
        key = ("exec", "".join(lines), code.co_firstlineno, code.co_name)
        keep = None
    else:
        if not (filename.startswith("<") and filename.endswith(">")):
            linecache.checkcache(filename)  # as inspect.findsource does: an edited file is read again
        lines = linecache.getlines(filename, obj.__globals__)
        key = ("file", filename, code.co_firstlineno, code.co_name, id(lines))
        keep = lines  # the identity in the key stays this list's
    if not lines:
        return _original(obj)
    with _lock:
        found = _source_lines.get(key)
    if found is None:
        found = (_original(obj), keep)
        with _lock:
            if len(_source_lines) >= _MEMO_LIMIT:
                _source_lines.clear()
            _source_lines[key] = found
    source, lnum = found[0]
    return list(source), lnum


def _names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _identity(fn_object, referenced: list):
    """The memo key of a JITCallable's cache key, or None when it cannot be formed (it is then computed)."""
    from triton.runtime.jit import JITCallable
    python_function = fn_object.fn
    code = getattr(python_function, "__code__", None)
    if code is None:
        return None
    namespace = fn_object.__globals__
    parts = [fn_object._src, fn_object.starting_line_number, fn_object._fn_name, id(namespace)]
    referenced.append(namespace)
    missing = object()
    values = [(name, namespace.get(name, missing)) for name in sorted(_names(code))]
    for index, cell in enumerate(python_function.__closure__ or ()):
        try:
            values.append((f"closure {index}", cell.cell_contents))
        except ValueError:  # an empty cell
            values.append((f"closure {index}", missing))
    for name, value in values:
        if value is missing:
            parts.append((name, None))
            continue
        referenced.append(value)
        if isinstance(value, JITCallable) and value is not fn_object:
            parts.append((name, id(value), value.cache_key, getattr(value, "noinline", False)))
        else:
            parts.append((name, id(value)))
    return tuple(parts)


def install():
    """Points triton.runtime.jit at the memos (once per process; only while tilesim is the interpreter)."""
    from triton.runtime import jit
    if inspect.getsourcelines is _getsourcelines_with_memo:
        return
    inspect.getsourcelines = _getsourcelines_with_memo  # inspect.getsource and Triton's JITCallable call it
    computed = jit.JITCallable.cache_key.fget

    def cache_key(self):
        if self.hash is not None:
            return self.hash
        forming = _in_progress.__dict__.setdefault("ids", set())
        if id(self) in forming:  # mutual recursion: Triton's own placeholder handles it
            return computed(self)
        referenced: list = []
        forming.add(id(self))
        try:
            key = _identity(self, referenced)
        except Exception:  # noqa: BLE001 - anything unusual: Triton computes it
            key = None
        finally:
            forming.discard(id(self))
        if key is not None:
            with _lock:
                found = _cache_keys.get(key)
            if found is not None:
                with self._hash_lock:
                    self.hash, self.used_global_vals = found[0], dict(found[1])
                return self.hash
        value = computed(self)
        if key is not None:
            with _lock:
                if len(_cache_keys) >= _MEMO_LIMIT:
                    _cache_keys.clear()
                _cache_keys[key] = (value, dict(self.used_global_vals), referenced)
        return value

    cache_key.__doc__ = computed.__doc__
    jit.JITCallable.cache_key = property(cache_key)
    _original["cache_key"] = computed


_original: dict = {}


def computed_cache_key(fn_object) -> str:
    """Triton's own cache key of a JITCallable that has none yet, bypassing the memo (for tests)."""
    return _original["cache_key"](fn_object)
