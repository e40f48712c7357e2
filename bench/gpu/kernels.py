# The memory-bound kernels of the GPU benchmark (bench/gpu/run_h200.sh), in Triton 3.6. The same source is
# (1) run by Triton itself and (2) compiled by Triton only as far as TTIR, which tilesim's GPU engine then
# compiles on its own (layouts, LLVM, PTX). CASES lists each benchmark case: its kernel, shapes, launch
# configuration and how many bytes it must move (what GB/s is computed from).
import os
import runpy

import triton
import triton.language as tl


# vadd and softmax (Triton's tutorial 02, one program per row) are golden cases' kernels
# (conformance/golden/kernels.py), loaded from there; softmax is its row_softmax under the name the TTIR of
# bench/gpu/ttir holds (tt.func @softmax).
_golden = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "conformance", "golden",
                                      "kernels.py"))
vadd = _golden["vadd"]
softmax = triton.jit(_golden["row_softmax"].fn, repr=lambda _: "softmax")


# Triton's tutorial 05 (layer norm forward), one program per row, statistics in fp32.
@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, ncols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    y_ptr += row * stride
    x_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, ncols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        a = tl.load(x_ptr + cols, mask=cols < ncols, other=0.).to(tl.float32)
        acc += a
    mean = tl.sum(acc, axis=0) / ncols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, ncols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < ncols, other=0.).to(tl.float32)
        x = tl.where(cols < ncols, x - mean, 0.)
        acc += x * x
    var = tl.sum(acc, axis=0) / ncols
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, ncols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < ncols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y, mask=mask)


# A tiled transpose of an n x n fp32 matrix, one BLOCK x BLOCK tile per program: the tile is loaded row-major
# (consecutive threads read consecutive columns) and stored at the transposed position, so both the reads and the
# writes are coalesced only if the tl.trans between them is a layout conversion through shared memory; in
# registers alone, one of the two walks memory with a stride of n elements.
@triton.jit
def transpose(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    tile = tl.load(x_ptr + rows[:, None] * n + cols[None, :])
    tl.store(y_ptr + cols[:, None] * n + rows[None, :], tl.trans(tile))


# name -> kernel, shapes, constexprs, num_warps, grid, bytes moved (reads + writes of the big tensors).
CASES = {
    "vadd_f32_2p28": dict(kernel=vadd, n=1 << 28, BLOCK=1024, num_warps=4,
                          grid=((1 << 28) // 1024,), bytes=3 * 4 * (1 << 28)),
    "softmax_f32_32768x4096": dict(kernel=softmax, rows=32768, cols=4096, BLOCK=4096, num_warps=8,
                                   grid=(32768,), bytes=2 * 4 * 32768 * 4096),
    "softmax_f32_4096x32768": dict(kernel=softmax, rows=4096, cols=32768, BLOCK=32768, num_warps=16,
                                   grid=(4096,), bytes=2 * 4 * 4096 * 32768),
    "layernorm_f16_16384x8192": dict(kernel=layernorm, rows=16384, cols=8192, BLOCK=8192, num_warps=8,
                                     grid=(16384,), bytes=2 * 2 * 16384 * 8192),
    "transpose_f32_8192x8192": dict(kernel=transpose, n=8192, BLOCK=64, num_warps=4, grid=(8192 // 64, 8192 // 64),
                                    bytes=2 * 4 * 8192 * 8192),
}


def signature_and_constants(name):
    """The Triton signature (argument types) and constexprs of a case, for triton.compile's ASTSource."""
    case = CASES[name]
    kernel = case["kernel"]
    if kernel is vadd:
        return {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, \
            {"BLOCK": case["BLOCK"]}
    if kernel is transpose:
        return {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": case["BLOCK"]}
    if kernel is softmax:
        return {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32", "ncols": "i32",
                "BLOCK": "constexpr"}, {"BLOCK": case["BLOCK"]}
    return {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "mean_ptr": "*fp32",
            "rstd_ptr": "*fp32", "stride": "i32", "ncols": "i32", "eps": "fp32", "BLOCK": "constexpr"}, \
        {"BLOCK": case["BLOCK"]}
