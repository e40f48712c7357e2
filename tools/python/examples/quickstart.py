"""The tutorials' vector add, fused softmax and matmul kernels, run on the CPU by tilesim on numpy arrays, then
a kernel with an out-of-bounds bug. After `pip install tools/python` (or tools/setup + the build):

    python tools/python/examples/quickstart.py
"""
import numpy as np
import triton
import triton.language as tl

import tilesim


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def add_kernel_with_bug(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)  # no mask: the last block reads past the end
    tl.store(out_ptr + offsets, x, mask=offsets < n_elements)


# The Python package's tests run add_kernel and add_kernel_with_bug from here (tools/python/tests/kernels.py loads
# them), so what this file shows is what they check.
def main():
    rng = np.random.default_rng(0)
    with tilesim.interpret():
        n = 98432
        x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        out = np.empty_like(x)
        add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=1024)
        print("vector add:", "correct" if np.array_equal(out, x + y) else "WRONG")

        s = rng.standard_normal((1823, 781), dtype=np.float32)
        p = np.empty_like(s)
        softmax_kernel[(s.shape[0],)](p, s, s.shape[1], p.shape[1], s.shape[1], BLOCK_SIZE=1024)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        print("softmax:   ", "correct" if np.allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-5) else "WRONG")

        M, N, K = 300, 200, 150
        a, b = rng.standard_normal((M, K), dtype=np.float32), rng.standard_normal((K, N), dtype=np.float32)
        c = np.empty((M, N), np.float32)
        matmul_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](a, b, c, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        print("matmul:    ", "correct" if np.allclose(c, a @ b, rtol=1e-4, atol=1e-4) else "WRONG")

        try:
            add_kernel_with_bug[(triton.cdiv(1000, 256),)](x[:1000], out, 1000, BLOCK_SIZE=256)
        except tilesim.KernelError as error:
            print(f"out-of-bounds bug found at {error.filename.split('/')[-1]}:{error.lineno} "
                  f"(program {error.program}, lane {error.lane}, buffer {error.buffer})")


if __name__ == "__main__":
    main()
