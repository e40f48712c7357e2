"""Triton kernels behind the golden-extra cases of conformance/golden-extra/ (made by make_golden.py; the index is
kernels.py): shape ops, control flow (but noinline_call, which stays in kernels.py), special grids, block pointers
and tt.dot. They stood in kernels.py until the file was split; the `loc("kernels.py":LINE:COL)`s of their recorded
kernel.ttir name that file as of commit 28cb19d (`git show 28cb19d:conformance/triton/kernels.py`), until the cases
are regenerated."""
import triton
import triton.language as tl


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
