"""ctest bench_gpu_table: bench/gpu/table.py on small hand-made results (no GPU, no torch, no matplotlib needed).

Checks the rules the one table states: each compiler's best configuration is its fastest one that ran correctly
(a faster wrong output does not count; tilesim's ~T rows do), the memory-bound rows take the copy ceiling, fp8 takes
torch's fp8 rate when it is above the fp16 ceiling, tf32 torch's TF32 rate, several matrix.json files merge, and a missing file is a usage
error (exit 2), not a traceback.
    python3 bench/gpu/tests/table_test.py
"""
import json
import os
import subprocess
import sys
import tempfile

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "table.py")


def matrix(problems, ceiling=800.0):
    return {"device": "GPU X", "driver": "1.2", "triton": "3.6.0", "torch": "2.x", "date": "2026-12-07 10:00 UTC",
            "tilesim_sha": "abc", "tilesim_version": "tilesim 0.1.0 (commit 0123456789ab, Release build)",
            "ceiling_tflops": ceiling, "problems": problems}


def config(name, tilesim, triton, tilesim_ok=True, triton_ok=True, as_triton=False):
    return {"config": name, "tilesim_tflops": tilesim, "triton_tflops": triton, "tilesim_verified": tilesim_ok,
            "triton_verified": triton_ok, "tilesim_as_triton": as_triton}


def row_of(text, kernel):
    lines = [line for line in text.splitlines() if line.startswith(f"| {kernel} |")]
    assert len(lines) == 1, (kernel, text)
    return [cell.strip() for cell in lines[0].strip("|").split("|")]


def main():
    out = tempfile.mkdtemp()
    bench = {"copy_gbps": 3000.0, "device": "GPU X", "cases": {
        "vadd": {"num_warps": 4, "tilesim_gbps": 2700.0, "triton_gbps": 2850.0, "torch_gbps": 2400.0,
                 "tilesim_verified": True, "triton_verified": True}}}
    json.dump(bench, open(os.path.join(out, "bench.json"), "w"))
    first = matrix({"matmul": {"torch_tflops": 760.0, "configs": [
        config("big", 700.0, 640.0),
        config("wrong", 790.0, 650.0, tilesim_ok=False),   # faster, but its output is wrong: not tilesim's best
        config("tritonwrong", 300.0, 720.0, triton_ok=False)]}})  # Triton wrong, tilesim right: Triton's best is 650
    second = matrix({"fp8_matmul": {"torch_tflops": 1200.0, "configs": [
        config("w4", 1000.0, 950.0, tilesim_ok=False, triton_ok=False, as_triton=True)]},
        "matmul_tf32_4096": {"torch_tflops": 380.0, "configs": [config("t", 300.0, 320.0)]},
        "matmul_i8_8192": {"torch_tflops": 700.0, "configs": [config("i", 600.0, 500.0)]}}, ceiling=790.0)
    paths = []
    for i, m in enumerate((first, second)):
        paths.append(os.path.join(out, f"m{i}.json"))
        json.dump(m, open(paths[-1], "w"))
    done = subprocess.run([sys.executable, TABLE, "--out", out, "--matrix", ",".join(paths)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    text = open(os.path.join(out, "table.md")).read()
    assert "commit 0123456789ab" in text.splitlines()[0], text
    vadd = row_of(text, "vadd")
    assert vadd[2].startswith("2700.0") and vadd[3].startswith("2850.0") and vadd[5].startswith("3000"), vadd
    assert vadd[6] == "0.947" and vadd[7] == "0.900" and vadd[8] == "0.950" and vadd[9] == "0.800", vadd
    mm = row_of(text, "matmul")
    assert mm[2] == "700.0 (big)" and mm[3] == "650.0 (wrong)", mm  # 700 / 650 = 1.077
    assert mm[6] == "1.077" and mm[5].startswith("800"), mm
    fp8 = row_of(text, "fp8_matmul")  # both miss torch's tolerance alike: both count; ceiling = torch's fp8 rate
    assert fp8[2] == "1000.0 (w4)" and fp8[3] == "950.0 (w4)" and fp8[5] == "1200 (torch fp8 GEMM)", fp8
    assert fp8[7] == "0.833", fp8
    tf32 = row_of(text, "matmul_tf32_4096")  # below the fp16 ceiling, and still its own: TF32's rate
    assert tf32[5] == "380 (torch tf32 GEMM)" and tf32[7] == "0.789", tf32
    i8 = row_of(text, "matmul_i8_8192")  # under the fp16 ceiling: that stays
    assert i8[5].startswith("790 (torch fp16"), i8
    missing = subprocess.run([sys.executable, TABLE, "--out", out, "--matrix", os.path.join(out, "absent.json")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "not found" in missing.stderr, (missing.returncode, missing.stderr)
    print("table.py: best configurations, ceilings, merge and a missing file: ok")


if __name__ == "__main__":
    main()
