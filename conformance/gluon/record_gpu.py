"""Records the project's Gluon kernels (gluon_kernels.py, without planted bugs) as conformance cases that the CPU
replays from their TTGIR: `tilesim conformance conformance/gluon/cases` (docs/ttgir.md, "Gluon on the CPU").

  python3 conformance/gluon/record_gpu.py --reference gpu   --out DIR   # on a GPU machine (torch + triton 3.6)
  python3 conformance/gluon/record_gpu.py --reference numpy --out DIR   # anywhere: expected = the NumPy reference

Each case directory holds case.json, the inputs (.npy), the expected output (.expected.npy) and kernel.ttgir.
With --reference gpu every kernel runs on the GPU on CUDA tensors and the outputs, and `asm["ttgir"]` (the TTGIR
Triton compiled and ran), are what is written; the NumPy reference is also checked (the script fails if the GPU
disagrees with it beyond the tolerance). With --reference numpy the kernel is compiled on the CPU by Triton's own
Gluon front end for sm_90 (tilesim's, which needs no GPU) and the expected outputs are the NumPy reference. No
network, no installs.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))

import gluon_kernels  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor  # noqa: E402


def matmul_inputs(seed, M=128, N=128, K=256):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    return {"a": a, "b": b}, a.astype(np.float32) @ b.astype(np.float32)


def attention_inputs(seed, S=192, D=64, BN=64):
    """softmax(Q K^T / sqrt(D)) V, computed as the kernel's algorithm does (blocks of BN keys, a running maximum,
    P rounded to fp16 before P V), so that a faithful kernel lands within its error bounds of it."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.uniform(-1, 1, (S, D)).astype(np.float16) for _ in range(3))
    q32, k32, v32 = (x.astype(np.float32) for x in (q, k, v))
    m = np.full(S, -np.inf, np.float32)
    l = np.zeros(S, np.float32)
    acc = np.zeros((S, D), np.float32)
    for start in range(0, S, BN):
        s = (q32 @ k32[start:start + BN].T) * np.float32(1 / math.sqrt(D))
        m_new = np.maximum(m, s.max(axis=1))
        p = np.exp(s - m_new[:, None])
        alpha = np.exp(m - m_new)
        l = l * alpha + p.sum(axis=1)
        acc = acc * alpha[:, None] + p.astype(np.float16).astype(np.float32) @ v32[start:start + BN]
        m = m_new
    return {"q": q, "k": k, "v": v}, (acc / l[:, None]).astype(np.float32)


# name -> (kernel, inputs(seed), descriptor block shapes, grid(inputs), scalars(inputs), constexprs, tolerance)
def cases():
    matmul_descs = {"a": [64, 32], "b": [32, 64]}
    out = []
    for name, kernel in (("pipelined_matmul", gluon_kernels.pipelined_matmul), ("ws_matmul", gluon_kernels.ws_matmul)):
        out.append(dict(name=name, kernel=kernel, inputs=matmul_inputs, blocks=matmul_descs,
                        grid=lambda x: (x["a"].shape[0] // 64, x["b"].shape[1] // 64, 1),
                        scalars=lambda x: [("M", x["a"].shape[0]), ("N", x["b"].shape[1]), ("K", x["a"].shape[1])],
                        out_shape=lambda x: (x["a"].shape[0], x["b"].shape[1]),
                        constexprs={"STAGES": 3, "PLANT": 0}, atol=2e-2))
    out.append(dict(name="attention_fwd", kernel=gluon_kernels.attention_fwd,
                    inputs=attention_inputs, blocks={"q": [64, 64], "k": [64, 64], "v": [64, 64]},
                    grid=lambda x: (math.ceil(x["q"].shape[0] / 64), 1, 1),
                    scalars=lambda x: [("seq_len", x["q"].shape[0]), ("sm_scale", 1 / math.sqrt(x["q"].shape[1]))],
                    out_shape=lambda x: x["q"].shape, constexprs={"PLANT": 0}, atol=2e-2))
    return out


def descriptor(base, shape, block):
    """A Gluon host TensorDescriptor over a row-major fp16 array `base` (a CUDA tensor, or tilesim's view of a
    NumPy array) of `shape`."""
    layout = gl.NVMMASharedLayout.get_default_for(block, gl.float16)
    return TensorDescriptor(base, list(shape), [shape[1], 1], block, layout)


def run_on_gpu(case, inputs, out):
    import torch
    tensors = {k: torch.from_numpy(v).cuda() for k, v in inputs.items()}
    result = torch.from_numpy(out).cuda()
    descs = [descriptor(tensors[k], inputs[k].shape, block) for k, block in case["blocks"].items()]
    args = descs + [result] + [value for _, value in case["scalars"](inputs)]
    compiled = case["kernel"][case["grid"](inputs)](*args, **case["constexprs"], num_warps=4)
    torch.cuda.synchronize()
    return result.cpu().numpy(), compiled.asm["ttgir"]


def ttgir_on_cpu(case, inputs, out):
    from tilesim import _frontend, _memory
    descs = [descriptor(_memory.view_of(inputs[k]), inputs[k].shape, block) for k, block in case["blocks"].items()]
    args = descs + [out] + [value for _, value in case["scalars"](inputs)]
    kwargs = dict(case["constexprs"], num_warps=4)
    wrapped_args, wrapped_kwargs = _frontend.wrap_arguments(args, kwargs)
    bound, specialization, _ = _frontend._binder(case["kernel"])(*wrapped_args, **wrapped_kwargs)
    options, signature, constexprs, attrs = case["kernel"]._pack_args(_frontend.backend(), wrapped_kwargs, bound,
                                                                      specialization, None)
    return _frontend.make_gluon_ttgir(case["kernel"], signature, constexprs, attrs, options)


def write_case(directory, case, inputs, out_input, expected, ttgir, reference):
    os.makedirs(directory, exist_ok=True)
    args = []
    for name, block in case["blocks"].items():
        array = inputs[name]
        np.save(os.path.join(directory, f"{name}_desc.npy"), array)
        args.append({"name": f"{name}_desc", "kind": "tensordesc", "dtype": "float16", "shape": list(array.shape),
                     "input": f"{name}_desc.npy", "desc_shape": list(array.shape),
                     "desc_strides": [array.shape[1], 1], "block_shape": block, "padding": "zero"})
    out_name = "o_ptr" if case["name"] == "attention_fwd" else "c_ptr"
    np.save(os.path.join(directory, f"{out_name}.npy"), out_input)
    np.save(os.path.join(directory, f"{out_name}.expected.npy"), expected)
    args.append({"name": out_name, "kind": "tensor", "dtype": "float32", "shape": list(out_input.shape),
                 "input": f"{out_name}.npy", "expected": f"{out_name}.expected.npy"})
    for name, value in case["scalars"](inputs):
        args.append({"name": name, "kind": "scalar", "pytype": "float" if isinstance(value, float) else "int",
                     "value": value})
    with open(os.path.join(directory, "kernel.ttgir"), "w") as file:
        file.write(ttgir)
    made_by = ("the GPU (conformance/gluon/record_gpu.py --reference gpu)" if reference == "gpu"
               else "conformance/gluon/record_gpu.py --reference numpy (NumPy oracle; TTGIR from Triton's Gluon front end on the CPU)")
    entry = case["kernel"].__name__
    with open(os.path.join(directory, "case.json"), "w") as file:
        json.dump({"name": case["name"], "entry": entry, "grid": list(case["grid"](inputs)), "num_warps": 4,
                   "args": args, "notes": f"The project's Gluon kernel {entry} (conformance/gluon/gluon_kernels.py), "
                   f"constexprs {case['constexprs']}, run from its TTGIR (no kernel.ttir: Gluon has none).",
                   "made_by": made_by}, file, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", choices=("gpu", "numpy"), required=True)
    parser.add_argument("--out", default=os.path.join(HERE, "cases"))
    parser.add_argument("--seed", type=int, default=23)
    options = parser.parse_args()
    failures = 0
    for case in cases():
        inputs, reference = case["inputs"](options.seed)
        out = np.zeros(case["out_shape"](inputs), np.float32)
        if options.reference == "gpu":
            expected, ttgir = run_on_gpu(case, inputs, out)
            error = float(np.max(np.abs(expected - reference)))
            ok = error <= case["atol"]
            failures += not ok
            print(f"{case['name']}: GPU vs NumPy max |diff| {error:.3g} ({'ok' if ok else 'TOO LARGE'})")
        else:
            expected, ttgir = reference.astype(np.float32), ttgir_on_cpu(case, inputs, out)
        write_case(os.path.join(options.out, case["name"]), case, inputs, out, expected, ttgir, options.reference)
        print(f"{case['name']}: written to {os.path.join(options.out, case['name'])}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
