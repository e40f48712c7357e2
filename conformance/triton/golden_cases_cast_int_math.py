"""The golden-extra cases of make_golden.py over casts, integer edge cases, precise math and libdevice
(kernels.py)."""
import numpy as np

from golden_case import (Case, FLT_MAX, INF, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, In, NAN, Out, f32, f32bits,
                         fill_to, i32, i64, i8)


def cast_cases(rng):
    """Golden-extra: f32 / f16 / bf16 <-> fp8, f32 -> f16 / bf16 / integers, integer conversions (kernels cast_*)."""
    C = []
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
    return C


def integer_cases(rng):
    """Golden-extra: division and remainder of every width, shifts and mulhi, 64-bit indexing."""
    C = []
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
    return C


def float_math_cases(rng):
    """Golden-extra: precise math and libdevice (kernels math_precise, libdevice_*)."""
    C = []
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
    return C
