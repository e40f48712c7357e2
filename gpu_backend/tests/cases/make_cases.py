#!/usr/bin/env python3
"""Writes the inputs of the GPU backend's own differential cases (no NumPy needed: .npy written by hand).

Each case directory holds kernel.ttir (hand-written TTIR), case.json and its inputs; `tilesim diff CASE --engine
gpu` runs it on the interpreter and on the GPU and compares every buffer bit for bit. Re-run after editing:
    python3 gpu_backend/tests/cases/make_cases.py
"""
import json
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write_npy(path, descr, shape, values, fmt):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        out.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def f16_bits(value):
    return struct.unpack("<H", struct.pack("<e", value))[0]


def bf16_bits(value):  # round to nearest even from f32
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def case(name, entry, grid, num_warps, args):
    directory = os.path.join(HERE, name)
    os.makedirs(directory, exist_ok=True)
    spec = []
    for arg in args:
        if arg["kind"] == "scalar":
            spec.append({"name": arg["name"], "kind": "scalar", "pytype": "int", "value": arg["value"]})
            continue
        file = arg["name"] + ".npy"
        write_npy(os.path.join(directory, file), arg["descr"], [len(arg["values"])], arg["values"], arg["fmt"])
        spec.append({"name": arg["name"], "kind": "tensor", "dtype": arg["dtype"], "shape": [len(arg["values"])],
                     "input": file})
    with open(os.path.join(directory, "case.json"), "w") as out:
        json.dump({"name": name, "entry": entry, "grid": grid, "num_warps": num_warps, "args": spec,
                   "notes": "GPU backend differential case (no expected outputs: diff compares engines)",
                   "made_by": "gpu_backend/tests/cases/make_cases.py"}, out, indent=1)


def f32(name, values):
    return {"name": name, "kind": "tensor", "dtype": "float32", "descr": "<f4", "fmt": "f", "values": values}


def main():
    rng = random.Random(7)
    rows, cols = 64, 256
    x = [rng.uniform(-100, 100) * (10 ** rng.randint(-6, 6)) for _ in range(2 * rows * cols)]
    x[5] = float("nan")
    x[300] = float("inf")
    case("reduce_rows_cols_f32", "reduce_rows_cols", [2, 1, 1], 8,
         [f32("x_ptr", x), f32("rows_ptr", [0.0] * (2 * rows)), f32("cols_ptr", [0.0] * (2 * cols))])

    n = 4096
    a = [rng.uniform(-300, 300) for _ in range(n)]
    a[0], a[1], a[2] = 0.0, -0.0, 65504.0
    b = [rng.uniform(-2, 2) for _ in range(n)]
    b[3] = 0.0
    case("half_bf16_math", "half_math", [4, 1, 1], 2,
         [{"name": "a_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H",
           "values": [f16_bits(v) for v in a]},
          {"name": "b_ptr", "kind": "tensor", "dtype": "bfloat16", "descr": "<i2", "fmt": "H",
           "values": [bf16_bits(v) for v in b]},
          {"name": "h_ptr", "kind": "tensor", "dtype": "float16", "descr": "<f2", "fmt": "H", "values": [0] * n},
          {"name": "g_ptr", "kind": "tensor", "dtype": "bfloat16", "descr": "<i2", "fmt": "H", "values": [0] * n},
          {"name": "i_ptr", "kind": "tensor", "dtype": "int8", "descr": "|i1", "fmt": "b", "values": [0] * n},
          {"name": "n", "kind": "scalar", "value": n - 5}])


if __name__ == "__main__":
    main()
