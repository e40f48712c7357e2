"""The recorder's case writing, on the CPU: synthetic snapshots through _cases.write_case, and whole launches
recorded under tilesim.interpret (the "device" is tilesim) then replayed by `tilesim conformance`. The GPU path
(torch CUDA tensors, device synchronisation) is not exercised here."""
import json
import os
import subprocess

import numpy as np
import triton
import triton.language as tl

import kernels
from replay import replay_cases
import tilesim
from tilesim import _cases, capture

THREADS = int(os.environ.get("TILESIM_TEST_THREADS", "0"))


def load(case_dir):
    with open(os.path.join(case_dir, "case.json")) as file:
        return json.load(file)


def args_by_name(case):
    return {a["name"]: a for a in case["args"]}


def test_write_case_views_aliases_and_bit_patterns(tmp_path):
    storage = np.arange(64, dtype=np.float32)
    column = np.arange(30, dtype=np.float32).reshape(5, 6)[:, 1:4]  # non-contiguous
    bits = np.arange(8, dtype=np.uint16)
    fp8 = np.arange(8, dtype=np.uint8)
    raw = {"x": storage, "y": storage[16:], "c": column, "h": tilesim.as_dtype(bits, tl.bfloat16),
           "q": tilesim.as_dtype(fp8, tl.float8e5)}
    before = {n: capture.snapshot(n, v) for n, v in raw.items()}
    storage[20] = -1.0
    after = {n: capture.snapshot(n, v) for n, v in raw.items()}
    record = _cases.CaseRecord(name="synthetic", entry="k", ttir="module {}\n", grid=(2,), num_warps=4,
                               constexprs={"BLOCK": 16}, arguments=[("tensor", before[n], after[n]) for n in raw]
                               + [("scalar", "n", 7), ("scalar", "eps", 1e-5), ("scalar", "flag", True)])
    case_dir = _cases.write_case(str(tmp_path), record)
    case = load(case_dir)
    args = args_by_name(case)
    assert case["grid"] == [2, 1, 1] and case["constexprs"] == {"BLOCK": 16}
    assert args["x"]["shape"] == [64] and "alias_of" not in args["x"]
    assert args["y"]["alias_of"] == "x" and args["y"]["alias_offset"] == 64 and args["y"]["shape"] == [48]
    assert args["c"]["shape"] == [27] and args["c"]["view_shape"] == [5, 3] and args["c"]["view_strides"] == [6, 1]
    assert args["h"]["dtype"] == "bfloat16" and np.load(os.path.join(case_dir, "h.npy")).dtype == np.int16
    assert args["q"]["dtype"] == "float8_e5m2" and np.load(os.path.join(case_dir, "q.npy")).dtype == np.uint8
    assert args["n"] == {"name": "n", "kind": "scalar", "pytype": "int", "value": 7}
    assert args["flag"]["pytype"] == "bool" and args["eps"]["pytype"] == "float"
    np.testing.assert_array_equal(np.load(os.path.join(case_dir, "x.npy")), np.arange(64))
    assert np.load(os.path.join(case_dir, "x.expected.npy"))[20] == -1
    assert np.load(os.path.join(case_dir, "y.expected.npy"))[4] == -1
    np.testing.assert_array_equal(np.load(os.path.join(case_dir, "c.npy")), np.arange(1, 28))
    assert "bit patterns" in case["notes"] and "c: view" in case["notes"]


def record_workload(directory):
    n = 1000
    x = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    big = np.random.default_rng(1).standard_normal((6, 300), dtype=np.float32)
    shared = np.arange(256, dtype=np.float32)
    bits = np.arange(0x3F80, 0x3F80 + 100, dtype=np.uint16)
    bits_out = np.zeros_like(bits)
    m, nn, k = 40, 33, 50
    a = np.random.default_rng(2).standard_normal((m, k), dtype=np.float32)
    b = np.random.default_rng(3).standard_normal((k, nn), dtype=np.float32)
    c = np.zeros((m, nn), np.float16)
    with tilesim.interpret(threads=THREADS), capture.record(directory, quiet=True) as recorder:
        for _ in range(2):  # the second launch has the same specialisation: deduplicated
            kernels.add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, x, out, n, BLOCK_SIZE=256)
        view = big[:, 20:220]
        kernels.softmax_kernel[(3,)](view, view, 300, 300, 6, 200, BLOCK_SIZE=256, num_stages=1)
        kernels.copy_shifted[(2,)](shared[:128], shared[128:], 128, BLOCK=64)
        kernels.copy_shifted[(2,)](tilesim.as_dtype(bits, tl.bfloat16), tilesim.as_dtype(bits_out, tl.bfloat16),
                                   100, BLOCK=64)
        grid = lambda meta: (triton.cdiv(m, meta["BLOCK_SIZE_M"]) * triton.cdiv(nn, meta["BLOCK_SIZE_N"]),)
        kernels.matmul_kernel[grid](a, b, c, m, nn, k, k, 1, nn, 1, nn, 1)
    return recorder


def test_recorded_launches_replay_on_the_cpu(tmp_path):
    recorder = record_workload(str(tmp_path))
    summary = recorder.summary
    assert summary.failed == []
    assert summary.recorded == {"add_kernel": 1, "softmax_kernel": 1, "copy_shifted": 2, "matmul_kernel": 1}
    assert summary.skipped == {"duplicate specialisation": 1}
    cases = sorted(os.listdir(tmp_path))
    assert len(cases) == 5
    by_entry = {}
    for name in cases:
        case = load(tmp_path / name)
        by_entry.setdefault(case["entry"], []).append(case)
    softmax = args_by_name(by_entry["softmax_kernel"][0])
    assert softmax["output_ptr"]["view_shape"] == [6, 200] and softmax["output_ptr"]["view_strides"] == [300, 1]
    assert softmax["input_ptr"]["alias_of"] == "output_ptr"
    shifted = [args_by_name(c) for c in by_entry["copy_shifted"]]
    assert any(a["dst_ptr"].get("alias_of") == "src_ptr" and a["dst_ptr"]["alias_offset"] == 512 for a in shifted)
    assert any(a["src_ptr"]["dtype"] == "bfloat16" for a in shifted)
    matmul = by_entry["matmul_kernel"][0]
    assert matmul["constexprs"]["BLOCK_SIZE_M"] == 32 and matmul["capture"]["launch_path"] == "Autotuner.run"
    assert matmul["num_warps"] == 4 and matmul["grid"] == [4, 1, 1]

    replay_cases(tmp_path)


def test_capture_command_line(tmp_path):
    script = tmp_path / "workload.py"
    script.write_text(
        "import sys, numpy as np, tilesim\n"
        f"sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
        "import kernels\n"
        "x = np.ones(100, np.float32); out = np.zeros(100, np.float32)\n"
        "with tilesim.interpret():\n"
        "    kernels.add_kernel[(1,)](x, x, out, 100, BLOCK_SIZE=128)\n"
        "assert sys.argv[1:] == ['--steps', '2']\n")
    import sys
    done = subprocess.run([sys.executable, "-m", "tilesim.capture", "-o", str(tmp_path / "cases"), "--", "python",
                           str(script), "--steps", "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1 case(s) from 1 kernel(s)" in done.stderr
    assert len(os.listdir(tmp_path / "cases")) == 1


def test_total_size_limit_stops_recording(tmp_path):
    x = np.ones(1000, np.float32)
    out = np.zeros(1000, np.float32)
    with tilesim.interpret(threads=THREADS), capture.record(str(tmp_path), quiet=True,
                                                            max_total_bytes=30_000) as recorder:
        kernels.add_kernel[(4,)](x, x, out, 1000, BLOCK_SIZE=256)   # 3 arguments of 4000 bytes, before and after: 24000
        kernels.scale_kernel[(8,)](out, 1000, 2.0)                  # 8000 more would pass 30000 in all: skipped
    assert recorder.summary.recorded == {"add_kernel": 1}
    assert recorder.summary.skipped == {"over the total of 30000 bytes": 1}
    np.testing.assert_array_equal(out, 4 * x)  # a skipped launch still runs
