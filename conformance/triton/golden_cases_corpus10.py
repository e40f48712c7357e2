"""The cases of issue 10's corpus in make_golden.py (group corpus10, conformance/corpus10/; kernels_corpus10.py)."""
import numpy as np

from golden_case import Case, Desc, INF, INT32_MAX, INT32_MIN, In, InOut, NAN, Out, Storage, View, f32, i32


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
