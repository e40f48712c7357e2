#!/usr/bin/env python3
"""Records golden cases from real Triton: compiles and launches the kernels of kernels.py on a GPU and writes
one folder per case in the format of conformance/golden/ (docs/conformance.md): kernel.ttir (paths shortened
to the file name), kernel.ttgir, kernel.ptx, case.json, the input buffers and, for each buffer a kernel writes,
NAME.expected.npy. Output buffers are filled with NaN (floats) or a sentinel (integers) before the launch.
bf16 is stored as raw int16 patterns, fp8 as raw uint8.

Run on the GPU machine (Triton 3.6, PyTorch, NumPy):
    python3 conformance/triton/make_golden.py --out DIR [--group extra|corpus10] [--only NAME,...] [--list]
Group `extra` is conformance/golden-extra/; group `corpus10` is issue 10's corpus (tensor descriptors, device-side
and host TensorDescriptor arguments, spin locks with debug barriers, early returns, inline PTX, long float row
reductions, in-place and strided views), for conformance/corpus10/.
Each case is tried on its own; a kernel that fails to compile is skipped and reported in the summary. After a
CUDA error (which leaves the context unusable) the script exits with status 3; running it again with the same
--out resumes after the failed case. `--dry` builds every case's inputs without Triton or a GPU (a self-check
that runs anywhere NumPy does).
"""
# The cases are built by golden_cases_*.py (one module per group of kernels) from the buffers and `Case` of
# golden_case.py; golden_run.py compiles, launches and writes one case.
import argparse
import json
import os
import sys
import traceback

import numpy as np

from golden_case import Buf, Desc, HERE, View
from golden_cases_atomic_reduce_scan import atomic_cases, reduction_cases, scan_cases
from golden_cases_cast_int_math import cast_cases, float_math_cases, integer_cases
from golden_cases_corpus10 import corpus10_cases
from golden_cases_shape_control import blockptr_dot_cases, control_cases, shape_cases
from golden_run import run_case


def build_cases():
    """Every case, in order: one generator, seeded once, drawn from by each family in turn."""
    rng = np.random.default_rng(20261130)
    C = []
    for family in (atomic_cases, reduction_cases, scan_cases, cast_cases,
                   integer_cases, float_math_cases, shape_cases, control_cases,
                   blockptr_dot_cases, corpus10_cases):
        C += family(rng)
    return C


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="folder for the case folders")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--dry", action="store_true", help="build the cases' inputs only (no Triton, no GPU)")
    ap.add_argument("--group", help="only the cases of this group (extra: golden-extra; corpus10: issue 10's corpus)")
    opts = ap.parse_args()
    cases = build_cases()
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "duplicate case names"
    if opts.group:
        cases = [c for c in cases if c.group == opts.group]
    if opts.only:
        want = set(opts.only.split(","))
        cases = [c for c in cases if c.name in want]
    if opts.list or opts.dry:
        for c in cases:
            print(c.name, c.group, c.kernel, c.grid,
                  {k: (v.dtype, v.data.shape, "out" if v.out else "in") if isinstance(v, (Buf, Desc)) else
                   ("view of", v.of, v.offset, v.span) if isinstance(v, View) else v for k, v in c.args})
        print(len(cases), "cases")
        return 0
    if not opts.out:
        ap.error("--out is required")
    os.makedirs(opts.out, exist_ok=True)
    sys.path.insert(0, HERE)
    import torch
    import triton
    made_by = f"triton {triton.__version__} on {torch.cuda.get_device_name(0)}"
    progress = os.path.join(opts.out, "_progress.jsonl")
    done = {}
    if os.path.exists(progress):
        with open(progress) as f:
            for line in f:
                rec = json.loads(line)
                done[rec["name"]] = rec
    fatal = False
    for case in cases:
        if case.name in done:
            continue
        status, err = "ok", ""
        print(f"[{len(done) + 1}/{len(cases)}] {case.name} ...", flush=True)
        with open(progress, "a") as f:  # a case that hangs or kills the process is not tried again
            f.write(json.dumps({"name": case.name, "status": "failed", "error": "did not finish"}) + "\n")
        try:
            run_case(case, opts.out, made_by)
        except Exception as exc:  # one failing kernel must not stop the others
            status = "failed"
            err = f"{type(exc).__name__}: {exc}".strip().splitlines()
            err = " | ".join(err[:1] + err[-3:]) if len(err) > 4 else " | ".join(err)
            traceback.print_exc()
            text = str(exc).lower()
            fatal = "cuda error" in text or "illegal" in text or "cudaerror" in text or "accelerator" in text
        done[case.name] = {"name": case.name, "status": status, "error": err[:2000]}
        with open(progress, "a") as f:
            f.write(json.dumps(done[case.name]) + "\n")
        if fatal:
            print("CUDA context is unusable after", case.name, "- rerun to resume", flush=True)
            return 3
    print("\n=== summary ===")
    for c in cases:
        if c.name in done:
            rec = done[c.name]
            print(f"{rec['name']:34s} {rec['status']:7s} {rec['error'][:150]}")
    print(sum(r["status"] == "ok" for r in done.values()), "ok,",
          sum(r["status"] != "ok" for r in done.values()), "failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
