"""Triton kernels of issue 10's corpus (group `corpus10` of make_golden.py, conformance/corpus10/; the index is
kernels.py): kernels in the styles of real-world Triton code that tilesim learned in issue 10 (descriptors, spin
locks with debug barriers, early returns, inline PTX, long float row reductions, in-place updates, strided views).
They stood in kernels.py until the file was split; the `loc("kernels.py":LINE:COL)`s of their recorded
kernel.ttir name that file as of commit 28cb19d (`git show 28cb19d:conformance/triton/kernels.py`), until the
cases are regenerated."""
import triton
import triton.language as tl


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
