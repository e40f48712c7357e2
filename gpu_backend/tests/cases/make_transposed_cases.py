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
    step into fresh registers, added to the accumulator with f32 adds (Triton's partial accumulator).
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


def fp8_column_major(text, bm, bn, bk, imprecise):
    """Triton's f16 matmul TTIR with a and b in fp8 e4m3, b column-major (b + k + n * stride_bk) and the dot's
    maxNumImpreciseAcc `imprecise` (Triton 3.6 prints 2^30 for fp8 on Hopper)."""
    lines = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not (stripped.startswith("%c_ptrs") or stripped.startswith("%c =") or "tt.store" in stripped):
            line = line.replace("%a_ptr: !tt.ptr<f16>", "%a_ptr: !tt.ptr<f8E4M3FN>")
            line = line.replace("%b_ptr: !tt.ptr<f16>", "%b_ptr: !tt.ptr<f8E4M3FN>")
            for shape in (f"{bm}x{bk}", f"{bk}x{bn}"):
                line = line.replace(f"!tt.ptr<f16> -> tensor<{shape}x!tt.ptr<f16>>",
                                    f"!tt.ptr<f8E4M3FN> -> tensor<{shape}x!tt.ptr<f8E4M3FN>>")
                line = line.replace(f"{shape}x!tt.ptr<f16>", f"{shape}x!tt.ptr<f8E4M3FN>")
                line = line.replace(f"tensor<{shape}xf16>", f"tensor<{shape}xf8E4M3FN>")
        lines.append(line)
    text = "\n".join(lines)
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
    dot = re.search(r"tt.dot [^:]*inputPrecision = tf32 :", text).group(0)
    return text.replace(dot, dot[:-1] + f"{{maxNumImpreciseAcc = {imprecise} : i32}} :")


def fp8_case(tilesim, rng, name="pipeline_matmul_fp8_colmajor_w4_s3", k=80, imprecise=2 ** 30):
    source, m, n = "matmul_64x64x32_w4_s3", 64, 64
    with open(os.path.join(TTIR, source + ".ttir")) as f:
        text = fp8_column_major(f.read(), 64, 64, 32, imprecise)
    a = [e4m3_bits(rng.uniform(-2, 2)) for _ in range(m * k)]
    b = [e4m3_bits(rng.uniform(-2, 2)) for _ in range(k * n)]  # b[kk][nn] at kk + nn * K
    buffers = [("a_ptr", "float8_e4m3fn", "|u1", "B", a), ("b_ptr", "float8_e4m3fn", "|u1", "B", b),
               ("c_ptr", "float16", "<f2", "H", [0] * (m * n))]
    args = [{"name": name, "kind": "scalar", "pytype": "int", "value": value}
            for name, value in (("M", m), ("N", n), ("K", k), ("stride_am", k), ("stride_bk", k), ("stride_cm", n))
            if f"%{name}:" in text]
    description = {
        "name": name, "entry": "matmul", "grid": [1, 1, 1], "num_warps": 4,
        "num_stages": 3, "args": args,
        "notes": f"the benchmark's matmul ({source}, Triton 3.6's f16 TTIR) edited by make_transposed_cases.py into "
                 f"fp8 e4m3 a and a column-major fp8 b, M {m}, N {n}, K {k} (the last iteration half masked), "
                 f"maxNumImpreciseAcc {imprecise}: wgmma e4m3 with both operands K-major"
                 f"{', each k32 step summed in fresh registers and added in f32' if imprecise <= 32 else ''}; "
                 "expected = the interpreter's triton-profile output",
        "made_by": "gpu_backend/tests/cases/make_transposed_cases.py"}
    write_case(tilesim, os.path.join(HERE, description["name"]), text, description, buffers, "c_ptr")


def main():
    tilesim = sys.argv[1] if len(sys.argv) > 1 else "build/tools/cli/tilesim"
    rng = random.Random(33)
    attention_case(tilesim, rng)
    fp8_case(tilesim, rng)
    attention_case(tilesim, rng, causal=True)
    fp8_case(tilesim, random.Random(34), "pipeline_matmul_fp8_partial_w4_s3", k=336, imprecise=32)


if __name__ == "__main__":
    main()
