#!/usr/bin/env python3
"""Records golden cases from real Triton: compiles and launches the kernels of kernels.py on a GPU and writes
one folder per case in the format of conformance/golden/ (docs/conformance.md): kernel.ttir (paths shortened
to the file name), kernel.ttgir, kernel.ptx, case.json, the input buffers and, for each buffer a kernel writes,
NAME.expected.npy. Output buffers are filled with NaN (floats) or a sentinel (integers) before the launch.
bf16 is stored as raw int16 patterns, fp8 as raw uint8.

Run on the GPU machine (Triton 3.6, PyTorch, NumPy):
    python3 conformance/triton/make_golden.py --out DIR [--group extra|corpus10] [--only NAME,...] [--list]
Group `extra` is conformance/golden-extra/; group `corpus10` is issue 10's corpus (tensor descriptors, device-side
and host TensorDescriptor arguments, spin locks with debug barriers, early returns, inline PTX, long float row
reductions, in-place and strided views), for conformance/corpus10/.
Each case is tried on its own; a kernel that fails to compile is skipped and reported in the summary. After a
CUDA error (which leaves the context unusable) the script exits with status 3; running it again with the same
--out resumes after the failed case. `--dry` builds every case's inputs without Triton or a GPU (a self-check
that runs anywhere NumPy does).
"""
import argparse
import json
import os
import re
import shutil
import struct
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------------- values
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
FLT_MAX = float(np.finfo(np.float32).max)
NAN = float("nan")
INF = float("inf")


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def i8(vals):
    return np.array([wrap(int(v), 8) for v in vals], dtype=np.int8)


def i32(vals):
    return np.array([wrap(int(v), 32) for v in vals], dtype=np.int32)


def i64(vals):
    return np.array([wrap(int(v), 64) for v in vals], dtype=np.int64)


def f32(vals):
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=np.float64).astype(np.float32)


def f32bits(bits):
    return np.array([b & 0xFFFFFFFF for b in bits], dtype=np.uint32).view(np.float32)


def fbits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def fill_to(vals, n, extra):
    """vals (edge values) followed by extra values (an array) up to n elements."""
    vals = list(vals)
    assert len(vals) <= n, (len(vals), n)
    return vals + list(extra[: n - len(vals)])


# ---------------------------------------------------------------------------------------------------- buffers
RAW = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}
SAVE_AS = {"bfloat16": np.int16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}
FILL = {
    "float32": np.float32(NAN), "float64": np.float64(NAN), "float16": np.float16(NAN),
    "bfloat16": np.uint16(0x7FC0), "float8_e4m3fn": np.uint8(0x7F), "float8_e5m2": np.uint8(0x7F),
    "int8": np.int8(0x5A), "uint8": np.uint8(0xA5), "int16": np.int16(0x5A5A),
    "int32": np.int32(0x5A5A5A5A), "int64": np.int64(0x5A5A5A5A5A5A5A5A),
}


class Buf:
    """A tensor argument: its contents before the launch (raw bits for bf16/fp8) and whether it is recorded."""

    def __init__(self, data, dtype, out):
        self.dtype = dtype
        want = RAW[dtype] if dtype in RAW else np.dtype(dtype)
        data = np.ascontiguousarray(data)
        assert data.dtype == want, (dtype, data.dtype)
        self.data = data
        self.out = out


def In(arr, dtype=None):
    return Buf(arr, dtype or arr.dtype.name, False)


def Out(shape, dtype):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    fill = FILL[dtype]
    return Buf(np.full(shape, fill, dtype=fill.dtype), dtype, True)


def InOut(arr, dtype=None):
    return Buf(arr, dtype or arr.dtype.name, True)


def Storage(arr, dtype=None):
    """A buffer recorded (before and after) but not passed to the kernel: the storage that View arguments
    point into."""
    buf = Buf(arr, dtype or arr.dtype.name, True)
    buf.hidden = True
    return buf


class Desc:
    """A host-side triton.tools.tensor_descriptor.TensorDescriptor argument over buffer `buf` (its base is the
    buffer's start): shape and strides in elements, the block shape, padding "zero" or "nan". Triton 3.6's
    launcher passes it as the descriptor, then shape (i32 each), then strides (i64 each)."""

    def __init__(self, buf, shape, strides, block_shape, padding="zero"):
        self.buf, self.shape, self.strides = buf, list(shape), list(strides)
        self.block_shape, self.padding = list(block_shape), padding
        self.dtype, self.data, self.out = buf.dtype, buf.data, buf.out


class View:
    """A pointer into an earlier tensor argument's storage (`of`), `offset` elements in, covering `span`
    elements: in-place kernels and strided views. Recorded as alias_of / alias_offset; its expected file is the
    span's contents after the launch."""

    def __init__(self, of, offset, span, out=True):
        self.of, self.offset, self.span, self.out = of, offset, span, out


class Case:
    def __init__(self, name, kernel, grid, args, constexprs=None, num_warps=4, notes="", group="extra"):
        self.name, self.kernel, self.args = name, kernel, args
        self.grid = tuple(grid) + (1,) * (3 - len(grid))
        self.constexprs = constexprs or {}
        self.num_warps, self.notes, self.group = num_warps, notes, group


# ---------------------------------------------------------------------------------------------------- cases
def build_cases():
    rng = np.random.default_rng(20261130)
    C = []

    # ---------------------------------------------------------------- atomics
    n = 200
    small = rng.integers(-50, 51, n)
    full = rng.integers(INT32_MIN, INT32_MAX, n, endpoint=True)
    x = np.where(rng.random(n) < 0.5, small, full)
    x[:8] = [INT32_MIN, INT32_MAX, -1, 0, 1, 0x7FFF0000, -0x10000, 12345]
    C.append(Case("atomic_int_i32", "atomic_int", (4,), [
        ("x_ptr", In(i32(x))),
        ("mx_ptr", InOut(i32([0, -5, INT32_MIN, 100, INT32_MAX, -1, 7, INT32_MIN + 1]))),
        ("mn_ptr", InOut(i32([0, 5, INT32_MAX, -100, INT32_MIN, 1, -7, INT32_MAX - 1]))),
        ("umx_ptr", InOut(i32([0, 0xFFFFFFFF, 5, 0x80000000, 0x7FFFFFFF, 1, 0xFFFFFFFE, 0]))),
        ("umn_ptr", InOut(i32([0xFFFFFFFF, 0, 5, 0x7FFFFFFF, 0x80000000, 1, 0xFFFFFFFF, 2]))),
        ("and_ptr", InOut(i32([-1, 0x0F0F0F0F, -1, 0x7FFFFFFF, -1, 0xFFFF0000, -1, 0x55555555]))),
        ("or_ptr", InOut(i32([0, 0x100, 0, 0x80000000, 0, 1, 0, 0]))),
        ("xor_ptr", InOut(i32([0, 0x5555, -1, 0, 0x12345678, 0, 7, 0]))),
        ("n", n)], {"NSLOT": 8, "BLOCK": 64},
        notes="atomic max/min (signed; unsigned through a uint32 pointer cast), and/or/xor from 4 programs onto 8 "
              "shared slots; every combine is order-independent"))

    n = 250
    x = (rng.standard_normal(256) * 100).astype(np.float32)
    lane = np.arange(256)
    x[lane % 16 == 5] = -np.abs(x[lane % 16 == 5])
    x[lane % 16 == 10] = -np.abs(x[lane % 16 == 10]) - 1
    x[lane % 16 == 6] = np.where((lane[lane % 16 == 6] // 16) % 2 == 1, np.float32(-0.0), np.float32(0.0))
    edges = {0: -0.0, 1: 0.0, 2: INF, 3: -INF, 4: 1e-40, 20: -1e-40, 36: FLT_MAX, 52: -FLT_MAX}
    for k, v in edges.items():
        x[k] = v
    x[7] = f32bits([0x7FC00000])[0]      # +NaN: masked off by both (val >= 0 and val < 0 are false)
    x[23] = f32bits([0xFFC00000])[0]     # -NaN
    x[8] = f32bits([0x7FC00001])[0]
    mx0 = f32([-INF] * 16)
    mn0 = f32([INF] * 16)
    mx0[9] = mn0[9] = f32bits([0x7FC00000])[0]
    mx0[10] = 0.0
    mn0[11] = -0.0
    C.append(Case("atomic_fminmax_f32", "atomic_fminmax", (4,), [
        ("x_ptr", In(x)), ("mx_ptr", InOut(mx0)), ("mn_ptr", InOut(mn0)), ("n", n)],
        {"NSLOT": 16, "BLOCK": 64},
        notes="float atomic_max/min with negatives, +-0, +-inf, NaN patterns, denormals; 16 slots shared by 4 "
              "programs. Triton lowers them to int max (val >= 0) and uint min (val < 0) on the bit patterns"))

    B = 32
    a0 = f32(rng.standard_normal(4 * B))
    a0[:4] = f32bits([0x80000000, 0x7FC00000, 0x7F800000, 0x00000001])
    vf = f32(rng.standard_normal(4 * B) * 10)
    c0 = i32(rng.integers(-1000, 1000, 4 * B))
    cmp = c0.copy()
    cmp[1::2] += 1
    cmp[5] = c0[5]
    C.append(Case("atomic_xchg_cas_i32", "atomic_xchg_cas", (4,), [
        ("a_ptr", InOut(a0)), ("vf_ptr", In(vf)), ("oldf_ptr", Out(4 * B, "float32")),
        ("c_ptr", InOut(c0)), ("cmp_ptr", In(cmp)), ("vi_ptr", In(i32(rng.integers(-10**6, 10**6, 4 * B)))),
        ("oldc_ptr", Out(4 * B, "int32")),
        ("lock_ptr", InOut(i32([0, 5, 0, -1]))), ("lold_ptr", Out(4, "int32")),
        ("cnt_ptr", InOut(i32([10, 0, -1])))], {"BLOCK": B},
        notes="atomic_xchg (f32) and atomic_cas (i32) on one address per lane, returned old values stored; a "
              "scalar CAS per program; scalar atomic add/max on shared counters from all programs"))

    c = f32bits([0, 0x80000000, fbits(1.0), 0x7FC00000, 0x7FFFFFFF, 0x7F800000, fbits(1.5), fbits(-2.0),
                 0x00000001, fbits(3.0), 0xFFC00000, fbits(-0.5), fbits(7.0), 0, fbits(100.0), fbits(1e-3)])
    cmpf = f32bits([0x80000000, 0x80000000, fbits(1.0), 0x7FC00000, 0x7FC00000, 0x7F800000, fbits(1.5) + 1,
                    fbits(-2.0), 0x00000001, fbits(3.0), 0xFFC00000, fbits(0.5), fbits(7.0), 0, fbits(100.0),
                    fbits(1e-3)])
    C.append(Case("atomic_cas_f32", "atomic_cas_f32", (1,), [
        ("c_ptr", InOut(c)), ("cmp_ptr", In(cmpf)), ("v_ptr", In(f32(np.arange(16) + 0.25))),
        ("old_ptr", Out(16, "float32"))], {"BLOCK": 16},
        notes="float atomic_cas compares bit patterns: -0.0 vs +0.0 and NaN payloads"))

    n = 200
    x = f32(rng.integers(-1000, 1001, 256) + np.where(rng.random(256) < 0.3, 0.5, 0.0))
    x[3] = INF
    x[3 + 8 * 7] = -INF
    x[9] = -0.0
    x[17] = 0.0
    C.append(Case("atomic_fadd_f32", "atomic_fadd", (4,), [
        ("x_ptr", In(x)), ("acc_ptr", InOut(f32([0, 0.5, -0.0, 100, 0, 1e6, 0, -3]))),
        ("t_ptr", InOut(f32(rng.integers(-100, 100, 256)))), ("old_ptr", Out(256, "float32")), ("n", n)],
        {"NSLOT": 8, "BLOCK": 64},
        notes="atomic_add f32 of integer-valued floats onto 8 shared slots (exact, so order-independent; "
              "inf + -inf in slot 3); masked atomic_add on one address per lane returning old values"))

    n = 100
    x = rng.integers(-1000, 1001, 128)
    x[:6] = [INT32_MAX, INT32_MIN, 3, 0, -3, 1]
    t0 = rng.integers(-1000, 1001, 100)
    t0[0] = 1
    t0[1] = -1
    for store_all, cname in ((False, "atomic_old_masked_i32"), (True, "atomic_old_unmasked_store_i32")):
        C.append(Case(cname, "atomic_old_i32", (4,), [
            ("x_ptr", In(i32(x))), ("t_ptr", InOut(i32(t0))),
            ("u_ptr", InOut(i32(rng.integers(-500, 500, 100)))),
            ("old_ptr", Out(100, "int32")), ("oldm_ptr", Out(100, "int32")), ("n", n)],
            {"BLOCK": 32, "STORE_ALL": store_all},
            notes="masked atomic_add/atomic_max returning old values; " +
                  ("the old values of masked-off lanes (0 on NVIDIA) are stored too" if store_all
                   else "old values stored under the same mask")))

    # ---------------------------------------------------------------- reductions
    R, Cc = 8, 32
    t = np.zeros((R, Cc), dtype=np.float32)
    t[0] = 3.0
    t[1] = rng.integers(-20, 20, Cc)
    t[1, [5, 17, 30]] = 50
    t[1, [2, 29]] = -50
    t[2] = np.where(rng.random(Cc) < 0.5, np.float32(-0.0), np.float32(0.0))
    t[3] = rng.standard_normal(Cc)
    t[3, [4, 19]] = INF
    t[3, [7, 25]] = -INF
    t[4] = rng.standard_normal(Cc)
    t[5] = -0.0
    t[5, 20] = 0.0
    t[6] = f32([FLT_MAX, -FLT_MAX, 1e-45, -1e-45] * 8)
    t[7] = np.arange(Cc, 0, -1)
    t[7, -4:] = 1
    C.append(Case("reduce_minmax_ties_f32", "reduce_minmax", (1,), [
        ("x_ptr", In(t)), ("mx_ptr", Out(R + Cc, "float32")), ("mn_ptr", Out(R + Cc, "float32")),
        ("amx_ptr", Out(R + Cc, "int32")), ("amn_ptr", Out(R + Cc, "int32"))], {"R": R, "C": Cc},
        notes="tl.max/min/argmax/argmin along both axes of 8x32 f32: ties (smallest index wins), -0.0 vs +0.0, "
              "+-inf, extremes; rows in [0,8), columns in [8,40)"))

    t = f32(rng.standard_normal((R, Cc)))
    qn = f32bits([0x7FC00000])[0]
    t[0, 1] = qn
    t[1] = qn
    t[2] = qn
    t[2, 7] = 2.5
    t[3, -1] = qn
    t[3, 3] = 9.0
    t[4, 0] = qn
    t[5, ::3] = f32bits([0xFFC00000])[0]
    t[6, ::4] = qn
    t[6, 1] = INF
    t[6, 2] = -INF
    C.append(Case("reduce_minmax_nan_f32", "reduce_minmax", (1,), [
        ("x_ptr", In(t)), ("mx_ptr", Out(R + Cc, "float32")), ("mn_ptr", Out(R + Cc, "float32")),
        ("amx_ptr", Out(R + Cc, "int32")), ("amn_ptr", Out(R + Cc, "int32"))], {"R": R, "C": Cc},
        notes="tl.max/min (maxnumf: NaN ignored unless all NaN) and argmax/argmin (NaN never compares greater, "
              "so the index depends on the combine order) on rows and columns containing NaN"))

    ti = rng.integers(-100, 100, (R, Cc))
    ti[0] = 7
    ti[1, [3, 9, 31]] = INT32_MAX
    ti[1, [0, 30]] = INT32_MIN
    ti[2] = rng.integers(INT32_MIN, INT32_MAX, Cc)
    ti[3] = np.arange(Cc) % 4
    C.append(Case("reduce_minmax_i32", "reduce_minmax", (1,), [
        ("x_ptr", In(i32(ti.ravel()).reshape(R, Cc))), ("mx_ptr", Out(R + Cc, "int32")),
        ("mn_ptr", Out(R + Cc, "int32")),
        ("amx_ptr", Out(R + Cc, "int32")), ("amn_ptr", Out(R + Cc, "int32"))], {"R": R, "C": Cc},
        notes="int32 max/min/argmax/argmin along both axes with ties and INT_MIN/INT_MAX"))

    xb = rng.integers(INT32_MIN, INT32_MAX, (R, Cc))
    bb = rng.integers(-128, 128, (R, Cc))
    bb[0, :4] = [-128, 127, -128, 127]
    bb[1] = -128
    bb[2] = 127
    C.append(Case("reduce_bits_i32", "reduce_bits", (1,), [
        ("x_ptr", In(i32(xb.ravel()).reshape(R, Cc))), ("b_ptr", In(i8(bb.ravel()).reshape(R, Cc))),
        ("out_ptr", Out(5 * R + 2, "int32"))], {"R": R, "C": Cc},
        notes="xor_sum, reduce_or, int8 max/sum/min promoted to int32, a wrapping int32 sum over axis=None"))

    R2, C2 = 8, 16
    xr = rng.integers(-9, 10, (R2, C2))
    xr[xr == 0] = 1
    yr = f32(rng.standard_normal((R2, C2)))
    yr[3, 5] = NAN
    yr[4, :] = -0.0
    yr[4, 7] = 0.0
    C.append(Case("reduce_custom_i32_f32", "reduce_custom", (1,), [
        ("x_ptr", In(i32(xr.ravel()).reshape(R2, C2))), ("y_ptr", In(yr)),
        ("s_ptr", Out(R2, "int32")), ("m_ptr", Out(R2, "float32")), ("p_ptr", Out(C2, "int32")),
        ("k_ptr", Out((R2, C2), "float32")), ("d_ptr", Out((R2, C2), "int32"))], {"R": R2, "C": C2},
        notes="tl.reduce with a tuple combine (sum, maximum), a wrapping product combine, keep_dims max and "
              "sum broadcast back"))

    xs = f32(rng.integers(-1000, 1001, (16, 16)) + np.where(rng.random((16, 16)) < 0.25, 0.5, 0.0))
    C.append(Case("reduce_sum_exact_f32", "reduce_sum_exact", (1,), [
        ("x_ptr", In(xs)), ("out_ptr", Out(33, "float32"))], {"R": 16, "C": 16},
        notes="f32 sum over axis=None of a 2-D block, and over each axis, of integer/half values: exact in any order"))

    # ---------------------------------------------------------------- scans
    xsc = rng.integers(-5, 6, (4, 32))
    xsc[0, 10] = INT32_MAX
    xsc[3, :] = rng.integers(INT32_MIN, INT32_MAX, 32)
    C.append(Case("scan_int_i32", "scan_int", (1,), [
        ("x_ptr", In(i32(xsc.ravel()).reshape(4, 32))), ("rc_ptr", Out((4, 32), "int32")),
        ("c0_ptr", Out((4, 32), "int32")), ("cp_ptr", Out((4, 32), "int32")), ("rp_ptr", Out((4, 32), "int32"))],
        {"R": 4, "C": 32},
        notes="cumsum reverse=True along axis 1, cumsum along axis 0, cumprod (wrapping) along axis 1, "
              "cumprod reverse=True along axis 0"))

    pool = [1.0, 2.0, 0.5, -1.0, -2.0, -0.5]
    xp = [pool[k] for k in rng.integers(0, len(pool), 64)]
    for k in rng.choice(64, 8, replace=False):
        xp[k] = 1.5 if k % 2 else -0.75
    C.append(Case("scan_f32_exact", "scan_f32_exact", (1,), [
        ("x_ptr", In(f32(xp))), ("y_ptr", In(f32(rng.integers(-100, 101, 64)))),
        ("cp_ptr", Out(64, "float32")), ("rp_ptr", Out(64, "float32")), ("cs_ptr", Out(64, "float32"))],
        {"N": 64},
        notes="f32 cumprod forward and reverse of powers of two with a few factors 1.5/0.75, cumsum reverse of "
              "integers: exact in any combine order"))

    mm = i32(rng.integers(-3, 4, 128)).reshape(4, 32)
    cc = i32(rng.integers(-10, 11, 128)).reshape(4, 32)
    for rev in (False, True):
        C.append(Case("scan_affine_reverse_i32" if rev else "scan_affine_i32", "scan_affine", (1,), [
            ("m_ptr", In(mm)), ("c_ptr", In(cc)), ("om_ptr", Out((4, 32), "int32")),
            ("oc_ptr", Out((4, 32), "int32"))], {"R": 4, "C": 32, "REVERSE": rev},
            notes="tl.associative_scan with a tuple combine that composes affine maps (associative, not "
                  "commutative), int32 wrapping" + (", reverse=True" if rev else "")))

    # ---------------------------------------------------------------- casts
    edges = [0.0, -0.0, 1.0, -1.0, NAN, INF, -INF, 448.0, -448.0, 464.0, 479.9, 480.0, 500.0, 1e4, -1e4,
             57344.0, 61439.0, 61440.0, 65536.0, 1e6, -1e6, FLT_MAX, 1.0625, 1.1875, 1.125, 1.375, -1.0625,
             2.0**-9, 2.0**-10, 1.5 * 2.0**-10, 2.0**-7, 2.0**-6 * 1.0625, 2.0**-16, 2.0**-17, 1.5 * 2.0**-17,
             2.0**-14, 2.0**-15 * 3, 1e-40, -1e-40, 0.1, -0.3, 3.0, 240.0, 232.0, 248.0, 256.0, 0.015625,
             0.0009765625, 1.0 + 2.0**-23, 448.0 + 2.0**-10 * 448, 56000.0, 58000.0, -61440.0, 24576.0, 28672.0]
    mags = np.exp2(rng.uniform(-22, 20, 256)) * np.where(rng.random(256) < 0.5, -1, 1)
    C.append(Case("cast_f32_fp8", "cast_f32_fp8", (2,), [
        ("x_ptr", In(f32(fill_to(edges, 256, mags)))), ("e4_ptr", Out(256, "float8_e4m3fn")),
        ("e5_ptr", Out(256, "float8_e5m2")), ("r4_ptr", Out(256, "float32")), ("r5_ptr", Out(256, "float32"))],
        {"BLOCK": 128},
        notes="fp32 -> float8e4nv / float8e5 (RNE, satfinite: inf and overflow saturate, NaN -> 0x7F) and back "
              "to fp32; ties, subnormals, saturation boundaries"))

    all8 = np.arange(256, dtype=np.uint8)
    for dt, short in (("float32", "f32"), ("float16", "f16"), ("bfloat16", "bf16")):
        C.append(Case(f"cast_fp8_to_{short}", "cast_fp8_wide", (2,), [
            ("a_ptr", In(all8, "float8_e4m3fn")), ("b_ptr", In(all8, "float8_e5m2")),
            ("fa_ptr", Out(256, dt)), ("fb_ptr", Out(256, dt))], {"BLOCK": 128},
            notes=f"all 256 float8e4nv and float8e5 bit patterns converted to {dt}"))

    all16 = np.arange(65536, dtype=np.uint16)
    C.append(Case("cast_f16_to_fp8_all", "cast_half_fp8", (64,), [
        ("x_ptr", In(all16.view(np.float16))), ("e4_ptr", Out(65536, "float8_e4m3fn")),
        ("e5_ptr", Out(65536, "float8_e5m2"))], {"BLOCK": 1024},
        notes="all 65536 fp16 bit patterns to float8e4nv and float8e5"))
    C.append(Case("cast_bf16_to_fp8_all", "cast_half_fp8", (64,), [
        ("x_ptr", In(all16, "bfloat16")), ("e4_ptr", Out(65536, "float8_e4m3fn")),
        ("e5_ptr", Out(65536, "float8_e5m2"))], {"BLOCK": 1024},
        notes="all 65536 bf16 bit patterns to float8e4nv and float8e5"))

    edges = [0.0, -0.0, NAN, INF, -INF, 65504.0, -65504.0, 65519.0, 65520.0, 65535.0, 1e5, -1e5, FLT_MAX,
             2.0**-24, 2.0**-25, 1.5 * 2.0**-25, 2.0**-25 + 2.0**-40, 6e-8, 3e-8, 2.0**-14, 2.0**-14 - 2.0**-24,
             1e-40, -1e-40, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8,
             1.0 + 2.0**-8 + 2.0**-20, 3.0e38, 3.4e38, 0.1, -0.1, 1.0 / 3, 2.0**-126, 2.0**-133, 2.0**-149]
    nanpay = f32bits([0x7F800001, 0xFF800001, 0x7FFFFFFF, 0x7FC00000, 0xFFC00000, 0x7FA00000])
    rbits = f32bits(rng.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32))
    inrange = np.exp2(rng.uniform(-26, 16.5, 300)) * np.where(rng.random(300) < 0.5, -1, 1)
    vals = f32(fill_to(edges, 512, np.concatenate([f32(inrange), rbits])))
    vals[len(edges):len(edges) + len(nanpay)] = nanpay
    C.append(Case("cast_f32_f16_bf16", "cast_f32_half", (4,), [
        ("x_ptr", In(vals)), ("h_ptr", Out(512, "float16")), ("hz_ptr", Out(512, "float16")),
        ("b_ptr", Out(512, "bfloat16")), ("bz_ptr", Out(512, "bfloat16"))], {"BLOCK": 128},
        notes="fp32 -> fp16 and bf16, rounding rtne and rtz (fp_downcast_rounding), NaN payloads, overflow, "
              "subnormals, random bit patterns"))

    edges = [NAN, INF, -INF, 0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 127.0, 127.9, 128.0, -128.0, -128.9,
             -129.0, 200.0, 255.0, 255.5, 256.0, 300.0, -300.0, 32767.0, 32768.0, -32768.0, -32769.0, 65504.0,
             65535.0, 65536.0, 70000.0, -70000.0, 2147483520.0, 2.0**31, -2.0**31, -2147483904.0, 4294967040.0,
             2.0**32, 1e10, -1e10, 2.0**63, -2.0**63, 1e19, 2.0**64, 1e20, -1e20, FLT_MAX, -FLT_MAX, 1e-40,
             -1e-40, -1.0, -255.0, 511.0, 65279.0, -65280.0, 123456.7]
    more = np.concatenate([rng.uniform(-300, 300, 100), rng.uniform(-1e5, 1e5, 100)])
    C.append(Case("cast_f32_int", "cast_f32_int", (2,), [
        ("x_ptr", In(f32(fill_to(edges, 256, more)))), ("i8_ptr", Out(256, "int8")), ("u8_ptr", Out(256, "uint8")),
        ("i16_ptr", Out(256, "int16")), ("i32_ptr", Out(256, "int32")), ("u32_ptr", Out(256, "int32")),
        ("i64_ptr", Out(256, "int64")), ("u64_ptr", Out(256, "int64"))], {"BLOCK": 128},
        notes="saturating fp32 -> int8/uint8/int16/int32/uint32/int64/uint64 (uint results in signed buffers of "
              "the same width); NaN, inf, out of range"))

    ea = [0, 1, -1, INT32_MAX, INT32_MIN, 2**24 + 1, 2**24 + 3, -(2**24 + 1), 2**25 + 2**17 + 1,
          2**25 + 2**17, 2**25 + 3 * 2**17, 65504, 65520, 65519, 70000, -70000, 2049, 4097, 255, 256, 257, -129,
          0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x1234ABCD, 16777217, 33554435, 2**31 - 64, 2**31 - 65]
    eb = [0, 1, -1, INT64_MAX, INT64_MIN, 2**53 + 1, 2**24 + 1, 2**40 + 2**16 + 1, -(2**40 + 2**16 + 1),
          2**63 - 2**39, 2**63 - 2**40 + 1, 255, 256, -129, 0x12345678ABCDEF01, -0x12345678ABCDEF01]
    a = fill_to(ea, 128, rng.integers(INT32_MIN, INT32_MAX, 128))
    b = fill_to(eb, 128, rng.integers(INT64_MIN, INT64_MAX, 128, dtype=np.int64))
    C.append(Case("cast_int_conv", "cast_int_conv", (2,), [
        ("a_ptr", In(i32(a))), ("b_ptr", In(i64(b))), ("f_ptr", Out(128, "float32")), ("fu_ptr", Out(128, "float32")),
        ("fl_ptr", Out(128, "float32")), ("h_ptr", Out(128, "float16")), ("bf_ptr", Out(128, "bfloat16")),
        ("n8_ptr", Out(128, "int8")), ("z_ptr", Out(128, "int32")), ("bo_ptr", Out(128, "int32")),
        ("sx_ptr", Out(128, "int64"))], {"BLOCK": 64},
        notes="int32/uint32/int64 -> fp32, int32 -> fp16 and bf16 (RNE; bf16 values chosen where rounding "
              "through fp32 first would differ), int64 -> int8 truncation, uint8 zero-extension, int1, int16 "
              "sign-extension"))

    # ---------------------------------------------------------------- integers
    pa = [7, -7, 7, -7, 5, -5, 0, INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX, 1, -1, 123456789, -123456789, 100,
          INT32_MIN, -1, 0, 3, INT32_MAX, -2, 6, -6]
    pb = [2, 2, -2, -2, 0, 0, 0, -1, 1, -1, 0, 0, 0, 1000, 1000, -7, 0, INT32_MIN, -1, INT32_MIN, INT32_MIN, -1, 3, 3]
    ra = rng.integers(-10**6, 10**6, 64)
    rb = rng.integers(-50, 50, 64)
    a = i32(fill_to(pa, 64, ra))
    b = i32(fill_to(pb, 64, rb))
    for which, cname, note in ((0, "int_divmod_i32", "// and % in one kernel"),
                               (1, "int_rem_only_i32", "% only (the quotient buffers stay unwritten)"),
                               (2, "int_div_only_i32", "// only (the remainder buffers stay unwritten)")):
        C.append(Case(cname, "int_divmod", (1,), [
            ("a_ptr", In(a)), ("b_ptr", In(b)), ("q_ptr", Out(64, "int32")), ("r_ptr", Out(64, "int32")),
            ("uq_ptr", Out(64, "int32")), ("ur_ptr", Out(64, "int32"))], {"BLOCK": 64, "WHICH": which},
            notes="signed and unsigned int32 " + note + ": division by zero, INT_MIN / -1, negative operands"))

    pa8 = [7, -7, 7, -7, 5, -5, 0, -128, -128, 127, 127, 1, -1, 100, -100, -128, 0, -1]
    pb8 = [2, 2, -2, -2, 0, 0, 0, -1, 1, -1, 0, 0, 0, 7, 7, -128, -128, -128]
    pa64 = [7, -7, 5, -5, 0, INT64_MIN, INT64_MIN, INT64_MAX, INT64_MAX, 2**40 + 3, -(2**40 + 3), 1, -1, 2**62]
    pb64 = [2, 2, 0, 0, 0, -1, 1, -1, 0, 2**20, 2**20, 0, 0, -3]
    C.append(Case("int_divmod_i8_i64", "int_divmod_8_64", (1,), [
        ("a_ptr", In(i8(fill_to(pa8, 64, rng.integers(-128, 128, 64))))),
        ("b_ptr", In(i8(fill_to(pb8, 64, rng.integers(-20, 20, 64))))),
        ("c_ptr", In(i64(fill_to(pa64, 64, rng.integers(INT64_MIN, INT64_MAX, 64, dtype=np.int64))))),
        ("d_ptr", In(i64(fill_to(pb64, 64, rng.integers(-2**33, 2**33, 64, dtype=np.int64))))),
        ("q8_ptr", Out(64, "int8")), ("r8_ptr", Out(64, "int8")), ("q64_ptr", Out(64, "int64")),
        ("r64_ptr", Out(64, "int64"))], {"BLOCK": 64},
        notes="int8 and int64 // and %: division by zero, MIN / -1, negative operands"))

    sx = [1, -1, INT32_MIN, INT32_MAX, 0x12345678, -8, 0x80000001, 5, -5, 0xFF, 0x7F, -128] * 2
    ss = [0, 1, 31, 32, 33, 63, 64, 100, 255, 256, -1, -32, 7, 8, 9, 15, 16, 17, 40, INT32_MIN, INT32_MAX, 2, 3, 4]
    xx = i32(fill_to(sx, 64, rng.integers(INT32_MIN, INT32_MAX, 64)))
    yy = i32(fill_to([2, 2, -1, -1, 0x10000, 3, 0x80000000, -1, 7, 0xFFFFFFFF], 64,
                     rng.integers(INT32_MIN, INT32_MAX, 64)))
    ssa = i32(fill_to(ss, 64, rng.integers(-70, 70, 64)))
    C.append(Case("int_shift_mulhi", "int_shift_mulhi", (1,), [
        ("x_ptr", In(xx)), ("y_ptr", In(yy)), ("s_ptr", In(ssa)), ("o32_ptr", Out((5, 64), "int32")),
        ("o8_ptr", Out((3, 64), "int8")), ("o64_ptr", Out((3, 64), "int64"))], {"BLOCK": 64},
        notes="<<, arithmetic >> and logical >> by amounts >= the width and negative amounts, in int8, int32 "
              "and int64; umulhi on int32 and uint32 (rows: shl, sar, shr, umulhi i32, umulhi u32)"))

    xv = fill_to([INT64_MIN, INT64_MAX, -1, 0, 1, 2**40, -(2**40), 2**33 + 1, 7, -7, 2**62 + 12345],
                 128, rng.integers(INT64_MIN, INT64_MAX, 128, dtype=np.int64))
    C.append(Case("int64_index", "int64_index", (4,), [
        ("x_ptr", In(i64(xv))), ("y_ptr", Out(128, "int64")), ("q_ptr", Out((128, 4), "int64")),
        ("big", 2**33 + 7)], {"BLOCK": 32},
        notes="int64 offsets and arithmetic past 2^31 (an int64 scalar argument), reversed addressing, int64 "
              "wrap-around, // and % by literals, shifts"))

    # ---------------------------------------------------------------- float math
    xm = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, -0.5, 1e-40, -1e-40, INF, -INF, NAN, 3.0, 1e30, 7.0, 0.1,
          1.0 / 3, 16777217.0, -1e-45, FLT_MAX, 1.17549435e-38, 2.0, 4.0, -3.75, 0.7, 10.0, -10.0, 1e-20, 5.5,
          -5.5, 100.0, 2.0**-126 * 1.5, 9.0]
    ym = [1.0, 1.0, 0.0, -0.0, 3.0, -1.5, NAN, 2.0, 0.5, 2.0, 1e-40, 2.0, INF, 1.0, 3.0, 1e-30, -0.0, 3.0, 3.0,
          1.0, 1e-45, 0.5, 2.0, 2.0, -0.0, 1.5, 7.0, INF, -INF, 1e20, NAN, 0.0, 0.3, 2.0, -9.0]
    zm = [0.0, -0.0, -1.0, 1.0, 0.25, 1e-8, 1.0, -5.0, 0.25, 0.0, -0.0, -INF, NAN, 1.0, -9.0, 1.0, 7.0, -0.3,
          -1.0 / 3, 1.0, 0.0, -FLT_MAX, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    lo = [-1.0, -1.0, 0.0, 0.0, 0.6, 0.0, 0.0, -2.0, -0.0, 0.0, -1.0, -5.0, -5.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0,
          0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    hi = [1.0, 1.0, 0.5, 0.5, 0.7, 1.0, 2.0, 2.0, 0.0, 1.0, 1.0, 5.0, 5.0, 1.0, 3.0, 1.0, 5.0, 1.0, 1.0, 1e9, 1.0,
          1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    rx, ry, rz = rng.standard_normal(64) * 10, rng.standard_normal(64) * 3, rng.standard_normal(64)
    rlo = -np.abs(rng.standard_normal(64))
    C.append(Case("math_precise_f32", "math_precise", (1,), [
        ("x_ptr", In(f32(fill_to(xm, 64, rx)))), ("y_ptr", In(f32(fill_to(ym, 64, ry)))),
        ("z_ptr", In(f32(fill_to(zm, 64, rz)))), ("lo_ptr", In(f32(fill_to(lo, 64, rlo)))),
        ("hi_ptr", In(f32(fill_to(hi, 64, -rlo)))), ("out_ptr", Out((16, 64), "float32"))], {"BLOCK": 64},
        notes="rows: div_rn, sqrt_rn, fma, floor, ceil, clamp, maximum/minimum propagate_nan=ALL, maximum/minimum, "
              "a where chain, abs, fp %, -x, clamp propagate_nan=ALL, compare flags (== 1, != 2, < 4)"))

    xl = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 10.0, -10.0, 0.1, 20.0, -20.0, 88.0, -87.0, 1e-3, -1e-3,
          INF, -INF, NAN, 1e-6, 4.5, -4.5, 0.75, 100.0, 1e10, -1e10, 7.0, 0.999, -0.999, 1.5]
    yl = [2.0, 2.0, 0.5, 3.0, -1.0, 2.0, 10.0, 3.0, 0.5, -2.0, 2.0, 1.5, 0.0, 1.0, 1.0, 2.0, 0.25, 4.0, 2.0, 3.0,
          1.0, -0.5, 1.0, 1.0, INF, 0.1, 0.5, 2.0, -0.0, 1000.0, 2.0, NAN]
    C.append(Case("libdevice_transcendental_f32", "libdevice_transcendental", (1,), [
        ("x_ptr", In(f32(fill_to(xl, 64, rng.uniform(-6, 6, 64))))),
        ("y_ptr", In(f32(fill_to(yl, 64, rng.uniform(-3, 3, 64))))), ("out_ptr", Out((12, 64), "float32"))],
        {"BLOCK": 64},
        notes="libdevice (tl.extra.cuda.libdevice) rows: pow, tanh, erf, exp, log1p, expm1, atan2, cbrt, sinh, "
              "hypot, log, atan"))

    xe = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.5, -3.5, 1e10, -1e10, 8388609.0, 0.0, -0.0, INF, -INF,
          NAN, 1e-40, -1e-40, 7.0, -7.0, 5.3, -5.3, 1e30, 2.0**23 + 0.5, 4.5, 0.25, -0.75]
    ye = [2.0, -2.0, 0.0, 3.0, -0.0, 1.0, 1.0, NAN, 2.0, 3.0, 3.0, -1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.5,
          2.5, -2.0, 2.0, 7.0, 1.0, INF, -0.0, NAN]
    C.append(Case("libdevice_exact_f32", "libdevice_exact", (1,), [
        ("x_ptr", In(f32(fill_to(xe, 64, rng.uniform(-20, 20, 64))))),
        ("y_ptr", In(f32(fill_to(ye, 64, rng.uniform(-5, 5, 64))))),
        ("out_ptr", Out((10, 64), "float32")), ("iout_ptr", Out((3, 64), "int32"))], {"BLOCK": 64},
        notes="libdevice rows: rint, trunc, round, fmod, copysign, floor, ceil, fdim, nearbyint, abs; int rows: "
              "isnan, isinf, signbit"))

    # ---------------------------------------------------------------- shapes
    C.append(Case("gather_2d_f32", "gather2d", (1,), [
        ("s_ptr", In(f32(rng.standard_normal((8, 16))))),
        ("i1_ptr", In(i32(rng.integers(0, 16, 128)).reshape(8, 16))),
        ("i0_ptr", In(i32(rng.integers(0, 8, 128)).reshape(8, 16))),
        ("o1_ptr", Out((8, 16), "float32")), ("o0_ptr", Out((8, 16), "float32"))], {"R": 8, "C": 16},
        notes="tl.gather along axis 1 and axis 0 of an 8x16 block"))

    hx = rng.integers(0, 16, 256)
    hx[:16] = 3
    C.append(Case("histogram_mask_i32", "histogram_mask", (2,), [
        ("x_ptr", In(i32(hx))), ("h_ptr", Out(32, "int32")), ("hm_ptr", Out(32, "int32")), ("n", 200)],
        {"BLOCK": 128, "BINS": 16},
        notes="tl.histogram of values in [0,16) per program, without and with a mask (offs < 200)"))

    ca = i32(rng.integers(-1000, 1000, 32))
    cb = i32(rng.integers(-1000, 1000, 32))
    for raw, cname in ((False, "cat_reduce_i32"), (True, "cat_order_i32")):
        C.append(Case(cname, "cat_ops", (1,), [
            ("a_ptr", In(ca)), ("b_ptr", In(cb)), ("o_ptr", Out(64, "int32")), ("s_ptr", Out(3, "int32"))],
            {"N": 32, "STORE_RAW": raw},
            notes="tl.cat(can_reorder=True) then " + ("the result stored as it comes (Triton may reorder it)"
                                                      if raw else "only order-free reductions (sum, max, xor)")))

    C.append(Case("permute3d_f32", "permute3d", (1,), [
        ("x_ptr", In(f32(np.arange(64) * 1.5 - 7))), ("p_ptr", Out(64, "float32")), ("t_ptr", Out(64, "float32")),
        ("r_ptr", Out(64, "float32"))], {"A": 2, "B": 4, "C": 8},
        notes="tl.permute (2,0,1) and tl.trans(1,0,2) of a 2x4x8 block, reshape to 8x8 and 2-D trans"))

    C.append(Case("flip_ravel_i32", "flip_ravel", (1,), [
        ("x_ptr", In(i32(rng.integers(-1000, 1000, 64)).reshape(4, 16))), ("f_ptr", Out((4, 16), "int32")),
        ("g_ptr", Out(64, "int32")), ("v_ptr", Out((4, 16), "int32"))], {"R": 4, "C": 16},
        notes="tl.flip of the last dim of 4x16, tl.flip of a raveled 64-vector, reshape round trip"))

    sy = f32(rng.standard_normal((4, 16)))
    sy[0, :6] = f32([0.0, -0.0, 0.0, -0.0, INF, -INF])
    sy[1, ::5] = NAN
    sy[2, :] = f32(rng.integers(-3, 3, 16))
    C.append(Case("sort_i32_f32", "sort_ops", (1,), [
        ("x_ptr", In(i32(np.concatenate([rng.integers(-5, 5, 32), rng.integers(INT32_MIN, INT32_MAX, 32)]))
                     .reshape(4, 16))),
        ("y_ptr", In(sy)), ("xs_ptr", Out((4, 16), "int32")), ("ys_ptr", Out((4, 16), "float32"))],
        {"R": 4, "C": 16},
        notes="tl.sort ascending of int32 rows with duplicates, descending of f32 rows with +-0, +-inf, NaN"))

    # ---------------------------------------------------------------- control flow
    C.append(Case("while_loops_i32", "while_loops", (8,), [
        ("x_ptr", In(i32([1, 27, 97, 6, 7, 2, 871, 3]))), ("steps_ptr", Out(8, "int32")),
        ("v_ptr", In(i32(rng.integers(-5, 40, 128)))), ("vo_ptr", Out(128, "int32")), ("it_ptr", Out(8, "int32"))],
        {"BLOCK": 16},
        notes="scf.while with a data-dependent trip count (Collatz steps, scf.if inside) and a while over a tensor "
              "state whose condition is a reduction"))

    C.append(Case("noinline_call", "noinline_call", (4,), [
        ("x_ptr", In(i32([5, -3, INT32_MAX, 100]))), ("y_ptr", In(f32([1.0, -2.5, 1e-3, 7.0]))),
        ("o_ptr", Out(8, "int32")), ("of_ptr", Out(4, "float32"))], {},
        notes="@triton.jit(noinline=True) helpers called with scalars (tt.call to private functions)"))

    bounds = [(0, 10, 3), (-7, 8, 2), (5, 5, 1), (10, 3, 1), (-20, -1, 5), (3, 100, 7), (0, 1, 1), (-3, 4, 4)]
    C.append(Case("for_runtime_i32", "for_runtime", (8,), [
        ("b_ptr", In(i32([v for t3 in bounds for v in t3]))), ("o_ptr", Out(16, "int32")),
        ("vo_ptr", Out(128, "int32"))], {"BLOCK": 16},
        notes="scf.for with run-time bounds and step (odd steps, empty ranges, lo > hi)"))

    nb = [(0, 10), (-7, 8), (5, 5), (10, 3), (-20, -1), (3, 100), (0, 1), (-3, 4)]
    C.append(Case("for_negative_step_i32", "for_negative_step", (8,), [
        ("b_ptr", In(i32([v for t2 in nb for v in t2]))), ("o_ptr", Out(16, "int32"))], {},
        notes="for i in range(hi, lo, -3) with run-time bounds"))

    C.append(Case("grid2d_i32", "grid2d", (3, 5), [("o_ptr", Out(15 * 8, "int32"))], {"BLOCK": 8},
                  notes="2-D grid: program_id and num_programs along x and y"))
    C.append(Case("grid3d_i32", "grid3d", (2, 3, 4), [("o_ptr", Out(24 * 8, "int32"))], {"BLOCK": 8},
                  notes="3-D grid: program_id and num_programs along x, y and z"))

    # ---------------------------------------------------------------- block pointers, dot
    C.append(Case("blockptr_nan_f32", "blockptr_nan", (2,), [
        ("x_ptr", In(f32(np.arange(20 * 13).reshape(20, 13) * 0.5 - 3))), ("o_ptr", Out((2, 16, 16), "float32")),
        ("y_ptr", Out((20, 13), "float32")), ("M", 20), ("N", 13)], {"BM": 16, "BN": 16},
        notes="block pointers: boundary_check=(0,1) with padding_option='nan' at negative and too-large offsets, "
              "advance, zero padding, a boundary-checked block store"))

    da = f32(rng.standard_normal((32, 32)))
    db = f32(rng.standard_normal((32, 32)))
    dc = f32(rng.standard_normal((32, 32)))
    for prec in ("ieee", "tf32"):
        C.append(Case(f"dot_{prec}_f32", "dot_f32", (1,), [
            ("a_ptr", In(da)), ("b_ptr", In(db)), ("c_ptr", In(dc)), ("o_ptr", Out((32, 32), "float32"))],
            {"M": 32, "N": 32, "K": 32, "PREC": prec},
            notes=f"fp32 tl.dot 32x32x32 with an accumulator, input_precision='{prec}'"))
    C += corpus10_cases(rng)
    return C


def corpus10_cases(rng):
    """Issue 10's own corpus (group corpus10): descriptors, spin locks, early returns, inline PTX, long float
    reductions, in-place updates, strided views."""
    G = "corpus10"
    C = []

    def f16(shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float16)

    M, N, K = 100, 72, 80
    a, bt = f16((M, K), 0.5), f16((N, K), 0.5)
    C.append(Case("matmul_desc_persistent_f16", "matmul_desc_persistent", (4,), [
        ("a_ptr", In(a)), ("b_ptr", In(bt)), ("c_ptr", Out((M, N), "float16")), ("M", M), ("N", N), ("K", K)],
        {"BM": 64, "BN": 32, "BK": 32, "NUM_SMS": 4}, group=G,
        notes="tutorial-09-style persistent matmul through device-side tl.make_tensor_descriptor (A [M,K], B [N,K] "
              "loaded and transposed); M, N, K not multiples of the blocks: zero padding in, dropped stores out"))
    b = f16((K, N), 0.5)
    c = Out((M, N), "float16")
    C.append(Case("matmul_hostdesc_persistent_f16", "matmul_hostdesc_persistent", (3,), [
        ("a_desc", Desc(In(a), [M, K], [K, 1], [64, 32])), ("b_desc", Desc(In(b), [K, N], [N, 1], [32, 32])),
        ("c_desc", Desc(c, [M, N], [N, 1], [64, 32])), ("M", M), ("N", N), ("K", K)],
        {"BM": 64, "BN": 32, "BK": 32, "NUM_SMS": 3}, group=G,
        notes="persistent matmul with host TensorDescriptor arguments (each expands to descriptor, shape i32 x2, "
              "strides i64 x2 in the kernel's signature); tails as in matmul_desc_persistent_f16"))
    ZH, NC, D = 3, 80, 32
    C.append(Case("attn_fwd_desc_f16", "attn_fwd_desc", (3, ZH), [
        ("q_ptr", In(f16((ZH, NC, D)))), ("k_ptr", In(f16((ZH, NC, D)))), ("v_ptr", In(f16((ZH, NC, D)))),
        ("o_ptr", Out((ZH, NC, D), "float16")), ("sm_scale", 0.5), ("N_CTX", NC)],
        {"HEAD_DIM": D, "BM": 32, "BN": 32}, group=G,
        notes="attention forward with rank-3 device descriptors [Z*H, N_CTX, D], block [1, 32, D]; N_CTX = 80: the "
              "K/V tail reads zero padding (masked to -inf), the last query block's rows beyond 80 are dropped"))
    DM, DN = 20, 40
    x = f32(rng.standard_normal((DM, DN)))
    yb = Out((DM, DN), "float32")
    C.append(Case("desc_padding_f32", "desc_padding", (2,), [
        ("x_ptr", In(x)), ("y_desc", Desc(yb, [DM, DN], [DN, 1], [16, 16])),
        ("o_ptr", Out((2, 2, 16, 16), "float32")), ("w_ptr", Out(8, "int64")), ("M", DM), ("N", DN)],
        {"BM": 16, "BN": 16}, group=G,
        notes="descriptor loads at negative and past-the-end offsets with padding_option nan and zero; a host "
              "descriptor store half out of bounds; the host descriptor's shape/stride scalars"))

    rows, n = 37, 200
    C.append(Case("lock_accumulate_f32", "lock_accumulate", (rows,), [
        ("x_ptr", In(f32(rng.integers(-4, 5, (rows, n))))), ("dw_ptr", Out((4, n), "float32")),
        ("lock_ptr", InOut(i32([0] * 4))), ("count_ptr", InOut(i32([0] * 4))), ("rows", rows), ("N", n)],
        {"GROUP": 4, "BLOCK": 256}, group=G,
        notes="layer-norm-backward-style spin lock: 37 rows add into 4 shared rows under atomic_cas/atomic_xchg "
              "locks with tl.debug_barrier before the release; integer-valued floats, so every order gives the same "
              "sums; the critical sections of different programs touch the same elements (ordered by the lock)"))

    C.append(Case("early_return_f32", "early_return", (6,), [
        ("x_ptr", In(f32(rng.standard_normal(6 * 64)))), ("y_ptr", Out(6 * 64, "float32")),
        ("flag_ptr", In(i32([1, 0, 1, 1, 0, 1]))), ("n_valid", 5)], {"BLOCK": 64}, group=G,
        notes="return inside if (cf.cond_br / cf.br with block arguments): program 5 returns at once (its outputs "
              "keep the NaN fill), flagged programs return after storing -x"))

    n = 128
    ia = i32(rng.integers(INT32_MIN, INT32_MAX, n, endpoint=True))
    ib = i32(rng.integers(INT32_MIN, INT32_MAX, n, endpoint=True))
    ic = i32(rng.integers(0, 64, n))
    fx = f32(rng.standard_normal(n) * 8)
    fy = f32(rng.standard_normal(n) * 1e4)
    fx[:8] = f32([0.0, -0.0, INF, -INF, NAN, 1e-40, -126.5, 127.9])
    fy[:8] = f32([65504.0, 65520.0, 1e-8, -6e-8, 1.0, NAN, -1e5, 3.0])
    C.append(Case("inline_asm_ops_i32", "inline_asm_ops", (1,), [
        ("a_ptr", In(ia)), ("b_ptr", In(ib)), ("c_ptr", In(ic)), ("f_ptr", In(fx)), ("g_ptr", In(fy)),
        ("o_ptr", Out(6 * n, "int32"))], {"BLOCK": n}, group=G,
        notes="tl.inline_asm_elementwise with prmt.b32, lop3.b32 (0xE8: majority), shf.r.wrap.b32, "
              "cvt.rn.f16x2.f32 (overflow to inf, NaN, denormals), fma.rn.f32, ex2.approx.f32 (rows 4, 5 are f32 "
              "bits)"))

    R, W = 6, 8192
    xl = f32(rng.standard_normal((R, W)) * 3 + 0.5)
    xl[1] = f32(rng.standard_normal(W) * 1e3 + 1e4)
    C.append(Case("layernorm_long_f32", "layernorm_long_f32", (R,), [
        ("x_ptr", In(xl)), ("w_ptr", In(f32(rng.standard_normal(W)))), ("b_ptr", In(f32(rng.standard_normal(W)))),
        ("y_ptr", Out((R, W), "float32")), ("mean_ptr", Out(R, "float32")), ("rstd_ptr", Out(R, "float32")),
        ("N", W), ("eps", 1e-5)], {"BLOCK": W}, num_warps=16, group=G,
        notes="layer norm over 8192-wide f32 rows (mean and variance: long float reductions; row 1 has a large "
              "mean)"))
    C.append(Case("rmsnorm_long_f32", "rmsnorm_long_f32", (R,), [
        ("x_ptr", In(xl)), ("w_ptr", In(f32(rng.standard_normal(W)))), ("y_ptr", Out((R, W), "float32")),
        ("rstd_ptr", Out(R, "float32")), ("N", W - 100), ("eps", 1e-6)], {"BLOCK": W}, num_warps=8, group=G,
        notes="RMS norm over 8092 of 8192 f32 columns (a long masked sum of squares), rsqrt"))

    n = 1000
    C.append(Case("inplace_axpy_f32", "inplace_axpy", (4,), [
        ("x_ptr", In(f32(rng.standard_normal(n)))), ("y_ptr", InOut(f32(rng.standard_normal(n)))),
        ("out_ptr", View("y_ptr", 0, n)), ("a", 1.5), ("n", n)], {"BLOCK": 256}, group=G,
        notes="out and y are one buffer (two pointers, alias_of): out = a*x + y in place"))
    SM, SN = 24, 40
    xs = f32(rng.standard_normal((SN, SM)))   # read through its transpose: a [SM, SN] view with strides (1, SM)
    C.append(Case("strided_view_copy_f32", "strided_view_copy", (3,), [
        ("x_ptr", In(xs)), ("ybuf", Storage(f32(np.zeros((SM, 2 * SN))))), ("y_ptr", View("ybuf", 1, SM * 2 * SN - 1)),
        ("M", SM), ("N", SN), ("sxm", 1), ("sxn", SM), ("sym", 2 * SN), ("syn", 2)], {"BM": 8, "BN": 64},
        group=G, notes="x read through a transposed view (strides 1, M); y written through a column-strided view "
                       "(every other column from column 1: alias of ybuf one element in, strides 2N, 2)"))
    return C


# ---------------------------------------------------------------------------------------------------- running
def shorten_paths(text, kernel_dir, site_dir):
    text = text.replace(kernel_dir + "/", "").replace(site_dir + "/", "")

    def short(match):
        path = match.group(1)
        k = path.rfind("/triton/")
        path = path[k + 1:] if k >= 0 else os.path.basename(path)
        return 'loc("' + path + '":'
    return re.sub(r'loc\("(/[^"]*)":', short, text)


def run_case(case, out_root, made_by):
    import torch
    import triton
    import kernels

    tdt = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
           "bfloat16": torch.bfloat16, "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16,
           "int32": torch.int32, "int64": torch.int64, "float8_e4m3fn": torch.float8_e4m3fn,
           "float8_e5m2": torch.float8_e5m2}

    def to_dev(buf):
        if buf.dtype in RAW:
            t = torch.from_numpy(buf.data.view(SAVE_AS[buf.dtype]).copy()).view(tdt[buf.dtype])
        else:
            t = torch.from_numpy(buf.data.copy())
        return t.cuda()

    def to_host(buf, t):
        t = t.detach().cpu()
        if buf.dtype in RAW:
            t = t.view(torch.int16 if buf.dtype == "bfloat16" else torch.uint8)
        return t.numpy().copy()

    from triton.tools.tensor_descriptor import TensorDescriptor

    # device-side tl.make_tensor_descriptor needs global scratch for the TMA descriptors it builds
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    kern = getattr(kernels, case.kernel)
    dev, call = {}, []
    for name, v in case.args:
        if isinstance(v, Desc):
            dev[name] = to_dev(v.buf)
            call.append(TensorDescriptor(dev[name], v.shape, v.strides, v.block_shape, padding=v.padding))
        elif isinstance(v, View):
            dev[name] = dev[v.of].view(-1)[v.offset:v.offset + v.span]
            call.append(dev[name])
        elif isinstance(v, Buf):
            dev[name] = to_dev(v)
            if not getattr(v, "hidden", False):
                call.append(dev[name])
        else:
            call.append(v)
    owners = {name: v for name, v in case.args if isinstance(v, (Buf, Desc))}
    views = {name: v for name, v in case.args if isinstance(v, View)}
    before = {name: to_host(v, dev[name]) for name, v in owners.items()}
    compiled = kern[case.grid](*call, **case.constexprs, num_warps=case.num_warps)
    torch.cuda.synchronize()
    after = {name: to_host(v, dev[name]) for name, v in owners.items()}
    after.update({name: to_host(owners[v.of], dev[name]) for name, v in views.items()})

    tmp = os.path.join(out_root, case.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    kernel_dir = os.path.dirname(os.path.abspath(kernels.__file__))
    site_dir = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__)))
    notes = case.notes
    for key, fname in (("ttir", "kernel.ttir"), ("ttgir", "kernel.ttgir"), ("ptx", "kernel.ptx")):
        text = shorten_paths(compiled.asm[key], kernel_dir, site_dir)
        if key == "ptx" and len(text) > 400_000:
            notes += f" (kernel.ptx not kept: {len(text)} bytes)"
            continue
        with open(os.path.join(tmp, fname), "w") as f:
            f.write(text)
    args_json, changed = [], []
    for name, v in case.args:
        if isinstance(v, View):
            owner = owners[v.of]
            entry = {"name": name, "kind": "tensor", "dtype": owner.dtype, "shape": [v.span], "alias_of": v.of,
                     "alias_offset": v.offset * owner.data.itemsize}
            if v.out:
                entry["expected"] = name + ".expected.npy"
                np.save(os.path.join(tmp, name + ".expected.npy"), after[name])
            args_json.append(entry)
            continue
        if isinstance(v, (Buf, Desc)):
            entry = {"name": name, "kind": "tensor", "dtype": v.dtype, "shape": list(v.data.shape),
                     "input": name + ".npy"}
            if isinstance(v, Desc):
                entry.update({"kind": "tensordesc", "desc_shape": v.shape, "desc_strides": v.strides,
                              "block_shape": v.block_shape, "padding": v.padding})
            np.save(os.path.join(tmp, name + ".npy"), before[name])
            if v.out:
                entry["expected"] = name + ".expected.npy"
                np.save(os.path.join(tmp, name + ".expected.npy"), after[name])
            elif before[name].tobytes() != after[name].tobytes():
                changed.append(name)
            args_json.append(entry)
        else:
            pytype = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float"
            args_json.append({"name": name, "kind": "scalar", "pytype": pytype, "value": v})
    if changed:
        raise RuntimeError(f"buffers written but not recorded as outputs: {changed}")
    meta = {"name": case.name, "entry": kern.fn.__name__, "grid": list(case.grid), "num_warps": case.num_warps,
            "args": args_json, "constexprs": case.constexprs, "notes": notes, "made_by": made_by}
    with open(os.path.join(tmp, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)
    final = os.path.join(out_root, case.name)
    shutil.rmtree(final, ignore_errors=True)
    os.rename(tmp, final)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="folder for the case folders")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--dry", action="store_true", help="build the cases' inputs only (no Triton, no GPU)")
    ap.add_argument("--group", help="only the cases of this group (extra: golden-extra; corpus10: issue 10's corpus)")
    opts = ap.parse_args()
    cases = build_cases()
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "duplicate case names"
    if opts.group:
        cases = [c for c in cases if c.group == opts.group]
    if opts.only:
        want = set(opts.only.split(","))
        cases = [c for c in cases if c.name in want]
    if opts.list or opts.dry:
        for c in cases:
            print(c.name, c.group, c.kernel, c.grid,
                  {k: (v.dtype, v.data.shape, "out" if v.out else "in") if isinstance(v, (Buf, Desc)) else
                   ("view of", v.of, v.offset, v.span) if isinstance(v, View) else v for k, v in c.args})
        print(len(cases), "cases")
        return 0
    if not opts.out:
        ap.error("--out is required")
    os.makedirs(opts.out, exist_ok=True)
    sys.path.insert(0, HERE)
    import torch
    import triton
    made_by = f"triton {triton.__version__} on {torch.cuda.get_device_name(0)}"
    progress = os.path.join(opts.out, "_progress.jsonl")
    done = {}
    if os.path.exists(progress):
        with open(progress) as f:
            for line in f:
                rec = json.loads(line)
                done[rec["name"]] = rec
    fatal = False
    for case in cases:
        if case.name in done:
            continue
        status, err = "ok", ""
        print(f"[{len(done) + 1}/{len(cases)}] {case.name} ...", flush=True)
        with open(progress, "a") as f:  # a case that hangs or kills the process is not tried again
            f.write(json.dumps({"name": case.name, "status": "failed", "error": "did not finish"}) + "\n")
        try:
            run_case(case, opts.out, made_by)
        except Exception as exc:  # one failing kernel must not stop the others
            status = "failed"
            err = f"{type(exc).__name__}: {exc}".strip().splitlines()
            err = " | ".join(err[:1] + err[-3:]) if len(err) > 4 else " | ".join(err)
            traceback.print_exc()
            text = str(exc).lower()
            fatal = "cuda error" in text or "illegal" in text or "cudaerror" in text or "accelerator" in text
        done[case.name] = {"name": case.name, "status": status, "error": err[:2000]}
        with open(progress, "a") as f:
            f.write(json.dumps(done[case.name]) + "\n")
        if fatal:
            print("CUDA context is unusable after", case.name, "- rerun to resume", flush=True)
            return 3
    print("\n=== summary ===")
    for c in cases:
        if c.name in done:
            rec = done[c.name]
            print(f"{rec['name']:34s} {rec['status']:7s} {rec['error'][:150]}")
    print(sum(r["status"] == "ok" for r in done.values()), "ok,",
          sum(r["status"] != "ok" for r in done.values()), "failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
