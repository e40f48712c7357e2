#!/usr/bin/env python3
"""Writes the GPU backend's own tt.dot cases: shapes and dtypes the conformance dots do not cover for the
triton profile's tensor-core path (a batched 3-D dot, an f16 result, a long tf32 K with values whose low mantissa
bits matter, a batched i8 dot whose i32 sums wrap, and the shared-memory tiles of wgmma), each with one dot on tensors loaded flat and reshaped.

Expected outputs are the interpreter's (triton profile), written with `tilesim run --out`: the recorded values
the GPU's are compared with, and the slot gpu_backend/tests/device_dots.sh replaces with the GPU's outputs to have
the interpreter judge them by its bounds. No NumPy needed. Re-run after editing:
    python3 gpu_backend/tests/cases/make_dot_cases.py build/tools/cli/tilesim
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

from make_cases import bf16_bits, f16_bits, write_npy

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = {  # TTIR type: (case.json dtype, .npy descr, struct format)
    "f16": ("float16", "<f2", "H"), "bf16": ("bfloat16", "<i2", "H"), "f32": ("float32", "<f4", "f"),
    "i8": ("int8", "|i1", "b"), "i32": ("int32", "<i4", "i"),
}


def shape_text(shape, element):
    return "x".join(str(s) for s in shape) + "x" + element


def numel(shape):
    count = 1
    for extent in shape:
        count *= extent
    return count


def kernel(name, a_type, c_type, a_shape, b_shape, c_shape, precision):
    params, body = [], []
    for arg, element, shape in (("a", a_type, a_shape), ("b", a_type, b_shape), ("c", c_type, c_shape)):
        n = numel(shape)
        params.append("%%%s_ptr: !tt.ptr<%s> {tt.divisibility = 16 : i32}" % (arg, element))
        body += [
            "    %%r%s = tt.make_range {end = %d : i32, start = 0 : i32} : tensor<%dxi32>" % (arg, n, n),
            "    %%p%s = tt.splat %%%s_ptr : !tt.ptr<%s> -> tensor<%dx!tt.ptr<%s>>" % (arg, arg, element, n, element),
            "    %%q%s = tt.addptr %%p%s, %%r%s : tensor<%dx!tt.ptr<%s>>, tensor<%dxi32>" % (arg, arg, arg, n, element, n),
            "    %%l%s = tt.load %%q%s : tensor<%dx!tt.ptr<%s>>" % (arg, arg, n, element),
            "    %%%s = tt.reshape %%l%s : tensor<%dx%s> -> tensor<%s>" % (arg, arg, n, element, shape_text(shape, element)),
        ]
    params.append("%%o_ptr: !tt.ptr<%s> {tt.divisibility = 16 : i32}" % c_type)
    n = numel(c_shape)
    attr = ", inputPrecision = %s" % precision if precision else ""
    body += [
        "    %%d = tt.dot %%a, %%b, %%c%s : tensor<%s> * tensor<%s> -> tensor<%s>" % (
            attr, shape_text(a_shape, a_type), shape_text(b_shape, a_type), shape_text(c_shape, c_type)),
        "    %%fd = tt.reshape %%d : tensor<%s> -> tensor<%dx%s>" % (shape_text(c_shape, c_type), n, c_type),
        "    %%po = tt.splat %%o_ptr : !tt.ptr<%s> -> tensor<%dx!tt.ptr<%s>>" % (c_type, n, c_type),
        "    %%qo = tt.addptr %%po, %%rc : tensor<%dx!tt.ptr<%s>>, tensor<%dxi32>" % (n, c_type, n),
        "    tt.store %%qo, %%fd : tensor<%dx!tt.ptr<%s>>" % (n, c_type),
        "    tt.return",
    ]
    return ("module {\n  tt.func public @%s(%s) attributes {noinline = false} {\n%s\n  }\n}\n"
            % (name, ", ".join(params), "\n".join(body)))


def encode(element, values):
    if element == "f16":
        return [f16_bits(v) for v in values]
    if element == "bf16":
        return [bf16_bits(v) for v in values]
    return values


def case(tilesim, name, num_warps, a_type, c_type, a_shape, b_shape, c_shape, a, b, c, precision=None):
    directory = os.path.join(HERE, name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    with open(os.path.join(directory, "kernel.ttir"), "w") as out:
        out.write(kernel(name, a_type, c_type, a_shape, b_shape, c_shape, precision))
    spec = []
    for arg, element, values in (("a_ptr", a_type, a), ("b_ptr", a_type, b), ("c_ptr", c_type, c),
                                 ("o_ptr", c_type, [0] * len(c))):
        dtype, descr, fmt = TYPES[element]
        write_npy(os.path.join(directory, arg + ".npy"), descr, [len(values)], encode(element, values), fmt)
        spec.append({"name": arg, "kind": "tensor", "dtype": dtype, "shape": [len(values)], "input": arg + ".npy"})
    spec[-1]["expected"] = "o_ptr.expected.npy"
    description = {"name": name, "entry": name, "grid": [1, 1, 1], "num_warps": num_warps, "args": spec,
                   "notes": "GPU backend tt.dot case; expected = the interpreter's triton-profile output",
                   "made_by": "gpu_backend/tests/cases/make_dot_cases.py"}
    with open(os.path.join(directory, "case.json"), "w") as out:
        json.dump({**description, "args": spec[:-1] + [{k: v for k, v in spec[-1].items() if k != "expected"}]}, out,
                  indent=1)
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([tilesim, "run", directory, "--profile", "triton", "--quiet", "--out", work], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(work, "o_ptr.npy"), os.path.join(directory, "o_ptr.expected.npy"))
    with open(os.path.join(directory, "case.json"), "w") as out:
        json.dump(description, out, indent=1)


def main():
    tilesim = sys.argv[1] if len(sys.argv) > 1 else "build/tools/cli/tilesim"
    rng = random.Random(11)

    def floats(n, scale=1.0):
        return [rng.uniform(-scale, scale) for _ in range(n)]

    case(tilesim, "dot_mma_batched_bf16", 4, "bf16", "f32", [2, 32, 16], [2, 16, 16], [2, 32, 16],
         floats(1024, 4), floats(512, 4), floats(1024, 10))
    case(tilesim, "dot_mma_f16_result", 8, "f16", "f16", [64, 64], [64, 32], [64, 32],
         floats(4096), floats(2048), floats(2048, 2))
    a = floats(16 * 128)
    a[1] = 1.0 + 2 ** -12  # bits below tf32's mantissa: truncated away by the tf32 operand
    a[2] = -0.0
    case(tilesim, "dot_mma_tf32_long_k", 2, "f32", "f32", [16, 128], [128, 16], [16, 16],
         a, floats(128 * 16, 3), floats(256), precision="tf32")
    case(tilesim, "dot_mma_batched_i8_wrapping", 4, "i8", "i32", [2, 16, 32], [2, 32, 8], [2, 16, 8],
         [rng.randint(-128, 127) for _ in range(1024)], [rng.randint(-128, 127) for _ in range(512)],
         [2 ** 31 - 1 - rng.randint(0, 1000) if i % 2 else rng.randint(-1000, 1000) for i in range(256)])
    # wgmma's shared-memory tiles (gpu_backend/layout/WgmmaLayouts.h), for TILESIM_TENSOR_CORES=wgmma: b of 256
    # columns in four 128-byte swizzle blocks and a of K 128 in two, over two warpgroups; four row blocks per
    # warpgroup with 64-byte swizzled rows of a, in bf16; 32-byte swizzles with an f16 result.
    case(tilesim, "dot_wgmma_f16_128x256x128_w8", 8, "f16", "f32", [128, 128], [128, 256], [128, 256],
         floats(128 * 128), floats(128 * 256), floats(128 * 256, 4))
    case(tilesim, "dot_wgmma_bf16_256x64x32_w4", 4, "bf16", "f32", [256, 32], [32, 64], [256, 64],
         floats(256 * 32, 2), floats(32 * 64, 2), floats(256 * 64, 4))
    case(tilesim, "dot_wgmma_f16_result_64x32x16_w4", 4, "f16", "f16", [64, 16], [16, 32], [64, 32],
         floats(64 * 16), floats(16 * 32), floats(64 * 32, 2))


if __name__ == "__main__":
    main()
