"""Triton's own front end, stopped after the TTIR stage: the TTIR a GPU launch of the same call would compile.

The arguments are specialised by Triton's own binder (`create_function_from_signature` with
`native_specialize_impl`), against the CUDA backend of an sm_90 target that needs no GPU: pointers and integers
that are multiples of 16 get `tt.divisibility = 16`, integers equal to 1 become constants, `tl.constexpr`
parameters (and their defaults) are folded, `do_not_specialize` is honoured. The source then goes through
`ASTSource.make_ir` and the backend's `make_ttir` passes (inliner, canonicaliser, combine, CSE, loop unroll): the
module printed is what `compiled_kernel.asm["ttir"]` holds on an H200. Nothing past TTIR runs (no ptxas, no
driver).

Compiled TTIR is cached per kernel source (JITFunction.cache_key, which covers the functions it calls) and
specialisation, in memory for the process.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from triton.runtime.jit import create_function_from_signature

from . import _memory
from ._native import native

TARGET = GPUTarget("cuda", 90, 32)


@functools.lru_cache(maxsize=None)
def backend():
    return make_backend(TARGET)


@dataclass
class Compiled:
    program: object       # _tilesim.Program
    entry: str            # the tt.func name
    ttir: str
    num_warps: int
    signature: dict       # parameter name -> Triton type ("*fp32", "i32", "constexpr")
    constexprs: dict      # parameter name -> value
    parameters: list      # (name, type) the TTIR kept

    @property
    def asm(self):
        """Like a CompiledKernel's: `kernel[grid](...).asm["ttir"]` works under tilesim too."""
        return {"ttir": self.ttir}

    @property
    def name(self):
        return self.entry


_binders: dict = {}
_cache: dict = {}
stats = {"compiled": 0, "cached": 0}


def _binder(fn):
    binder = _binders.get(fn)
    if binder is None:
        binder = create_function_from_signature(fn.signature, fn.params, backend())
        _binders[fn] = binder
    return binder


def wrap_arguments(args, kwargs, any_device=False):
    """Replaces numpy arrays / CPU tensors by ArrayViews (what Triton's binder can specialise); keeps the rest."""
    def wrap(value):
        view = _memory.view_of(value, any_device=any_device)
        return view if view is not None else value
    return [wrap(a) for a in args], {k: wrap(v) for k, v in kwargs.items()}


def _cache_key(fn, specialization, options_kwargs):
    def freeze(value):
        if isinstance(value, (list, tuple)):
            return tuple(freeze(v) for v in value)
        if isinstance(value, dict):
            return tuple(sorted((k, freeze(v)) for k, v in value.items()))
        if isinstance(value, _memory.ArrayView):
            return ("view", str(value.dtype))
        try:
            hash(value)
            return value
        except TypeError:
            return repr(value)
    return (fn.cache_key, freeze(specialization), freeze(options_kwargs))


def compile_ttir(fn, bound_args, specialization, options_kwargs) -> Compiled:
    key = _cache_key(fn, specialization, options_kwargs)
    compiled = _cache.get(key)
    if compiled is not None:
        stats["cached"] += 1
        return compiled
    be = backend()
    options, signature, constexprs, attrs = fn._pack_args(be, options_kwargs, bound_args, specialization, None)
    ttir = make_ttir(fn, signature, constexprs, attrs, options)
    program = native.Program.parse(ttir, f"{fn.__name__}.ttir")
    names = list(signature.keys())
    compiled = Compiled(program=program, entry=program.kernel_name(""), ttir=ttir, num_warps=options.num_warps,
                        signature=signature,
                        constexprs={names[path[0]]: value for path, value in constexprs.items() if len(path) == 1},
                        parameters=program.parameters(""))
    _cache[key] = compiled
    stats["compiled"] += 1
    return compiled


def make_ttir(fn, signature, constexprs, attrs, options) -> str:
    """ASTSource -> TTIR text, the first stage of triton.compile and nothing after it."""
    from triton._C.libtriton import ir
    be = backend()
    context = ir.context()
    ir.load_dialects(context)
    be.load_dialects(context)
    source = ASTSource(fn, signature, constexprs, attrs)
    module = source.make_ir(TARGET, options, be.get_codegen_implementation(options), be.get_module_map(), context)
    module = be.make_ttir(module, {}, options, be._parse_arch(options.arch) if hasattr(be, "_parse_arch") else 90)
    return str(module)
