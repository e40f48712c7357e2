"""The project's own Gluon kernels (triton.experimental.gluon), written the way Gluon users write Hopper kernels,
each with planted synchronisation bugs that tilesim must report (docs/ttgir.md, "Gluon on the CPU").

* `pipelined_matmul`: C = A @ B with a multi-stage ring of TMA loads completed through mbarriers, and async
  wgmma (`warpgroup_mma`) keeping one MMA in flight.
* `ws_matmul`: the same product, warp-specialised: a one-warp loader partition TMA-loads A and B tiles into a
  ring (`ready` / `empty` mbarriers), the default partition does the wgmma math and stores C.
* `attention_fwd`: a flash-attention forward (one head, online softmax): Q once by TMA, K and V tiles through
  a two-stage ring, S = Q K^T and O += P V on wgmma.

`PLANT` selects a planted bug (0: none). Each planted line carries a `# plant N` comment; the tests find the
line by that comment and require tilesim's report to name it (tests: tools/python/tests/test_gluon.py).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                                 warpgroup_mma_wait)

NUM_WARPS = gl.constexpr(4)

# What each plant is, and the report kind tilesim gives for it.
PLANTS = {
    "pipelined_matmul": {1: ("missing wait", "async-hazard"), 2: ("wrong phase", "async-hazard"),
                         3: ("buffer reused one stage too early", "async-hazard")},
    "ws_matmul": {1: ("missing wait", "partition-race"), 2: ("wrong phase", "mbarrier"),
                  3: ("buffer released one stage too early", "partition-race"),
                  4: ("barrier_expect counts too few bytes", "mbarrier")},
    "attention_fwd": {1: ("missing wait", "async-hazard")},
}


@gluon.jit
def _wgmma_accumulator(BM: gl.constexpr, BN: gl.constexpr):
    """A zero BM x BN fp32 accumulator in the wgmma layout (NVMMA v3) of the NUM_WARPS warps."""
    layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[NUM_WARPS, 1],
                                                     instr_shape=[16, BN, 16])
    return gl.zeros([BM, BN], gl.float32, layout)


@gluon.jit
def _store_tile(c_ptr, acc, off_m, off_n, M, N):
    layout: gl.constexpr = acc.type.layout
    BM: gl.constexpr = acc.shape[0]
    BN: gl.constexpr = acc.shape[1]
    rows = off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, layout))
    cols = off_n + gl.arange(0, BN, layout=gl.SliceLayout(0, layout))
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    gl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=mask)


@gluon.jit
def _tile_ring(a_desc, b_desc, STAGES: gl.constexpr):
    """What both matmuls open with: this program's C tile origin (off_m, off_n) and a ring of STAGES A and B
    tiles in shared memory, each slot with a `ready` mbarrier (initialised, one arrival) its TMA loads complete."""
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BK, BN], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
    return gl.program_id(0) * BM, gl.program_id(1) * BN, a_bufs, b_bufs, ready


@gluon.jit
def pipelined_matmul(a_desc, b_desc, c_ptr, M, N, K, STAGES: gl.constexpr, PLANT: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    off_m, off_n, a_bufs, b_bufs, ready = _tile_ring(a_desc, b_desc, STAGES)
    n_k = gl.cdiv(K, BK)
    for i in gl.static_range(STAGES - 1):  # the prologue: STAGES - 1 tiles in flight (n_k >= STAGES - 1)
        mbarrier.expect(ready.index(i), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, i * BK], ready.index(i), a_bufs.index(i))
        tma.async_copy_global_to_shared(b_desc, [i * BK, off_n], ready.index(i), b_bufs.index(i))
    acc = _wgmma_accumulator(BM, BN)
    for k in range(n_k):
        s = k % STAGES
        phase = (k // STAGES) & 1
        if PLANT == 2:
            mbarrier.wait(ready.index(s), phase ^ 1)  # plant 2
        elif PLANT != 1:
            mbarrier.wait(ready.index(s), phase)
        pending = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)  # plant 1
        acc, _, _ = warpgroup_mma_wait(1, deps=[pending, a_bufs.index(s), b_bufs.index(s)])
        nxt = k + STAGES - 1
        if nxt < n_k:  # refill the slot the MMA of step k - 1 read (retired by the wait above)
            ns = nxt % STAGES
            if PLANT == 3:
                ns = s
            mbarrier.expect(ready.index(ns), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, nxt * BK], ready.index(ns), a_bufs.index(ns))  # plant 3
            tma.async_copy_global_to_shared(b_desc, [nxt * BK, off_n], ready.index(ns), b_bufs.index(ns))
    acc = warpgroup_mma_wait(0, deps=[acc])
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(i))
    _store_tile(c_ptr, acc, off_m, off_n, M, N)


@gluon.jit
def _ws_loader(a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, n_k, STAGES: gl.constexpr,
               PLANT: gl.constexpr):
    BK: gl.constexpr = a_desc.block_type.shape[1]
    for k in range(n_k):
        s = k % STAGES
        phase = (k // STAGES) & 1
        if PLANT == 2:
            mbarrier.wait(empty.index(s), phase)  # plant 2
        else:
            mbarrier.wait(empty.index(s), phase ^ 1)  # the first round passes: no consumer has released yet
        if PLANT == 4:
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes)  # plant 4
        else:
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
        tma.async_copy_global_to_shared(b_desc, [k * BK, off_n], ready.index(s), b_bufs.index(s))


@gluon.jit
def _ws_consumer(c_ptr, a_bufs, b_bufs, ready, empty, off_m, off_n, M, N, n_k, STAGES: gl.constexpr,
                 PLANT: gl.constexpr):
    acc = _wgmma_accumulator(a_bufs.shape[1], b_bufs.shape[2])
    for k in range(n_k):
        s = k % STAGES
        phase = (k // STAGES) & 1
        if PLANT != 1:
            mbarrier.wait(ready.index(s), phase)
        if PLANT == 3:
            mbarrier.arrive(empty.index(s), count=1)  # plant 3
        acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc)  # plant 1
        if PLANT != 3:
            mbarrier.arrive(empty.index(s), count=1)  # the slot is free once the MMA has read it
    _store_tile(c_ptr, acc, off_m, off_n, M, N)


@gluon.jit
def ws_matmul(a_desc, b_desc, c_ptr, M, N, K, STAGES: gl.constexpr, PLANT: gl.constexpr):
    off_m, off_n, a_bufs, b_bufs, ready = _tile_ring(a_desc, b_desc, STAGES)
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(empty.index(i), count=1)
    n_k = gl.cdiv(K, a_desc.block_type.shape[1])
    gl.warp_specialize([
        (_ws_consumer, (c_ptr, a_bufs, b_bufs, ready, empty, off_m, off_n, M, N, n_k, STAGES, PLANT)),
        (_ws_loader, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, n_k, STAGES, PLANT)),
    ], [1], [24])
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


@gluon.jit
def attention_fwd(q_desc, k_desc, v_desc, o_ptr, seq_len, sm_scale, PLANT: gl.constexpr):
    BM: gl.constexpr = q_desc.block_type.shape[0]
    D: gl.constexpr = q_desc.block_type.shape[1]
    BN: gl.constexpr = k_desc.block_type.shape[0]
    off_m = gl.program_id(0) * BM
    q_smem = gl.allocate_shared_memory(q_desc.dtype, [BM, D], q_desc.layout)
    k_smem = gl.allocate_shared_memory(k_desc.dtype, [2, BN, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(v_desc.dtype, [2, BN, D], v_desc.layout)
    p_smem = gl.allocate_shared_memory(gl.float16, [BM, BN], gl.NVMMASharedLayout.get_default_for([BM, BN], gl.float16))
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    kv_bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(2):
        mbarrier.init(kv_bars.index(i), count=1)
    kv_bytes: gl.constexpr = k_desc.block_type.nbytes + v_desc.block_type.nbytes
    mbarrier.expect(q_bar, q_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(q_desc, [off_m, 0], q_bar, q_smem)
    mbarrier.expect(kv_bars.index(0), kv_bytes)
    tma.async_copy_global_to_shared(k_desc, [0, 0], kv_bars.index(0), k_smem.index(0))
    tma.async_copy_global_to_shared(v_desc, [0, 0], kv_bars.index(0), v_smem.index(0))
    mbarrier.wait(q_bar, 0)

    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[NUM_WARPS, 1],
                                                       instr_shape=[16, BN, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[NUM_WARPS, 1],
                                                       instr_shape=[16, D, 16])
    m_i = gl.full([BM], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
    l_i = gl.zeros([BM], gl.float32, gl.SliceLayout(1, s_layout))
    acc = gl.zeros([BM, D], gl.float32, o_layout)
    cols = gl.arange(0, BN, layout=gl.SliceLayout(0, s_layout))
    n_kv = gl.cdiv(seq_len, BN)
    for j in range(n_kv):
        stage = j % 2
        if j + 1 < n_kv:  # prefetch the next K and V tiles into the other stage (its last reader was step j - 1)
            nxt = (j + 1) % 2
            mbarrier.expect(kv_bars.index(nxt), kv_bytes)
            tma.async_copy_global_to_shared(k_desc, [(j + 1) * BN, 0], kv_bars.index(nxt), k_smem.index(nxt))
            tma.async_copy_global_to_shared(v_desc, [(j + 1) * BN, 0], kv_bars.index(nxt), v_smem.index(nxt))
        if PLANT != 1:
            mbarrier.wait(kv_bars.index(stage), (j // 2) & 1)
        zero = gl.zeros([BM, BN], gl.float32, s_layout)
        s = warpgroup_mma(q_smem, k_smem.index(stage).permute((1, 0)), zero, use_acc=False)  # plant 1
        s = gl.where((j * BN + cols)[None, :] < seq_len, s * sm_scale, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(s, axis=1))
        p = gl.exp(s - m_new[:, None])
        alpha = gl.exp(m_i - m_new)
        l_i = l_i * alpha + gl.sum(p, axis=1)
        acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
        p_smem.store(p.to(gl.float16))
        fence_async_shared()
        acc = warpgroup_mma(p_smem, v_smem.index(stage), acc)
        m_i = m_new
    mbarrier.invalidate(q_bar)
    for i in gl.static_range(2):
        mbarrier.invalidate(kv_bars.index(i))
    acc = acc / gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))[:, None]
    rows = off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, o_layout))
    dims = gl.arange(0, D, layout=gl.SliceLayout(0, o_layout))
    gl.store(o_ptr + rows[:, None] * D + dims[None, :], acc, mask=(rows < seq_len)[:, None])
