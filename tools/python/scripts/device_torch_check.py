"""tilesim.interpret on real CPU torch tensors (needs torch, Triton 3.6 and the native module _tilesim; no GPU):
the checks tests/test_tensor_protocol.py makes with a stand-in tensor, made with torch's own. Run by
device_capture.sh on the GPU machine, where torch is installed (torch is not installable on the CI machine).

    PYTHONPATH=tools/python TILESIM_EXTENSION=.../_tilesim*.so python tools/python/scripts/device_torch_check.py

Prints one line per check and `device_torch_check: N passed, M failed`; exits 1 on a failure.
"""
import os
import sys
import traceback

import numpy as np
import torch
import triton

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import kernels  # noqa: E402
import tilesim  # noqa: E402

checks = []


def check(fn):
    checks.append(fn)
    return fn


@check
def results_land_in_place():
    x, y = torch.randn(1000), torch.randn(1000)
    out = torch.zeros(1000)
    pointer = out.data_ptr()
    with tilesim.interpret():
        compiled = kernels.add_kernel[(triton.cdiv(1000, 256),)](x, y, out, 1000, BLOCK_SIZE=256)
    assert out.data_ptr() == pointer and torch.equal(out, x + y)
    assert "tt.divisibility = 16" in compiled.asm["ttir"]


@check
def strided_view_and_requires_grad():
    big = torch.randn(6, 300, requires_grad=True)
    view = big.detach()[:, 20:220]
    out = torch.empty(6, 200)
    with tilesim.interpret():
        kernels.softmax_kernel[(3,)](out, view, 300, 200, 6, 200, BLOCK_SIZE=256, num_stages=1)
    torch.testing.assert_close(out, torch.softmax(view, -1), rtol=1e-5, atol=1e-6)


@check
def views_of_one_storage_race():
    shared = torch.arange(256, dtype=torch.float32)
    try:
        with tilesim.interpret():
            kernels.copy_shifted[(2,)](shared[0:128], shared[1:129], 128, BLOCK=64)
    except tilesim.KernelError as error:
        assert error.kind == "race", error.kind
    else:
        raise AssertionError("no race reported for overlapping views")
    halves = torch.arange(256, dtype=torch.float32)
    with tilesim.interpret():
        kernels.copy_shifted[(2,)](halves[:128], halves[128:], 128, BLOCK=64)
    assert torch.equal(halves[128:], torch.arange(128, dtype=torch.float32))


@check
def bf16_and_fp8_tensors():
    h = torch.randn(200).to(torch.bfloat16)
    h_out = torch.zeros_like(h)
    f8 = torch.randn(200).to(torch.float8_e5m2)
    f8_out = torch.empty_like(f8)
    with tilesim.interpret():
        compiled = kernels.copy_shifted[(4,)](h, h_out, 200, BLOCK=64)
        kernels.copy_shifted[(4,)](f8, f8_out, 200, BLOCK=64)
    assert "!tt.ptr<bf16>" in compiled.asm["ttir"]
    assert torch.equal(h_out, h) and torch.equal(f8_out.view(torch.uint8), f8.view(torch.uint8))


@check
def layernorm_backward_with_atomics():
    m, n = 13, 300
    xs, w, b = torch.randn(m, n), torch.randn(n), torch.randn(n)
    ys, mean, rstd = torch.empty_like(xs), torch.empty(m), torch.empty(m)
    dy = torch.randn_like(xs)
    dx, dw, db = torch.empty_like(xs), torch.zeros(n), torch.zeros(n)
    with tilesim.interpret():
        kernels.layernorm[(m,)](xs, ys, w, b, mean, rstd, n, n, 1e-5, BLOCK=128)
        kernels.layer_norm_bwd[(m,)](dx, dy, dw, db, xs, w, mean, rstd, n, n, BLOCK_SIZE=512)
    xr, wr, br = (t.clone().requires_grad_(True) for t in (xs, w, b))
    ref = torch.nn.functional.layer_norm(xr, (n,), wr, br, 1e-5)
    ref.backward(dy)
    torch.testing.assert_close(ys, ref.detach(), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(dx, xr.grad, rtol=1e-3, atol=1e-3)
    torch.testing.assert_close(dw, wr.grad, rtol=1e-3, atol=1e-3)


@check
def same_answer_as_numpy():
    x = np.random.default_rng(0).standard_normal(5000, dtype=np.float32)
    out_np, out_t = np.zeros_like(x), torch.zeros(5000)
    with tilesim.interpret():
        kernels.add_kernel[(5,)](x, x, out_np, 5000, BLOCK_SIZE=1024)
        kernels.add_kernel[(5,)](torch.from_numpy(x), torch.from_numpy(x), out_t, 5000, BLOCK_SIZE=1024)
    assert np.array_equal(out_np, out_t.numpy())


@check
def cuda_tensor_refused():
    if not torch.cuda.is_available():
        return
    try:
        with tilesim.interpret():
            kernels.scale_kernel[(1,)](torch.zeros(10, device="cuda"), 10, 2.0)
    except TypeError as error:
        assert "cuda" in str(error), error
    else:
        raise AssertionError("a CUDA tensor was accepted")


failed = 0
for fn in checks:
    try:
        fn()
        print(f"device_torch_check: {fn.__name__}: ok", flush=True)
    except Exception:
        failed += 1
        print(f"device_torch_check: {fn.__name__}: FAILED\n{traceback.format_exc()}", flush=True)
print(f"device_torch_check: {len(checks) - failed} passed, {failed} failed (torch {torch.__version__}, "
      f"triton {triton.__version__})")
sys.exit(1 if failed else 0)
