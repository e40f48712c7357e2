#!/usr/bin/env python3
"""Writes the GPU backend's cases for operands whose contiguous dimension is not the last one (the coalesced
loads of gpu_backend/layout/LayoutAssignment.h, wgmma's K-major b, its a from registers, fp8 wgmma):
  - pipeline_attention_d64_w4_s3: Triton 3.6's own TTIR of the benchmark's attention forward (bench/gpu/ttir/matrix,
    attention_d64_64x64_w4_s3) on two heads of 192 positions: k is read as [d][n] with d contiguous (a coalesced
    load, a K-major b), k and v are staged with cp.async three iterations deep, P is wgmma's a from registers and
    q k^T starts from a zero accumulator that is never materialised;
  - pipeline_attention_causal_d64_w4_s3: the same TTIR with the benchmark kernel's causal mask added here
    (`where(offs_m[:, None] >= (start_n + offs_n)[None, :], qk * scale, -1e6)`, as Triton prints it for CAUSAL,
    the edit this script's): `start_n + offs_n` is both k's and v's address and the mask's, so the pipelined
    consumer computes it again at its own iteration;
  - pipeline_matmul_fp8_colmajor_w4_s3: the benchmark's matmul TTIR (matmul_64x64x32_w4_s3, Triton's, for f16)
    edited here into fp8 e4m3 a and b with a column-major b (b + k + n * stride_bk, the layout the benchmark's fp8
    problem and cuBLAS use; the edit is this script's, Triton did not print it), K 80: three iterations, the last
    half masked. b's pointers are carried in the coalesced layout and it runs as wgmma e4m3 with k32 steps. The
    dot's maxNumImpreciseAcc is Triton's Hopper default for fp8, 2^30 (accumulation in wgmma's own registers);
  - pipeline_matmul_fp8_partial_w4_s3: the same with maxNumImpreciseAcc 32 and K 336 (11 iterations): each k32
    step into fresh registers, added to the accumulator with f32 adds (Triton's partial accumulator);
  - pipeline_matmul_{tf32,i8}_colmajor_w4_s3, pipeline_matmul_{tf32,fp8,i8}_rowmajor_w4_s3: the same matmul in f32
    (tl.dot's tf32: wgmma k8) and i8 (an i32 accumulator: wgmma s8 k32, the result converted to f16 with sitofp),
    b column-major or row-major: wgmma reads every type but f16/bf16 K-major, so a row-major b is copied
    transposed 4 bytes at a time (tf32) or stored transposed from registers (8-bit).
Expected outputs are the interpreter's (triton profile), written with `tilesim run --out`, as make_dot_cases.py does.
No NumPy needed. Re-run after editing:
    python3 gpu_backend/tests/cases/make_transposed_cases.py build/tools/cli/tilesim
"""
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from make_cases import f16_bits, write_npy

HERE = os.path.dirname(os.path.abspath(__file__))
TTIR = os.path.join(HERE, "..", "..", "..", "bench", "gpu", "ttir", "matrix")


def e4m3_bits(value):
    """The float8 e4m3fn nearest to `value` (round to nearest even over the finite values; |value| < 448)."""
    best = None
    for bits in range(256):
        exponent, mantissa = (bits >> 3) & 0xF, bits & 7
        if exponent == 15 and mantissa == 7:
            continue  # NaN
        magnitude = (mantissa / 8) * 2.0 ** -6 if exponent == 0 else (1 + mantissa / 8) * 2.0 ** (exponent - 7)
        candidate = -magnitude if bits & 0x80 else magnitude
        key = (abs(candidate - value), bits & 1)
        if best is None or key < best[0]:
            best = (key, bits)
    return best[1]


def write_case(tilesim, directory, text, description, buffers, output):
    """buffers: (name, dtype, descr, fmt, bits) for each tensor argument."""
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    with open(os.path.join(directory, "kernel.ttir"), "w") as out:
        out.write(text)
    spec = []
    for name, dtype, descr, fmt, bits in buffers:
        write_npy(os.path.join(directory, name + ".npy"), descr, [len(bits)], bits, fmt)
        spec.append({"name": name, "kind": "tensor", "dtype": dtype, "shape": [len(bits)], "input": name + ".npy"})
    description["args"] = spec + description["args"]
    with open(os.path.join(directory, "case.json"), "w") as out:
        json.dump(description, out, indent=1)
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([tilesim, "run", directory, "--profile", "triton", "--quiet", "--out", work], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(work, output + ".npy"), os.path.join(directory, output + ".expected.npy"))
    for arg in spec:
        if arg["name"] == output:
            arg["expected"] = output + ".expected.npy"
    with open(os.path.join(directory, "case.json"), "w") as out:
        json.dump(description, out, indent=1)


CAUSAL_MASK = """%qk_scaled = arith.mulf %qk, %qk_37 : tensor<64x64xf32>
      %causal_rows = tt.expand_dims %offs_m_10 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %causal_rows_b = tt.broadcast %causal_rows : tensor<64x1xi32> -> tensor<64x64xi32>
      %causal_cols_b = tt.broadcast %k_28 : tensor<1x64xi32> -> tensor<64x64xi32>
      %causal = arith.cmpi sge, %causal_rows_b, %causal_cols_b : tensor<64x64xi32>
      %masked = arith.constant dense<-1.000000e+06> : tensor<64x64xf32>
      %qk_38 = arith.select %causal, %qk_scaled, %masked : tensor<64x64xi1>, tensor<64x64xf32>"""


def attention_case(tilesim, rng, causal=False):
    source, heads, seq, head_dim, block_m = "attention_d64_64x64_w4_s3", 2, 192, 64, 64
    with open(os.path.join(TTIR, source + ".ttir")) as f:
        text = f.read()
    if causal:
        line = re.search(r"%qk_38 = arith.mulf %qk, %qk_37 : tensor<64x64xf32>", text).group(0)
        text = text.replace(line, CAUSAL_MASK)
    count = heads * seq * head_dim
    buffers = [(name, "float16", "<f2", "H", [f16_bits(rng.uniform(-1, 1)) for _ in range(count)])
               for name in ("Q", "K", "V")]
    buffers.append(("Out", "float16", "<f2", "H", [0] * count))
    description = {
        "name": "pipeline_attention_causal_d64_w4_s3" if causal else "pipeline_attention_d64_w4_s3",
        "entry": "attention_fwd", "grid": [seq // block_m, heads, 1],
        "num_warps": 4, "num_stages": 3,
        "args": [{"name": "sm_scale", "kind": "scalar", "pytype": "float", "value": 0.125},
                 {"name": "N_CTX", "kind": "scalar", "pytype": "int", "value": seq}],
        "notes": f"the benchmark's attention forward ({source}, Triton 3.6's TTIR{', a causal mask added by make_transposed_cases.py' if causal else ''}) on {heads} heads of {seq} "
                 "positions: k coalesced along d into a K-major wgmma b, k and v staged with cp.async, P as wgmma's "
                 "a from registers; expected = the interpreter's triton-profile output",
        "made_by": "gpu_backend/tests/cases/make_transposed_cases.py"}
    write_case(tilesim, os.path.join(HERE, description["name"]), text, description, buffers, "Out")


def retyped_matmul(text, bm, bn, bk, element, column_major=True, imprecise=None):
    """Triton's f16 matmul TTIR with a and b of `element` (f8E4M3FN, f32 or i8), b column-major (b + k + n *
    stride_bk) if `column_major`, and the dot's maxNumImpreciseAcc `imprecise` if given (Triton 3.6 prints 2^30
    for fp8 on Hopper). An i8 dot accumulates in i32 (zeros `dense<0>`); its result becomes f16 with sitofp."""
    lines = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not (stripped.startswith("%c_ptrs") or stripped.startswith("%c =") or "tt.store" in stripped):
            line = line.replace("%a_ptr: !tt.ptr<f16>", f"%a_ptr: !tt.ptr<{element}>")
            line = line.replace("%b_ptr: !tt.ptr<f16>", f"%b_ptr: !tt.ptr<{element}>")
            for shape in (f"{bm}x{bk}", f"{bk}x{bn}"):
                line = line.replace(f"!tt.ptr<f16> -> tensor<{shape}x!tt.ptr<f16>>",
                                    f"!tt.ptr<{element}> -> tensor<{shape}x!tt.ptr<{element}>>")
                line = line.replace(f"{shape}x!tt.ptr<f16>", f"{shape}x!tt.ptr<{element}>")
                line = line.replace(f"tensor<{shape}xf16>", f"tensor<{shape}x{element}>")
                if element == "i8":
                    line = line.replace(f"dense<0.000000e+00> : tensor<{shape}xi8>", f"dense<0> : tensor<{shape}xi8>")
        if element == "i8":
            line = line.replace(f"dense<0.000000e+00> : tensor<{bm}x{bn}xf32>", f"dense<0> : tensor<{bm}x{bn}xi32>")
            line = line.replace(f"arith.truncf %acc_32#2 : tensor<{bm}x{bn}xf32>", f"arith.sitofp %acc_32#2 : tensor<{bm}x{bn}xf32>")
            line = line.replace(f"tensor<{bm}x{bn}xf32>", f"tensor<{bm}x{bn}xi32>")
        lines.append(line)
    text = "\n".join(lines)
    if column_major:
        # k's stride 1 (a constant, as Triton specialises it), n's stride the former stride_bk, the loop's step BLOCK_K.
        splat = re.search(r"(%b_ptrs_\d+) = tt.splat %stride_bk : i32 -> tensor<(\d+)x1xi32>", text)
        text = text.replace(splat.group(0), f"{splat.group(1)} = arith.constant dense<1> : tensor<{splat.group(2)}x1xi32>")
        columns = re.search(r"(%b_ptrs_\d+) = tt.expand_dims %offs_bn\S* \{axis = 0 : i32\} : tensor<\d+xi32> -> "
                            r"tensor<1x\d+xi32>", text).group(1)
        broadcast = re.search(rf"(%b_ptrs_\d+) = tt.broadcast {columns} :", text)
        text = text.replace(broadcast.group(0),
                            f"{columns}_stride = tt.splat %stride_bk : i32 -> tensor<1x{bn}xi32>\n"
                            f"    {columns}_scaled = arith.muli {columns}, {columns}_stride : tensor<1x{bn}xi32>\n"
                            f"    {broadcast.group(1)} = tt.broadcast {columns}_scaled :")
        step = re.search(r"(%b_ptrs_\d+) = arith.muli %stride_bk, (%c\d+_i32) : i32", text)
        text = text.replace(step.group(0), f"{step.group(1)} = arith.addi {step.group(2)}, %c0_i32 : i32")
    if imprecise is not None:
        dot = re.search(r"tt.dot [^:]*inputPrecision = tf32 :", text).group(0)
        text = text.replace(dot, dot[:-1] + f"{{maxNumImpreciseAcc = {imprecise} : i32}} :")
    return text


def f32_bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


# element: (TTIR type, case.json dtype, npy descr, struct format, a random element's bits, what the dot runs as)
ELEMENTS = {
    "fp8": ("f8E4M3FN", "float8_e4m3fn", "|u1", "B", lambda rng: e4m3_bits(rng.uniform(-2, 2)), "wgmma e4m3 with k32 steps"),
    "tf32": ("f32", "float32", "<f4", "I", lambda rng: f32_bits(rng.uniform(-1, 1)), "wgmma tf32 with k8 steps"),
    "i8": ("i8", "int8", "|i1", "b", lambda rng: rng.randint(-3, 3), "wgmma s8 with k32 steps into i32"),
}


def matmul_case(tilesim, rng, name, kind, k=80, imprecise=None, column_major=True):
    source, m, n = "matmul_64x64x32_w4_s3", 64, 64
    element, dtype, descr, fmt, draw, runs_as = ELEMENTS[kind]
    with open(os.path.join(TTIR, source + ".ttir")) as f:
        text = retyped_matmul(f.read(), 64, 64, 32, element, column_major, imprecise)
    a = [draw(rng) for _ in range(m * k)]
    b = [draw(rng) for _ in range(k * n)]  # b[kk][nn] at kk + nn * K (column-major) or kk * N + nn
    buffers = [("a_ptr", dtype, descr, fmt, a), ("b_ptr", dtype, descr, fmt, b),
               ("c_ptr", "float16", "<f2", "H", [0] * (m * n))]
    args = [{"name": name, "kind": "scalar", "pytype": "int", "value": value}
            for name, value in (("M", m), ("N", n), ("K", k), ("stride_am", k),
                                ("stride_bk", k if column_major else n), ("stride_cm", n))
            if f"%{name}:" in text]
    layout = "a column-major" if column_major else "a row-major"
    description = {
        "name": name, "entry": "matmul", "grid": [1, 1, 1], "num_warps": 4,
        "num_stages": 3, "args": args,
        "notes": f"the benchmark's matmul ({source}, Triton 3.6's f16 TTIR) edited by make_transposed_cases.py into "
                 f"{element} a and {layout} {element} b, M {m}, N {n}, K {k} (the last iteration half masked)"
                 f"{f', maxNumImpreciseAcc {imprecise}' if imprecise is not None else ''}: {runs_as}, both operands "
                 f"K-major{'' if column_major else ' (b copied transposed, 4 bytes at a time)' if kind == 'tf32' else ' (b stored transposed from registers)'}"
                 f"{', each k32 step summed in fresh registers and added in f32' if imprecise is not None and imprecise <= 32 else ''}; "
                 "expected = the interpreter's triton-profile output",
        "made_by": "gpu_backend/tests/cases/make_transposed_cases.py"}
    write_case(tilesim, os.path.join(HERE, description["name"]), text, description, buffers, "c_ptr")


def main():
    tilesim = sys.argv[1] if len(sys.argv) > 1 else "build/tools/cli/tilesim"
    rng = random.Random(33)
    attention_case(tilesim, rng)
    matmul_case(tilesim, rng, "pipeline_matmul_fp8_colmajor_w4_s3", "fp8", imprecise=2 ** 30)
    attention_case(tilesim, rng, causal=True)
    matmul_case(tilesim, random.Random(34), "pipeline_matmul_fp8_partial_w4_s3", "fp8", k=336, imprecise=32)
    matmul_case(tilesim, random.Random(36), "pipeline_matmul_tf32_colmajor_w4_s3", "tf32")
    matmul_case(tilesim, random.Random(37), "pipeline_matmul_tf32_rowmajor_w4_s3", "tf32", column_major=False)
    matmul_case(tilesim, random.Random(38), "pipeline_matmul_i8_colmajor_w4_s3", "i8")
    matmul_case(tilesim, random.Random(39), "pipeline_matmul_fp8_rowmajor_w4_s3", "fp8", imprecise=2 ** 30, column_major=False)
    matmul_case(tilesim, random.Random(40), "pipeline_matmul_i8_rowmajor_w4_s3", "i8", column_major=False)


if __name__ == "__main__":
    main()
