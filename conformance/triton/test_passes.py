#!/usr/bin/env python3
"""Tests of `tilesim passes` (docs/ttgir.md "Pass by pass"): Triton 3.6's middle end under test, and the
localisation checked by fault injection. Needs a Python with the triton package (this one: it is passed to tilesim
as TILESIM_PYTHON); without it, exit 77 (ctest's SKIP_RETURN_CODE) with the reason.

    test_passes.py TILESIM pipeline [CASE_ROOT...]   every case with a kernel.ttir and a kernel.ttgir (Gluon cases
                                                     have no TTIR to start from) under the roots (default:
                                                     conformance/), through its target's pipeline: every module
                                                     after every pass must agree with the TTIR result (exit 0)
    test_passes.py TILESIM inject                    planted wrong rewrites after pass K: `passes` must name K;
                                                     and bad input gives exit 2 with one message
    test_passes.py TILESIM fuzz                      `tilesim fuzz --engine triton-passes`: 6 programs of seed 1
                                                     agree at every pass; with a rewrite planted after pass 12
                                                     (TILESIM_TRITON_PLANT_PASS) the finding names pass 12 and its
                                                     regression case holds the pass's diff
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77

# (case, K, kind, the pass named K in the sm_90 pipeline of triton_pipeline.py): each injection was checked to
# change the case's result (a rewrite that changes nothing observable cannot be localised, and is not listed).
INJECTIONS = [
    ("golden/softmax_f32", 3, "addf-to-subf", "common.canonicalizer"),
    ("golden/softmax_f32", 12, "addf-to-subf", "ttng.plan_cta"),
    ("golden/softmax_f32", 40, "addf-to-subf", "ttir.loop_aware_cse"),
    ("golden/masked_no_other_f32", 1, "make-range-shift", "common.inliner"),
    ("golden/masked_no_other_f32", 20, "cmpi-predicate", "ttg.fuse_nested_loops"),
    ("golden/masked_no_other_f32", 44, "make-range-shift", "common.sccp"),
    ("golden/cumsum_i32", 9, "cmpi-predicate", "ttir.convert_to_ttgpuir"),
    ("real-kernels/tut03_matmul_fp8e5_f16_matmul_kernel_0", 28, "drop-async-wait", "ttg.pipeline"),
    ("real-kernels/tut03_matmul_fp8e5_f16_matmul_kernel_0", 40, "drop-async-wait", "ttir.loop_aware_cse"),
]

# (arguments, a piece of the one error message): each must exit 2.
BAD_INPUTS = [
    (["conformance/no_such_case"], "case.json"),
    (["conformance/golden/softmax_f32", "--inject-after", "3"], "go together"),
    (["conformance/golden/softmax_f32", "--inject-after", "999", "--inject", "addf-to-subf"], "passes 1 to"),
    (["conformance/golden/softmax_f32", "--inject-after", "2", "--inject", "drop-async-wait"], "nothing to rewrite"),
    (["conformance/golden/softmax_f32", "--target", "sm_70"], "sm_70"),
    (["conformance/golden/softmax_f32", "--num-stages", "0"], "num-stages"),
    (["conformance/golden/softmax_f32", "--num-warps", "3"], "num-warps"),
]


def run(tilesim, arguments):
    environment = dict(os.environ, TILESIM_PYTHON=sys.executable)
    return subprocess.run([tilesim, "passes", *arguments], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=600)


def test_pipeline(tilesim, roots):
    cases = sorted(os.path.dirname(os.path.join(directory, "kernel.ttgir"))
                   for root in roots for directory, _, files in os.walk(os.path.join(ROOT, root))
                   if "kernel.ttgir" in files and "kernel.ttir" in files and "case.json" in files)
    if not cases:
        print(f"FAIL: no case with a kernel.ttgir under {roots}")
        return 1
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda case: (case, run(tilesim, [case, "--threads", "1"])), cases))
    failures, modules, passes = 0, 0, set()
    for case, result in results:
        summary = re.search(r"^(\d+) modules \(the input and (\d+) passes\): (\d+) agree", result.stdout, re.M)
        if result.returncode != 0 or summary is None or summary.group(1) != summary.group(3):
            failures += 1
            print(f"FAIL {os.path.relpath(case, ROOT)} (exit {result.returncode}):\n{result.stdout[-3000:]}{result.stderr[-2000:]}")
            continue
        modules += int(summary.group(1))
        passes.add(int(summary.group(2)))
    print(f"{len(cases)} kernels x {sorted(passes)} passes: {modules} modules ({modules - len(cases)} after a pass), "
          f"{len(cases) - failures} kernels agree at every pass, {failures} do not ({time.time() - start:.0f} s)")
    return 1 if failures else 0


def test_inject(tilesim):
    failures = 0
    for case, after, kind, name in INJECTIONS:
        result = run(tilesim, [os.path.join("conformance", case), "--inject-after", str(after), "--inject", kind])
        named = re.search(r"^first differing pass: (\d+) (\S+)$", result.stdout, re.M)
        ok = result.returncode == 1 and named is not None and named.groups() == (str(after), name) and \
            f"+++ {after:03d}-" in result.stdout
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {case} --inject-after {after} --inject {kind}: exit {result.returncode}, "
              f"named {named.groups() if named else None}, expected ({after}, {name})")
        if not ok:
            print(result.stdout[-3000:], result.stderr[-2000:])
    for arguments, message in BAD_INPUTS:
        result = run(tilesim, arguments)
        errors = [line for line in result.stderr.splitlines() if line.strip()]
        ok = result.returncode == 2 and any(message in line for line in errors) and "Traceback" not in result.stderr
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} passes {' '.join(arguments)}: exit {result.returncode}, {errors[:1]}")
    return 1 if failures else 0


def fuzz(tilesim, arguments, plant=None):
    environment = dict(os.environ, TILESIM_PYTHON=sys.executable)
    if plant:
        environment["TILESIM_TRITON_PLANT_PASS"] = plant
    return subprocess.run([tilesim, "fuzz", "--engine", "triton-passes", "--seed", "1", "--jobs", "1", "--quiet",
                           *arguments], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)


def test_fuzz(tilesim):
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tilesim-triton-passes-test-") as regressions:
        clean = fuzz(tilesim, ["--count", "6", "--regressions", regressions])
        ok = clean.returncode == 0 and re.search(r"checks run:.*triton-passes-agree [1-9]", clean.stderr + clean.stdout)
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} 6 programs of seed 1: exit {clean.returncode}")
        if not ok:
            print(clean.stdout[-3000:], clean.stderr[-3000:])
        planted = fuzz(tilesim, ["--count", "2", "--no-shrink", "--regressions", regressions], "12:make-range-shift")
        output = planted.stdout + planted.stderr
        diffs = glob.glob(os.path.join(regressions, "fuzz_triton-passes_triton-pass-mismatch_*", "pass.diff"))
        ok = planted.returncode == 1 and "the module after pass 12 ttng.plan_cta" in output and len(diffs) == 1 and \
            "+++ 012-ttng.plan_cta.mlir" in open(diffs[0]).read()
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} planted make-range-shift after pass 12: exit {planted.returncode}, "
              f"{len(diffs)} regression case(s) with a pass.diff")
        if not ok:
            print(output[-3000:])
    return 1 if failures else 0


def main(argv):
    if len(argv) < 2 or argv[1] not in ("pipeline", "inject", "fuzz"):
        print(__doc__)
        return 2
    try:
        import triton  # noqa: F401
        from triton._C.libtriton import ir  # noqa: F401
    except ImportError as exc:
        print(f"skipped: {sys.executable} cannot import triton ({exc})")
        return SKIP
    if argv[1] == "pipeline":
        return test_pipeline(argv[0], argv[2:] or ["conformance"])
    if argv[1] == "fuzz":
        return test_fuzz(argv[0])
    return test_inject(argv[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
