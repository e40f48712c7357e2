# Triton kernels of our own behind the golden cases in conformance/golden-extra/ (made by make_golden.py).
# Each kernel exercises what the 15 cases in conformance/golden/ do not: atomics, reductions and scans with
# edge values, casts, integer edge cases, precise math, libdevice, shape ops, control flow and special grids.
# The `loc(...)`s in each case's kernel.ttir point at lines of this file, so edit it only together with
# regenerating the cases.
import triton
import triton.language as tl

try:  # where 3.6 keeps libdevice
    from triton.language.extra.cuda import libdevice
except ImportError:  # pragma: no cover
    from triton.language.extra import libdevice


# ------------------------------------------------------------------------------------------------ atomics
@triton.jit
def atomic_int(x_ptr, mx_ptr, mn_ptr, umx_ptr, umn_ptr, and_ptr, or_ptr, xor_ptr, n,
               NSLOT: tl.constexpr, BLOCK: tl.constexpr):
    # every combine here is order-independent, so several programs may hit one slot
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    slot = offs % NSLOT
    tl.atomic_max(mx_ptr + slot, x, mask=m)
    tl.atomic_min(mn_ptr + slot, x, mask=m)
    ux = x.to(tl.uint32, bitcast=True)
    tl.atomic_max(umx_ptr.to(tl.pointer_type(tl.uint32)) + slot, ux, mask=m)
    tl.atomic_min(umn_ptr.to(tl.pointer_type(tl.uint32)) + slot, ux, mask=m)
    tl.atomic_and(and_ptr + slot, x, mask=m)
    tl.atomic_or(or_ptr + slot, x, mask=m)
    tl.atomic_xor(xor_ptr + slot, x, mask=m)


@triton.jit
def atomic_fminmax(x_ptr, mx_ptr, mn_ptr, n, NSLOT: tl.constexpr, BLOCK: tl.constexpr):
    # float atomic max/min: signed-int max on non-negative lanes, unsigned min on negative ones
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    slot = offs % NSLOT
    tl.atomic_max(mx_ptr + slot, x, mask=m)
    tl.atomic_min(mn_ptr + slot, x, mask=m)


@triton.jit
def atomic_xchg_cas(a_ptr, vf_ptr, oldf_ptr, c_ptr, cmp_ptr, vi_ptr, oldc_ptr, lock_ptr, lold_ptr, cnt_ptr,
                    BLOCK: tl.constexpr):
    # distinct addresses per lane, so the returned old values do not depend on program order
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    vf = tl.load(vf_ptr + offs)
    old = tl.atomic_xchg(a_ptr + offs, vf)
    tl.store(oldf_ptr + offs, old)
    cmp = tl.load(cmp_ptr + offs)
    vi = tl.load(vi_ptr + offs)
    oldc = tl.atomic_cas(c_ptr + offs, cmp, vi)
    tl.store(oldc_ptr + offs, oldc)
    lold = tl.atomic_cas(lock_ptr + pid, 0, pid + 1)   # scalar CAS, once per program
    tl.store(lold_ptr + pid, lold)
    tl.atomic_add(cnt_ptr, 1)                          # scalar atomics from every program
    tl.atomic_add(cnt_ptr + 1, pid)
    tl.atomic_max(cnt_ptr + 2, pid * 10)


@triton.jit
def atomic_cas_f32(c_ptr, cmp_ptr, v_ptr, old_ptr, BLOCK: tl.constexpr):
    # float CAS compares bit patterns: -0.0 does not match +0.0, a NaN matches the same NaN pattern
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    old = tl.atomic_cas(c_ptr + offs, tl.load(cmp_ptr + offs), tl.load(v_ptr + offs))
    tl.store(old_ptr + offs, old)


@triton.jit
def atomic_fadd(x_ptr, acc_ptr, t_ptr, old_ptr, n, NSLOT: tl.constexpr, BLOCK: tl.constexpr):
    # integer-valued floats: the sums are exact, so the result does not depend on the order of the adds
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(acc_ptr + offs % NSLOT, x, mask=m)
    sel = m & (x >= 0.0)
    old = tl.atomic_add(t_ptr + offs, x, mask=sel)      # one lane per address
    tl.store(old_ptr + offs, old, mask=sel)


@triton.jit
def atomic_old_i32(x_ptr, t_ptr, u_ptr, old_ptr, oldm_ptr, n, BLOCK: tl.constexpr, STORE_ALL: tl.constexpr):
    # masked atomics returning old values; STORE_ALL also stores what masked-off lanes returned (0 on NVIDIA)
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    sel = m & (x % 3 != 0)
    old = tl.atomic_add(t_ptr + offs, x, mask=sel)
    oldm = tl.atomic_max(u_ptr + offs, x, mask=sel)
    if STORE_ALL:
        tl.store(old_ptr + offs, old, mask=m)
        tl.store(oldm_ptr + offs, oldm, mask=m)
    else:
        tl.store(old_ptr + offs, old, mask=sel)
        tl.store(oldm_ptr + offs, oldm, mask=sel)


# ------------------------------------------------------------------------------------------------ reductions
@triton.jit
def reduce_minmax(x_ptr, mx_ptr, mn_ptr, amx_ptr, amn_ptr, R: tl.constexpr, C: tl.constexpr):
    # along both axes: rows go to [0, R), columns to [R, R + C) of each output
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(mx_ptr + r, tl.max(x, axis=1))
    tl.store(mn_ptr + r, tl.min(x, axis=1))
    tl.store(amx_ptr + r, tl.argmax(x, axis=1))
    tl.store(amn_ptr + r, tl.argmin(x, axis=1))
    tl.store(mx_ptr + R + c, tl.max(x, axis=0))
    tl.store(mn_ptr + R + c, tl.min(x, axis=0))
    tl.store(amx_ptr + R + c, tl.argmax(x, axis=0))
    tl.store(amn_ptr + R + c, tl.argmin(x, axis=0))


@triton.jit
def reduce_bits(x_ptr, b_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    # xor_sum, reduce_or, int8 max/sum (promoted to int32), an int32 sum over everything that wraps
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    b = tl.load(b_ptr + r[:, None] * C + c[None, :])
    tl.store(out_ptr + r, tl.xor_sum(x, axis=1))
    tl.store(out_ptr + R + r, tl.reduce_or(x, axis=1))
    tl.store(out_ptr + 2 * R + r, tl.max(b, axis=1))
    tl.store(out_ptr + 3 * R + r, tl.sum(b, axis=1))
    tl.store(out_ptr + 4 * R + r, tl.min(b, axis=1))
    tl.store(out_ptr + 5 * R, tl.sum(x))
    tl.store(out_ptr + 5 * R + 1, tl.xor_sum(b.to(tl.int32)))


@triton.jit
def _sum_max_combine(a0, a1, b0, b1):
    return a0 + b0, tl.maximum(a1, b1)


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def reduce_custom(x_ptr, y_ptr, s_ptr, m_ptr, p_ptr, k_ptr, d_ptr, R: tl.constexpr, C: tl.constexpr):
    # tl.reduce with a tuple combine and with a wrapping product; keep_dims results broadcast back
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    idx = r[:, None] * C + c[None, :]
    x = tl.load(x_ptr + idx)
    y = tl.load(y_ptr + idx)
    s, mx = tl.reduce((x, y), 1, _sum_max_combine)
    tl.store(s_ptr + r, s)
    tl.store(m_ptr + r, mx)
    tl.store(p_ptr + c, tl.reduce(x, 0, _mul_combine))
    tl.store(k_ptr + idx, y - tl.max(y, axis=1, keep_dims=True))
    tl.store(d_ptr + idx, x - tl.sum(x, axis=0, keep_dims=True))


@triton.jit
def reduce_sum_exact(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    # integer-valued floats: every summation order gives the same result
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(out_ptr, tl.sum(x))
    tl.store(out_ptr + 1 + r, tl.sum(x, axis=1))
    tl.store(out_ptr + 1 + R + c, tl.sum(x, axis=0))


# ------------------------------------------------------------------------------------------------ scans
@triton.jit
def scan_int(x_ptr, rc_ptr, c0_ptr, cp_ptr, rp_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    idx = r[:, None] * C + c[None, :]
    x = tl.load(x_ptr + idx)
    tl.store(rc_ptr + idx, tl.cumsum(x, axis=1, reverse=True))
    tl.store(c0_ptr + idx, tl.cumsum(x, axis=0))
    tl.store(cp_ptr + idx, tl.cumprod(x, axis=1))
    tl.store(rp_ptr + idx, tl.cumprod(x, axis=0, reverse=True))


@triton.jit
def scan_f32_exact(x_ptr, y_ptr, cp_ptr, rp_ptr, cs_ptr, N: tl.constexpr):
    # products of powers of two and few factors of 3, sums of integers: exact in any order
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(cp_ptr + offs, tl.cumprod(x, axis=0))
    tl.store(rp_ptr + offs, tl.cumprod(x, axis=0, reverse=True))
    tl.store(cs_ptr + offs, tl.cumsum(y, axis=0, reverse=True))


@triton.jit
def _affine_combine(am, ac, bm, bc):
    # composition of x -> am*x + ac, then x -> bm*x + bc: associative, not commutative
    return am * bm, ac * bm + bc


@triton.jit
def scan_affine(m_ptr, c_ptr, om_ptr, oc_ptr, R: tl.constexpr, C: tl.constexpr, REVERSE: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    idx = r[:, None] * C + c[None, :]
    m = tl.load(m_ptr + idx)
    k = tl.load(c_ptr + idx)
    om, oc = tl.associative_scan((m, k), 1, _affine_combine, reverse=REVERSE)
    tl.store(om_ptr + idx, om)
    tl.store(oc_ptr + idx, oc)


# ------------------------------------------------------------------------------------------------ casts
@triton.jit
def cast_f32_fp8(x_ptr, e4_ptr, e5_ptr, r4_ptr, r5_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    a = x.to(tl.float8e4nv)
    b = x.to(tl.float8e5)
    tl.store(e4_ptr + offs, a)
    tl.store(e5_ptr + offs, b)
    tl.store(r4_ptr + offs, a.to(tl.float32))
    tl.store(r5_ptr + offs, b.to(tl.float32))


@triton.jit
def cast_fp8_wide(a_ptr, b_ptr, fa_ptr, fb_ptr, BLOCK: tl.constexpr):
    # every fp8 bit pattern of both formats to the outputs' type (fp32, fp16 or bf16)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(fa_ptr + offs, a.to(fa_ptr.dtype.element_ty))
    tl.store(fb_ptr + offs, b.to(fb_ptr.dtype.element_ty))


@triton.jit
def cast_half_fp8(x_ptr, e4_ptr, e5_ptr, BLOCK: tl.constexpr):
    # every fp16 (or bf16) bit pattern to both fp8 formats
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(e4_ptr + offs, x.to(tl.float8e4nv))
    tl.store(e5_ptr + offs, x.to(tl.float8e5))


@triton.jit
def cast_f32_half(x_ptr, h_ptr, hz_ptr, b_ptr, bz_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + offs, x.to(tl.float16))
    tl.store(hz_ptr + offs, x.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(b_ptr + offs, x.to(tl.bfloat16))
    tl.store(bz_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz"))


@triton.jit
def cast_f32_int(x_ptr, i8_ptr, u8_ptr, i16_ptr, i32_ptr, u32_ptr, i64_ptr, u64_ptr, BLOCK: tl.constexpr):
    # saturating float -> int; uint32/uint64 results go to int32/int64 buffers (same bits)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(i8_ptr + offs, x.to(tl.int8))
    tl.store(u8_ptr + offs, x.to(tl.uint8))
    tl.store(i16_ptr + offs, x.to(tl.int16))
    tl.store(i32_ptr + offs, x.to(tl.int32))
    tl.store(u32_ptr + offs, x.to(tl.uint32))
    tl.store(i64_ptr + offs, x.to(tl.int64))
    tl.store(u64_ptr + offs, x.to(tl.uint64))


@triton.jit
def cast_int_conv(a_ptr, b_ptr, f_ptr, fu_ptr, fl_ptr, h_ptr, bf_ptr, n8_ptr, z_ptr, bo_ptr, sx_ptr,
                  BLOCK: tl.constexpr):
    # int -> float rounding (int32, uint32, int64 to fp32; int32 to fp16 and bf16) and int -> int casts
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(f_ptr + offs, a.to(tl.float32))
    tl.store(fu_ptr + offs, a.to(tl.uint32, bitcast=True).to(tl.float32))
    tl.store(fl_ptr + offs, b.to(tl.float32))
    tl.store(h_ptr + offs, a.to(tl.float16))
    tl.store(bf_ptr + offs, a.to(tl.bfloat16))
    tl.store(n8_ptr + offs, b.to(tl.int8))
    tl.store(z_ptr + offs, a.to(tl.uint8).to(tl.int32))
    tl.store(bo_ptr + offs, a.to(tl.int1).to(tl.int32))
    tl.store(sx_ptr + offs, a.to(tl.int16).to(tl.int64))


# ------------------------------------------------------------------------------------------------ integers
@triton.jit
def int_divmod(a_ptr, b_ptr, q_ptr, r_ptr, uq_ptr, ur_ptr, BLOCK: tl.constexpr, WHICH: tl.constexpr):
    # WHICH 0: quotient and remainder in one kernel; 1: remainders only; 2: quotients only
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    ua = a.to(tl.uint32, bitcast=True)
    ub = b.to(tl.uint32, bitcast=True)
    if WHICH != 1:
        tl.store(q_ptr + offs, a // b)
        tl.store(uq_ptr + offs, ua // ub)
    if WHICH != 2:
        tl.store(r_ptr + offs, a % b)
        tl.store(ur_ptr + offs, ua % ub)


@triton.jit
def int_divmod_8_64(a_ptr, b_ptr, c_ptr, d_ptr, q8_ptr, r8_ptr, q64_ptr, r64_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)   # int8
    b = tl.load(b_ptr + offs)   # int8
    c = tl.load(c_ptr + offs)   # int64
    d = tl.load(d_ptr + offs)   # int64
    tl.store(q8_ptr + offs, a // b)
    tl.store(r8_ptr + offs, a % b)
    tl.store(q64_ptr + offs, c // d)
    tl.store(r64_ptr + offs, c % d)


@triton.jit
def int_shift_mulhi(x_ptr, y_ptr, s_ptr, o32_ptr, o8_ptr, o64_ptr, BLOCK: tl.constexpr):
    # shifts by amounts >= the width (and negative amounts), in i8, i32, i64; umulhi on int32 and uint32
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    s = tl.load(s_ptr + offs)
    ux = x.to(tl.uint32, bitcast=True)
    us = s.to(tl.uint32, bitcast=True)
    tl.store(o32_ptr + offs, x << s)
    tl.store(o32_ptr + BLOCK + offs, x >> s)
    tl.store(o32_ptr + 2 * BLOCK + offs, ux >> us)
    tl.store(o32_ptr + 3 * BLOCK + offs, tl.umulhi(x, y))
    tl.store(o32_ptr + 4 * BLOCK + offs, tl.umulhi(ux, y.to(tl.uint32, bitcast=True)))
    x8 = x.to(tl.int8)
    s8 = s.to(tl.int8)
    tl.store(o8_ptr + offs, x8 << s8)
    tl.store(o8_ptr + BLOCK + offs, x8 >> s8)
    tl.store(o8_ptr + 2 * BLOCK + offs, (x8.to(tl.uint8, bitcast=True) >> s8.to(tl.uint8, bitcast=True)).to(tl.int8, bitcast=True))
    x64 = x.to(tl.int64) * 0x100000001
    s64 = s.to(tl.int64)
    tl.store(o64_ptr + offs, x64 << s64)
    tl.store(o64_ptr + BLOCK + offs, x64 >> s64)
    tl.store(o64_ptr + 2 * BLOCK + offs, (x64.to(tl.uint64, bitcast=True) >> s64.to(tl.uint64, bitcast=True)).to(tl.int64, bitcast=True))


@triton.jit
def int64_index(x_ptr, y_ptr, q_ptr, big, BLOCK: tl.constexpr):
    # i64 offsets and arithmetic beyond 2^31 (`big` is an int64 argument), reversed addressing
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    far = offs + big
    back = far - big
    last = tl.num_programs(0).to(tl.int64) * BLOCK - 1
    v = tl.load(x_ptr + (last - back))
    tl.store(y_ptr + back, v * 3 + big)
    tl.store(q_ptr + back * 4, v // 7)
    tl.store(q_ptr + back * 4 + 1, v % -7)
    tl.store(q_ptr + back * 4 + 2, v >> 33)
    tl.store(q_ptr + back * 4 + 3, (v.to(tl.uint64, bitcast=True) >> 60).to(tl.int64, bitcast=True) + far)


# ------------------------------------------------------------------------------------------------ float math
@triton.jit
def math_precise(x_ptr, y_ptr, z_ptr, lo_ptr, hi_ptr, out_ptr, BLOCK: tl.constexpr):
    # one op per row of out; nothing here is contracted into an FMA
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.load(z_ptr + offs)
    lo = tl.load(lo_ptr + offs)
    hi = tl.load(hi_ptr + offs)
    tl.store(out_ptr + 0 * BLOCK + offs, tl.math.div_rn(x, y))
    tl.store(out_ptr + 1 * BLOCK + offs, tl.math.sqrt_rn(x))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.fma(x, y, z))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.floor(x))
    tl.store(out_ptr + 4 * BLOCK + offs, tl.ceil(x))
    tl.store(out_ptr + 5 * BLOCK + offs, tl.clamp(x, lo, hi))
    tl.store(out_ptr + 6 * BLOCK + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 7 * BLOCK + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 8 * BLOCK + offs, tl.maximum(x, y))
    tl.store(out_ptr + 9 * BLOCK + offs, tl.minimum(x, y))
    tl.store(out_ptr + 10 * BLOCK + offs, tl.where(x > y, x, tl.where(x != x, -1.0, tl.where(y >= 0.0, y, z))))
    tl.store(out_ptr + 11 * BLOCK + offs, tl.abs(x))
    tl.store(out_ptr + 12 * BLOCK + offs, x % y)
    tl.store(out_ptr + 13 * BLOCK + offs, -x)
    tl.store(out_ptr + 14 * BLOCK + offs, tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 15 * BLOCK + offs, tl.where(x == y, 1.0, 0.0) + tl.where(x != y, 2.0, 0.0) + tl.where(x < y, 4.0, 0.0))


@triton.jit
def libdevice_transcendental(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + 0 * BLOCK + offs, libdevice.pow(x, y))
    tl.store(out_ptr + 1 * BLOCK + offs, libdevice.tanh(x))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.erf(x))
    tl.store(out_ptr + 3 * BLOCK + offs, libdevice.exp(x))
    tl.store(out_ptr + 4 * BLOCK + offs, libdevice.log1p(x))
    tl.store(out_ptr + 5 * BLOCK + offs, libdevice.expm1(x))
    tl.store(out_ptr + 6 * BLOCK + offs, libdevice.atan2(x, y))
    tl.store(out_ptr + 7 * BLOCK + offs, libdevice.cbrt(x))
    tl.store(out_ptr + 8 * BLOCK + offs, libdevice.sinh(x))
    tl.store(out_ptr + 9 * BLOCK + offs, libdevice.hypot(x, y))
    tl.store(out_ptr + 10 * BLOCK + offs, libdevice.log(x))
    tl.store(out_ptr + 11 * BLOCK + offs, libdevice.atan(x))


@triton.jit
def libdevice_exact(x_ptr, y_ptr, out_ptr, iout_ptr, BLOCK: tl.constexpr):
    # libdevice functions with exactly defined results
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + 0 * BLOCK + offs, libdevice.rint(x))
    tl.store(out_ptr + 1 * BLOCK + offs, libdevice.trunc(x))
    tl.store(out_ptr + 2 * BLOCK + offs, libdevice.round(x))
    tl.store(out_ptr + 3 * BLOCK + offs, libdevice.fmod(x, y))
    tl.store(out_ptr + 4 * BLOCK + offs, libdevice.copysign(x, y))
    tl.store(out_ptr + 5 * BLOCK + offs, libdevice.floor(x))
    tl.store(out_ptr + 6 * BLOCK + offs, libdevice.ceil(x))
    tl.store(out_ptr + 7 * BLOCK + offs, libdevice.fdim(x, y))
    tl.store(out_ptr + 8 * BLOCK + offs, libdevice.nearbyint(x))
    tl.store(out_ptr + 9 * BLOCK + offs, libdevice.abs(x))
    tl.store(iout_ptr + 0 * BLOCK + offs, libdevice.isnan(x).to(tl.int32))
    tl.store(iout_ptr + 1 * BLOCK + offs, libdevice.isinf(x).to(tl.int32))
    tl.store(iout_ptr + 2 * BLOCK + offs, libdevice.signbit(x).to(tl.int32))


# ------------------------------------------------------------------------------------------------ shapes
@triton.jit
def gather2d(s_ptr, i1_ptr, i0_ptr, o1_ptr, o0_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    idx = r[:, None] * C + c[None, :]
    s = tl.load(s_ptr + idx)
    i1 = tl.load(i1_ptr + idx)
    i0 = tl.load(i0_ptr + idx)
    tl.store(o1_ptr + idx, tl.gather(s, i1, 1))
    tl.store(o0_ptr + idx, tl.gather(s, i0, 0))


@triton.jit
def histogram_mask(x_ptr, h_ptr, hm_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    bins = pid * BINS + tl.arange(0, BINS)
    tl.store(h_ptr + bins, tl.histogram(x, BINS))
    tl.store(hm_ptr + bins, tl.histogram(x, BINS, mask=offs < n))


@triton.jit
def cat_ops(a_ptr, b_ptr, o_ptr, s_ptr, N: tl.constexpr, STORE_RAW: tl.constexpr):
    # tl.cat may reorder; STORE_RAW stores the result as it comes, otherwise only order-free reductions
    a = tl.load(a_ptr + tl.arange(0, N))
    b = tl.load(b_ptr + tl.arange(0, N))
    c = tl.cat(a, b, can_reorder=True)
    if STORE_RAW:
        tl.store(o_ptr + tl.arange(0, 2 * N), c)
    tl.store(s_ptr, tl.sum(c, axis=0))
    tl.store(s_ptr + 1, tl.max(c, axis=0))
    tl.store(s_ptr + 2, tl.xor_sum(c, axis=0))


@triton.jit
def permute3d(x_ptr, p_ptr, t_ptr, r_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    p = tl.permute(x, (2, 0, 1))                      # [C, A, B]
    pc = tl.arange(0, C)[:, None, None]
    pa = tl.arange(0, A)[None, :, None]
    pb = tl.arange(0, B)[None, None, :]
    tl.store(p_ptr + pc * A * B + pa * B + pb, p)
    t = tl.trans(x, 1, 0, 2)                          # [B, A, C]
    tb = tl.arange(0, B)[:, None, None]
    ta = tl.arange(0, A)[None, :, None]
    tc = tl.arange(0, C)[None, None, :]
    tl.store(t_ptr + tb * A * C + ta * C + tc, t)
    r = tl.trans(tl.reshape(x, (A * B, C)))           # [C, A*B]
    rr = tl.arange(0, C)[:, None]
    rc = tl.arange(0, A * B)[None, :]
    tl.store(r_ptr + rr * (A * B) + rc, r)


@triton.jit
def flip_ravel(x_ptr, f_ptr, g_ptr, v_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    idx = r[:, None] * C + c[None, :]
    x = tl.load(x_ptr + idx)
    tl.store(f_ptr + idx, tl.flip(x, 1))
    flat = tl.ravel(x)
    tl.store(g_ptr + tl.arange(0, R * C), tl.flip(flat, 0))
    tl.store(v_ptr + idx, tl.reshape(tl.reshape(x, (C, R)) * 2, (R, C)))


@triton.jit
def sort_ops(x_ptr, y_ptr, xs_ptr, ys_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    idx = r[:, None] * C + c[None, :]
    x = tl.load(x_ptr + idx)
    y = tl.load(y_ptr + idx)
    tl.store(xs_ptr + idx, tl.sort(x))
    tl.store(ys_ptr + idx, tl.sort(y, descending=True))


# ------------------------------------------------------------------------------------------------ control flow
@triton.jit
def while_loops(x_ptr, steps_ptr, v_ptr, vo_ptr, it_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n = tl.load(x_ptr + pid)
    steps = 0
    while n != 1:             # Collatz: a data-dependent trip count per program
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    tl.store(steps_ptr + pid, steps)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(v_ptr + offs)
    it = 0
    while tl.max(v, axis=0) > 0:   # a while over a tensor-valued state
        v = tl.where(v > 0, v - 3, v)
        it += 1
    tl.store(vo_ptr + offs, v)
    tl.store(it_ptr + pid, it)


@triton.jit(noinline=True)
def _mix_helper(a, b):
    return a * 7 + (b ^ 5)


@triton.jit(noinline=True)
def _div_helper(a, b):
    return tl.math.div_rn(a, b)


@triton.jit
def noinline_call(x_ptr, y_ptr, o_ptr, of_ptr):
    pid = tl.program_id(0)
    a = tl.load(x_ptr + pid)
    r = _mix_helper(a, pid)
    r2 = _mix_helper(r, a)
    tl.store(o_ptr + pid * 2, r)
    tl.store(o_ptr + pid * 2 + 1, r2)
    f = tl.load(y_ptr + pid)
    tl.store(of_ptr + pid, _div_helper(f, f + 3.0))


@triton.jit
def for_runtime(b_ptr, o_ptr, vo_ptr, BLOCK: tl.constexpr):
    # for loops whose bounds and step are run-time scalars (positive steps; trip counts of 0 included)
    pid = tl.program_id(0)
    lo = tl.load(b_ptr + pid * 3)
    hi = tl.load(b_ptr + pid * 3 + 1)
    st = tl.load(b_ptr + pid * 3 + 2)
    acc = 0
    cnt = 0
    for i in range(lo, hi, st):
        acc = acc * 31 + i
        cnt += 1
    v = tl.zeros((BLOCK,), dtype=tl.int32)
    for i in tl.range(lo, hi, 2):
        v += tl.arange(0, BLOCK) * i + cnt
    tl.store(o_ptr + pid * 2, acc)
    tl.store(o_ptr + pid * 2 + 1, cnt)
    tl.store(vo_ptr + pid * BLOCK + tl.arange(0, BLOCK), v)


@triton.jit
def for_negative_step(b_ptr, o_ptr):
    # a constexpr negative step with run-time bounds
    pid = tl.program_id(0)
    lo = tl.load(b_ptr + pid * 2)
    hi = tl.load(b_ptr + pid * 2 + 1)
    acc = 0
    cnt = 0
    for i in range(hi, lo, -3):
        acc = acc * 17 + i
        cnt += 1
    tl.store(o_ptr + pid * 2, acc)
    tl.store(o_ptr + pid * 2 + 1, cnt)


@triton.jit
def grid2d(o_ptr, BLOCK: tl.constexpr):
    px = tl.program_id(0)
    py = tl.program_id(1)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    lin = py * nx + px
    offs = tl.arange(0, BLOCK)
    val = tl.where(offs == 0, px, tl.where(offs == 1, py, tl.where(offs == 2, nx, tl.where(offs == 3, ny, lin * offs))))
    tl.store(o_ptr + lin * BLOCK + offs, val)


@triton.jit
def grid3d(o_ptr, BLOCK: tl.constexpr):
    px = tl.program_id(0)
    py = tl.program_id(1)
    pz = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    nz = tl.num_programs(2)
    lin = (pz * ny + py) * nx + px
    offs = tl.arange(0, BLOCK)
    val = tl.where(offs == 0, px, tl.where(offs == 1, py, tl.where(offs == 2, pz, lin * 100 + offs)))
    val = tl.where(offs == 3, nx, tl.where(offs == 4, ny, tl.where(offs == 5, nz, val)))
    tl.store(o_ptr + lin * BLOCK + offs, val)


# ------------------------------------------------------------------------------------------------ block pointers, dot
@triton.jit
def blockptr_nan(x_ptr, o_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # boundary_check with NaN padding (negative offsets too), advance, zero padding, a checked block store
    pid = tl.program_id(0)
    bp = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM - 4, -3),
                           block_shape=(BM, BN), order=(1, 0))
    a = tl.load(bp, boundary_check=(0, 1), padding_option="nan")
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    tl.store(o_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], a)
    bp2 = tl.advance(bp, (4, 3))
    b = tl.load(bp2, boundary_check=(0, 1), padding_option="zero")
    yp = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    tl.store(yp, b * 2.0 + 1.0, boundary_check=(0, 1))


@triton.jit
def dot_f32(a_ptr, b_ptr, c_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
            PREC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
    d = tl.dot(a, b, c, input_precision=PREC)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], d)


# ================================================================================================ issue 10 corpus
# Kernels in the styles of real-world Triton code that tilesim learned in issue 10 (descriptors, spin locks with
# debug barriers, early returns, inline PTX, long float row reductions, in-place updates, strided views). Cases of
# group "corpus10" in make_golden.py; appended below the older kernels so their `loc(...)` lines do not move.

# ------------------------------------------------------------------------------------------------ tensor descriptors
@triton.jit
def matmul_desc_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr, NUM_SMS: tl.constexpr):
    # tutorial 09 style: device-side descriptors, a persistent loop over output tiles; M, N, K not multiples
    # of the block, so loads read zero padding and stores drop out-of-bounds elements
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    start = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(start, num_m * num_n, NUM_SMS, flatten=True):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k_tiles):
            a = a_desc.load([pm * BM, kk * BK])
            b = b_desc.load([pn * BN, kk * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def matmul_hostdesc_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                               BK: tl.constexpr, NUM_SMS: tl.constexpr):
    # the same with host-side triton.tools.tensor_descriptor.TensorDescriptor arguments (B is [K, N] here)
    start = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(start, num_m * num_n, NUM_SMS):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k_tiles):
            a = a_desc.load([pm * BM, kk * BK])
            b = b_desc.load([kk * BK, pn * BN])
            acc = tl.dot(a, b, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def attn_fwd_desc(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BM: tl.constexpr,
                  BN: tl.constexpr):
    # attention forward (tutorial 06 style) through rank-3 descriptors [Z*H, N_CTX, HEAD_DIM]: N_CTX is not a
    # multiple of the block, so K/V tails read zero padding (masked to -inf) and the last O rows are dropped
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    ZH = tl.num_programs(1)
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[ZH, N_CTX, HEAD_DIM], strides=[N_CTX * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, BM, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[ZH, N_CTX, HEAD_DIM], strides=[N_CTX * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, BN, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[ZH, N_CTX, HEAD_DIM], strides=[N_CTX * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, BN, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[ZH, N_CTX, HEAD_DIM], strides=[N_CTX * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, BM, HEAD_DIM])
    q = q_desc.load([off_hz, start_m * BM, 0]).reshape(BM, HEAD_DIM)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BN):
        k = k_desc.load([off_hz, start_n, 0]).reshape(BN, HEAD_DIM)
        qk = tl.dot(q, k.T)
        cols = start_n + tl.arange(0, BN)
        qk = tl.where(cols[None, :] < N_CTX, qk * qk_scale, -float("inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([off_hz, start_n, 0]).reshape(BN, HEAD_DIM)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_desc.store([off_hz, start_m * BM, 0], acc.to(tl.float16).reshape(1, BM, HEAD_DIM))


@triton.jit
def desc_padding(x_ptr, y_desc, o_ptr, w_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # descriptor loads at negative and too-large offsets with NaN and zero padding; a store half out of bounds
    # (the dropped part keeps the output's fill); a host descriptor's shape and strides read as scalars
    pid = tl.program_id(0)
    xn = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN], padding_option="nan")
    xz = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    a = xn.load([pid * BM - 3, -5])
    b = xz.load([pid * BM + 5, N - 7])
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    base = o_ptr + pid * 2 * BM * BN + rm[:, None] * BN + rn[None, :]
    tl.store(base, a)
    tl.store(base + BM * BN, b)
    y_desc.store([pid * BM + 3, N - 9], a + b)
    tl.store(w_ptr + pid * 4 + tl.arange(0, 4), tl.where(tl.arange(0, 4) < 2, y_desc.shape[0] + y_desc.shape[1],
                                                          y_desc.strides[0] * 2 + y_desc.strides[1]))


# ------------------------------------------------------------------------------------------------ lock, barrier
@triton.jit
def lock_accumulate(x_ptr, dw_ptr, lock_ptr, count_ptr, rows, N, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    # tutorial 05 (layer norm backward) style: each row adds its partial into one of GROUP shared rows under a
    # spin lock (atomic_cas / atomic_xchg), the first writer initialises, a debug barrier before the release.
    # The values are small integers, so the sums are exact in any order of lock acquisition.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    partial = x * 2.0 - 1.0
    g = row % GROUP
    lock = lock_ptr + g
    count = count_ptr + g
    dw = dw_ptr + g * N + cols
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    c = tl.load(count)
    if c == 0:
        tl.atomic_xchg(count, 1)
    else:
        partial += tl.load(dw, mask=mask)
    tl.store(dw, partial, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


# ------------------------------------------------------------------------------------------------ early return
@triton.jit
def early_return(x_ptr, y_ptr, flag_ptr, n_valid, BLOCK: tl.constexpr):
    # Liger style: `return` inside `if` gives cf.cond_br / cf.br blocks with arguments
    pid = tl.program_id(0)
    if pid >= n_valid:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    flag = tl.load(flag_ptr + pid)
    if flag == 0:
        tl.store(y_ptr + offs, -x)
        return
    s = tl.sum(x, axis=0)
    if s > 0:
        x = x * 2.0
    tl.store(y_ptr + offs, x + 1.0)


# ------------------------------------------------------------------------------------------------ inline PTX
@triton.jit
def inline_asm_ops(a_ptr, b_ptr, c_ptr, f_ptr, g_ptr, o_ptr, BLOCK: tl.constexpr):
    # the inline PTX real kernels use: prmt byte permutes, lop3 bit logic, packed cvt to f16x2, fma.rn, ex2.approx
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    c = tl.load(c_ptr + offs)
    f = tl.load(f_ptr + offs)
    g = tl.load(g_ptr + offs)
    p = tl.inline_asm_elementwise("prmt.b32 $0, $1, $2, 0x5140;", "=r,r,r", [a, b], dtype=tl.int32, is_pure=True,
                                  pack=1)
    l3 = tl.inline_asm_elementwise("lop3.b32 $0, $1, $2, $3, 0xE8;", "=r,r,r,r", [a, b, c], dtype=tl.int32,
                                   is_pure=True, pack=1)
    sh = tl.inline_asm_elementwise("shf.r.wrap.b32 $0, $1, $2, $3;", "=r,r,r,r", [a, b, c], dtype=tl.int32,
                                   is_pure=True, pack=1)
    h2 = tl.inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,f,f", [f, g], dtype=tl.int32,
                                   is_pure=True, pack=1)
    fm = tl.inline_asm_elementwise("fma.rn.f32 $0, $1, $2, $3;", "=f,f,f,f", [f, g, f], dtype=tl.float32,
                                   is_pure=True, pack=1)
    e2 = tl.inline_asm_elementwise("ex2.approx.f32 $0, $1;", "=f,f", [f], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(o_ptr + offs, p)
    tl.store(o_ptr + BLOCK + offs, l3)
    tl.store(o_ptr + 2 * BLOCK + offs, sh)
    tl.store(o_ptr + 3 * BLOCK + offs, h2)
    tl.store(o_ptr.to(tl.pointer_type(tl.float32)) + 4 * BLOCK + offs, fm)
    tl.store(o_ptr.to(tl.pointer_type(tl.float32)) + 5 * BLOCK + offs, e2)


# ------------------------------------------------------------------------------------------------ long reductions
@triton.jit
def layernorm_long_f32(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, N, eps, BLOCK: tl.constexpr):
    # one 8192-wide f32 row per program: two long float reductions (mean, variance)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * N + cols, xc * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def rmsnorm_long_f32(x_ptr, w_ptr, y_ptr, rstd_ptr, N, eps, BLOCK: tl.constexpr):
    # Liger style RMS norm, f32, 8192 wide: the sum of squares is a long float reduction
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    rstd = tl.math.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + cols, x * rstd * w, mask=mask)
    tl.store(rstd_ptr + row, rstd)


# ------------------------------------------------------------------------------------------------ in place, views
@triton.jit
def inplace_axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    # out is y (one buffer, two pointers): out = a * x + y in place
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, a * x + y, mask=m)


@triton.jit
def strided_view_copy(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr):
    # a transposed view read and a column-strided view (every other column, starting at column 1) written
    pid = tl.program_id(0)
    rm = pid * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, x * 3.0 - 1.0, mask=mask)
