#!/usr/bin/env python3
"""Tests of the real-Triton fuzz scripts that need no GPU (ctest triton_fuzz_scripts, label python):
the bit comparison (NaN payloads equal, -0 and +0 not), parameter names, case writing and replay, the reducer,
the CPU campaign's classification of a difference, and fuzz_triton_gpu.py end to end with the interpreter
standing in for the GPU (--launcher tilesim) — real triton.compile to a cubin on the CPU, a planted wrong output
found, judged and reduced.

    python3 conformance/triton/test_fuzz_scripts.py TILESIM
Exit 0 when every test passes, 1 otherwise, 77 when triton is not importable (numpy-only tests still run).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import fuzzcases  # noqa: E402

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL", message)


def test_compare_bits():
    quiet, payload = np.array([0x7FC00000, 0x3F800000], np.uint32), np.array([0x7FC00001, 0x3F800000], np.uint32)
    check(fuzzcases.compare_bits(quiet, payload, "float32") == (0, -1), "two f32 NaNs with other payloads are equal")
    zeros = (np.array([0x00000000], np.uint32), np.array([0x80000000], np.uint32))
    check(fuzzcases.compare_bits(*zeros, "float32") == (1, 0), "+0 and -0 differ")
    check(fuzzcases.compare_bits(np.array([0x7FC1], np.uint16), np.array([0x7F81], np.uint16), "bfloat16")[0] == 0,
          "bf16 NaNs are equal")
    check(fuzzcases.compare_bits(np.array([0x7F80], np.uint16), np.array([0x7F81], np.uint16), "bfloat16")[0] == 1,
          "bf16 inf is not NaN")
    check(fuzzcases.compare_bits(np.array([0x7FC1], np.uint16), np.array([0x7F81], np.uint16), "int16")[0] == 1,
          "integers compare bit for bit")
    check(fuzzcases.compare_bits(np.array([0x7F], np.uint8), np.array([0xFF], np.uint8), "float8_e4m3fn")[0] == 0,
          "e4m3fn NaNs (0x7F, 0xFF) are equal")
    check(fuzzcases.compare_bits(np.array([1, 2, 3], np.uint8), np.array([1, 9, 9], np.uint8), "int8") == (2, 1),
          "count and first index")


KERNEL = """module {
  tt.func public @k(%arg0: !tt.ptr<f32> loc("/tmp/x.ttir":2:21), %arg1: i32 loc("/tmp/x.ttir":2:43)) {
    %0 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %x_ptr = arith.constant 0 : i32
    tt.return
  }
}
"""


def test_parameter_names():
    check(fuzzcases.param_names(KERNEL) == [("arg0", "!tt.ptr<f32>"), ("arg1", "i32")], "param_names with locs")
    original = KERNEL.replace("%arg0:", "%x_ptr:").replace("%arg1:", "%n:")
    text, renamed = fuzzcases.restore_parameter_names(original, KERNEL)
    # %x_ptr is already a value name in the body: that parameter keeps %arg0; %n is renamed
    check(renamed == 1 and "%n: i32" in text and "%arg0: !tt.ptr<f32>" in text, f"restore names: {text}")


def test_case_round_trip(tilesim, work):
    source = os.path.join(REPO, "conformance", "golden", "vadd_f32")
    case = fuzzcases.load_case(source)
    plain = fuzzcases.write_case(source, os.path.join(work, "plain"), case, strip_reports=True)
    run = fuzzcases.run_tilesim(tilesim, plain, os.path.join(work, "plain-out"))
    check(run.returncode == 0 and os.path.exists(run.output("out_ptr")), f"plain run: {run.text[-300:]}")
    judged = fuzzcases.write_case(source, os.path.join(work, "judged"), case,
                                  expected={"out_ptr": run.output("out_ptr")})
    again = fuzzcases.run_tilesim(tilesim, judged, os.path.join(work, "judged-out"))
    check(again.returncode == 0 and "bit-exact" in again.text, f"judged replay: {again.text[-300:]}")
    # a kernel that computes something else: the CPU campaign's comparison sees it
    with open(os.path.join(source, "kernel.ttir")) as handle:
        wrong = handle.read().replace("arith.addf", "arith.subf")
    other = fuzzcases.write_case(source, os.path.join(work, "other"), case, kernel_text=wrong, strip_reports=True)
    after = fuzzcases.run_tilesim(tilesim, other, os.path.join(work, "other-out"))
    differences = fuzzcases.compare_runs(case, run, after)
    check([d["name"] for d in differences] == ["out_ptr"] and differences[0]["differ"] > 9000,
          f"compare_runs finds the subf: {differences}")
    import fuzz_triton_opt
    outcome, classification, _ = fuzz_triton_opt.classify(case, run, after, differences, wrong, wrong)
    check(outcome == "finding" and classification == "triton-optimiser?", f"classified {outcome} {classification}")
    # reports: an out-of-bounds launch is counted per kind
    diag = os.path.join(REPO, "conformance", "diagnostics", "oob_unmasked_load")
    bad = fuzzcases.write_case(diag, os.path.join(work, "oob"), fuzzcases.load_case(diag), strip_reports=True)
    oob = fuzzcases.run_tilesim(tilesim, bad, os.path.join(work, "oob-out"))
    check(dict(oob.reports) == {"out-of-bounds": 28} and oob.total_reports == 28, f"reports {dict(oob.reports)}")


def test_reducer(tilesim, work):
    with open(os.path.join(REPO, "conformance", "golden", "softmax_f32", "kernel.ttir")) as handle:
        text = handle.read()
    path = os.path.join(work, "candidate.ttir")

    def still_fails(candidate):  # "the bug": a math.exp that reaches a store, in a module tilesim accepts
        with open(path, "w") as handle:
            handle.write(candidate)
        ok = subprocess.run([tilesim, "check", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return ok.returncode == 0 and "math.exp" in candidate and "tt.store" in candidate

    reduced, calls = fuzzcases.reduce_ttir(text, still_fails, budget=200)
    before, after = fuzzcases.count_ops(text), fuzzcases.count_ops(reduced)
    check(still_fails(reduced) and after <= 8 < before, f"reducer: {before} -> {after} ops in {calls} checks")
    print(f"  reducer: softmax {before} -> {after} ops ({calls} checks)")


def test_gpu_script(tilesim, work):
    cases = os.path.join(work, "gpu-cases")
    for name in ("softmax_f32", "vadd_f32"):
        source = os.path.join(REPO, "conformance", "golden", name)
        fuzzcases.write_case(source, os.path.join(cases, name), fuzzcases.load_case(source),
                             expected={a["name"]: os.path.join(source, a["expected"])
                                       for a in fuzzcases.load_case(source)["args"] if a.get("expected")})
    script = os.path.join(HERE, "fuzz_triton_gpu.py")
    out = os.path.join(work, "gpu-out")
    done = subprocess.run([sys.executable, script, "--tilesim", tilesim, "--out", out, "--launcher", "tilesim",
                           "--plant", "math.exp", "--jobs", "2", "--seconds", "120", cases],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = done.stdout.decode("utf-8", "replace")
    summary = json.load(open(os.path.join(out, "summary.json")))
    rows = {(r["name"], r["variant"]): r for r in summary["rows"]}
    check(done.returncode == 1, f"planted: exit {done.returncode}\n{text[-2000:]}")
    check(all(r["compiled"] and r["launched"] for r in rows.values()), "every variant compiled (cubin) and ran")
    check(rows[("vadd_f32", "raw")]["agreed"] and rows[("vadd_f32", "make_ttir")]["agreed"], "vadd agrees")
    softmax = rows[("softmax_f32", "make_ttir")]
    check(not softmax["agreed"] and softmax.get("reduced", {}).get("ops_after", 99) < 15,
          f"softmax disagreement found and reduced: {softmax.get('reduced')}")
    reduced = softmax.get("reduced", {}).get("path")
    check(reduced and os.path.exists(os.path.join(reduced, "case.json")), "the reduced case is written")
    clean = subprocess.run([sys.executable, script, "--tilesim", tilesim, "--out", out + "-clean", "--launcher",
                            "tilesim", "--jobs", "2", "--variants", "raw", cases], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    check(clean.returncode == 0, f"unplanted: exit {clean.returncode}\n{clean.stdout.decode()[-1500:]}")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    tilesim = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        test_compare_bits()
        test_parameter_names()
        test_case_round_trip(tilesim, work)
        test_reducer(tilesim, work)
        try:
            import triton  # noqa: F401
        except ImportError:
            print("skipped: the triton package is not importable (the GPU script's test needs triton.compile)")
            return 1 if FAILURES else 77
        test_gpu_script(tilesim, work)
    print(f"{len(FAILURES)} failures" if FAILURES else "all passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
