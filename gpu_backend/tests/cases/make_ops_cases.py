#!/usr/bin/env python3
"""Writes the inputs of the differential cases of the ops lowered for issue 7's last slice (make_cases.py's
helpers, no NumPy): inline asm with packing, and the exact profile's erf, sin, cos and double-evaluated libdevice
functions.
`tilesim diff CASE --engine gpu` compares the GPU engine with the interpreter bit for bit (device_check.sh).
    python3 gpu_backend/tests/cases/make_ops_cases.py
"""
import math
import random
import struct

from make_cases import bf16_bits, case, f16_bits, f32


def i32(name, values):
    return {"name": name, "kind": "tensor", "dtype": "int32", "descr": "<i4", "fmt": "i", "values": values}


def f64(name, values):
    return {"name": name, "kind": "tensor", "dtype": "float64", "descr": "<f8", "fmt": "d", "values": values}


def main():
    rng = random.Random(23)
    case("inline_asm_packed", "asm_packed", [1, 1, 1], 4,
         [i32("a_ptr", [rng.randint(-2**31, 2**31 - 1) for _ in range(256)]),
          i32("b_ptr", [rng.randint(-2**31, 2**31 - 1) for _ in range(256)]),
          {"name": "q_ptr", "kind": "tensor", "dtype": "int8", "descr": "|i1", "fmt": "b",
           "values": [rng.randint(-128, 127) for _ in range(1024)]},
          {"name": "h_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H",
           "values": [f16_bits(rng.uniform(-40000, 40000)) for _ in range(512)]},
          i32("o_ptr", [0] * 256),
          {"name": "qo_ptr", "kind": "tensor", "dtype": "int8", "descr": "|i1", "fmt": "b", "values": [0] * 1024},
          {"name": "ho_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H", "values": [0] * 512}])

    grid, n = 4, 4096
    size = grid * n
    specials = [0.0, -0.0, 1.0, -1.0, 0.84375, 1.25, 4.0, 6.0, -6.0, 1e-40, -1e-40, float("inf"), float("-inf"),
                float("nan"), 2.5, 3.5, 5.999, 0.5, 88.0, -100.0,
                1e30, -3e38, 1e20, 0.7853981, 0.7853982, 1e22, 355.0, 103993.0]
    x = specials + [rng.uniform(-7, 7) for _ in range(size // 2 - len(specials))] + \
        [rng.choice([-1, 1]) * 10 ** rng.uniform(-30, 3) for _ in range(size // 2)]
    y = [rng.uniform(0, 20) if i % 3 else rng.uniform(-3, 3) for i in range(size)]
    y[:4] = [0.0, -0.0, float("inf"), 1.0]
    x32 = [struct.unpack("<f", struct.pack("<f", v))[0] for v in x]
    case("erf_libdevice_exact", "erf_lib", [grid, 1, 1], 4,
         [f32("x_ptr", x32), f32("y_ptr", y), f64("d_ptr", [v if i % 2 else v * (1 + 2**-40) for i, v in enumerate(x)]),
          {"name": "h_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H",
           "values": [f16_bits(max(-65504.0, min(65504.0, v))) if not math.isnan(v) else 0x7E00 for v in x]},
          {"name": "g_ptr", "kind": "tensor", "dtype": "bfloat16", "descr": "<i2", "fmt": "H",
           "values": [bf16_bits(v) if math.isfinite(v) else (0x7F80 if v > 0 else 0xFF80) for v in x]},
          f32("o_ptr", [0.0] * (9 * size)), f64("do_ptr", [0.0] * size),
          {"name": "ho_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H", "values": [0] * size},
          {"name": "go_ptr", "kind": "tensor", "dtype": "bfloat16", "descr": "<i2", "fmt": "H", "values": [0] * size}])


if __name__ == "__main__":
    main()
