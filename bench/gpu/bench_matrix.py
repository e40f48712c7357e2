"""The GPU benchmark's matrix rows (issue 22): matmul and attention forward on tensor cores, in one run.

For every problem and every configuration of kernels_matrix's lists (the same list for both compilers):
  - Triton 3.6 compiles and runs the kernel (its JIT), its output is verified against torch, it is timed, and the
    TTIR it produced is kept;
  - tilesim's GPU engine compiles THAT TTIR itself (`tilesim run --engine gpu --profile triton --time`), its
    output is verified against torch, and it times its own launches in-process with CUDA events;
  - torch runs the same computation (cuBLAS matmul; scaled_dot_product_attention).
Timing as bench.py: warm-up, one pair of CUDA events per launch, the median. The ceiling is the GPU's measured
dense fp16 rate (torch's best matmul of the largest size) for each row. Prints and writes OUT/matrix.md (per
problem: the best configuration of each compiler, and every configuration side by side) and OUT/matrix.json.
  python3 bench/gpu/bench_matrix.py --tilesim PATH --out DIR [--problems a,b] [--configs N] [--baseline PATH]
(--baseline: a second tilesim binary, say main's, run on the same TTIR in the same run: an A/B column.)
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (cuda_time, run_tilesim, matches_torch, max_error)
import kernels_matrix as km  # noqa: E402
import table as table_rows  # noqa: E402  (best_configs: the rule the one table uses too)

PROBLEMS = {
    "matmul_f16_4096": dict(kind="matmul", size=4096, dtype=torch.float16),
    "matmul_f16_8192": dict(kind="matmul", size=8192, dtype=torch.float16),
    "matmul_bf16_4096": dict(kind="matmul", size=4096, dtype=torch.bfloat16),
    "matmul_bf16_8192": dict(kind="matmul", size=8192, dtype=torch.bfloat16),
    # fp8 e4m3 in, fp16 out; b column-major (K contiguous), as Triton's tutorial 03 passes fp8 b and cuBLAS wants it.
    "matmul_fp8_8192": dict(kind="matmul", size=8192, dtype=torch.float8_e4m3fn, out_dtype=torch.float16),
    # The same with b row-major (N contiguous): wgmma reads fp8 K-major only, so b goes through registers.
    "matmul_fp8_rowmajor_8192": dict(kind="matmul", size=8192, dtype=torch.float8_e4m3fn, out_dtype=torch.float16,
                                     b_row_major=True),
    # f32 in and out: tl.dot's default input precision, tf32 (wgmma tf32 in both compilers); torch with TF32 on.
    "matmul_tf32_4096": dict(kind="matmul", size=4096, dtype=torch.float32),
    # int8 in, int32 out (an i32 accumulator: kernels_matrix.matmul INTEGER); b column-major as for fp8. TOPS.
    "matmul_i8_8192": dict(kind="matmul", size=8192, dtype=torch.int8, out_dtype=torch.int32),
    # The same matmul through tensor descriptors made in the kernel (kernels_matrix.matmul_desc; TMA in Triton).
    "matmul_desc_f16_8192": dict(kind="matmul", size=8192, dtype=torch.float16, descriptors=True),
    "attention_d64": dict(kind="attention", bh=32, seq=4096, head=64, causal=False),
    "attention_d128": dict(kind="attention", bh=32, seq=4096, head=128, causal=False),
    "attention_d128_causal": dict(kind="attention", bh=32, seq=4096, head=128, causal=True),
}


def matmul_setup(problem, config, gen):
    n, dtype = problem["size"], problem["dtype"]
    out_dtype = problem.get("out_dtype", dtype)
    fp8, integer, tf32 = dtype == torch.float8_e4m3fn, dtype == torch.int8, dtype == torch.float32
    bm, bn, bk, warps, stages = config
    if integer:
        a, b = (torch.randint(-8, 8, (n, n), device="cuda", generator=gen, dtype=torch.int8) for _ in range(2))
    else:
        a, b = (torch.randn(n, n, device="cuda", generator=gen).to(dtype) for _ in range(2))
    if (fp8 or integer) and not problem.get("b_row_major"):
        b = b.T.contiguous().T  # the same values, column-major
    c = torch.empty(n, n, device="cuda", dtype=out_dtype)
    grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
    launch = lambda out: km.matmul[grid](a, b, out, n, n, n, a.stride(0), a.stride(1), b.stride(0),  # noqa: E731
                                         b.stride(1), out.stride(0), out.stride(1), BLOCK_M=bm, BLOCK_N=bn,
                                         BLOCK_K=bk, GROUP_M=8, INTEGER=integer, num_warps=warps, num_stages=stages)
    buffers = {"a_ptr": a, "b_ptr": b, "c_ptr": torch.zeros_like(c)}
    scalars = {"M": n, "N": n, "K": n, "stride_am": a.stride(0), "stride_ak": a.stride(1), "stride_bk": b.stride(0),
               "stride_bn": b.stride(1), "stride_cm": n, "stride_cn": 1}
    if problem.get("descriptors"):
        # Descriptors made on the device need a scratch allocator for their tensor maps (Triton 3.6).
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
        launch = lambda out: km.matmul_desc[grid](a, b, out, n, n, n, BLOCK_M=bm, BLOCK_N=bn,  # noqa: E731
                                                  BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=stages)
        scalars = {"M": n, "N": n, "K": n}
    flops = 2.0 * n * n * n
    reference = lambda: a @ b  # noqa: E731
    if fp8:  # cuBLAS's fp8 GEMM (unit scales), when this torch has it
        one = torch.ones((), device="cuda")
        b_columns = b.T.contiguous().T  # cuBLASLt's fp8 GEMM takes b column-major
        reference = lambda: torch._scaled_mm(a, b_columns, scale_a=one, scale_b=one, out_dtype=out_dtype)  # noqa: E731
        try:
            reference()
        except (RuntimeError, TypeError, AttributeError):
            reference = lambda: a.to(out_dtype) @ b.to(out_dtype)  # noqa: E731
    if integer:  # cuBLASLt's int8 GEMM
        reference = lambda: torch._int_mm(a, b)  # noqa: E731
    if tf32:  # cuBLAS with TF32 tensor cores, as tl.dot's default; the flag restored for the other problems
        def reference():
            previous = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = True
            try:
                return a @ b
            finally:
                torch.backends.cuda.matmul.allow_tf32 = previous
    # The reference in f64: exact for the int8 sums, and free of TF32 whatever torch's flag.
    want = (a.double() @ b.double()).to(out_dtype)
    tolerance = dict(rtol=0, atol=0) if integer else dict(rtol=2e-2, atol=0.5)
    return dict(launch=launch, out=c, want=want, torch=reference,
                tolerance=tolerance, buffers=buffers, scalars=scalars, output="c_ptr",
                grid=grid, flops=flops, bytes=2 * n * n * a.element_size() + n * n * c.element_size())


def attention_setup(problem, config, gen):
    bh, seq, head, causal = problem["bh"], problem["seq"], problem["head"], problem["causal"]
    bm, bn, warps, stages = config
    q, k, v = (torch.randn(bh, seq, head, device="cuda", generator=gen).half() for _ in range(3))
    out = torch.empty_like(q)
    scale = 1.0 / math.sqrt(head)
    grid = (seq // bm, bh)
    launch = lambda o: km.attention_fwd[grid](q, k, v, o, scale, seq, HEAD_DIM=head, BLOCK_M=bm,  # noqa: E731
                                              BLOCK_N=bn, CAUSAL=causal, num_warps=warps, num_stages=stages)
    sdpa = torch.nn.functional.scaled_dot_product_attention
    want = sdpa(q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0), is_causal=causal, scale=scale).squeeze(0)
    buffers = {"Q": q, "K": k, "V": v, "Out": torch.zeros_like(q)}
    flops = 4.0 * bh * seq * seq * head * (0.5 if causal else 1.0)
    return dict(launch=launch, out=out, want=want,
                torch=lambda: sdpa(q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0), is_causal=causal, scale=scale),
                tolerance=dict(rtol=2e-2, atol=2e-2), buffers=buffers, scalars={"sm_scale": scale, "N_CTX": seq},
                output="Out", grid=grid, flops=flops, bytes=4 * q.numel() * 2)


def configs_of(problem):
    if problem["kind"] == "matmul":
        return [(c, f"{c[0]}x{c[1]}x{c[2]} w{c[3]} s{c[4]}", c[3]) for c in km.MATMUL_CONFIGS]
    return [(c, f"{c[0]}x{c[1]} w{c[2]} s{c[3]}", c[2]) for c in km.ATTENTION_CONFIGS
            if not (problem["head"] == 128 and c[0] * c[1] > 128 * 64 and c[2] < 8)]


def run_tilesim_binary(binary, key, row, setup, ttir, case, scalars, work, env, name, label, log):
    """Runs one tilesim binary on Triton's TTIR and fills row[key + "_..."]: exit, verified, ms, registers."""
    tilesim_out = os.path.join(work, "out")
    done, timing = bench.run_tilesim(binary, ttir, case, setup["buffers"], scalars, work, tilesim_out, env,
                                     iters=20, warmup=3)
    print(f"$ {key} run {name} {label}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}",
          file=log, flush=True)
    row[key + "_exit"] = done.returncode
    if done.returncode == 0 and timing:
        got = bench.from_numpy_bits(np.load(os.path.join(tilesim_out, setup["output"] + ".npy")), setup["want"])
        row[key + "_verified"] = bench.matches_torch(got, setup["want"], setup["tolerance"],
                                                     f"{name} {label}: {key}", log)
        row[key + "_max_error_vs_torch"] = bench.max_error(got, setup["want"])
        if not row[key + "_verified"] and not row.get("triton_verified") and "triton_max_error_vs_torch" in row:
            # Outside torch's tolerance as Triton's own output is (fp8 wgmma's imprecise accumulation, which the
            # TTIR's maxNumImpreciseAcc allows): no worse than Triton's error by more than a quarter counts as that.
            row[key + "_as_triton"] = row[key + "_max_error_vs_torch"] <= 1.25 * row["triton_max_error_vs_torch"]
        row[key + "_ms"] = float(timing["median_ms"])
        row[key + "_registers"] = int(timing.get("registers", -1))
        row[key + "_shared_bytes"] = int(timing.get("shared_bytes", -1))
    else:
        row[key + "_error"] = (done.stderr or done.stdout).strip()[-300:]
    shutil.rmtree(tilesim_out, ignore_errors=True)


def run_config(tilesim, baseline, problem, config, warps, gen, work, out_dir, name, label, env, log):
    setup = (matmul_setup if problem["kind"] == "matmul" else attention_setup)(problem, config, gen)
    row = {"config": label}
    try:
        compiled = setup["launch"](setup["out"])
        torch.cuda.synchronize()
    except Exception as error:  # noqa: BLE001 - a config Triton cannot compile (shared memory) is recorded
        row["triton_error"] = f"{type(error).__name__}: {str(error)[:200]}"
        return row, None
    row["triton_verified"] = bench.matches_torch(setup["out"], setup["want"], setup["tolerance"],
                                                 f"{name} {label}: Triton", log)
    row["triton_max_error_vs_torch"] = bench.max_error(setup["out"], setup["want"])
    row["triton_registers"] = getattr(compiled, "n_regs", -1)
    row["triton_spills"] = getattr(compiled, "n_spills", -1)
    row["triton_ms"], _ = bench.cuda_time(lambda: setup["launch"](setup["out"]))
    ttir = os.path.join(out_dir, "ttir", f"{name}-{label.replace(' ', '_')}.ttir")
    with open(ttir, "w") as f:
        f.write(compiled.asm["ttir"])
    case = {"grid": setup["grid"], "num_warps": warps, "num_stages": config[-1], "bytes": setup["bytes"]}
    # Triton specialises arguments equal to 1 into constants: pass only the scalars its TTIR still takes.
    text = compiled.asm["ttir"]
    scalars = {key: value for key, value in setup["scalars"].items() if f"%{key}:" in text}
    for key, binary in (("tilesim", tilesim), ("baseline", baseline)):
        if binary:
            run_tilesim_binary(binary, key, row, setup, ttir, case, scalars, work, env, name, label, log)
    for key in ("triton", "tilesim", "baseline"):
        if key + "_ms" in row:
            row[key + "_tflops"] = setup["flops"] / (row[key + "_ms"] * 1e9)
    return row, setup


def accepted(row, key):
    """Verified against torch, or (tilesim) outside its tolerance only as Triton's own output is: the mark."""
    if row.get(key + "_verified"):
        return " v"
    return " ~T" if row.get(key + "_as_triton") else " WRONG"


def measured(row, key):
    """A table cell: TFLOP/s with v (verified), ~T (as Triton) or WRONG, else the start of the error."""
    if key + "_tflops" in row:
        return f"{row[key + '_tflops']:.1f}{accepted(row, key)}"
    return row.get(key + "_error", "-")[:60].replace("|", "/").replace("\n", " ")


def table(results):
    lines = [f"GPU: {results['device']}, driver {results['driver']}; Triton {results['triton']}, torch "
             f"{results['torch']}; {results['date']}; {results.get('tilesim_version') or 'tilesim'}, sha256 "
             f"{results['tilesim_sha']}" +
             (f"; baseline tilesim sha256 {results['baseline_sha']}" if results.get("baseline_sha") else ""), "",
             "| problem | tilesim best (config) | Triton best (config) | torch | tilesim / Triton best | "
             "ceiling (torch dense fp16 peak) |", "|---|---|---|---|---|---|"]
    for name, entry in results["problems"].items():
        best = table_rows.best_configs(entry["configs"])
        cell = lambda r, k: f"{r[k + '_tflops']:.1f} ({r['config']})" if r else "n/a"  # noqa: E731
        ratio = (best["tilesim"]["tilesim_tflops"] / best["triton"]["triton_tflops"]
                 if best["tilesim"] and best["triton"] else float("nan"))
        lines.append(f"| {name} | {cell(best['tilesim'], 'tilesim')} | {cell(best['triton'], 'triton')} | "
                     f"{entry['torch_tflops']:.1f} | {ratio:.3f} | {results['ceiling_tflops']:.0f} |")
    with_baseline = bool(results.get("baseline_sha"))
    lines += ["", "Every configuration (TFLOP/s; registers per thread; v = output verified against torch; ~T = outside "
              "torch's tolerance, as Triton's own output is, with a max error at most 1.25x Triton's; the max errors "
              "of both against torch are in matrix.json):", "",
              "| problem | config | tilesim | Triton | tilesim / Triton | registers tilesim / Triton |" +
              (" baseline tilesim | registers baseline |" if with_baseline else ""),
              "|---|---|---|---|---|---|" + ("---|---|" if with_baseline else "")]
    for name, entry in results["problems"].items():
        for r in entry["configs"]:
            ts = measured(r, "tilesim")
            tr = f"{r['triton_tflops']:.1f}{' v' if r.get('triton_verified') else ' WRONG'}" \
                if "triton_tflops" in r else r.get("triton_error", "-")[:60].replace("|", "/")
            ratio = f"{r['tilesim_tflops'] / r['triton_tflops']:.3f}" \
                if "tilesim_tflops" in r and "triton_tflops" in r else "-"
            lines.append(f"| {name} | {r['config']} | {ts} | {tr} | {ratio} | "
                         f"{r.get('tilesim_registers', '-')} / {r.get('triton_registers', '-')} |" +
                         (f" {measured(r, 'baseline')} | {r.get('baseline_registers', '-')} |" if with_baseline else ""))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tilesim", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--configs", type=int, default=0, help="only the first N configurations of each list")
    parser.add_argument("--baseline", default="", help="another tilesim binary run on the same TTIR (an A/B column)")
    options = parser.parse_args()
    unknown = [p for p in options.problems.split(",") if p not in PROBLEMS]
    if unknown:
        parser.error(f"unknown problem(s) {unknown}; choose from {sorted(PROBLEMS)}")
    os.makedirs(os.path.join(options.out, "ttir"), exist_ok=True)
    work = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    env = {"TILESIM_CACHE_DIR": tempfile.mkdtemp()}
    log = open(os.path.join(options.out, "matrix.log"), "w")
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True).stdout.strip()
    results = {"device": torch.cuda.get_device_name(), "driver": driver, "triton": triton.__version__,
               "torch": torch.__version__, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "tilesim_sha": subprocess.run(["sha256sum", options.tilesim], capture_output=True,
                                             text=True).stdout[:16], "problems": {},
               "tilesim_version": bench.tilesim_version(options.tilesim),
               "baseline_sha": subprocess.run(["sha256sum", options.baseline], capture_output=True,
                                              text=True).stdout[:16] if options.baseline else ""}
    a = torch.randn(8192, 8192, device="cuda").half()
    peak_ms, _ = bench.cuda_time(lambda: a @ a, iters=20)
    results["ceiling_tflops"] = 2 * 8192 ** 3 / (peak_ms * 1e9)
    del a
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    for name in options.problems.split(","):
        problem = PROBLEMS[name]
        entry = {"configs": []}
        configs = configs_of(problem)
        if options.configs:
            configs = configs[:options.configs]
        setup = None
        for config, label, warps in configs:
            row, made = run_config(options.tilesim, options.baseline, problem, config, warps, gen, work, options.out,
                                   name, label, env, log)
            setup = made or setup
            entry["configs"].append(row)
            print(name, json.dumps(row), flush=True)
            torch.cuda.empty_cache()
        if setup:
            torch_ms, _ = bench.cuda_time(setup["torch"], iters=20)
            entry["torch_tflops"] = setup["flops"] / (torch_ms * 1e9)
        results["problems"][name] = entry
        with open(os.path.join(options.out, "matrix.json"), "w") as f:
            json.dump(results, f, indent=1)
    text = table(results)
    with open(os.path.join(options.out, "matrix.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
