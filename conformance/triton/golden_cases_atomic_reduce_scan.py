"""The golden-extra cases of make_golden.py over atomics, reductions and scans (kernels.py)."""
import numpy as np

from golden_case import Case, FLT_MAX, INF, INT32_MAX, INT32_MIN, In, InOut, NAN, Out, f32, f32bits, fbits, i32, i8


def atomic_cases(rng):
    """Golden-extra: atomic_rmw integer and float ops, xchg and cas, the old values they return (kernels atomic_*)."""
    C = []
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
    return C


def reduction_cases(rng):
    """Golden-extra: min / max with ties and NaN, bitwise and custom combines, an exact f32 sum (kernels reduce_*)."""
    C = []
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
    return C


def scan_cases(rng):
    """Golden-extra: integer, exact f32 and affine scans, forward and reverse (kernels scan_*)."""
    C = []
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
    return C
