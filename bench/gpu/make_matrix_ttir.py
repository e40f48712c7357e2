"""Writes bench/gpu/ttir/matrix/NAME.ttir: the TTIR Triton 3.6 produces for the matrix benchmark's kernels
(kernels_matrix.py) in every configuration of its lists, compiled on the CPU for sm_90 (no GPU needed), with the
signature bench_matrix.py launches them with (fp16, unit strides specialised, 16-divisible sizes), and the matmul in
tf32, fp8 and int8 with a row-major b at four configurations (matmul_tf32_..., matmul_fp8_..., matmul_i8_...). The spill
check (gpu_backend/tests/spill_check.sh, ctest gpu_spill_check) compiles these with tilesim and reads ptxas -v;
Triton's own numbers, ptxas -v of the PTX Triton made from the same kernel, go to ttir/matrix/triton_ptxas.tsv.
  python3 bench/gpu/make_matrix_ttir.py   (python with triton 3.6)"""
import os
import re
import subprocess
import sys
import tempfile

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import kernels_matrix as km  # noqa: E402

OUT = os.path.join(here, "ttir", "matrix")


def matmul_source(config):
    bm, bn, bk, _, _ = config
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
                 "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                 "BLOCK_K": "constexpr", "GROUP_M": "constexpr"}
    constants = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk,
                 "GROUP_M": 8}
    divisible = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3, 4, 5, 6, 8, 10)}
    return ASTSource(km.matmul, signature, constants, divisible)


# Other operand types of the same matmul (bench_matrix.py's tf32, fp8 and int8 problems, with a row-major b: wgmma
# reads those K-major only, so b is copied or stored transposed), at the configurations Triton's tutorials favour.
TYPED = {"tf32": ("fp32", "fp32", False), "fp8": ("fp8e4nv", "fp16", False), "i8": ("i8", "i32", True)}
TYPED_CONFIGS = [(128, 256, 64, 8, 3), (128, 128, 64, 4, 3), (128, 128, 32, 4, 4), (64, 64, 32, 4, 3)]


def typed_matmul_source(config, kind):
    bm, bn, bk, _, _ = config
    element, out, integer = TYPED[kind]
    signature = {"a_ptr": "*" + element, "b_ptr": "*" + element, "c_ptr": "*" + out, "M": "i32", "N": "i32",
                 "K": "i32", "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
                 "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                 "BLOCK_K": "constexpr", "GROUP_M": "constexpr", "INTEGER": "constexpr"}
    constants = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk,
                 "GROUP_M": 8, "INTEGER": integer}
    divisible = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3, 4, 5, 6, 8, 10)}
    return ASTSource(km.matmul, signature, constants, divisible)


def attention_source(config, head, causal):
    bm, bn, _, _ = config
    signature = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": "fp32", "N_CTX": "i32",
                 "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "CAUSAL": "constexpr"}
    constants = {"HEAD_DIM": head, "BLOCK_M": bm, "BLOCK_N": bn, "CAUSAL": causal}
    return ASTSource(km.attention_fwd, signature, constants, {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3, 5)})


def jobs():
    for c in km.MATMUL_CONFIGS:
        yield matmul_source(c), c[3], c[4], f"matmul_{c[0]}x{c[1]}x{c[2]}_w{c[3]}_s{c[4]}"
    for kind in TYPED:
        for c in TYPED_CONFIGS:
            yield typed_matmul_source(c, kind), c[3], c[4], f"matmul_{kind}_{c[0]}x{c[1]}x{c[2]}_w{c[3]}_s{c[4]}"
    for c in km.ATTENTION_CONFIGS:
        for head in (64, 128):
            yield attention_source(c, head, False), c[2], c[3], f"attention_d{head}_{c[0]}x{c[1]}_w{c[2]}_s{c[3]}"


def ptxas_usage(ptx):
    """(registers, spill store bytes) from `ptxas -v -arch=sm_90a` of the PTX text."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
        f.write(ptx)
        f.flush()
        report = subprocess.run(["ptxas", "-v", "-arch=sm_90a", f.name, "-o", os.devnull], capture_output=True,
                                text=True).stderr
    return int(re.search(r"Used (\d+) registers", report).group(1)), int(re.search(r"(\d+) bytes spill stores", report).group(1))


def main():
    os.makedirs(OUT, exist_ok=True)
    table = ["# name\tnum_warps\ttriton_registers\ttriton_spill_store_bytes (ptxas -v -arch=sm_90a of Triton 3.6's PTX)"]
    for source, warps, stages, name in jobs():
        kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                                options=dict(num_warps=warps, num_stages=stages))
        ttir = re.sub(r'loc\("[^"]*kernels_matrix.py"', 'loc("kernels_matrix.py"', kernel.asm["ttir"])
        with open(os.path.join(OUT, name + ".ttir"), "w") as f:
            f.write(ttir)
        registers, spills = ptxas_usage(kernel.asm["ptx"])
        table.append(f"{name}\t{warps}\t{registers}\t{spills}")
        print(name, "num_warps", warps, "shared", kernel.metadata.shared, "registers", registers, "spills", spills)
    with open(os.path.join(OUT, "triton_ptxas.tsv"), "w") as f:
        f.write("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
