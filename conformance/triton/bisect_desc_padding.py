#!/usr/bin/env python3
"""Bisects corpus10's desc_padding_f32 launch, which ended with `CUDA error: an illegal instruction` on the H200
(2026-12-01, docs/findings.md C1). Each variant changes one suspect of the original kernel (kernels_corpus10.py
`desc_padding`) and runs in its own process, since an illegal instruction leaves the CUDA context unusable:

  original      NaN padding, loads at negative coordinates, host-descriptor store (as recorded)
  zero_pad      the NaN descriptor made with padding_option="zero" (everything else as recorded)
  nonneg        the NaN descriptor's load at [pid*BM, 0] instead of [pid*BM - 3, -5]
  nan_only      only the NaN-padded load at the negative coordinates, stored with tl.store (no second
                descriptor, no host descriptor)
  no_hoststore  the original without the host-descriptor store

Needs a GPU with TMA (sm_90) and torch + triton 3.6. One command, well under a minute:
    python3 conformance/triton/bisect_desc_padding.py > $OUT/desc_padding_bisect.txt
Prints one line per variant: ok / failed with the error's first line, and for ok variants whether the
out-of-bounds part of the NaN load read NaN.
"""
import subprocess
import sys

import triton
import triton.language as tl

DM, DN, BM, BN = 20, 40, 16, 16


@triton.jit
def variant_kernel(x_ptr, y_desc, o_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, NAN_PAD: tl.constexpr,
                   NEGATIVE: tl.constexpr, SECOND: tl.constexpr, HOST_STORE: tl.constexpr):
    pid = tl.program_id(0)
    if NAN_PAD:
        xn = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN], padding_option="nan")
    else:
        xn = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    if NEGATIVE:
        a = xn.load([pid * BM - 3, -5])
    else:
        a = xn.load([pid * BM, 0])
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    base = o_ptr + pid * 2 * BM * BN + rm[:, None] * BN + rn[None, :]
    tl.store(base, a)
    if SECOND:
        xz = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        b = xz.load([pid * BM + 5, N - 7])
        tl.store(base + BM * BN, b)
        if HOST_STORE:
            y_desc.store([pid * BM + 3, N - 9], a + b)


VARIANTS = {
    "original": dict(NAN_PAD=True, NEGATIVE=True, SECOND=True, HOST_STORE=True),
    "zero_pad": dict(NAN_PAD=False, NEGATIVE=True, SECOND=True, HOST_STORE=True),
    "nonneg": dict(NAN_PAD=True, NEGATIVE=False, SECOND=True, HOST_STORE=True),
    "nan_only": dict(NAN_PAD=True, NEGATIVE=True, SECOND=False, HOST_STORE=False),
    "no_hoststore": dict(NAN_PAD=True, NEGATIVE=True, SECOND=True, HOST_STORE=False),
}


def run_one(name):
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    torch.manual_seed(0)
    x = torch.randn(DM, DN, dtype=torch.float32, device="cuda")
    y = torch.zeros(DM, DN, dtype=torch.float32, device="cuda")
    o = torch.full((2, 2, BM, BN), 7.0, dtype=torch.float32, device="cuda")
    y_desc = TensorDescriptor(y, [DM, DN], [DN, 1], [BM, BN])
    variant_kernel[(2,)](x, y_desc, o, DM, DN, BM=BM, BN=BN, **VARIANTS[name])
    torch.cuda.synchronize()
    a = o[0, 0].cpu()
    extra = ""
    if VARIANTS[name]["NEGATIVE"]:
        extra = f"; rows 0-2 / cols 0-4 of program 0's first load NaN: {bool(torch.isnan(a[:3, :]).all())}" \
                f" / {bool(torch.isnan(a[:, :5]).all())}"
    print(f"{name}: ok{extra}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        run_one(sys.argv[2])
        return 0
    for name in VARIANTS:
        p = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            print(p.stdout.strip())
        else:
            lines = [line for line in (p.stderr or "").splitlines() if "Error" in line or "error" in line]
            print(f"{name}: failed (exit {p.returncode}): {lines[-1] if lines else p.stderr[-300:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
