#!/usr/bin/env python3
"""The cost of small launches (a unit test's kernel: 1024 f32 per program, 1, 16 and 98 programs), tilesim.interpret
against TRITON_INTERPRET=1, in one process per mode:

    python bench/python/launch_overhead.py tilesim      # or: triton
prints, per grid, the best of 5 x 100 launches (5 x 10 for Triton's interpreter on the larger grids), with the load
average before and after. The goal of issue 18: a repeated one-program launch costs <= 0.1 ms under tilesim."""
import os
import sys
import time

triton_mode = len(sys.argv) > 1 and sys.argv[1] == "triton"
if len(sys.argv) != 2 or sys.argv[1] not in ("tilesim", "triton"):
    sys.exit("usage: launch_overhead.py tilesim|triton")
if triton_mode:
    os.environ["TRITON_INTERPRET"] = "1"
import numpy as np  # noqa: E402
import triton  # noqa: E402,F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "python", "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench", "python"))
import kernels  # noqa: E402

print(f"{sys.argv[1]}: load average {os.getloadavg()[0]:.2f} before, {os.cpu_count()} cores")
for programs in (1, 16, 98):
    n = 1024 * programs
    x = np.ones(n, np.float32)
    out = np.zeros_like(x)
    if triton_mode:
        from numpy_tensor import NumpyTensor
        tx, to = NumpyTensor(x), NumpyTensor(out)

        def run():
            kernels.add_kernel[(programs,)](tx, tx, to, n, BLOCK_SIZE=1024)
    else:
        import tilesim

        def run():
            with tilesim.interpret():
                kernels.add_kernel[(programs,)](x, x, out, n, BLOCK_SIZE=1024)
    run()
    assert (out == 2).all()
    repeat = 100 if not triton_mode or programs == 1 else 10
    best = 1e9
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            run()
        best = min(best, (time.perf_counter() - start) / repeat)
    print(f"{sys.argv[1]}: {best * 1e6:8.0f} us per launch of {programs:2d} program(s) (1024 f32 each)")
print(f"{sys.argv[1]}: load average {os.getloadavg()[0]:.2f} after")
