#!/usr/bin/env python3
"""Writes the inputs of reduce_order_f32 (make_cases.py's helpers, no NumPy): x spread over 2^-20..2^20 and y in
[0.5, 2] (so x*y is as spread), so every combine order rounds differently. `tilesim diff CASE --engine gpu
[--profile triton]` compares the GPU engine with the interpreter bit for bit (device_check.sh, ctest
gpu_diff_reduce_order_triton).
    python3 gpu_backend/tests/cases/make_reduce_cases.py
"""
import random

from make_cases import case, f32


def main():
    rng = random.Random(23)
    spread = lambda: rng.uniform(-1, 1) * 2.0 ** rng.randint(-20, 20)
    case("reduce_order_f32", "reduce_order", [1, 1, 1], 4,
         [f32("x_ptr", [spread() for _ in range(4096)]), f32("y_ptr", [rng.uniform(0.5, 2) for _ in range(4096)]),
          f32("out_ptr", [0.0] * 192),
          {"name": "iout_ptr", "kind": "tensor", "dtype": "int32", "descr": "<i4", "fmt": "i", "values": [0]}])


if __name__ == "__main__":
    main()
