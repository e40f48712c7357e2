#!/usr/bin/env python3
"""The six interpreter-benchmark kernels (bench/interpreter/kernels/*.ttir) as Triton Python, timed under
Triton's own interpreter (TRITON_INTERPRET=1) on torch CPU tensors, so that bench_interpreter's times can be
compared with Triton's on the same machine.

Each kernel is written so that Triton 3.6 lowers it to the TTIR in bench/interpreter/kernels/ (same shapes,
block sizes, dtypes, masks, loop structure and program grid as bench/interpreter/BenchCases.cpp). Each kernel
runs once as a warm-up (whose output is checked against a torch float64 reference), then --repeat times; the
best time is printed (time.perf_counter around the launch, which in the interpreter includes its copies of the
arguments). A kernel that the interpreter cannot run, that gives a wrong result, or that takes more than
--limit seconds in one launch is reported as such; the script goes on with the next one.

    python3 bench/triton/triton_interpreter_bench.py [--kernel NAME]... [--repeat N] [--limit SECONDS]

With --tilesim [--no-checks] [--threads N] the same kernels, tensors and checks run under tilesim.interpret
instead (the Python package, tools/python; docs/python.md), so both interpreters are timed on one machine.
"""
import os
import sys

TILESIM = "--tilesim" in sys.argv
if not TILESIM:
    os.environ["TRITON_INTERPRET"] = "1"  # must be set before triton is imported

import argparse
import platform
import runpy
import signal
import time
import traceback

import numpy as np
import torch
import triton
import triton.language as tl

if TILESIM:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "python"))
    import tilesim
TILESIM_OPTIONS = {}


# ---- kernels (one per .ttir file) ----
# LOOP BOUNDS: the TTIR loops run to a runtime i32 (cdiv(K, 32) in matmul, N_CTX in attention). Triton 3.6's
# interpreter holds a scalar argument as a 1-element NumPy array and turns a loop bound into a Python int with
# int(array), which NumPy 2.5 refuses ("only 0-dimensional arrays can be converted to Python scalars"), so those
# kernels cannot run as written there. The loops here take their trip count from an extra constexpr argument of
# the same value instead; the interpreter runs a Python loop either way, so the work it does is the same (the
# masks and offsets still use the runtime K and N_CTX).

# vadd and row_softmax are the golden cases' kernels (conformance/golden/kernels.py), loaded from there.
GOLDEN_KERNELS = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "conformance",
                                             "golden", "kernels.py"))
vadd, row_softmax = GOLDEN_KERNELS["vadd"], GOLDEN_KERNELS["row_softmax"]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr, K_TILES: tl.constexpr):
    pid = tl.program_id(0)
    npm = (M + BM - 1) // BM
    npn = (N + BN - 1) // BN
    per_group = npn * GROUP
    gid = pid // per_group
    first_m = gid * GROUP
    gsize = tl.minimum(npm - first_m, GROUP)
    pm = first_m + (pid % per_group) % gsize
    pn = (pid % per_group) // gsize
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K_TILES):  # == cdiv(K, BK); see LOOP BOUNDS below
        kmask = rk < K - k * BK
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & kmask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=kmask[:, None] & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)  # input_precision defaults to tf32, as in the TTIR
        a_ptrs += BK
        b_ptrs += sbk * BK
    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    y = xc * rstd * w + b
    tl.store(Y + cols, y, mask=mask)


@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, N_CTX,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, N_CTX_LOOP: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    qkv_offset = off_hz * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    Q += qkv_offset
    K += qkv_offset
    V += qkv_offset
    Out += qkv_offset
    q_offs = offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    q = tl.load(Q + q_offs)
    kv_offs = offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    k_ptrs = K + kv_offs
    v_ptrs = V + kv_offs
    qk_scale = sm_scale * 1.44269504
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    for start_n in range(0, N_CTX_LOOP, BLOCK_N):  # N_CTX_LOOP == N_CTX; see LOOP BOUNDS below
        k = tl.load(k_ptrs)
        qk = tl.dot(q, tl.trans(k))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        acc = tl.dot(p.to(tl.float16), v, acc)
        k_ptrs += BLOCK_N * HEAD_DIM
        v_ptrs += BLOCK_N * HEAD_DIM
    acc = acc / l_i[:, None]
    tl.store(Out + q_offs, acc)


# ---- cases: inputs, launch, reference ----
# Each case returns (launch, check): launch() runs the kernel once on fresh outputs; check() returns
# (max abs error, tolerance, what) for the last launch.

def uniform(shape, low, high, generator, dtype=torch.float32):
    return (torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low).to(dtype)


def max_abs(actual, expected):
    return (actual.double() - expected).abs().max().item()


def vadd_case(gen):
    n = 1 << 20
    x, y = uniform(n, -1, 1, gen), uniform(n, -1, 1, gen)
    out = torch.empty(n, dtype=torch.float32)

    def launch():
        vadd[(n // 1024,)](x, y, out, n, BLOCK=1024)

    def check():
        return max_abs(out, (x + y).double()), 0.0, "out vs x+y in f32"
    return launch, check, "1M f32, BLOCK 1024", n, False


def softmax_case(gen):
    rows, cols = 256, 1024
    x = uniform((rows, cols), -4, 4, gen)
    out = torch.empty_like(x)

    def launch():
        row_softmax[(rows,)](out, x, cols, cols, cols, BLOCK=1024)

    def check():
        return max_abs(out, torch.softmax(x.double(), dim=1)), 1e-6, "out vs fp64 softmax"
    return launch, check, "256x1024 f32, row/program", rows * cols, False


def matmul_case(size):
    def make(gen):
        a, b = uniform((size, size), -1, 1, gen), uniform((size, size), -1, 1, gen)
        c = torch.empty((size, size), dtype=torch.float32)

        def launch():
            grid = ((size // 64) * (size // 64),)
            matmul[grid](a, b, c, size, size, size, size, size, size, BM=64, BN=64, BK=32, GROUP=4,
                         K_TILES=(size + 31) // 32)

        def check():
            # Triton's interpreter multiplies in full f32 (np.matmul), not tf32: compare with the fp64 product
            # of the f32 inputs, with bench_interpreter's bound for f32 accumulation.
            return max_abs(c, a.double() @ b.double()), size * size * 2.0 ** -24, "c vs fp64"
        return launch, check, f"{size}^3 f32 tf32, 64x64x32", 2.0 * size ** 3, True
    return make


def layernorm_case(gen):
    rows, cols, eps = 4096, 1024, 1e-5
    x = uniform((rows, cols), -2, 3, gen)
    w, b = uniform(cols, 0.5, 1.5, gen), uniform(cols, -1, 1, gen)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(rows, dtype=torch.float32), torch.empty(rows, dtype=torch.float32)

    def launch():
        layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, cols, cols, eps, BLOCK=1024)

    def check():
        xd = x.double()
        m = xd.mean(dim=1)
        r = 1.0 / torch.sqrt(((xd - m[:, None]) ** 2).mean(dim=1) + float(np.float32(eps)))
        ref = (xd - m[:, None]) * r[:, None] * w.double() + b.double()
        return max(max_abs(y, ref), max_abs(mean, m), max_abs(rstd, r)), 1e-4, "Y, Mean, Rstd vs fp64"
    return launch, check, "4096x1024 f32, row/program", rows * cols, False


def attention_case(gen):
    heads, ctx, dim = 4, 512, 64
    q, k, v = (uniform((heads, ctx, dim), -1, 1, gen, torch.float16) for _ in range(3))
    out = torch.empty((heads, ctx, dim), dtype=torch.float32)

    def launch():
        attn_fwd[(ctx // 64, heads)](q, k, v, out, 0.125, ctx, BLOCK_M=64, BLOCK_N=64, HEAD_DIM=dim,
                                     N_CTX_LOOP=ctx)

    def check():
        qd, kd, vd = q.double(), k.double(), v.double()
        ref = torch.softmax(qd @ kd.transpose(1, 2) * 0.125, dim=-1) @ vd
        error = max_abs(out, ref)
        what = "Out vs fp64 attention"
        if not error <= 2e-3:  # say what the wrong output looks like (Triton 3.6 + NumPy 2.5 gave 0.29 once)
            first = torch.softmax(qd[:, :, :] @ kd[:, :64].transpose(1, 2) * 0.125, dim=-1) @ vd[:, :64]
            per_head = [f"{(out[h].double() - ref[h]).abs().max().item():.2g}" for h in range(heads)]
            what += (f"; per head {per_head}; vs attention over the first 64 keys only "
                     f"{max_abs(out, first):.2g}; NaN in Out: {bool(torch.isnan(out).any())}")
        return error, 2e-3, what
    return launch, check, "4x512x64 f16 in, f32 acc", heads * 4.0 * ctx * ctx * dim, True


CASES = {
    "vadd": vadd_case,
    "softmax": softmax_case,
    "matmul256": matmul_case(256),
    "matmul512": matmul_case(512),
    "layernorm": layernorm_case,
    "attention": attention_case,
}


class Overtime(Exception):
    pass


def on_alarm(signum, frame):
    raise Overtime()


def timed(launch, limit):
    """Runs launch() once; returns seconds. Raises Overtime past `limit` seconds."""
    signal.alarm(int(limit))
    try:
        start = time.perf_counter()
        if TILESIM:
            with tilesim.interpret(**TILESIM_OPTIONS):
                launch()
        else:
            launch()
        return time.perf_counter() - start
    finally:
        signal.alarm(0)


def run_case(name, make, args):
    gen = torch.Generator().manual_seed(20250601)
    launch, check, shape, work, flops = make(gen)
    try:
        warm = timed(launch, args.limit)
    except Overtime:
        return shape, None, f"over {args.limit:.0f} s (stopped)", "-", work, flops
    except Exception as error:  # the interpreter cannot run it
        traceback.print_exc()
        return shape, None, f"cannot run: {type(error).__name__}: {str(error).splitlines()[0][:80]}", "-", work, flops
    error, tolerance, what = check()
    if not error <= tolerance:
        return (shape, None, f"WRONG: max abs error {error:.3g} > {tolerance:.3g} ({what}); the wrong run took "
                f"{warm:.3f} s", f"{error:.1e}", work, flops)
    print(f"{name}: warm-up {warm:.3f} s, max abs error {error:.3g} ({what}, tolerance {tolerance:.3g})",
          file=sys.stderr, flush=True)
    # Fewer timed runs for slow kernels so the whole script stays within a few minutes.
    repeat = args.repeat if warm < 5 else 1
    best = warm if repeat == 0 else float("inf")
    for _ in range(repeat):
        try:
            best = min(best, timed(launch, args.limit))
        except Overtime:
            break
    return shape, best, f"ok (best of {repeat} after a warm-up)" if repeat else "ok (warm-up only)", f"{error:.1e}", work, flops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", action="append", choices=list(CASES), help="repeatable; default all")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after the warm-up (best is shown)")
    parser.add_argument("--limit", type=float, default=60, help="seconds one launch may take")
    parser.add_argument("--tilesim", action="store_true", help="run under tilesim.interpret instead")
    parser.add_argument("--no-checks", action="store_true", help="with --tilesim: checks off")
    parser.add_argument("--threads", type=int, default=0, help="with --tilesim: host threads (0 = all)")
    args = parser.parse_args()
    TILESIM_OPTIONS.update(checks=not args.no_checks, threads=args.threads)
    signal.signal(signal.SIGALRM, on_alarm)

    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            cpu = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"machine: {cpu}, {os.cpu_count()} hardware threads; python {platform.python_version()}, "
          f"triton {triton.__version__}, torch {torch.__version__}, numpy {np.__version__}, "
          f"torch threads {torch.get_num_threads()}; "
          + (f"tilesim.interpret {TILESIM_OPTIONS}" if TILESIM else f"TRITON_INTERPRET={os.environ['TRITON_INTERPRET']}"),
          flush=True)
    rows = []
    for name, make in CASES.items():
        if args.kernel and name not in args.kernel:
            continue
        rows.append((name, *run_case(name, make, args)))
        name_, shape, best, status, error, work, flops = rows[-1]
        print(f"  {name}: {status}" + (f", {best:.3f} s" if best is not None else ""), file=sys.stderr, flush=True)

    print(f"{'kernel':<11} {'shape':<28} {'seconds':>9} {'throughput':>16} {'max err':>9}  status")
    for name, shape, best, status, error, work, flops in rows:
        seconds = f"{best:.3f}" if best is not None else "-"
        rate = "-"
        if best:
            rate = f"{work / best * 1e-9:.3f} GFLOP/s" if flops else f"{work / best * 1e-6:.2f} Melem/s"
        print(f"{name:<11} {shape:<28} {seconds:>9} {rate:>16} {error:>9}  {status}")
    return 0 if all(best is not None for _, _, best, *_ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
