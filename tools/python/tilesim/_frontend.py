"""Triton's own front end, stopped after the TTIR stage: the TTIR a GPU launch of the same call would compile.

The arguments are specialised by Triton's own binder (`create_function_from_signature` with
`native_specialize_impl`), against the CUDA backend of an sm_90 target that needs no GPU: pointers and integers
that are multiples of 16 get `tt.divisibility = 16`, integers equal to 1 become constants, `tl.constexpr`
parameters (and their defaults) are folded, `do_not_specialize` is honoured. The source then goes through
`ASTSource.make_ir` and the backend's `make_ttir` passes (inliner, canonicaliser, combine, CSE, loop unroll): the
module printed is what `compiled_kernel.asm["ttir"]` holds on an H200. Nothing past TTIR runs (no ptxas, no
driver).

A `@gluon.jit` kernel (triton.experimental.gluon) is compiled the way Triton compiles Gluon for the same target:
`GluonASTSource.make_ir`, then the backend's `gluon_to_ttgir` passes (inliner, layout resolution, TMA lowering,
canonicaliser, SCCP, CSE) — the `asm["ttgir"]` an H100 launch holds — and the engine runs that TTGIR (docs/ttgir.md,
"Gluon on the CPU").

Compiled TTIR is cached per kernel source (JITFunction.cache_key, which covers the functions it calls and the
constexpr globals it reads) and specialisation: in memory for the process, and on disk across processes, in
Triton's cache directory (`knobs.cache.dir`, TRITON_CACHE_DIR) under `tilesim-ttir/`, keyed the way Triton keys
its own compile cache (triton_key(), the ASTSource hash, the target, the options hash, the cache-invalidating
environment variables). One MLIR context serves every compile of the process (Triton makes one per compile:
a fifth of a small kernel's compile time). TILESIM_TTIR_CACHE=0 turns the disk cache off.
"""
from __future__ import annotations

import collections
import functools
import hashlib
import json
import os
import tempfile
import threading
import weakref
from dataclasses import dataclass

from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from triton.runtime.jit import create_function_from_signature

from . import _memory
from ._native import native

TARGET = GPUTarget("cuda", 90, 32)


@functools.lru_cache(maxsize=None)
def backend():
    """Triton's CUDA backend for the target tilesim compiles for, its `parse_options` memoised: a suite launches
    thousands of kernels with the same few option sets, and each parse builds a dataclass and re-reads knobs."""
    made = make_backend(TARGET)
    parse = made.parse_options
    memo: dict = {}

    def parse_options(opts):
        from triton import knobs
        key = (tuple(sorted(opts.items())), knobs.runtime.override_arch, knobs.language.default_fp_fusion,
               knobs.nvidia.libdevice_path)  # every knob parse_options reads
        try:
            found = memo.get(key)
        except TypeError:  # an option value that cannot be hashed: parsed each time
            return parse(opts)
        if found is None:
            found = memo[key] = parse(dict(opts))
        return found

    made.parse_options = parse_options
    return made


@dataclass
class Compiled:
    program: object       # _tilesim.Program
    entry: str            # the tt.func name
    ttir: str
    num_warps: int
    signature: dict       # parameter name -> Triton type ("*fp32", "i32", "constexpr")
    constexprs: dict      # parameter name -> value
    parameters: list      # (name, type) the TTIR kept
    stage: str = "ttir"   # "ttgir" for a @gluon.jit kernel (then `ttir` holds its TTGIR)

    @property
    def asm(self):
        """Like a CompiledKernel's: `kernel[grid](...).asm["ttir"]` (or ["ttgir"] for Gluon) works under tilesim too."""
        return {self.stage: self.ttir}

    @property
    def name(self):
        return self.entry


_binders = weakref.WeakKeyDictionary()  # JITFunction -> its binder (a suite makes and drops thousands)
_cache: collections.OrderedDict = collections.OrderedDict()  # the most recent compiles, at most _CACHE_SIZE
_CACHE_SIZE = 4096
stats = {"compiled": 0, "cached": 0, "disk": 0}


_shared_binders: dict = {}
_SIMPLE_DEFAULTS = (int, float, str, bool, type(None))


def _binder_key(fn):
    """What Triton's generated binder depends on: each parameter's name, kind and specialisation flags, and its
    default (by value when a plain scalar, else by identity). Kernels made again from the same source (a test
    suite's exec'd or nested kernels) share one binder instead of generating and compiling it anew."""
    parts = []
    for (name, parameter), kp in zip(fn.signature.parameters.items(), fn.params):
        default = parameter.default
        default_key = (type(default), default) if type(default) in _SIMPLE_DEFAULTS else ("id", id(default))
        parts.append((name, parameter.kind, kp.is_constexpr, kp.is_const, kp.do_not_specialize,
                      kp.do_not_specialize_on_alignment, repr(kp.annotation_type), default_key))
    return tuple(parts)


def _binder(fn):
    binder = _binders.get(fn)
    if binder is None:
        key = _binder_key(fn)
        binder = _shared_binders.get(key)
        if binder is None:
            binder = _shared_binders[key] = create_function_from_signature(fn.signature, fn.params, backend())
        _binders[fn] = binder
    return binder


def wrap_arguments(args, kwargs, any_device=False):
    """Replaces numpy arrays / CPU tensors by ArrayViews (what Triton's binder can specialise); keeps the rest."""
    return [_wrap(a, any_device) for a in args], {k: _wrap(v, any_device) for k, v in kwargs.items()}


# Module-level rather than a recursive closure, which would be a reference cycle per launch (freed only by
# Python's cycle collector, whose full collections over a process that imported torch take tens of ms).
def _wrap(value, any_device):
    if isinstance(value, tuple):  # tuples and NamedTuples, as Triton's binder walks them
        items = [_wrap(item, any_device) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    view = _memory.view_of(value, any_device=any_device)
    return view if view is not None else value


_HASHABLE_OPTIONS = (int, float, str, bool, type(None))


def _cache_key(fn, specialization, options_kwargs):
    if all(type(v) in _HASHABLE_OPTIONS for v in options_kwargs.values()):
        try:  # the common case, hashed as it is: a specialisation is tuples of strings and constexpr values
            key = (fn.cache_key, tuple(specialization), tuple(sorted(options_kwargs.items())))
            hash(key)
            return key
        except TypeError:
            pass
    return _frozen_cache_key(fn, specialization, options_kwargs)


def _frozen_cache_key(fn, specialization, options_kwargs):
    return (fn.cache_key, _freeze(specialization), _freeze(options_kwargs))


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, _memory.ArrayView):
        return ("view", str(value.dtype))
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def check_globals_unchanged(fn):
    """Triton's rule (JITFunction.run): a global the kernel read at compile time that has changed since is an
    error, not a silent reuse of the old TTIR."""
    missing = object()
    for (name, _), (value, namespace) in getattr(fn, "used_global_vals", {}).items():
        if (now := namespace.get(name, missing)) != value:
            raise RuntimeError(f"Global variable {name} has changed since we compiled this kernel, from {value} "
                               f"to {now}")


def compile_ttir(fn, bound_args, specialization, options_kwargs) -> Compiled:
    key = _cache_key(fn, specialization, options_kwargs)
    compiled = _cache.get(key)
    if compiled is not None:
        _cache.move_to_end(key)
        stats["cached"] += 1
        return compiled
    be = backend()
    options, signature, constexprs, attrs = fn._pack_args(be, options_kwargs, bound_args, specialization, None)
    gluon = is_gluon(fn)
    disk_key = _disk_key(fn, signature, constexprs, attrs, options)
    ttir = _disk_read(disk_key)
    if ttir is None:
        ttir = (make_gluon_ttgir if gluon else make_ttir)(fn, signature, constexprs, attrs, options)
        _disk_write(disk_key, ttir)
        stats["compiled"] += 1
    else:
        stats["disk"] += 1
    program = native.Program.parse(ttir, f"{fn.__name__}.{'ttgir' if gluon else 'ttir'}")
    names = list(signature.keys())
    compiled = Compiled(program=program, entry=program.kernel_name(""), ttir=ttir, num_warps=options.num_warps,
                        signature=signature,
                        constexprs={names[path[0]]: value for path, value in constexprs.items() if len(path) == 1},
                        parameters=program.parameters(""), stage="ttgir" if gluon else "ttir")
    _cache[key] = compiled
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return compiled


_context_lock = threading.Lock()


@functools.lru_cache(maxsize=None)
def _context():
    from triton._C.libtriton import ir
    context = ir.context()
    ir.load_dialects(context)
    backend().load_dialects(context)
    return context


def make_ttir(fn, signature, constexprs, attrs, options) -> str:
    """ASTSource -> TTIR text, the first stage of triton.compile and nothing after it."""
    be = backend()
    with _context_lock:  # one MLIR context, one compile at a time in it
        context = _context()
        source = ASTSource(fn, signature, constexprs, attrs)
        module = source.make_ir(TARGET, options, be.get_codegen_implementation(options), be.get_module_map(),
                                context)
        module = be.make_ttir(module, {}, options, be._parse_arch(options.arch) if hasattr(be, "_parse_arch") else 90)
        return str(module)


def is_gluon(fn) -> bool:
    """Whether `fn` is a @gluon.jit kernel (triton.experimental.gluon), compiled to TTGIR instead of TTIR."""
    return bool(getattr(fn, "is_gluon", lambda: False)())


def make_gluon_ttgir(fn, signature, constexprs, attrs, options) -> str:
    """GluonASTSource -> TTGIR text: what triton.compile does for a Gluon kernel up to its "ttgir" stage."""
    from triton.experimental.gluon._runtime import GluonASTSource
    be = backend()
    with _context_lock:
        context = _context()
        source = GluonASTSource(fn, signature, constexprs, attrs)
        module = source.make_ir(TARGET, options, be.get_codegen_implementation(options), be.get_module_map(),
                                context)
        module = be.gluon_to_ttgir(module, {}, options, TARGET.arch)
        return str(module)


# The on-disk TTIR cache. Format version: bump when what is stored changes.
_DISK_FORMAT = "tilesim-ttir-1"


def _disk_enabled() -> bool:
    value = os.environ.get("TILESIM_TTIR_CACHE", "1")
    if value not in ("0", "1"):
        raise ValueError(f"tilesim: TILESIM_TTIR_CACHE={value!r} is not 0 or 1")
    return value == "1"


@functools.lru_cache(maxsize=None)
def _triton_key() -> str:
    """Triton's `triton_key()` (a hash of its compiler's sources and of libtriton.so: ~400 MB read, about a
    second, in every process), kept in the TTIR cache under the size, mtime and inode of every file it reads, so
    that a worker process reads a few hundred inodes instead. Any of those files changed: computed again."""
    from triton.runtime.cache import triton_key
    path = None
    if _disk_enabled():
        try:
            path = os.path.join(_disk_root(), f"triton-key-{_triton_files_signature()}")
            with open(path, encoding="utf-8") as file:
                key = file.read()
            if key:
                return key
        except OSError:  # not cached yet (or a file of Triton's went away: triton_key() says what)
            pass
    key = triton_key()
    if path is not None:
        _write_whole(path, key)
    return key


def _triton_files_signature() -> str:
    """sha256 over (path, size, mtime, inode) of every file `triton_key()` reads: runtime/cache.py, the packages
    compiler, backends and language, and _C/libtriton.*"""
    import triton
    root = os.path.dirname(os.path.abspath(triton.__file__))
    entries = [os.path.join(root, "runtime", "cache.py")]
    for package in ("compiler", "backends", "language"):
        for directory, subdirectories, files in os.walk(os.path.join(root, package)):
            subdirectories.sort()
            entries += [os.path.join(directory, name) for name in sorted(files) if name.endswith(".py")]
    entries += sorted(os.path.join(root, "_C", name) for name in os.listdir(os.path.join(root, "_C"))
                      if name.startswith("libtriton."))
    digest = hashlib.sha256()
    for entry in entries:
        status = os.stat(entry)
        digest.update(f"{entry}\0{status.st_size}\0{status.st_mtime_ns}\0{status.st_ino}\n".encode())
    return digest.hexdigest()


def _disk_key(fn, signature, constexprs, attrs, options) -> str | None:
    if not _disk_enabled():
        return None
    from triton._C.libtriton import get_cache_invalidating_env_vars
    source = ASTSource(fn, signature, constexprs, attrs)
    environment = str(sorted(get_cache_invalidating_env_vars().items()))
    stage = "gluon-ttgir" if is_gluon(fn) else "ttir"
    text = f"{_DISK_FORMAT}-{stage}-{_triton_key()}-{source.hash()}-{TARGET}-{options.hash()}-{environment}"
    return hashlib.sha256(text.encode()).hexdigest()


def _disk_root() -> str:
    from triton import knobs
    return os.path.join(knobs.cache.dir, "tilesim-ttir")


def _disk_path(key: str) -> str:
    return os.path.join(_disk_root(), key[:2], key + ".ttir")


def _disk_read(key):
    """The cached TTIR, or None (absent, unreadable, or not what this cache writes: it is recompiled)."""
    if key is None:
        return None
    try:
        with open(_disk_path(key), encoding="utf-8") as file:
            header, _, ttir = file.read().partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return ttir if header == f"// {_DISK_FORMAT} {key}" else None  # written whole (_disk_write), or not at all


def _disk_write(key, ttir: str):
    """Written whole or not at all (a temporary file renamed into place); a cache that cannot be written is
    skipped."""
    if key is None:
        return
    _write_whole(_disk_path(key), f"// {_DISK_FORMAT} {key}\n{ttir}")


def _write_whole(path: str, text: str):
    """Writes a cache file whole or not at all (a temporary file renamed into place); a cache that cannot be
    written is skipped."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except OSError:
        pass
