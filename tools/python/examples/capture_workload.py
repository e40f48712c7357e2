"""A small multi-kernel GPU workload for `python -m tilesim.capture` (needs CUDA and torch): the users'-style
kernels of tests/kernels.py on CUDA tensors — tails, a non-contiguous view, two views of one storage, bf16 and
fp8 tensors, an autotuned matmul (benchmarked by Triton on the GPU; only its final launch is recorded), and a
torch.compile'd function (Inductor's launches are not recorded yet: docs/python.md).

    python -m tilesim.capture -o cases/ -- python tools/python/examples/capture_workload.py
    tilesim conformance cases/          # on any machine
"""
import math
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import kernels  # noqa: E402


def launch_users_kernels(dev="cuda"):
    """Launches the users'-style kernels of tests/kernels.py once each on CUDA tensors (scripts/model_workload.py
    launches them too, and checks them against torch); returns their tensors and sizes by name."""
    n = 98_437
    x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
    out = torch.empty_like(x)
    kernels.add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=1024)

    big = torch.randn(37, 300, device=dev)
    view = big[:, 20:223]  # rows of 203 with a row stride of 300
    soft = torch.empty(37, 203, device=dev)
    kernels.softmax_kernel[(8,)](soft, view, big.stride(0), soft.stride(0), 37, 203, BLOCK_SIZE=256, num_stages=2)

    m, ncols = 13, 300
    xs = torch.randn(m, ncols, device=dev)
    w, b = torch.randn(ncols, device=dev), torch.randn(ncols, device=dev)
    ys, mean, rstd = torch.empty_like(xs), torch.empty(m, device=dev), torch.empty(m, device=dev)
    kernels.layernorm[(m,)](xs, ys, w, b, mean, rstd, xs.stride(0), ncols, 1e-5, BLOCK=128)

    M, N, K = 70, 45, 100
    a, bm = torch.randn(M, K, device=dev), torch.randn(K, N, device=dev)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"]),)
    kernels.matmul_kernel[grid](a, bm, c, M, N, K, a.stride(0), a.stride(1), bm.stride(0), bm.stride(1), c.stride(0),
                                c.stride(1))

    seq, d = 50, 16
    q, k, v = (torch.randn(seq, d, device=dev) for _ in range(3))
    o = torch.empty(seq, d, device=dev)
    kernels.attention_fwd[(triton.cdiv(seq, 16),)](q, k, v, o, 1 / math.sqrt(d), seq, d, d, d, d, HEAD_DIM=d,
                                                  BLOCK_M=16, BLOCK_N=16)

    shared = torch.arange(256, device=dev, dtype=torch.float32)
    kernels.copy_shifted[(2,)](shared[:128], shared[128:], 128, BLOCK=64)  # two views of one storage

    h = torch.randn(200, device=dev).to(torch.bfloat16)
    h_out = torch.empty_like(h)
    kernels.copy_shifted[(4,)](h, h_out, 200, BLOCK=64)
    f8 = torch.randn(200, device=dev).to(torch.float8_e5m2)
    f8_out = torch.empty_like(f8)
    kernels.copy_shifted[(4,)](f8, f8_out, 200, BLOCK=64)
    return dict(x=x, y=y, out=out, view=view, soft=soft, m=m, ncols=ncols, xs=xs, w=w, b=b, ys=ys, mean=mean,
                rstd=rstd, a=a, bm=bm, c=c, q=q, k=k, v=v, o=o, d=d, h=h, h_out=h_out, f8=f8, f8_out=f8_out)


if __name__ == "__main__":
    torch.manual_seed(0)
    launched = launch_users_kernels()
    try:
        compiled = torch.compile(lambda t: torch.softmax(t * 2, dim=-1) + 1)
        compiled(torch.randn(64, 100, device="cuda"))
        print("capture_workload: torch.compile ran")
    except Exception as error:  # Inductor needs a working compiler toolchain
        print(f"capture_workload: torch.compile failed: {type(error).__name__}: {error}")
    torch.cuda.synchronize()
    assert torch.equal(launched["out"], launched["x"] + launched["y"])
    print("capture_workload: done")
