#!/usr/bin/env python3
"""The cost of one small launch (one program, 1024 f32: a unit test's kernel), tilesim.interpret against
TRITON_INTERPRET=1: `python bench/python/launch_overhead.py tilesim|triton` prints the best of 5 x 100 launches."""
import os, sys, time
triton_mode = sys.argv[1] == "triton"
if triton_mode: os.environ["TRITON_INTERPRET"] = "1"
import numpy as np, triton
sys.path.insert(0, "tools/python/tests"); sys.path.insert(0, "bench/python")
import kernels
x = np.ones(1024, np.float32); out = np.zeros_like(x)
if triton_mode:
    from numpy_tensor import NumpyTensor
    tx, to = NumpyTensor(x), NumpyTensor(out)
    run = lambda: kernels.add_kernel[(1,)](tx, tx, to, 1024, BLOCK_SIZE=1024)
else:
    import tilesim
    def run():
        with tilesim.interpret():
            kernels.add_kernel[(1,)](x, x, out, 1024, BLOCK_SIZE=1024)
run()
best = 1e9
for _ in range(5):
    t = time.perf_counter()
    for _ in range(100): run()
    best = min(best, (time.perf_counter() - t) / 100)
print(sys.argv[1], f"{best*1e6:.0f} us per one-program launch (1024 f32)")
