"""Users' kernels (tests/kernels.py) through tilesim.interpret on numpy arrays, against numpy references; and the
out-of-bounds kernel, which must raise KernelError naming its Python line."""
import math
import os
import traceback

import numpy as np
import pytest
import triton

import kernels
import tilesim

THREADS = int(os.environ.get("TILESIM_TEST_THREADS", "0"))
rng = np.random.default_rng(0)


@pytest.mark.parametrize("n", [1, 16, 17, 1000, 4097])
def test_vector_add_with_tails(n):
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    with tilesim.interpret(threads=THREADS):
        kernels.add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=1024)
    np.testing.assert_array_equal(out, x + y)  # one correctly rounded add: bit for bit


def test_fused_softmax():
    x = rng.standard_normal((37, 203), dtype=np.float32)
    out = np.full_like(x, np.nan)
    block = triton.next_power_of_2(x.shape[1])
    with tilesim.interpret(threads=THREADS):
        kernels.softmax_kernel[(8,)](out, x, x.strides[0] // 4, out.strides[0] // 4, x.shape[0], x.shape[1],
                                     BLOCK_SIZE=block, num_stages=2)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)


def test_layer_norm_forward():
    m, n = 13, 300
    x = rng.standard_normal((m, n), dtype=np.float32)
    w = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    y = np.full_like(x, np.nan)
    mean = np.full(m, np.nan, np.float32)
    rstd = np.full(m, np.nan, np.float32)
    with tilesim.interpret(threads=THREADS):
        kernels.layernorm[(m,)](x, y, w, b, mean, rstd, x.strides[0] // 4, n, 1e-5, BLOCK=128)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    sd = 1 / np.sqrt(x64.var(axis=1) + 1e-5)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, sd, rtol=1e-5)
    np.testing.assert_allclose(y, (x64 - mu[:, None]) * sd[:, None] * w + b, rtol=1e-4, atol=1e-5)


def test_layer_norm_backward_with_atomics():
    m, n = 29, 333
    x = rng.standard_normal((m, n), dtype=np.float32)
    dy = rng.standard_normal((m, n), dtype=np.float32)
    w = rng.standard_normal(n, dtype=np.float32)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    rstd = 1 / np.sqrt(x64.var(axis=1) + 1e-5)
    dx = np.full_like(x, np.nan)
    dw, db = np.zeros(n, np.float32), np.zeros(n, np.float32)
    with tilesim.interpret(threads=THREADS):  # many programs add into dw/db: atomics, so no race is reported
        kernels.layer_norm_bwd[(m,)](dx, dy, dw, db, x, w, mean.astype(np.float32), rstd.astype(np.float32),
                                     x.strides[0] // 4, n, BLOCK_SIZE=512)
    xhat = (x64 - mean[:, None]) * rstd[:, None]
    wdy = w * dy.astype(np.float64)
    c1 = (xhat * wdy).mean(axis=1, keepdims=True)
    c2 = wdy.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(dx, (wdy - (xhat * c1 + c2)) * rstd[:, None], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dw, (dy * xhat).sum(axis=0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, dy.sum(axis=0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("autotune", ["first", "all"])
def test_k_loop_matmul_autotuned(autotune):
    m, n, k = 70, 45, 100
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.full((m, n), np.nan, np.float16)
    grid = lambda meta: (triton.cdiv(m, meta["BLOCK_SIZE_M"]) * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)
    with tilesim.interpret(threads=THREADS, autotune=autotune):
        kernels.matmul_kernel[grid](a, b, c, m, n, k, k, 1, n, 1, n, 1)
    assert kernels.matmul_kernel.best_config.kwargs["BLOCK_SIZE_M"] == 32  # the first config's results remain
    np.testing.assert_allclose(c.astype(np.float64), a.astype(np.float64) @ b, rtol=2e-3, atol=2e-3)


def test_online_softmax_attention():
    seq, d = 50, 16
    q, k, v = (rng.standard_normal((seq, d), dtype=np.float32) for _ in range(3))
    out = np.full((seq, d), np.nan, np.float32)
    scale = 1 / math.sqrt(d)
    with tilesim.interpret(threads=THREADS):
        kernels.attention_fwd[(triton.cdiv(seq, 16),)](q, k, v, out, scale, seq, d, d, d, d,
                                                      HEAD_DIM=d, BLOCK_M=16, BLOCK_N=16)
    s = (q.astype(np.float64) @ k.T) * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, (p / p.sum(axis=1, keepdims=True)) @ v, rtol=1e-4, atol=1e-5)


def _line_of(function, text):
    import inspect
    lines, start = inspect.getsourcelines(function.fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_out_of_bounds_bug_names_its_python_line():
    n = 1000
    x = np.ones(n, np.float32)
    out = np.zeros(n, np.float32)
    with tilesim.interpret(threads=THREADS):
        with pytest.raises(tilesim.KernelError) as caught:
            kernels.add_kernel_with_bug[(triton.cdiv(n, 256),)](x, out, n, BLOCK_SIZE=256)
    error = caught.value
    bug_line = _line_of(kernels.add_kernel_with_bug, "# no mask")
    assert error.kind == "out-of-bounds"
    assert os.path.basename(error.filename) == "quickstart.py" and error.lineno == bug_line
    assert error.buffer == "x_ptr"
    assert error.program == (3, 0, 0) and error.lane == [232]  # 3*256 + 232 = 1000: the first element past the end
    assert f"quickstart.py:{bug_line}:" in str(error)
    # The traceback's last frame is the kernel's line, with its source text.
    last = traceback.extract_tb(caught.tb)[-1]
    assert os.path.basename(last.filename) == "quickstart.py" and last.lineno == bug_line
    assert last.name == "add_kernel_with_bug" and "tl.load(x_ptr + offsets)" in last.line
    assert error.total == 24  # lanes 232..255 of the last program
    np.testing.assert_array_equal(out, 1)  # the masked store still ran, and the results came back


def test_race_between_programs_is_reported():
    x = np.arange(256, dtype=np.float32)  # the four programs' sums differ: a race the result shows
    out = np.zeros(1, np.float32)
    with tilesim.interpret(threads=THREADS):
        with pytest.raises(tilesim.KernelError) as caught:
            kernels.racy_sum[(4,)](x, out, BLOCK=64)
    assert caught.value.kind == "race"
    x = np.ones(256, np.float32)  # every program stores 64.0: the same bytes, its own kind
    with tilesim.interpret(threads=THREADS):
        with pytest.raises(tilesim.KernelError) as caught:
            kernels.racy_sum[(4,)](x, out, BLOCK=64)
    assert caught.value.kind == "same-value-race"
    assert caught.value.lineno == _line_of(kernels.racy_sum, "a race")
