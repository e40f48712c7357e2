#!/usr/bin/env python3
"""Measures the error of every math function and approximate op Triton 3.6 emits, on the GPU, against an exact
reference, and writes the table the interpreter's `triton` profile bounds come from.

Run on the H200 (python3 with torch, triton 3.6, numpy), one command, about 3-5 minutes:
    python3 conformance/triton/measure_bounds.py --out "$OUT"
then copy $OUT/measured_bounds.tsv to conformance/triton/measured_bounds.tsv and $OUT/measured_bounds.md to
conformance/triton/measured_bounds.md (the build turns the .tsv into interpreter/MeasuredBounds' table).

What is measured (each as Triton compiles it, in a one-op kernel y = f(x)):
- tl ops whose NVIDIA lowering is approximate: math.exp, math.exp2, math.log, math.log2, math.sqrt, math.rsqrt,
  math.sin, math.cos, math.erf, arith.divf (x / y, div.full.f32), and the correctly rounded tt.precise_sqrt /
  tt.precise_divf as a control;
- every unary and binary libdevice function of tl.extra.cuda.libdevice that tilesim's interpreter knows, in f32
  (`__nv_tanhf`, ...) and f64 (`__nv_tanh`, ...), and the `__nv_fast_*f` fast paths;
- PTX approximate instructions through inline asm (`ptx:ex2.approx.ftz.f32`, `ptx:tanh.approx.f32`, ...).
f32 unary functions are swept exhaustively (all 2^32 bit patterns, on the GPU); f32 binary functions over a dense
sample (every exponent x every exponent with a few mantissas, plus random patterns); f64 functions over a sample
of 2^20 inputs (every exponent, random mantissas) against numpy long double (64-bit mantissa) on the host.

Error of one lane: |gpu - exact| / spacing(exact), the spacing of the result format at the exact value
(subnormal spacing below the normal range), so a correctly rounded function measures <= 0.5. Lanes where the
exact result is subnormal and the GPU returns zero count as FTZ of the result (ftz_result = 1), not as error.
A function that returns f(+-0) for every subnormal input flushes inputs (ftz_input = 1); its subnormal-input row
is then measured against f(+-0). NaN against NaN is exact; one NaN, or an infinity against a finite value
beyond the format's range, is an infinite error (the interpreter then accepts any value in that range).
Rows: one per function, input sign and exponent range (the `exp_lo`/`exp_hi` of ilogb(x); zero is -2000, inf and
NaN are 2000), with the worst input's bit pattern. `--budget S` (default 150) switches the remaining f32 sweeps
to a strided sample when the run would take longer (the table says `sampled` then).

`--self-test` checks the error and bucket arithmetic with numpy only (no GPU, no torch, no triton).
"""
# The error arithmetic and its self-test are in bounds_error.py, the functions and their kernels in
# bounds_functions.py, the sweeps on the GPU in bounds_measure.py; this file runs them and writes the table.
import argparse
import datetime
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from bounds_error import F32_RANGES, SPECIAL_RANGE, bucket_rows, bucket_table, self_test
from bounds_functions import function_list, write_kernels
from bounds_measure import run_f32, run_f64


def gpu_provenance(torch):
    props = torch.cuda.get_device_properties(0)
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception as error:  # noqa: BLE001 - provenance only
        smi = f"nvidia-smi unavailable ({error})"
    import triton
    return [f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
            f"gpu: {props.name} (nvidia-smi: {smi})", f"cuda: {torch.version.cuda}",
            f"torch: {torch.__version__}, triton: {triton.__version__}",
            "command: python3 conformance/triton/measure_bounds.py --out $OUT"]


def format_ulp(value):
    return "inf" if math.isinf(value) else f"{value:.4g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "measure_bounds_out"))
    parser.add_argument("--only", default="", help="comma-separated table names to measure")
    parser.add_argument("--budget", type=float, default=150.0, help="seconds after which f32 sweeps are strided (by 64) and f64 samples shrink to 2^18")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    import torch
    os.makedirs(args.out, exist_ok=True)
    functions = function_list()
    if args.only:
        wanted = set(args.only.split(","))
        functions = [f for f in functions if f[0] in wanted]
    started = time.time()
    kernels = write_kernels(functions, tempfile.mkdtemp(prefix="measure_bounds_"))
    table, _ = bucket_table(F32_RANGES, 8, 23)
    f32_rows_meta = bucket_rows(F32_RANGES)
    rows, summary, failures = [], [], []
    for index, function in enumerate(functions):
        name, dtype = function[0], function[1]
        kernel = getattr(kernels, f"k{index}")
        t0 = time.time()
        try:
            if dtype == "f32":
                budget_left = args.budget - (time.time() - started)
                new_rows, inputs, sampled, flushes_input, flushes_result = run_f32(
                    torch, kernel, function, table, f32_rows_meta, budget_left)
                rows += new_rows
                mode = "sampled" if sampled else ("exhaustive" if function[4] == 1 else "dense sample")
                finite_rows = [r for r in new_rows if (r[3], r[4]) != SPECIAL_RANGE]
                top = max(finite_rows, key=lambda r: r[5]) if finite_rows else None
                worst_bits = int(top[6], 16) if top else 0
                worst_value = np.array([worst_bits], dtype=np.uint32).view(np.float32)[0]
                summary.append((name, "f32", top[5] if top else 0.0, f"{top[6] if top else '-'} ({worst_value!r})",
                                int(flushes_input), int(flushes_result), inputs, mode))
            else:
                before = len(rows)
                over_budget = time.time() - started > args.budget
                inputs = run_f64(torch, kernel, function, rows, count=1 << (18 if over_budget else 20))
                finite_rows = [r for r in rows[before:] if (r[3], r[4]) != SPECIAL_RANGE]
                top = max(finite_rows, key=lambda r: r[5]) if finite_rows else None
                summary.append((name, "f64", top[5] if top else 0.0, top[6] if top else "-", 0, 0, inputs, "sample"))
        except Exception as error:  # noqa: BLE001 - one function failing must not lose the table
            failures.append(f"{name} ({dtype}): {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
            print(f"  {name} {dtype}: FAILED {failures[-1]}", flush=True)
            continue
        print(f"  {name} {dtype}: max {format_ulp(summary[-1][2])} ulp, worst {summary[-1][3]}, "
              f"ftz in/out {summary[-1][4]}/{summary[-1][5]}, {summary[-1][6]} inputs ({time.time() - t0:.1f}s)", flush=True)
    provenance = gpu_provenance(torch)
    with open(os.path.join(args.out, "measured_bounds.tsv"), "w") as handle:
        for line in provenance:
            handle.write(f"# {line}\n")
        handle.write("function\tdtype\tsign\texp_lo\texp_hi\tmax_ulp\tworst_input\tftz_input\tftz_result\tsamples\n")
        for row in rows:
            handle.write("\t".join(format_ulp(v) if i == 5 else str(v) for i, v in enumerate(row)) + "\n")
    with open(os.path.join(args.out, "measured_bounds.md"), "w") as handle:
        handle.write("# Measured error of Triton's math lowering\n\n")
        handle.write("".join(f"- {line}\n" for line in provenance))
        handle.write("\nmax ulp: largest |gpu - exact| / spacing(exact) over finite inputs (inf/NaN inputs are "
                     "in the .tsv's 2000 rows); ftz in: subnormal inputs read as zero; ftz out: subnormal results "
                     "returned as zero. Per-range rows: measured_bounds.tsv.\n\n")
        handle.write("| function | type | max ulp | worst input | ftz in | ftz out | inputs | sweep |\n")
        handle.write("|---|---|---|---|---|---|---|---|\n")
        for name, dtype, overall, worst, ftz_in, ftz_out, inputs, mode in summary:
            handle.write(f"| `{name}` | {dtype} | {format_ulp(overall)} | {worst} | {ftz_in} | {ftz_out} | {inputs} | {mode} |\n")
        if failures:
            handle.write("\nNot measured (failed to compile or run):\n" + "".join(f"- {f}\n" for f in failures))
    print(f"measure_bounds: {len(summary)} functions measured, {len(failures)} failed, {len(rows)} rows, "
          f"{time.time() - started:.0f}s; wrote {args.out}/measured_bounds.tsv and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
