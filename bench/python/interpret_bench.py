#!/usr/bin/env python3
"""tilesim.interpret against Triton's own interpreter (TRITON_INTERPRET=1) on the same Triton kernels: the
users'-style kernels of tools/python/tests/kernels.py at benchmark sizes.

    python bench/python/interpret_bench.py                 # tilesim.interpret on numpy arrays (checks on)
    python bench/python/interpret_bench.py --no-checks     # checks off
    python bench/python/interpret_bench.py --triton        # TRITON_INTERPRET=1 on the same numpy arrays

Each kernel runs once as a warm-up (for tilesim that includes Triton's front end making the TTIR; for Triton's
interpreter, nothing: it has no compile step) and is checked against a numpy float64 reference, then `--repeat` timed runs; the best
time.perf_counter time is printed, with the machine's CPU and thread count. A wrong result is an error.
"""
import argparse
import math
import os
import platform
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--triton", action="store_true", help="run under TRITON_INTERPRET=1 (numpy_tensor.py)")
parser.add_argument("--no-checks", action="store_true")
parser.add_argument("--threads", type=int, default=0)
parser.add_argument("--repeat", type=int, default=3)
parser.add_argument("--kernel", action="append", help="vadd, softmax, layernorm, matmul, attention")
parser.add_argument("--torch", action="store_true",
                    help="pass CPU torch tensors (torch.from_numpy, the same memory) instead of numpy arrays; with "
                         "--triton this is Triton's interpreter as its users run it")
options = parser.parse_args()
if options.triton:
    os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported
else:
    # numpy's BLAS is used here only for the references; its threads would spin on the CPUs tilesim's threads run
    # on after each reference matmul (Triton's interpreter keeps them: its tl.dot is numpy's matmul).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import triton  # noqa: E402

if options.triton and tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 5):
    # Triton 3.6's interpreter turns a scalar tensor into a Python int with int() of its 1-element numpy array
    # (tensor.__index__, e.g. the bounds of tl.range), which numpy 2.5 refuses (`TypeError: only 0-dimensional
    # arrays can be converted to Python scalars`; the GPU host has numpy 2.5.2). The same value through .item(),
    # so Triton's interpreter runs as it does under older numpy; the patch is printed in the header.
    import triton.runtime.interpreter as _interpreter

    _original_patch = _interpreter._patch_lang_tensor

    def _patch_lang_tensor(tensor, scope):
        _original_patch(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0].item()))

    _interpreter._patch_lang_tensor = _patch_lang_tensor
    NUMPY_SHIM = f"; numpy {np.__version__}: tensor.__index__ through .item()"
else:
    NUMPY_SHIM = ""

# tests/kernels.py loads the quickstart's kernels, and the quickstart imports tilesim: the package is on the path
# in every mode (under --triton it is imported, not used).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "python", "tests"))
import kernels  # noqa: E402

if options.torch:
    import torch

    def to_device(a):
        return torch.from_numpy(np.ascontiguousarray(a))

    def to_host(t):
        return t.numpy()
if options.triton and not options.torch:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from numpy_tensor import NumpyTensor  # the arrays in place, through the tensor methods Triton's interpreter uses

    def to_device(a):
        return NumpyTensor(np.ascontiguousarray(a))

    def to_host(t):
        return t.array

    def launcher(fn):
        return fn
elif options.triton:
    def launcher(fn):
        return fn
else:
    import tilesim

    if not options.torch:
        def to_device(a):
            return a

        def to_host(a):
            return a

    def launcher(fn):
        def run():
            with tilesim.interpret(checks=not options.no_checks, threads=options.threads):
                fn()
        return run

rng = np.random.default_rng(0)


def vadd():
    n = 1 << 20
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = to_device(np.zeros(n, np.float32))
    dx, dy = to_device(x), to_device(y)
    run = launcher(lambda: kernels.add_kernel[(n // 1024,)](dx, dy, out, n, BLOCK_SIZE=1024))
    return run, lambda: np.abs(to_host(out) - (x + y)).max(), 0.0


def softmax():
    x = rng.standard_normal((256, 1024), dtype=np.float32)
    out = to_device(np.zeros_like(x))
    dx = to_device(x)
    run = launcher(lambda: kernels.softmax_kernel[(256,)](out, dx, 1024, 1024, 256, 1024, BLOCK_SIZE=1024,
                                                          num_stages=1))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return run, lambda: np.abs(to_host(out) - e / e.sum(axis=1, keepdims=True)).max(), 1e-6


def layernorm():
    m, n = 4096, 1024
    x = rng.standard_normal((m, n), dtype=np.float32)
    w, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    y, mean, rstd = (to_device(np.zeros(s, np.float32)) for s in [(m, n), m, m])
    dx, dw, db = to_device(x), to_device(w), to_device(b)
    run = launcher(lambda: kernels.layernorm[(m,)](dx, y, dw, db, mean, rstd, n, n, 1e-5, BLOCK=1024))
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5) * w + b
    return run, lambda: np.abs(to_host(y) - ref).max(), 1e-4


def matmul():
    s = 256
    a, b = rng.standard_normal((s, s), dtype=np.float32), rng.standard_normal((s, s), dtype=np.float32)
    c = to_device(np.zeros((s, s), np.float16))
    da, db = to_device(a), to_device(b)
    grid = lambda meta: (triton.cdiv(s, meta["BLOCK_SIZE_M"]) * triton.cdiv(s, meta["BLOCK_SIZE_N"]),)
    if options.triton:  # its autotuner benchmarks configs through a GPU driver, which this machine lacks: call the
        # kernel under it with the first config, the one tilesim.interpret runs
        config = kernels.matmul_kernel.configs[0]
        run = lambda: kernels.matmul_kernel.fn[grid](da, db, c, s, s, s, s, 1, s, 1, s, 1, **config.all_kwargs())
    else:
        run = launcher(lambda: kernels.matmul_kernel[grid](da, db, c, s, s, s, s, 1, s, 1, s, 1))
    ref = a.astype(np.float64) @ b
    return run, lambda: (np.abs(to_host(c).astype(np.float64) - ref) / (1 + np.abs(ref))).max(), 2e-3


def attention():
    seq, d = 512, 64
    q, k, v = (rng.standard_normal((seq, d), dtype=np.float32) for _ in range(3))
    out = to_device(np.zeros((seq, d), np.float32))
    dq, dk, dv = to_device(q), to_device(k), to_device(v)
    scale = 1 / math.sqrt(d)
    run = launcher(lambda: kernels.attention_fwd[(seq // 64,)](dq, dk, dv, out, scale, seq, d, d, d, d,
                                                               HEAD_DIM=d, BLOCK_M=64, BLOCK_N=64))
    s_ = (q.astype(np.float64) @ k.T) * scale
    p = np.exp(s_ - s_.max(1, keepdims=True))
    return run, lambda: np.abs(to_host(out) - (p / p.sum(1, keepdims=True)) @ v).max(), 1e-4


KERNELS = {"vadd": vadd, "softmax": softmax, "layernorm": layernorm, "matmul": matmul, "attention": attention}

cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
mode = "TRITON_INTERPRET=1" if options.triton else \
    f"tilesim.interpret (checks {'off' if options.no_checks else 'on'}, threads {options.threads or os.cpu_count()})"
mode += "; CPU torch tensors" if options.torch else "; numpy arrays"
mode += NUMPY_SHIM
print(f"# {mode}; {cpu}, {os.cpu_count()} CPUs; Python {platform.python_version()}, triton {triton.__version__}")
print(f"{'kernel':10s} {'best s':>10s} {'warm-up s':>10s} {'max err':>10s}")
failed = 0
for name in options.kernel or KERNELS:
    run, error, tolerance = KERNELS[name]()
    start = time.perf_counter()
    try:
        run()
    except Exception as exc:  # e.g. TRITON_INTERPRET=1 under numpy >= 2.5 (a tensor's __index__ on a 1-element array)
        failed += 1
        print(f"{name:10s} {'-':>10s} {'-':>10s} {'-':>10s}  FAILED: {type(exc).__name__}: {str(exc)[:160]}",
              flush=True)
        continue
    warm = time.perf_counter() - start
    err = error()
    times = []
    for _ in range(options.repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    status = "" if err <= tolerance else f"  WRONG (tolerance {tolerance})"
    failed += bool(status)
    print(f"{name:10s} {min(times):10.4f} {warm:10.4f} {err:10.2e}{status}", flush=True)
sys.exit(1 if failed else 0)
