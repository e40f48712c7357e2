"""Smoke test of bench/gpu/bench.py on a machine without a GPU or torch: a numpy stand-in for torch (torch/),
Triton's kernels replaced by numpy, small shapes, and tilesim's GPU runs answered by its interpreter
(interp_as_gpu.sh). It checks the harness end to end — inputs, the TTIR handed to tilesim, the argument
binding, reading tilesim's outputs back, verification, the tables — not any number.
    python3 bench/gpu/smoke/smoke_test.py TILESIM OUT_DIR
"""
import os
import sys
import types

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.dirname(here))
import numpy as np  # noqa: E402
import triton  # noqa: E402

import kernels  # noqa: E402

TTIR = os.path.join(os.path.dirname(here), "ttir")


class FakeKernel:
    def __init__(self, name, ttir, fn, args):
        self.__name__, self.fn, self.arg_names = name, fn, args
        self.ttir = open(os.path.join(TTIR, ttir)).read()

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.fn(*args)
            return types.SimpleNamespace(asm={"ttir": self.ttir})
        return launch


def vadd(x, y, out, n):
    out[...] = x + y


def softmax(out, x, in_stride, out_stride, ncols):
    e = np.exp(x - x.max(-1, keepdims=True))
    out[...] = e / e.sum(-1, keepdims=True)


def transpose(x, y, n):
    y[...] = x.T


def layernorm(x, y, w, b, mean, rstd, stride, ncols, eps):
    import torch
    y[...] = torch.nn.functional.layer_norm(x, (ncols,), w, b, eps)


def main():
    os.environ["TILESIM_REAL"] = os.path.abspath(sys.argv[1])
    kernels.vadd = FakeKernel("vadd", "vadd_f32_2p28.ttir", vadd, ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"])
    kernels.softmax = FakeKernel("softmax", "softmax_f32_32768x4096.ttir", softmax,
                                 ["out_ptr", "in_ptr", "in_stride", "out_stride", "ncols", "BLOCK"])
    kernels.layernorm = FakeKernel("layernorm", "layernorm_f16_16384x8192.ttir", layernorm,
                                   ["x_ptr", "y_ptr", "w_ptr", "b_ptr", "mean_ptr", "rstd_ptr", "stride", "ncols",
                                    "eps", "BLOCK"])
    kernels.transpose = FakeKernel("transpose", "transpose_f32_8192x8192.ttir", transpose,
                                   ["x_ptr", "y_ptr", "n", "BLOCK"])
    cases = kernels.CASES
    cases["vadd_f32_2p28"].update(kernel=kernels.vadd, n=4096, grid=(4,))
    cases["softmax_f32_32768x4096"].update(kernel=kernels.softmax, rows=4, grid=(4,))
    cases["layernorm_f16_16384x8192"].update(kernel=kernels.layernorm, rows=2, grid=(2,))
    cases["transpose_f32_8192x8192"].update(kernel=kernels.transpose, n=128, grid=(2, 2))
    triton.compile = lambda *args, **kwargs: None
    import bench
    sys.argv = ["bench.py", "--tilesim", os.path.join(here, "interp_as_gpu.sh"), "--out", sys.argv[2], "--cases",
                "vadd_f32_2p28,softmax_f32_32768x4096,layernorm_f16_16384x8192,transpose_f32_8192x8192"]
    bench.main()
    import json
    results = json.load(open(os.path.join(sys.argv[4], "bench.json")))
    bad = [name for name, row in results["cases"].items() if not row["tilesim_verified"] or not row["triton_verified"]]
    print("smoke test:", "FAIL " + ", ".join(bad) if bad else "every output verified")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
