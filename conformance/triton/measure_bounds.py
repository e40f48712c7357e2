#!/usr/bin/env python3
"""Measures the error of every math function and approximate op Triton 3.6 emits, on the GPU, against an exact
reference, and writes the table the interpreter's `triton` profile bounds come from.

Run on the H200 (python3 with torch, triton 3.6, numpy), one command, about 3-5 minutes:
    python3 conformance/triton/measure_bounds.py --out "$OUT"
then copy $OUT/measured_bounds.tsv to conformance/triton/measured_bounds.tsv and $OUT/measured_bounds.md to
conformance/triton/measured_bounds.md (the build turns the .tsv into interpreter/MeasuredBounds' table).

What is measured (each as Triton compiles it, in a one-op kernel y = f(x)):
- tl ops whose NVIDIA lowering is approximate: math.exp, math.exp2, math.log, math.log2, math.sqrt, math.rsqrt,
  math.sin, math.cos, math.erf, arith.divf (x / y, div.full.f32), and the correctly rounded tt.precise_sqrt /
  tt.precise_divf as a control;
- every unary and binary libdevice function of tl.extra.cuda.libdevice that tilesim's interpreter knows, in f32
  (`__nv_tanhf`, ...) and f64 (`__nv_tanh`, ...), and the `__nv_fast_*f` fast paths;
- PTX approximate instructions through inline asm (`ptx:ex2.approx.ftz.f32`, `ptx:tanh.approx.f32`, ...).
f32 unary functions are swept exhaustively (all 2^32 bit patterns, on the GPU); f32 binary functions over a dense
sample (every exponent x every exponent with a few mantissas, plus random patterns); f64 functions over a sample
of 2^20 inputs (every exponent, random mantissas) against numpy long double (64-bit mantissa) on the host.

Error of one lane: |gpu - exact| / spacing(exact), the spacing of the result format at the exact value
(subnormal spacing below the normal range), so a correctly rounded function measures <= 0.5. Lanes where the
exact result is subnormal and the GPU returns zero count as FTZ of the result (ftz_result = 1), not as error.
A function that returns f(+-0) for every subnormal input flushes inputs (ftz_input = 1); its subnormal-input row
is then measured against f(+-0). NaN against NaN is exact; one NaN, or an infinity against a finite value
beyond the format's range, is an infinite error (the interpreter then accepts any value in that range).
Rows: one per function, input sign and exponent range (the `exp_lo`/`exp_hi` of ilogb(x); zero is -2000, inf and
NaN are 2000), with the worst input's bit pattern. `--budget S` (default 150) switches the remaining f32 sweeps
to a strided sample when the run would take longer (the table says `sampled` then).

`--self-test` checks the error and bucket arithmetic with numpy only (no GPU, no torch, no triton).
"""
import argparse
import datetime
import importlib.util
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

# ------------------------------------------------------------------------------------------------- buckets
# Exponent ranges (ilogb), the same for both signs; subnormals are one range below the normal minimum.
F32_RANGES = ([(-149, -126), (-126, -64), (-64, -32), (-32, -16), (-16, -12), (-12, -8)] +
              [(e, e + 1) for e in range(-8, 8)] + [(8, 12), (12, 16), (16, 32), (32, 64), (64, 128)])
F64_RANGES = ([(-1074, -1022), (-1022, -512), (-512, -128), (-128, -64), (-64, -32), (-32, -16), (-16, -8)] +
              [(e, e + 1) for e in range(-8, 8)] + [(8, 16), (16, 32), (32, 64), (64, 128), (128, 512), (512, 1024)])
ZERO_RANGE, SPECIAL_RANGE = (-2000, -1999), (2000, 2001)


def bucket_table(ranges, exponent_bits, mantissa_bits):
    """Maps (sign << exponent_bits | exponent field) to a bucket id; zero and subnormal share field 0 and are told
    apart by the mantissa (bucket_of). Buckets: for sign s in (+, -): ranges..., zero, special."""
    bias = (1 << (exponent_bits - 1)) - 1
    per_sign = len(ranges) + 2
    table = np.zeros(2 << exponent_bits, dtype=np.int64)
    for sign in (0, 1):
        for field in range(1 << exponent_bits):
            if field == (1 << exponent_bits) - 1:
                index = len(ranges) + 1
            elif field == 0:
                index = 0  # subnormal (zero is fixed up by bucket_of)
            else:
                e = field - bias
                index = next(i for i, (lo, hi) in enumerate(ranges) if lo <= e < hi)
            table[(sign << exponent_bits) | field] = sign * per_sign + index
    return table, per_sign


def bucket_rows(ranges):
    """(sign, exp_lo, exp_hi) per bucket id, in bucket_table's order."""
    rows = []
    for sign in ("+", "-"):
        rows += [(sign, lo, hi) for lo, hi in ranges] + [(sign,) + ZERO_RANGE, (sign,) + SPECIAL_RANGE]
    return rows


def spacing_f32(exact):
    """Spacing of f32 at |exact| (an f64 array): 2^(max(floor(log2|x|), -126) - 23)."""
    magnitude = np.abs(exact)
    _, exponent = np.frexp(np.where(magnitude > 0, magnitude, 1.0))
    exponent = np.maximum(exponent - 1, -126)
    return np.ldexp(1.0, exponent - 23)


def ulp_error_np(got, exact, tiny=2.0**-126, max_value=float(np.finfo(np.float32).max), spacing=spacing_f32):
    """Per-lane error in spacings (float64), plus a mask of result flushes (exact subnormal, got zero)."""
    got = got.astype(np.float64)
    exact = exact.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(got - exact) / spacing(exact)
        both_nan = np.isnan(got) & np.isnan(exact)
        error = np.where(both_nan, 0.0, error)
        error = np.where(np.isnan(error), np.inf, error)
        # inf against an exact value that rounds to inf (beyond the largest finite value's half spacing)
        rounds_to_inf = np.isinf(got) & np.isfinite(exact) & (np.sign(got) == np.sign(exact)) & \
            (np.abs(exact) >= max_value + 0.5 * spacing(np.array(max_value)))
        error = np.where(rounds_to_inf | (got == exact), 0.0, error)
        flushed = (got == 0) & (exact != 0) & (np.abs(exact) < tiny)
    return np.where(flushed, 0.0, error), flushed


def self_test():
    table, per_sign = bucket_table(F32_RANGES, 8, 23)
    rows = bucket_rows(F32_RANGES)
    assert len(rows) == 2 * per_sign
    one = np.array([1.0], dtype=np.float32).view(np.uint32)[0]
    assert rows[table[one >> 23]] == ("+", 0, 1), rows[table[one >> 23]]
    minus_three = np.array([-3.0], dtype=np.float32).view(np.uint32)[0]
    assert rows[table[minus_three >> 23]] == ("-", 1, 2)
    assert rows[table[0x7F800000 >> 23]][1:] == SPECIAL_RANGE
    # a correctly rounded f32 exp measures <= 0.5; a value one spacing off measures ~1.5 or less
    x = np.linspace(-80, 80, 100001)
    exact = np.exp(x.astype(np.float32).astype(np.longdouble)).astype(np.float64)
    rounded = exact.astype(np.float32)
    error, flushed = ulp_error_np(rounded, exact)
    assert error.max() <= 0.5 + 1e-9, error.max()
    off = np.nextafter(rounded, np.float32(np.inf))
    error, _ = ulp_error_np(off, exact)
    assert 0.5 <= error.max() <= 1.5 + 1e-9, error.max()
    error, flushed = ulp_error_np(np.array([0.0, np.nan, np.inf]), np.array([1e-40, np.nan, 1e39]))
    assert flushed.tolist() == [True, False, False] and error.tolist() == [0.0, 0.0, 0.0], (error, flushed)
    error, _ = ulp_error_np(np.array([np.nan, np.inf]), np.array([1.0, 1.0]))
    assert np.isinf(error).all()
    print("measure_bounds self-test: ok")


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


# --------------------------------------------------------------------------------------------- measurement
def to_f32(torch, bits):
    """int64 bit patterns in [0, 2^32) as f32 values."""
    return (bits - (bits >= (1 << 31)).to(torch.int64) * (1 << 32)).to(torch.int32).view(torch.float32)


class FieldTable:
    """Max error and worst input bits per (sign, exponent field) of the input, zero kept apart from the
    subnormals of field 0; turned into bucket rows at the end (rows())."""

    def __init__(self):
        self.max = np.zeros(512)
        self.worst = np.zeros(512, dtype=np.int64)
        self.count = np.zeros(512, dtype=np.int64)
        self.zero = {0: None, 1: None}  # sign -> (error, bits)

    def add(self, field_index, error, worst_bits, count):
        if count == 0:
            return
        if self.count[field_index] == 0 or error > self.max[field_index]:
            self.max[field_index], self.worst[field_index] = error, worst_bits
        self.count[field_index] += count

    def rows(self, name, table, bucket_meta, flushes_input, flushes_result):
        per_bucket = {}
        for field_index in range(512):
            if self.count[field_index] == 0:
                continue
            bucket = int(table[field_index])
            entry = per_bucket.setdefault(bucket, [0.0, 0, 0])
            if entry[2] == 0 or self.max[field_index] > entry[0]:
                entry[0], entry[1] = float(self.max[field_index]), int(self.worst[field_index])
            entry[2] += int(self.count[field_index])
        per_sign = len(bucket_meta) // 2
        for sign, value in self.zero.items():
            if value is not None:
                per_bucket[sign * per_sign + per_sign - 2] = [value[0], value[1], 1]
        rows = []
        for bucket in sorted(per_bucket):
            sign, lo, hi = bucket_meta[bucket]
            error, bits, count = per_bucket[bucket]
            rows.append((name, "f32", sign, lo, hi, error, f"0x{bits & 0xFFFFFFFF:08x}", int(flushes_input),
                         int(flushes_result), count))
        return rows


def run_f32(torch, kernel, function, table, bucket_meta, budget_left, block=1024):
    """f32 unary: every bit pattern (strided by 64 when the time budget is spent); binary: a dense sample.
    Returns (rows, inputs, sampled, flushes_input, flushes_result)."""
    name, _, _, reference, arity, _ = function
    device = "cuda"

    def reference_of(X, Y=None):
        return eval(reference, {"torch": torch, "X": X, "Y": Y, "math": math})

    def launch(x, y=None):
        out = torch.empty_like(x)
        grid = (triton_cdiv(x.numel(), block),)
        if arity == 2:
            kernel[grid](x, y, out, x.numel(), BLOCK=block)
        else:
            kernel[grid](x, out, x.numel(), BLOCK=block)
        return out

    fields = FieldTable()
    flushed_results = 0
    inputs = 0
    if arity == 1:
        # FTZ of inputs: every subnormal input gives the result of +-0
        at_zero = launch(torch.tensor([0.0, -0.0], dtype=torch.float32, device=device))
        sub_bits = torch.arange(1, 1 << 23, 997, dtype=torch.int64, device=device)
        sub_bits = torch.cat([sub_bits, sub_bits | (1 << 31)])
        got_sub = launch(to_f32(torch, sub_bits))
        expect = torch.where(sub_bits >= (1 << 31), at_zero[1], at_zero[0])
        same = (got_sub == expect) | (torch.isnan(got_sub) & torch.isnan(expect))
        flushes_input = bool(same.all().item())
        stride = 1 if budget_left > 0 else 64
        field_size = (1 << 23) // stride
        chunk_fields = 16
        for first_field in range(0, 512, chunk_fields):
            offsets = torch.arange(0, 1 << 23, stride, dtype=torch.int64, device=device)
            field_ids = torch.arange(first_field, first_field + chunk_fields, dtype=torch.int64, device=device)
            bits = ((field_ids[:, None] << 23) + offsets[None, :]).reshape(-1)
            x = to_f32(torch, bits)
            got = launch(x)
            X = x.to(torch.float64)
            if flushes_input:
                subnormal = (X != 0) & (X.abs() < 2.0**-126)
                X = torch.where(subnormal, torch.copysign(torch.zeros_like(X), X), X)
            error, flushed = torch_ulp_error(torch, got, reference_of(X))
            flushed_results += int(flushed.sum().item())
            error = error.view(chunk_fields, field_size)
            for zero_field in (0, 256):  # +0 and -0 are their own bucket
                if first_field <= zero_field < first_field + chunk_fields:
                    row = zero_field - first_field
                    fields.zero[zero_field // 256] = (float(error[row, 0].item()), zero_field << 23)
                    error[row, 0] = 0
            values, where = error.max(dim=1)
            values, where = values.cpu().numpy(), where.cpu().numpy()
            for row in range(chunk_fields):
                field = first_field + row
                count = field_size - (1 if field in (0, 256) else 0)
                fields.add(field, float(values[row]), (field << 23) + int(where[row]) * stride, count)
            inputs += bits.numel()
        flushes_result = flushed_results > 0
        return (fields.rows(name, table, bucket_meta, flushes_input, flushes_result), inputs, stride > 1,
                flushes_input, flushes_result)
    # binary: every (x exponent field, y exponent field) pair with 4 mantissas each, plus 2^24 random pairs
    mantissas = torch.tensor([0, 1, 0x2AAAAA, 0x7FFFFF], dtype=torch.int64, device=device)
    field_values = torch.arange(0, 256, dtype=torch.int64, device=device)
    grid_bits = ((field_values[:, None] << 23) | mantissas[None, :]).reshape(-1)
    grid_bits = torch.cat([grid_bits, grid_bits | (1 << 31)])
    xb = grid_bits[:, None].expand(-1, grid_bits.numel()).reshape(-1)
    yb = grid_bits[None, :].expand(grid_bits.numel(), -1).reshape(-1)
    generator = torch.Generator(device=device).manual_seed(1234)
    rx = torch.randint(0, 1 << 32, (1 << 24,), dtype=torch.int64, device=device, generator=generator)
    ry = torch.randint(0, 1 << 32, (1 << 24,), dtype=torch.int64, device=device, generator=generator)
    for xbits, ybits in ((xb, yb), (rx, ry)):
        x, y = to_f32(torch, xbits), to_f32(torch, ybits)
        got = launch(x, y)
        error, flushed = torch_ulp_error(torch, got, reference_of(x.to(torch.float64), y.to(torch.float64)))
        flushed_results += int(flushed.sum().item())
        field = (xbits >> 23).cpu().numpy()
        is_zero = ((xbits & 0x7FFFFFFF) == 0).cpu().numpy()
        error_np, bits_np = error.cpu().numpy(), xbits.cpu().numpy()
        order = np.argsort(field, kind="stable")
        sorted_field = field[order]
        for value in np.unique(field):
            lanes = order[np.searchsorted(sorted_field, value):np.searchsorted(sorted_field, value, side="right")]
            zero_lanes = lanes[is_zero[lanes]]
            if zero_lanes.size:
                sign = int(value) >> 8
                worst_error = float(error_np[zero_lanes].max())
                previous = fields.zero[sign]
                if previous is None or worst_error > previous[0]:
                    fields.zero[sign] = (worst_error, int(bits_np[zero_lanes[0]]))
            lanes = lanes[~is_zero[lanes]]
            if lanes.size:
                worst = lanes[np.argmax(error_np[lanes])]
                fields.add(int(value), float(error_np[worst]), int(bits_np[worst]), lanes.size)
        inputs += xbits.numel()
    flushes_result = flushed_results > 0
    return fields.rows(name, table, bucket_meta, False, flushes_result), inputs, False, False, flushes_result


def torch_ulp_error(torch, got, exact):
    """ulp_error_np on the GPU (f32 results)."""
    got = got.to(torch.float64)
    magnitude = exact.abs()
    exponent = torch.frexp(torch.where(magnitude > 0, magnitude, torch.ones_like(magnitude)))[1] - 1
    spacing = torch.exp2((torch.clamp(exponent, min=-126) - 23).to(torch.float64))
    error = (got - exact).abs() / spacing
    error = torch.where(torch.isnan(got) & torch.isnan(exact), torch.zeros_like(error), error)
    error = torch.where(torch.isnan(error), torch.full_like(error, math.inf), error)
    max_value = float(np.finfo(np.float32).max)
    rounds_to_inf = torch.isinf(got) & torch.isfinite(exact) & (torch.sign(got) == torch.sign(exact)) & \
        (magnitude >= max_value + 2.0**103)
    error = torch.where(rounds_to_inf | (got == exact), torch.zeros_like(error), error)
    flushed = (got == 0) & (exact != 0) & (magnitude < 2.0**-126)
    return torch.where(flushed, torch.zeros_like(error), error), flushed


def run_f64(torch, kernel, function, rows, count=1 << 20, block=1024):
    """`count` f64 inputs (all exponents with random mantissas, both signs) against numpy long double."""
    name, _, _, reference, _, _ = function
    rng = np.random.default_rng(99)
    fields = rng.integers(0, 2047, count, dtype=np.uint64)
    mantissa = rng.integers(0, 1 << 52, count, dtype=np.uint64)
    sign = rng.integers(0, 2, count, dtype=np.uint64)
    bits = (sign << np.uint64(63)) | (fields << np.uint64(52)) | mantissa
    x = bits.view(np.float64)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5]
    bits = x.view(np.uint64)
    xt = torch.as_tensor(x, device="cuda")
    out = torch.empty_like(xt)
    kernel[(triton_cdiv(count, block),)](xt, out, count, BLOCK=block)
    got = out.cpu().numpy()
    with np.errstate(all="ignore"):
        exact = NP_UNARY[reference](x.astype(np.longdouble))

    def spacing_f64(v):
        magnitude = np.abs(v)
        _, e = np.frexp(np.where(magnitude > 0, magnitude, 1.0))
        return np.ldexp(np.longdouble(1.0), np.maximum(e.astype(np.int64) - 1, -1022) - 52)

    with np.errstate(all="ignore"):
        error = (np.abs(got.astype(np.longdouble) - exact) / spacing_f64(exact)).astype(np.float64)
        error = np.where(np.isnan(got) & np.isnan(exact.astype(np.float64)), 0.0, error)
        error = np.where(got.astype(np.longdouble) == exact, 0.0, error)
        error = np.where(np.isinf(got) & (got == exact.astype(np.float64)), 0.0, error)
        error = np.where(np.isnan(error), np.inf, error)
    with np.errstate(all="ignore"):
        _, e = np.frexp(np.where(np.isfinite(x) & (x != 0), np.abs(x), 1.0))
    exponent = np.where(x == 0, ZERO_RANGE[0], np.where(np.isfinite(x), e - 1, SPECIAL_RANGE[0]))
    exponent = np.where((x != 0) & np.isfinite(x) & (np.abs(x) < 2.0**-1022), -1074, exponent)
    negative = np.signbit(x)
    for sign_text, lo, hi in bucket_rows(F64_RANGES):
        mask = ((negative if sign_text == "-" else ~negative) & (exponent >= lo) & (exponent < hi))
        if not mask.any():
            continue
        worst_index = np.flatnonzero(mask)[np.argmax(error[mask])]
        rows.append((name, "f64", sign_text, lo, hi, float(error[mask].max()), f"0x{int(bits[worst_index]):016x}",
                     0, 0, int(mask.sum())))
    return count


def triton_cdiv(a, b):
    return (a + b - 1) // b


def gpu_provenance(torch):
    props = torch.cuda.get_device_properties(0)
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception as error:  # noqa: BLE001 - provenance only
        smi = f"nvidia-smi unavailable ({error})"
    import triton
    return [f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
            f"gpu: {props.name} (nvidia-smi: {smi})", f"cuda: {torch.version.cuda}",
            f"torch: {torch.__version__}, triton: {triton.__version__}",
            "command: python3 conformance/triton/measure_bounds.py --out $OUT"]


def format_ulp(value):
    return "inf" if math.isinf(value) else f"{value:.4g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "measure_bounds_out"))
    parser.add_argument("--only", default="", help="comma-separated table names to measure")
    parser.add_argument("--budget", type=float, default=150.0, help="seconds after which f32 sweeps are strided (by 64) and f64 samples shrink to 2^18")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    import torch
    os.makedirs(args.out, exist_ok=True)
    functions = function_list()
    if args.only:
        wanted = set(args.only.split(","))
        functions = [f for f in functions if f[0] in wanted]
    started = time.time()
    kernels = write_kernels(functions, tempfile.mkdtemp(prefix="measure_bounds_"))
    table, _ = bucket_table(F32_RANGES, 8, 23)
    f32_rows_meta = bucket_rows(F32_RANGES)
    rows, summary, failures = [], [], []
    for index, function in enumerate(functions):
        name, dtype = function[0], function[1]
        kernel = getattr(kernels, f"k{index}")
        t0 = time.time()
        try:
            if dtype == "f32":
                budget_left = args.budget - (time.time() - started)
                new_rows, inputs, sampled, flushes_input, flushes_result = run_f32(
                    torch, kernel, function, table, f32_rows_meta, budget_left)
                rows += new_rows
                mode = "sampled" if sampled else ("exhaustive" if function[4] == 1 else "dense sample")
                finite_rows = [r for r in new_rows if (r[3], r[4]) != SPECIAL_RANGE]
                top = max(finite_rows, key=lambda r: r[5]) if finite_rows else None
                worst_bits = int(top[6], 16) if top else 0
                worst_value = np.array([worst_bits], dtype=np.uint32).view(np.float32)[0]
                summary.append((name, "f32", top[5] if top else 0.0, f"{top[6] if top else '-'} ({worst_value!r})",
                                int(flushes_input), int(flushes_result), inputs, mode))
            else:
                before = len(rows)
                over_budget = time.time() - started > args.budget
                inputs = run_f64(torch, kernel, function, rows, count=1 << (18 if over_budget else 20))
                finite_rows = [r for r in rows[before:] if (r[3], r[4]) != SPECIAL_RANGE]
                top = max(finite_rows, key=lambda r: r[5]) if finite_rows else None
                summary.append((name, "f64", top[5] if top else 0.0, top[6] if top else "-", 0, 0, inputs, "sample"))
        except Exception as error:  # noqa: BLE001 - one function failing must not lose the table
            failures.append(f"{name} ({dtype}): {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
            print(f"  {name} {dtype}: FAILED {failures[-1]}", flush=True)
            continue
        print(f"  {name} {dtype}: max {format_ulp(summary[-1][2])} ulp, worst {summary[-1][3]}, "
              f"ftz in/out {summary[-1][4]}/{summary[-1][5]}, {summary[-1][6]} inputs ({time.time() - t0:.1f}s)", flush=True)
    provenance = gpu_provenance(torch)
    with open(os.path.join(args.out, "measured_bounds.tsv"), "w") as handle:
        for line in provenance:
            handle.write(f"# {line}\n")
        handle.write("function\tdtype\tsign\texp_lo\texp_hi\tmax_ulp\tworst_input\tftz_input\tftz_result\tsamples\n")
        for row in rows:
            handle.write("\t".join(format_ulp(v) if i == 5 else str(v) for i, v in enumerate(row)) + "\n")
    with open(os.path.join(args.out, "measured_bounds.md"), "w") as handle:
        handle.write("# Measured error of Triton's math lowering\n\n")
        handle.write("".join(f"- {line}\n" for line in provenance))
        handle.write("\nmax ulp: largest |gpu - exact| / spacing(exact) over finite inputs (inf/NaN inputs are "
                     "in the .tsv's 2000 rows); ftz in: subnormal inputs read as zero; ftz out: subnormal results "
                     "returned as zero. Per-range rows: measured_bounds.tsv.\n\n")
        handle.write("| function | type | max ulp | worst input | ftz in | ftz out | inputs | sweep |\n")
        handle.write("|---|---|---|---|---|---|---|---|\n")
        for name, dtype, overall, worst, ftz_in, ftz_out, inputs, mode in summary:
            handle.write(f"| `{name}` | {dtype} | {format_ulp(overall)} | {worst} | {ftz_in} | {ftz_out} | {inputs} | {mode} |\n")
        if failures:
            handle.write("\nNot measured (failed to compile or run):\n" + "".join(f"- {f}\n" for f in failures))
    print(f"measure_bounds: {len(summary)} functions measured, {len(failures)} failed, {len(rows)} rows, "
          f"{time.time() - started:.0f}s; wrote {args.out}/measured_bounds.tsv and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
