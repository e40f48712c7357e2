#!/usr/bin/env python3
"""Writes the GPU backend's cases for software-pipelined k loops (gpu_backend/lowering/PipelinedLoop.cpp): Triton
3.6's own TTIR of tutorial 03's matmul (bench/gpu/ttir/matrix, the benchmark's kernels) launched on small problems
whose k loops are where a pipeline goes wrong first:
  - pipeline_matmul_k_tail_w4_s4: 64x64 tiles on wgmma (num_warps 4), K 80 = three iterations of 32, the last one
    half masked off, at num_stages 4, so the prologue stages all three and the loop stages none;
  - pipeline_matmul_zero_trip_w4_s3: K 0, no iteration at all (every staged copy masked off; the result is 0);
  - pipeline_matmul_mma_w2_s5: 32x64 tiles on mma.sync (num_warps 2), K 48 = two iterations, the second half
    masked, num_stages 5 (four stages ahead of a two-iteration loop), two programs along M.
Each case records its num_stages. Expected outputs are the interpreter's (triton profile), written with `tilesim run
--out`, as make_dot_cases.py does. No NumPy needed. Re-run after editing:
    python3 gpu_backend/tests/cases/make_pipeline_cases.py build/tools/cli/tilesim
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from make_cases import f16_bits, write_npy

HERE = os.path.dirname(os.path.abspath(__file__))
TTIR = os.path.join(HERE, "..", "..", "..", "bench", "gpu", "ttir", "matrix")


def case(tilesim, name, source, num_warps, num_stages, m, n, k, grid, rng):
    directory = os.path.join(HERE, name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    with open(os.path.join(TTIR, source + ".ttir")) as f:
        text = f.read()
    with open(os.path.join(directory, "kernel.ttir"), "w") as out:
        out.write(text)
    spec = []
    # A K of 0 still gets a buffer of 16 elements: the kernel reads none of it.
    for arg, count in (("a_ptr", max(m * k, 16)), ("b_ptr", max(k * n, 16)), ("c_ptr", m * n)):
        values = [rng.uniform(-1, 1) for _ in range(count)] if arg != "c_ptr" else [0.0] * count
        write_npy(os.path.join(directory, arg + ".npy"), "<f2", [count], [f16_bits(v) for v in values], "H")
        spec.append({"name": arg, "kind": "tensor", "dtype": "float16", "shape": [count], "input": arg + ".npy"})
    # Triton specialises arguments equal to 1 into constants: the strides of the contiguous dimensions are gone.
    for arg, value in (("M", m), ("N", n), ("K", k), ("stride_am", k), ("stride_bk", n), ("stride_cm", n)):
        if f"%{arg}:" in text:
            spec.append({"name": arg, "kind": "scalar", "pytype": "int", "value": value})
    description = {"name": name, "entry": "matmul", "grid": grid, "num_warps": num_warps, "num_stages": num_stages,
                   "args": spec,
                   "notes": f"tutorial 03's matmul ({source}) with M {m}, N {n}, K {k}: a pipelined k loop's edge; "
                            "expected = the interpreter's triton-profile output",
                   "made_by": "gpu_backend/tests/cases/make_pipeline_cases.py"}
    with open(os.path.join(directory, "case.json"), "w") as out:
        json.dump(description, out, indent=1)
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([tilesim, "run", directory, "--profile", "triton", "--quiet", "--out", work], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(work, "c_ptr.npy"), os.path.join(directory, "c_ptr.expected.npy"))
    spec[2]["expected"] = "c_ptr.expected.npy"
    with open(os.path.join(directory, "case.json"), "w") as out:
        json.dump(description, out, indent=1)


def main():
    tilesim = sys.argv[1] if len(sys.argv) > 1 else "build/tools/cli/tilesim"
    rng = random.Random(32)
    case(tilesim, "pipeline_matmul_k_tail_w4_s4", "matmul_64x64x32_w4_s3", 4, 4, 64, 64, 80, [1, 1, 1], rng)
    case(tilesim, "pipeline_matmul_zero_trip_w4_s3", "matmul_64x64x32_w4_s3", 4, 3, 64, 64, 0, [1, 1, 1], rng)
    case(tilesim, "pipeline_matmul_mma_w2_s5", "matmul_32x64x32_w2_s5", 2, 5, 64, 64, 48, [2, 1, 1], rng)


if __name__ == "__main__":
    main()
