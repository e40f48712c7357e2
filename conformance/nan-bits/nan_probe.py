#!/usr/bin/env python3
"""NaN bit patterns on the GPU engine vs the interpreter (exact and triton profiles): every pair of special values
through each float op, results bitcast to integers.  usage: nan_probe.py TILESIM OUTDIR"""
import itertools, json, os, subprocess, sys
import numpy as np

tilesim, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
N = 128
F64 = [0x0, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
       0x7FF8000000000000, 0xFFF8000000000000, 0x7FF80000DEADBEEF, 0x7FF0000000000001, 0xFFF4000000000123]
F32 = [0x0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC0BEEF,
       0x7F800001, 0xFFA00123]
F16 = [0x0, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E5F, 0x7C01, 0xFD23]
BF16 = [0x0, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FEF, 0x7F81, 0xFFA1]
INT = {"f64": "i64", "f32": "i32", "f16": "i16", "bf16": "i16"}
NP = {"f64": np.uint64, "f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}
VIEW = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.uint16}
OUTNP = {"f64": np.int64, "f32": np.int32, "f16": np.int16, "bf16": np.int16}
VALUES = {"f64": F64, "f32": F32, "f16": F16, "bf16": BF16}

def ptr(t): return f"!tt.ptr<{t}>"
def ten(t): return f"tensor<{N}x{t}>"

def kernel(ins, body, result_type):
    args = ", ".join(f"%in{i}: {ptr(t)}" for i, t in enumerate(ins)) + f", %out: {ptr(INT[result_type])}"
    lines = [f"module {{\n  tt.func @probe({args}) {{",
             f"    %r = tt.make_range {{end = {N} : i32, start = 0 : i32}} : tensor<{N}xi32>"]
    for i, t in enumerate(ins):
        lines += [f"    %p{i} = tt.splat %in{i} : {ptr(t)} -> tensor<{N}x{ptr(t)}>",
                  f"    %q{i} = tt.addptr %p{i}, %r : tensor<{N}x{ptr(t)}>, tensor<{N}xi32>",
                  f"    %x{i} = tt.load %q{i} : tensor<{N}x{ptr(t)}>"]
    lines += ["    " + l for l in body]
    it = INT[result_type]
    lines += [f"    %bits = tt.bitcast %z : {ten(result_type)} -> {ten(it)}",
              f"    %po = tt.splat %out : {ptr(it)} -> tensor<{N}x{ptr(it)}>",
              f"    %qo = tt.addptr %po, %r : tensor<{N}x{ptr(it)}>, tensor<{N}xi32>",
              f"    tt.store %qo, %bits : tensor<{N}x{ptr(it)}>", "    tt.return", "  }", "}"]
    return "\n".join(lines) + "\n"

probes = []
for t in ["f64", "f32"]:
    for op in ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maxnumf", "arith.minimumf", "arith.remf"]:
        probes.append((f"{op}_{t}", [t, t], [f"%z = {op} %x0, %x1 : {ten(t)}"], t, 2))
    probes.append((f"math.sqrt_{t}", [t], [f"%z = math.sqrt %x0 : {ten(t)}"], t, 1))
    probes.append((f"math.fma_{t}", [t, t], [f"%z = math.fma %x0, %x1, %x1 : {ten(t)}"], t, 2))
    probes.append((f"negf_{t}", [t], [f"%z = arith.negf %x0 : {ten(t)}"], t, 1))
probes.append(("precise_divf_f32", ["f32", "f32"], [f"%z = tt.precise_divf %x0, %x1 : {ten('f32')}"], "f32", 2))
probes.append(("truncf_f64_f32", ["f64"], [f"%z = arith.truncf %x0 : {ten('f64')} to {ten('f32')}"], "f32", 1))
probes.append(("extf_f32_f64", ["f32"], [f"%z = arith.extf %x0 : {ten('f32')} to {ten('f64')}"], "f64", 1))
for h in ["f16", "bf16"]:
    probes.append((f"extf_{h}_f32", [h], [f"%z = arith.extf %x0 : {ten(h)} to {ten('f32')}"], "f32", 1))
    probes.append((f"truncf_f32_{h}", ["f32"], [f"%z = arith.truncf %x0 : {ten('f32')} to {ten(h)}"], h, 1))
    probes.append((f"addf_{h}", [h, h], [f"%z = arith.addf %x0, %x1 : {ten(h)}"], h, 2))

report = {}
for name, ins, body, rtype, arity in probes:
    d = os.path.join(out, name); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "kernel.ttir"), "w").write(kernel(ins, body, rtype))
    vals = [VALUES[t] for t in ins]
    combos = list(itertools.product(*vals)) if arity == 2 else [(v,) for v in vals[0]]
    combos = combos[:N] + [tuple(0 for _ in ins)] * (N - len(combos[:N]))
    argv = []
    for i, t in enumerate(ins):
        np.save(os.path.join(d, f"in{i}.npy"), np.array([c[i] for c in combos], dtype=NP[t]).view(VIEW[t]))
        argv += ["--arg", f"in{i}={d}/in{i}.npy"]
    np.save(os.path.join(d, "out.npy"), np.zeros(N, dtype=OUTNP[rtype]))
    argv += ["--arg", f"out={d}/out.npy"]
    row = {"inputs": [[int(x) for x in c] for c in combos[:len(list(itertools.product(*vals)) if arity == 2 else vals[0])]]}
    for engine in ["gpu", "interp"]:
        for profile in ["exact", "triton"]:
            od = os.path.join(d, f"{engine}-{profile}")
            p = subprocess.run([tilesim, "run", f"{d}/kernel.ttir", "--grid", "1", "--engine", engine, "--profile", profile,
                                "--num-warps", "1", "--quiet", "--out", od] + argv, capture_output=True, text=True)
            try:
                row[f"{engine}-{profile}"] = [int(x) for x in np.load(os.path.join(od, "out.npy")).view(NP[rtype])]
            except Exception as e:
                row[f"{engine}-{profile}"] = f"exit {p.returncode}: {p.stderr[-300:]}"
    report[name] = row
    n = len(row["inputs"])
    diffs = {prof: sum(1 for i in range(n) if isinstance(row[f"gpu-{prof}"], list) and isinstance(row[f"interp-{prof}"], list)
                       and row[f"gpu-{prof}"][i] != row[f"interp-{prof}"][i]) for prof in ["exact", "triton"]}
    print(f"{name}: {n} inputs, gpu != interp: exact {diffs['exact']}, triton {diffs['triton']}", flush=True)
json.dump(report, open(os.path.join(out, "nan_probe.json"), "w"))
