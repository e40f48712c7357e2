"""What measure_bounds.py measures: the ops Triton lowers approximately, the libdevice functions tilesim's
interpreter knows (f32, f64 and the fast paths) and PTX approximate instructions through inline asm, each with
its exact reference; and the one-op @triton.jit kernels written for them."""
import importlib.util
import os

import numpy as np


# ----------------------------------------------------------------------------------------------- functions
# (table name, kernel expression over x [and y], torch f64 reference over X [and Y], arity)
def approximate_ops():
    return [
        ("math.exp", "tl.exp(x)", "torch.exp(X)", 1),
        ("math.exp2", "tl.exp2(x)", "torch.exp2(X)", 1),
        ("math.log", "tl.log(x)", "torch.log(X)", 1),
        ("math.log2", "tl.log2(x)", "torch.log2(X)", 1),
        ("math.sqrt", "tl.sqrt(x)", "torch.sqrt(X)", 1),
        ("tt.precise_sqrt", "tl.sqrt_rn(x)", "torch.sqrt(X)", 1),
        ("math.rsqrt", "tl.rsqrt(x)", "torch.rsqrt(X)", 1),
        ("math.sin", "tl.sin(x)", "torch.sin(X)", 1),
        ("math.cos", "tl.cos(x)", "torch.cos(X)", 1),
        ("math.erf", "tl.erf(x)", "torch.erf(X)", 1),
        ("arith.divf", "x / y", "X / Y", 2),
        ("tt.precise_divf", "tl.div_rn(x, y)", "X / Y", 2),
    ]


TGAMMA = "torch.where((X <= 0) & (X == torch.floor(X)), torch.full_like(X, float('nan')), " \
         "torch.exp(torch.lgamma(X)) * torch.where((X < 0) & (torch.remainder(torch.floor(X), 2) == 1), -1.0, 1.0))"
ROUND_HALF_AWAY = "torch.sign(X) * torch.floor(torch.abs(X) + 0.5)"
LIBDEVICE_UNARY = [
    ("exp", "torch.exp(X)"), ("exp2", "torch.exp2(X)"), ("exp10", "torch.pow(10.0, X)"), ("expm1", "torch.expm1(X)"),
    ("log", "torch.log(X)"), ("log2", "torch.log2(X)"), ("log10", "torch.log10(X)"), ("log1p", "torch.log1p(X)"),
    ("sqrt", "torch.sqrt(X)"), ("rsqrt", "torch.rsqrt(X)"),
    ("cbrt", "torch.sign(X) * torch.pow(torch.abs(X), 1.0 / 3.0)"),
    ("sin", "torch.sin(X)"), ("cos", "torch.cos(X)"), ("tan", "torch.tan(X)"), ("asin", "torch.asin(X)"),
    ("acos", "torch.acos(X)"), ("atan", "torch.atan(X)"), ("sinh", "torch.sinh(X)"), ("cosh", "torch.cosh(X)"),
    ("tanh", "torch.tanh(X)"), ("asinh", "torch.asinh(X)"), ("acosh", "torch.acosh(X)"), ("atanh", "torch.atanh(X)"),
    ("erf", "torch.erf(X)"), ("erfc", "torch.erfc(X)"), ("lgamma", "torch.lgamma(X)"), ("tgamma", TGAMMA),
    ("floor", "torch.floor(X)"), ("ceil", "torch.ceil(X)"), ("trunc", "torch.trunc(X)"),
    ("round", ROUND_HALF_AWAY), ("rint", "torch.round(X)"), ("nearbyint", "torch.round(X)"), ("fabs", "torch.abs(X)"),
]
LIBDEVICE_BINARY = [
    ("pow", "torch.pow(X, Y)"), ("atan2", "torch.atan2(X, Y)"), ("hypot", "torch.hypot(X, Y)"),
    ("fmod", "torch.fmod(X, Y)"), ("fdim", "torch.clamp(X - Y, min=0.0)"), ("copysign", "torch.copysign(X, Y)"),
]
FAST_UNARY = [("fast_expf", "torch.exp(X)"), ("fast_exp10f", "torch.pow(10.0, X)"), ("fast_logf", "torch.log(X)"),
              ("fast_log2f", "torch.log2(X)"), ("fast_log10f", "torch.log10(X)"), ("fast_sinf", "torch.sin(X)"),
              ("fast_cosf", "torch.cos(X)"), ("fast_tanf", "torch.tan(X)")]
PTX_UNARY = [
    ("ex2.approx.f32", "torch.exp2(X)"), ("ex2.approx.ftz.f32", "torch.exp2(X)"),
    ("lg2.approx.f32", "torch.log2(X)"), ("lg2.approx.ftz.f32", "torch.log2(X)"),
    ("rsqrt.approx.f32", "torch.rsqrt(X)"), ("rsqrt.approx.ftz.f32", "torch.rsqrt(X)"),
    ("sqrt.approx.f32", "torch.sqrt(X)"), ("sqrt.approx.ftz.f32", "torch.sqrt(X)"),
    ("rcp.approx.f32", "1.0 / X"), ("rcp.approx.ftz.f32", "1.0 / X"),
    ("sin.approx.ftz.f32", "torch.sin(X)"), ("cos.approx.ftz.f32", "torch.cos(X)"),
    ("tanh.approx.f32", "torch.tanh(X)"),
]
PTX_BINARY = [("div.full.f32", "X / Y"), ("div.approx.f32", "X / Y"), ("div.approx.ftz.f32", "X / Y")]
# numpy long double references for the f64 sample (host side)
NP_UNARY = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda v: np.power(np.longdouble(10), v), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt,
    "rsqrt": lambda v: 1 / np.sqrt(v), "cbrt": np.cbrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "floor": np.floor, "ceil": np.ceil,
    "trunc": np.trunc, "rint": np.rint, "fabs": np.abs,
}


def function_list():
    """(name, dtype, expression, reference, arity, kind) for every measured function."""
    result = [(name, "f32", expr, ref, arity, "op") for name, expr, ref, arity in approximate_ops()]
    call = {"fabs": "abs"}  # libdevice.abs is __nv_fabsf on floats
    for name, ref in LIBDEVICE_UNARY:
        result.append((f"__nv_{name}f", "f32", f"libdevice.{call.get(name, name)}(x)", ref, 1, "libdevice"))
    for name, ref in LIBDEVICE_BINARY:
        result.append((f"__nv_{name}f", "f32", f"libdevice.{name}(x, y)", ref, 2, "libdevice"))
    for name, ref in FAST_UNARY:
        result.append((f"__nv_{name}", "f32", f"libdevice.{name}(x)", ref, 1, "libdevice"))
    for instruction, ref in PTX_UNARY:
        asm = f'tl.inline_asm_elementwise("{instruction} $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)'
        result.append((f"ptx:{instruction}", "f32", asm, ref, 1, "ptx"))
    for instruction, ref in PTX_BINARY:
        asm = (f'tl.inline_asm_elementwise("{instruction} $0, $1, $2;", "=f,f,f", [x, y], dtype=tl.float32, '
               f'is_pure=True, pack=1)')
        result.append((f"ptx:{instruction}", "f32", asm, ref, 2, "ptx"))
    for name in NP_UNARY:
        result.append((f"__nv_{name}", "f64", f"libdevice.{call.get(name, name)}(x)", name, 1, "libdevice"))
    return result


def write_kernels(functions, directory):
    """One @triton.jit kernel per function in a real file (triton reads the source)."""
    lines = ["import triton", "import triton.language as tl",
             "from triton.language.extra import libdevice", ""]
    for index, (_, dtype, expr, _, arity, _) in enumerate(functions):
        params = "x_ptr, y_ptr, out_ptr, n" if arity == 2 else "x_ptr, out_ptr, n"
        lines += ["@triton.jit", f"def k{index}({params}, BLOCK: tl.constexpr):",
                  "    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)",
                  "    mask = offsets < n", "    x = tl.load(x_ptr + offsets, mask=mask)"]
        if arity == 2:
            lines.append("    y = tl.load(y_ptr + offsets, mask=mask)")
        lines += [f"    tl.store(out_ptr + offsets, {expr}, mask=mask)", ""]
    path = os.path.join(directory, "measure_kernels.py")
    with open(path, "w") as handle:
        handle.write("\n".join(lines))
    spec = importlib.util.spec_from_file_location("measure_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
