#!/usr/bin/env python3
"""Writes the case directories `tilesim bench --autotune` is tested on (tools/cli/tests/run_bench_test.sh): Triton
3.6's TTIR of tutorial 03's matmul for several configurations (bench/gpu/ttir/matrix/, made by
bench/gpu/make_matrix_ttir.py), each launched on two problem sizes. The inputs are multiples of 1/4 in [-1/2, 1/2],
so every product, partial sum and the f16 result are exact and the expected output, computed here in plain
Python, is the one right answer whatever the summation order. No NumPy needed. Re-run after editing:
    python3 tools/cli/tests/make_autotune_cases.py
"""
import json
import os
import random
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "gpu_backend", "tests", "cases"))
from make_cases import f16_bits, write_npy  # noqa: E402

CONFIGS = {  # name in bench/gpu/ttir/matrix: (BLOCK_M, BLOCK_N, num_warps)
    "matmul_64x64x32_w4_s3": (64, 64, 4),
    "matmul_128x32x32_w4_s4": (128, 32, 4),
    "matmul_32x64x32_w2_s5": (32, 64, 2),
}
PROBLEMS = {"m64": (64, 64, 64), "m32": (32, 32, 64)}  # M, N, K


def main():
    out = os.path.join(HERE, "autotune")
    shutil.rmtree(out, ignore_errors=True)
    for problem, (m, n, k) in PROBLEMS.items():
        rng = random.Random(m * 1000 + n)
        a = [rng.randint(-2, 2) / 4 for _ in range(m * k)]
        b = [rng.randint(-2, 2) / 4 for _ in range(k * n)]
        c = [sum(a[i * k + t] * b[t * n + j] for t in range(k)) for i in range(m) for j in range(n)]
        for config, (block_m, block_n, warps) in CONFIGS.items():
            if problem == "m32" and config == "matmul_128x32x32_w4_s4":
                continue
            directory = os.path.join(out, f"{problem}_{config}")
            os.makedirs(directory)
            shutil.copy(os.path.join(ROOT, "bench", "gpu", "ttir", "matrix", config + ".ttir"),
                        os.path.join(directory, "kernel.ttir"))
            for name, values in (("a_ptr", a), ("b_ptr", b), ("c_ptr", [0.0] * (m * n)), ("c_expected", c)):
                write_npy(os.path.join(directory, name + ".npy"), "<f2", [len(values)], [f16_bits(v) for v in values], "H")
            os.replace(os.path.join(directory, "c_expected.npy"), os.path.join(directory, "c_ptr.expected.npy"))
            grid = ((m + block_m - 1) // block_m) * ((n + block_n - 1) // block_n)
            tensors = [{"name": name, "kind": "tensor", "dtype": "float16", "shape": [size], "input": name + ".npy"}
                       for name, size in (("a_ptr", m * k), ("b_ptr", k * n), ("c_ptr", m * n))]
            tensors[-1]["expected"] = "c_ptr.expected.npy"
            scalars = [{"name": name, "kind": "scalar", "pytype": "int", "value": value}
                       for name, value in (("M", m), ("N", n), ("K", k), ("stride_am", k), ("stride_bk", n),
                                           ("stride_cm", n))]
            case = {"name": f"{problem}_{config}", "entry": "matmul", "grid": [grid, 1, 1], "num_warps": warps,
                    "args": tensors + scalars,
                    "notes": "tutorial 03 matmul, Triton 3.6's TTIR for this configuration; expected = exact product",
                    "made_by": "tools/cli/tests/make_autotune_cases.py"}
            with open(os.path.join(directory, "case.json"), "w") as f:
                json.dump(case, f, indent=1)


if __name__ == "__main__":
    main()
