#!/usr/bin/env python3
"""Writes the inputs of the vector-access differential cases (vector_*; make_cases.py's helpers, no NumPy).
`tilesim diff CASE --engine gpu` compares the GPU engine with the interpreter bit for bit (device_check.sh).
    python3 gpu_backend/tests/cases/make_vector_cases.py
"""
import random

from make_cases import case, f16_bits, f32


def main():
    rng = random.Random(11)
    block, grid, n = 1024, 4, 4000  # n % 16 == 0, so the mask is constant over every vector; the tail is 96
    size = block * grid
    case("vector_tail_dtypes", "vector_tail", [grid, 1, 1], 4,
         [f32("x_ptr", [rng.uniform(-1e3, 1e3) for _ in range(size)]),
          {"name": "h_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H",
           "values": [f16_bits(rng.uniform(-60000, 60000)) for _ in range(size)]},
          {"name": "b_ptr", "kind": "tensor", "dtype": "int8", "descr": "|i1", "fmt": "b",
           "values": [rng.randint(-128, 127) for _ in range(size)]},
          {"name": "q_ptr", "kind": "tensor", "dtype": "int64", "descr": "<i8", "fmt": "q",
           "values": [rng.randint(-2**63, 2**63 - 1) for _ in range(size)]},
          f32("xo_ptr", [0.0] * size),
          {"name": "ho_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H", "values": [0] * size},
          {"name": "bo_ptr", "kind": "tensor", "dtype": "int8", "descr": "|i1", "fmt": "b", "values": [0] * size},
          {"name": "qo_ptr", "kind": "tensor", "dtype": "int64", "descr": "<i8", "fmt": "q", "values": [0] * size},
          {"name": "n", "kind": "scalar", "value": n}])

    rows, cols, stride = 100, 48, 64  # 4 programs of 32 rows: the last has 28 masked-off rows; 16 masked-off columns
    case("vector_tile_2d", "tile_2d", [4, 1, 1], 4,
         [f32("x_ptr", [rng.uniform(-10, 10) for _ in range(128 * stride)]), f32("out_ptr", [0.0] * (128 * stride)),
          {"name": "stride", "kind": "scalar", "value": stride}, {"name": "nrows", "kind": "scalar", "value": rows},
          {"name": "ncols", "kind": "scalar", "value": cols}])

    # (pid * 512 + shift + i) % 1280 over 4 programs: shift 0 keeps every dividend non-negative (the specialised
    # kernel), shift -48 makes program 0's negative (the unspecialised one); both kernel.ttir are the same file.
    x = [rng.uniform(-10, 10) for _ in range(1280)]
    for name, shift in (("remainder_wrap_specialised", 0), ("remainder_wrap_unspecialised", -48)):
        case(name, "wrap_gather", [4, 1, 1], 4,
             [f32("x_ptr", x), f32("out_ptr", [0.0] * 2048), {"name": "shift", "kind": "scalar", "value": shift},
              {"name": "n", "kind": "scalar", "value": 1280}])


if __name__ == "__main__":
    main()
