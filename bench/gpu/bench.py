"""The GPU benchmark (run by bench/gpu/run_h200.sh on a machine with an NVIDIA GPU, torch and Triton 3.6).

In ONE process and one run, for each case of kernels.CASES:
  - Triton 3.6 runs the kernel (its JIT; the TTIR it produced is kept: asm["ttir"]);
  - tilesim's GPU engine compiles THAT TTIR itself (layouts, LLVM, PTX; `tilesim run --engine gpu --time N`)
    and times its own launches in-process with CUDA events;
  - torch runs the same computation (torch.add / torch.softmax / F.layer_norm / x.t().contiguous()).
Every output is verified against torch before anything is timed. Timing: warm-up, then each launch between two
CUDA events, the median of the runs. The ceiling is the device-to-device copy bandwidth (torch copy_ of 1 GiB),
measured in the same run. Then compile latency: Triton's cold compile (fresh cache) against tilesim's TTIR -> PTX,
and PTX -> loaded module cold (driver JIT, CUDA_CACHE_DISABLE=1) and from tilesim's disk cache.
Writes OUT/bench.md (the tables), OUT/bench.json and the TTIR and logs.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import triton
from triton.compiler import ASTSource

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402

WARMUP, ITERS = 10, 100


def cuda_time(fn, warmup=WARMUP, iters=ITERS):
    """Median and min milliseconds of fn() on the current stream, each call between its own pair of events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return statistics.median(times), min(times)


def copy_ceiling():
    n = 1 << 28  # 1 GiB of fp32 each way
    a = torch.randn(n, device="cuda")
    b = torch.empty_like(a)
    median, _ = cuda_time(lambda: b.copy_(a))
    return 2 * a.numel() * 4 / (median * 1e6)


def make_case(name, case, gen):
    """Inputs (torch, on the GPU), the reference output(s) from torch, a Triton launcher, the tilesim --arg list."""
    kernel = case["kernel"]
    if kernel is kernels.vadd:
        n = case["n"]
        x = torch.rand(n, device="cuda", generator=gen)
        y = torch.rand(n, device="cuda", generator=gen)
        out = torch.empty_like(x)
        ref = lambda: torch.add(x, y, out=out)  # noqa: E731
        expected = x + y
        launch = lambda o: kernels.vadd[case["grid"]](x, y, o, n, BLOCK=case["BLOCK"], num_warps=case["num_warps"])  # noqa
        buffers = {"x_ptr": x, "y_ptr": y, "out_ptr": torch.zeros_like(x)}
        scalars = {"n": n}
        outputs = {"out_ptr": (expected, dict(rtol=0, atol=0))}
        return ref, launch, out, buffers, scalars, outputs
    if kernel is kernels.transpose:
        n = case["n"]
        x = torch.rand(n, n, device="cuda", generator=gen)
        out = torch.empty_like(x)
        ref = lambda: x.t().contiguous()  # noqa: E731
        expected = x.t().contiguous()
        launch = lambda o: kernels.transpose[case["grid"]](x, o, n, BLOCK=case["BLOCK"],  # noqa: E731
                                                             num_warps=case["num_warps"])
        buffers = {"x_ptr": x, "y_ptr": torch.zeros_like(x)}
        scalars = {"n": n}
        outputs = {"y_ptr": (expected, dict(rtol=0, atol=0))}
        return ref, launch, out, buffers, scalars, outputs
    if kernel is kernels.softmax:
        rows, cols = case["rows"], case["cols"]
        x = torch.randn(rows, cols, device="cuda", generator=gen)
        out = torch.empty_like(x)
        ref = lambda: torch.softmax(x, dim=-1)  # noqa: E731
        expected = torch.softmax(x, dim=-1)
        launch = lambda o: kernels.softmax[case["grid"]](o, x, x.stride(0), o.stride(0), cols, BLOCK=case["BLOCK"],  # noqa
                                                           num_warps=case["num_warps"])
        buffers = {"out_ptr": torch.zeros_like(x), "in_ptr": x}
        scalars = {"in_stride": cols, "out_stride": cols, "ncols": cols}
        outputs = {"out_ptr": (expected, dict(rtol=1e-4, atol=1e-6))}
        return ref, launch, out, buffers, scalars, outputs
    rows, cols, eps = case["rows"], case["cols"], 1e-5
    x = torch.randn(rows, cols, device="cuda", generator=gen).half()
    w = torch.rand(cols, device="cuda", generator=gen).half()
    b = torch.rand(cols, device="cuda", generator=gen).half()
    out = torch.empty_like(x)
    mean = torch.empty(rows, device="cuda")
    rstd = torch.empty(rows, device="cuda")
    ref = lambda: torch.nn.functional.layer_norm(x, (cols,), w, b, eps)  # noqa: E731
    expected = torch.nn.functional.layer_norm(x.float(), (cols,), w.float(), b.float(), eps).half()
    launch = lambda o: kernels.layernorm[case["grid"]](x, o, w, b, mean, rstd, x.stride(0), cols, eps,  # noqa: E731
                                                         BLOCK=case["BLOCK"], num_warps=case["num_warps"])
    buffers = {"x_ptr": x, "y_ptr": torch.zeros_like(x), "w_ptr": w, "b_ptr": b,
               "mean_ptr": torch.zeros(rows, device="cuda"), "rstd_ptr": torch.zeros(rows, device="cuda")}
    scalars = {"stride": cols, "ncols": cols, "eps": eps}
    outputs = {"y_ptr": (expected, dict(rtol=1e-2, atol=1e-2))}
    return ref, launch, out, buffers, scalars, outputs


def without_locations(ttir):
    """The TTIR's ops without source locations (the path of kernels.py differs between machines)."""
    return [line.split(" loc(")[0] for line in ttir.splitlines() if not line.startswith("#loc")]


def max_error(got, want):
    return (got.float() - want.float()).abs().max().item()


def matches_torch(got, want, tolerance, what, log):
    """Whether `got` is within `tolerance` (assert_close's rtol / atol) of torch's `want`; if not, says so in `log`."""
    try:
        torch.testing.assert_close(got, want, **tolerance)
        return True
    except AssertionError as error:
        print(f"{what} differs from torch: {error}", file=log)
        return False


TIMING_FIELD = re.compile(r"(\w+)=(.*?)(?=\s+\w+=|\s*$)")


def parse_timing(line):
    """The fields of tilesim's `timing @K: key=value ...` line. A value may hold spaces (older tilesim printed
    `source=disk cache`), so a value runs up to the next ` key=`; text without `=` is ignored, never fatal."""
    return {key: value for key, value in TIMING_FIELD.findall(line.split(": ", 1)[-1])}


def numpy_bits(tensor):
    """A tensor as the NumPy array tilesim reads: bf16 as its 16-bit patterns (<i2) and fp8 as its bytes (|u1),
    which NumPy has no types for; tilesim takes the element type from the kernel parameter. A column-major
    matrix is written as its transpose: the buffer is the memory, in the order it lies there."""
    tensor = tensor.cpu()
    if not tensor.is_contiguous() and tensor.dim() == 2 and tensor.T.is_contiguous():
        tensor = tensor.T
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    elif tensor.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        tensor = tensor.view(torch.uint8)
    return tensor.numpy()


def from_numpy_bits(array, like):
    """The inverse of numpy_bits: the array tilesim wrote, as a tensor of `like`'s dtype and shape on its device."""
    tensor = torch.from_numpy(array)
    if like.dtype != tensor.dtype:
        tensor = tensor.view(like.dtype)
    return tensor.to(like.device).view(like.shape)


def run_tilesim(tilesim, ttir, case, buffers, scalars, work, out_dir, extra_env=None, iters=ITERS, warmup=WARMUP,
                time_it=True):
    """tilesim run --engine gpu on the TTIR; returns the parsed timing line and the process output."""
    args = []
    for name, tensor in buffers.items():
        path = os.path.join(work, name + ".npy")
        np.save(path, numpy_bits(tensor))
        args += ["--arg", f"{name}={path}"]
    for name, value in scalars.items():
        args += ["--arg", f"{name}={value}"]
    grid = ",".join(str(g) for g in case["grid"])
    command = [tilesim, "run", ttir, "--engine", "gpu", "--profile", "triton", "--grid", grid,
               "--num-warps", str(case["num_warps"]),
               *(["--num-stages", str(case["num_stages"])] if "num_stages" in case else []), "--quiet", "--out", out_dir, "--bytes", str(case["bytes"])]
    if time_it:
        command += ["--time", str(iters), "--warmup", str(warmup)]
    env = dict(os.environ, **(extra_env or {}))
    done = subprocess.run(command + args, capture_output=True, text=True, env=env)
    timing = {}
    for line in done.stdout.splitlines():
        if line.startswith("timing @"):
            timing.update(parse_timing(line))
    return done, timing


def tilesim_version(binary):
    """`tilesim --version` (the commit it was built from), or "" for a binary older than the flag."""
    done = subprocess.run([binary, "--version"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tilesim", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--cases", default=",".join(kernels.CASES))
    options = parser.parse_args()
    out = options.out
    os.makedirs(out, exist_ok=True)
    os.makedirs(os.path.join(out, "ttir"), exist_ok=True)
    # Inputs and outputs of tilesim's runs as .npy files (up to 6 GiB for vadd): in /dev/shm when it is big enough.
    roomy = os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free > (16 << 30)
    work = tempfile.mkdtemp(dir="/dev/shm" if roomy else None)
    cache_dir = tempfile.mkdtemp()
    tilesim_env = {"TILESIM_CACHE_DIR": cache_dir}
    log = open(os.path.join(out, "bench.log"), "w")
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True).stdout.strip()
    results = {"device": torch.cuda.get_device_name(), "driver": driver, "triton": triton.__version__,
               "torch": torch.__version__, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "tilesim_version": tilesim_version(options.tilesim),
               "tilesim_sha": subprocess.run(["sha256sum", options.tilesim], capture_output=True,
                                             text=True).stdout[:16], "cases": {}, "compile": {}}

    t0 = time.time()
    results["copy_gbps"] = copy_ceiling()
    print(f"copy ceiling: {results['copy_gbps']:.0f} GB/s", flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    for name in options.cases.split(","):
        case = kernels.CASES[name]
        ref, launch, out_tensor, buffers, scalars, outputs = make_case(name, case, gen)
        row = {"bytes": case["bytes"], "num_warps": case["num_warps"]}
        # Triton: verify, keep its TTIR, time.
        compiled = launch(out_tensor)
        torch.cuda.synchronize()
        ttir_path = os.path.join(out, "ttir", name + ".ttir")
        with open(ttir_path, "w") as f:
            f.write(compiled.asm["ttir"])
        committed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ttir", name + ".ttir")
        row["ttir_same_as_committed"] = os.path.exists(committed) and \
            without_locations(open(committed).read()) == without_locations(compiled.asm["ttir"])
        out_name = next(iter(outputs))
        want, tolerance = outputs[out_name]
        row["triton_verified"] = matches_torch(out_tensor, want, tolerance, f"{name}: Triton's output", log)
        row["triton_registers"] = getattr(compiled, "n_regs", -1)
        row["triton_shared_bytes"] = getattr(getattr(compiled, "metadata", None), "shared", -1)
        row["triton_ms"], _ = cuda_time(lambda: launch(out_tensor))
        row["torch_ms"], _ = cuda_time(ref)
        # tilesim: the same TTIR, its own compiler; outputs written by its first launch, then timed in-process.
        tilesim_out = os.path.join(work, name + "-out")
        done, timing = run_tilesim(options.tilesim, ttir_path, case, buffers, scalars, work, tilesim_out, tilesim_env)
        print(f"$ tilesim run {name}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}", file=log)
        row["tilesim_exit"] = done.returncode
        if done.returncode == 0 and timing:
            got = torch.from_numpy(np.load(os.path.join(tilesim_out, out_name + ".npy"))).cuda().view(want.shape)
            row["tilesim_max_error_vs_torch"] = max_error(got, want)
            row["tilesim_max_error_vs_triton"] = max_error(got, out_tensor)
            row["tilesim_verified"] = matches_torch(got, want, tolerance, f"{name}: tilesim's output", log)
            row["tilesim_ms"] = float(timing["median_ms"])
            row["tilesim_compile_ms"] = float(timing["compile_ms"])
            row["tilesim_load_ms"] = float(timing["load_ms"])
            row["tilesim_registers"] = int(timing.get("registers", -1))
            row["tilesim_shared_bytes"] = int(timing.get("shared_bytes", -1))
        else:
            row["tilesim_verified"] = False
            row["tilesim_error"] = (done.stderr or done.stdout).strip()[-400:]
        shutil.rmtree(tilesim_out, ignore_errors=True)
        for key in ("triton", "torch", "tilesim"):
            if key + "_ms" in row:
                row[key + "_gbps"] = case["bytes"] / (row[key + "_ms"] * 1e6)
        results["cases"][name] = row
        print(name, json.dumps(row), flush=True)
        del buffers, out_tensor
        torch.cuda.empty_cache()

    # Compile latency, per kernel: Triton cold (fresh cache dir, in this process), tilesim TTIR -> PTX (in-process,
    # `tilesim compile --time`), tilesim PTX -> module cold (driver JIT without the driver's cache) and cached.
    for name in options.cases.split(","):
        case = kernels.CASES[name]
        sig, constants = kernels.signature_and_constants(name)
        attrs = {(i,): [["tt.divisibility", 16]] for i, (arg, ty) in enumerate(sig.items())
                 if ty.startswith("*") or arg in ("n", "in_stride", "out_stride", "ncols", "stride")}
        cold = []
        for _ in range(3):
            os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
            start = time.perf_counter()
            triton.compile(ASTSource(case["kernel"], sig, constants, attrs),
                           options={"num_warps": case["num_warps"]})
            cold.append((time.perf_counter() - start) * 1e3)
        entry = {"triton_cold_ms": statistics.median(cold)}
        ttir_path = os.path.join(out, "ttir", name + ".ttir")
        done = subprocess.run([options.tilesim, "compile", ttir_path, "--profile", "triton", "--num-warps",
                               str(case["num_warps"]), "--time", "21", "-o", os.devnull], capture_output=True, text=True)
        for field in done.stderr.split():
            if field.startswith("median_ms="):
                entry["tilesim_ttir_to_ptx_ms"] = float(field.split("=")[1])
        # Tiny inputs, one launch: only the compile and load matter here.
        small = dict(case, grid=(1,))
        tiny = {"vadd": dict(x_ptr=torch.rand(case["BLOCK"]), y_ptr=torch.rand(case["BLOCK"]),
                             out_ptr=torch.zeros(case["BLOCK"]))}
        if case["kernel"] is kernels.vadd:
            buffers, scalars = tiny["vadd"], {"n": case["BLOCK"]}
        elif case["kernel"] is kernels.transpose:  # program (0, 0) of a BLOCK x BLOCK matrix
            c = case["BLOCK"]
            buffers, scalars = dict(x_ptr=torch.rand(c * c), y_ptr=torch.zeros(c * c)), {"n": c}
        elif case["kernel"] is kernels.softmax:
            buffers = dict(out_ptr=torch.zeros(case["BLOCK"]), in_ptr=torch.randn(case["BLOCK"]))
            scalars = {"in_stride": case["BLOCK"], "out_stride": case["BLOCK"], "ncols": case["BLOCK"]}
        else:
            c = case["BLOCK"]
            buffers = dict(x_ptr=torch.randn(c).half(), y_ptr=torch.zeros(c).half(), w_ptr=torch.rand(c).half(),
                           b_ptr=torch.rand(c).half(), mean_ptr=torch.zeros(1), rstd_ptr=torch.zeros(1))
            scalars = {"stride": c, "ncols": c, "eps": 1e-5}
        fresh = tempfile.mkdtemp()
        env = {"TILESIM_CACHE_DIR": fresh, "CUDA_CACHE_DISABLE": "1"}
        for attempt in ("cold", "cached"):
            small_out = os.path.join(work, name + "-small-" + attempt)
            done, timing = run_tilesim(options.tilesim, ttir_path, small, buffers, scalars, work, small_out, env,
                                       iters=1, warmup=0)
            print(f"$ tilesim run {name} small {attempt}: exit {done.returncode}\n{done.stdout[-2000:]}"
                  f"\n{done.stderr[-2000:]}", file=log)
            if timing:
                entry[f"tilesim_load_{attempt}_ms"] = float(timing["load_ms"])
                entry[f"tilesim_source_{attempt}"] = timing["source"]
                if attempt == "cold":
                    entry["tilesim_compile_in_run_ms"] = float(timing["compile_ms"])
            shutil.rmtree(small_out, ignore_errors=True)
        results["compile"][name] = entry
        print(name, json.dumps(entry), flush=True)

    results["seconds"] = time.time() - t0
    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(results, f, indent=1)
    write_tables(results, os.path.join(out, "bench.md"))
    print(open(os.path.join(out, "bench.md")).read())
    shutil.rmtree(work, ignore_errors=True)


def write_tables(results, path):
    ceiling = results["copy_gbps"]
    lines = [f"device: {results['device']}; Triton {results['triton']}; torch {results['torch']}",
             f"ceiling: device-to-device copy {ceiling:.0f} GB/s (torch copy_ of 1 GiB, same run)", "",
             "| case | bytes/launch | num_warps | tilesim GB/s | Triton GB/s | torch GB/s | tilesim / Triton | "
             "tilesim / copy | verified (tilesim, Triton) | tilesim max err vs torch | registers tilesim / Triton | "
             "shared bytes tilesim / Triton |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, row in results["cases"].items():
        tilesim = row.get("tilesim_gbps")
        ratio = f"{tilesim / row['triton_gbps']:.3f}" if tilesim else "-"
        of_copy = f"{tilesim / ceiling:.3f}" if tilesim else "-"
        shown = f"{tilesim:.0f}" if tilesim else "failed: " + row.get("tilesim_error", "").replace("|", "/")[:160]
        lines.append(f"| {name} | {row['bytes']} | {row['num_warps']} | {shown} | {row['triton_gbps']:.0f} | "
                     f"{row['torch_gbps']:.0f} | {ratio} | {of_copy} | {row['tilesim_verified']}, "
                     f"{row['triton_verified']} | {row.get('tilesim_max_error_vs_torch', '-')} | "
                     f"{row.get('tilesim_registers', '-')} / {row.get('triton_registers', '-')} | "
                     f"{row.get('tilesim_shared_bytes', '-')} / {row.get('triton_shared_bytes', '-')} |")
    lines += ["", "| kernel | Triton cold compile ms | tilesim TTIR->PTX ms (median of 21) | "
              "tilesim PTX->module cold ms (driver JIT) | tilesim cached cubin->module ms |", "|---|---|---|---|---|"]
    for name, entry in results["compile"].items():
        lines.append(f"| {name} | {entry['triton_cold_ms']:.0f} | {entry.get('tilesim_ttir_to_ptx_ms', '-')} | "
                     f"{entry.get('tilesim_load_cold_ms', '-')} ({entry.get('tilesim_source_cold', '?')}) | "
                     f"{entry.get('tilesim_load_cached_ms', '-')} ({entry.get('tilesim_source_cached', '?')}) |")
    lines.append(f"\ntotal {results['seconds']:.0f} s")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
