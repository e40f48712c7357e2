#!/usr/bin/env python3
"""Turns a run of nan_probe.py on a GPU machine into conformance cases whose expected outputs are the GPU's bits.

  python3 conformance/nan-bits/nan_probe.py TILESIM PROBE_DIR        # on the GPU machine (writes PROBE_DIR)
  python3 conformance/nan-bits/make_cases.py PROBE_DIR conformance/nan-bits

Each probe is one kernel that loads every pair (or every one) of 11 special values of a float type -- +-0, +-1,
+-inf, +-quiet NaN, a NaN with a payload, a signalling NaN, a negative signalling NaN with a payload -- applies one
op and stores the result bitcast to an integer, so the NaN bits are compared exactly. The expected outputs are what
the GPU engine (one PTX instruction, or the short sequence NVIDIA's lowering uses, per op) wrote on the machine
the probe ran on; the case notes say which.
"""
import json
import os
import shutil
import sys

import numpy as np

probe_dir, cases_dir = sys.argv[1], sys.argv[2]
report = json.load(open(os.path.join(probe_dir, "nan_probe.json")))
device = open(os.path.join(probe_dir, "device.txt")).read().strip() if os.path.exists(
    os.path.join(probe_dir, "device.txt")) else "NVIDIA H200, driver 580.159.04 (2026-12-01 14:41 UTC)"
DTYPE = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16",
         "i64": "int64", "i32": "int32", "i16": "int16"}
written = 0
for name, row in sorted(report.items()):
    src = os.path.join(probe_dir, name)
    text = open(os.path.join(src, "kernel.ttir")).read()
    # the parameter types, in order: %in0.., %out
    header = text.split("tt.func @probe(")[1].split(")")[0]
    params = [(p.split(":")[0].strip().lstrip("%"), p.split("<")[1].rstrip(">").strip())
              for p in header.split(", %out")[0].split(", ")] + [("out", header.split("%out: !tt.ptr<")[1].rstrip(">"))]
    gpu = row["gpu-exact"]
    if not isinstance(gpu, list) or gpu != row["gpu-triton"]:
        print(f"{name}: skipped (no GPU result, or the profiles differ)")
        continue
    dst = os.path.join(cases_dir, name.replace(".", "_"))
    os.makedirs(dst, exist_ok=True)
    shutil.copy(os.path.join(src, "kernel.ttir"), dst)
    args = []
    for pname, ptype in params:
        arg = {"name": pname, "kind": "tensor", "dtype": DTYPE[ptype], "shape": [128], "input": f"{pname}.npy"}
        if pname == "out":
            np.save(os.path.join(dst, "out.npy"), np.zeros(128, dtype=DTYPE[ptype]))
            expected = np.array(gpu + [0] * (128 - len(gpu)), dtype=np.uint64).astype(
                {"int64": np.uint64, "int32": np.uint32, "int16": np.uint16}[DTYPE[ptype]]).view(DTYPE[ptype])
            # lanes past the probed inputs hold op(0, 0): take the GPU's value for them too
            full = np.load(os.path.join(src, "gpu-exact", "out.npy")) if os.path.exists(
                os.path.join(src, "gpu-exact", "out.npy")) else expected
            np.save(os.path.join(dst, "out.expected.npy"), full.astype(DTYPE[ptype]))
            arg["expected"] = "out.expected.npy"
        else:
            shutil.copy(os.path.join(src, f"{pname}.npy"), os.path.join(dst, f"{pname}.npy"))
        args.append(arg)
    case = {"name": name.replace(".", "_"), "entry": "probe", "grid": [1, 1, 1], "num_warps": 1, "args": args,
            "notes": f"NaN bits of {name.rsplit('_', 1)[0]} on {row['inputs'].__len__()} inputs (pairs of +-0, +-1, "
                     "+-inf, quiet, payload and signalling NaNs); expected = the GPU engine's output bits.",
            "made_by": f"conformance/nan-bits/make_cases.py from nan_probe.py on {device}"}
    json.dump(case, open(os.path.join(dst, "case.json"), "w"), indent=1)
    written += 1
print(f"{written} cases written to {cases_dir}")
