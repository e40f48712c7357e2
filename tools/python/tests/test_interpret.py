"""tilesim.interpret's contract with Triton: the specialisation a GPU launch would get, the TTIR cache, grids,
constexpr defaults, do_not_specialize, warmup, options, views and aliasing, the environment variable."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import triton
import triton.language as tl

import kernels
import tilesim
from tilesim import _frontend

THREADS = int(os.environ.get("TILESIM_TEST_THREADS", "0"))
HERE = os.path.dirname(os.path.abspath(__file__))


def ttir_of(kernel, grid, *args, **kwargs):
    with tilesim.interpret(threads=THREADS):
        return kernel[grid](*args, **kwargs).asm["ttir"]


def signature_line(ttir):
    return next(line for line in ttir.splitlines() if "tt.func" in line)


def test_specialisation_is_what_a_gpu_launch_gets():
    x = np.zeros(64, np.float32)   # numpy's allocations are 16-byte aligned here
    assert x.ctypes.data % 16 == 0
    ttir = ttir_of(kernels.add_kernel, (1,), x, x[1:], x, 32, BLOCK_SIZE=64)
    sig = signature_line(ttir)
    assert "%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}" in sig
    assert "%y_ptr: !tt.ptr<f32> loc" in sig  # x[1:] is 4 bytes in: no divisibility
    assert "%n_elements: i32 {tt.divisibility = 16 : i32}" in sig
    sig = signature_line(ttir_of(kernels.add_kernel, (1,), x, x, x, 33, BLOCK_SIZE=64))
    assert "%n_elements: i32 loc" in sig
    # An integer equal to 1 becomes a constant: the parameter disappears.
    sig = signature_line(ttir_of(kernels.add_kernel, (1,), x, x, x, 1, BLOCK_SIZE=64))
    assert "n_elements" not in sig
    # A pointer into an array's middle that is 16-byte aligned keeps the attribute: x[4:] is 16 bytes in.
    sig = signature_line(ttir_of(kernels.add_kernel, (1,), x, x[4:], x, 32, BLOCK_SIZE=64))
    assert "%y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}" in sig


def test_do_not_specialize_and_constexpr_defaults():
    x = np.arange(300, dtype=np.float32)
    with tilesim.interpret(threads=THREADS):
        compiled = kernels.scale_kernel[(3,)](x, 1, 2.0)   # BLOCK defaults to 128; n=1 stays a parameter
    assert "%n: i32 loc" in signature_line(compiled.ttir)
    assert compiled.constexprs["BLOCK"] == 128
    assert x[0] == 0 and x[1] == 1  # only element 0 was scaled (0*2)
    with tilesim.interpret(threads=THREADS):
        compiled = kernels.scale_kernel[(3,)](x, 256, 2.0)
    assert "%n: i32 loc" in signature_line(compiled.ttir)  # 256 is a multiple of 16, but do_not_specialize
    np.testing.assert_array_equal(x[:256], np.arange(256) * 2)
    np.testing.assert_array_equal(x[256:], np.arange(256, 300))


def test_ttir_is_cached_per_specialisation():
    x, y, out = (np.zeros(100, np.float32) for _ in range(3))
    _frontend._cache.clear()
    before = dict(_frontend.stats)
    with tilesim.interpret(threads=THREADS):
        for _ in range(3):
            kernels.add_kernel[(1,)](x, y, out, 100, BLOCK_SIZE=128)
        kernels.add_kernel[(1,)](x, y, out, 96, BLOCK_SIZE=128)   # divisible by 16: a new specialisation
        kernels.add_kernel[(1,)](x, y, out, 100, BLOCK_SIZE=64)   # a new constexpr
    # Three compiles, from Triton's front end or from the TTIR disk cache an earlier run left (test_dropin.py
    # checks that cache), and two hits of the in-memory cache.
    made = sum(_frontend.stats[k] - before[k] for k in ("compiled", "disk"))
    assert made == 3
    assert _frontend.stats["cached"] - before["cached"] == 2


def test_grids_tuple_int_and_callable():
    n = 3000
    x = np.ones(n, np.float32)
    for grid in [(3,), (3, 1, 1), lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)]:
        out = np.zeros(n, np.float32)
        with tilesim.interpret(threads=THREADS):
            kernels.add_kernel[grid](x, x, out, n, BLOCK_SIZE=1024)
        np.testing.assert_array_equal(out, 2)


def test_warmup_compiles_without_running():
    x = np.zeros(10, np.float32)
    with tilesim.interpret():
        compiled = kernels.add_kernel.warmup(x, x, x, 10, BLOCK_SIZE=16, grid=(1,))
    assert "tt.func public @add_kernel" in compiled.ttir


def test_in_place_views_of_one_storage_are_one_buffer():
    # dst = src shifted by one element, in one array: program 1 reads x[64], which program 0 writes. Only one
    # buffer with two pointers into it shows that race, as the GPU memory would.
    x = np.arange(129, dtype=np.float32)
    with tilesim.interpret(threads=THREADS):
        with pytest.raises(tilesim.KernelError) as caught:
            kernels.copy_shifted[(2,)](x, x[1:], 128, BLOCK=64)
    assert caught.value.kind == "race"
    # Same storage, disjoint halves: no race, and results land in the caller's array.
    x = np.arange(256, dtype=np.float32)
    with tilesim.interpret(threads=THREADS):
        kernels.copy_shifted[(2,)](x[:128], x[128:], 128, BLOCK=64)
    np.testing.assert_array_equal(x[128:], np.arange(128))


def test_non_contiguous_view_keeps_its_storage_layout():
    big = np.random.default_rng(1).standard_normal((9, 300), dtype=np.float32)
    before = big.copy()
    view = big[:, 40:240]  # rows of 200 with a row stride of 300
    with tilesim.interpret(threads=THREADS):
        kernels.softmax_kernel[(4,)](view, view, big.strides[0] // 4, big.strides[0] // 4, 9, 200,
                                     BLOCK_SIZE=256, num_stages=1)
    e = np.exp(before[:, 40:240] - before[:, 40:240].max(axis=1, keepdims=True))
    np.testing.assert_allclose(big[:, 40:240], e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-7)
    np.testing.assert_array_equal(big[:, :40], before[:, :40])   # outside the view: untouched
    np.testing.assert_array_equal(big[:, 240:], before[:, 240:])


def test_read_outside_a_view_is_out_of_bounds():
    x = np.zeros(100, np.float32)
    out = np.zeros(64, np.float32)
    with tilesim.interpret(threads=THREADS):
        with pytest.raises(tilesim.KernelError) as caught:
            kernels.add_kernel_with_bug[(1,)](x[:10], out, 10, BLOCK_SIZE=64)
    assert caught.value.kind == "out-of-bounds"


def test_bf16_as_bit_patterns():
    bits = np.arange(0x3F80, 0x3F80 + 200, dtype=np.uint16)
    out = np.zeros_like(bits)
    with tilesim.interpret(threads=THREADS):
        compiled = kernels.copy_shifted[(4,)](tilesim.as_dtype(bits, tl.bfloat16),
                                              tilesim.as_dtype(out, tl.bfloat16), 200, BLOCK=64)
    assert "!tt.ptr<bf16>" in signature_line(compiled.ttir)
    np.testing.assert_array_equal(out, bits)


def test_options_profile_and_engine():
    x = np.random.default_rng(2).standard_normal((4, 100), dtype=np.float32)
    out = np.zeros_like(x)
    with tilesim.interpret(profile="triton", threads=THREADS):
        kernels.softmax_kernel[(4,)](out, x, 100, 100, 4, 100, BLOCK_SIZE=128, num_stages=1)
    np.testing.assert_allclose(out.sum(axis=1), 1, rtol=1e-5)
    with tilesim.interpret(engine="gpu"):
        with pytest.raises(tilesim.EngineUnavailable, match="engine 'gpu' is unavailable"):
            kernels.softmax_kernel[(4,)](out, x, 100, 100, 4, 100, BLOCK_SIZE=128, num_stages=1)
    with pytest.raises(ValueError, match="option profile must be one of 'exact', 'triton', not 'fast'"):
        with tilesim.interpret(profile="fast"):
            pass


def test_checks_off_and_raise_off():
    n = 100
    x, out = np.ones(n, np.float32), np.zeros(n, np.float32)
    with tilesim.interpret(checks=False, threads=THREADS):
        kernels.add_kernel_with_bug[(1,)](x, out, n, BLOCK_SIZE=128)
    np.testing.assert_array_equal(out, 1)


def test_outside_interpret_triton_is_untouched():
    x = np.zeros(4, np.float32)
    with pytest.raises(Exception) as caught:
        kernels.add_kernel[(1,)](x, x, x, 4, BLOCK_SIZE=16)
    assert not isinstance(caught.value, tilesim.KernelError)


SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {here!r})
    import numpy as np, kernels
    x = np.arange(50, dtype=np.float32); out = np.zeros(50, np.float32)
    kernels.add_kernel[(1,)](x, x, out, 50, BLOCK_SIZE=64)
    assert (out == 2 * x).all()
    print("unchanged script ran on tilesim")
""")


def _run_script(tmp_path, argv_prefix, env_extra):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT.format(here=HERE))
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, *argv_prefix, str(script)], env=env, capture_output=True, text=True,
                          timeout=120)


def test_python_dash_m_tilesim_run(tmp_path):
    done = _run_script(tmp_path, ["-m", "tilesim", "run"], {})
    assert done.returncode == 0, done.stderr
    assert "unchanged script ran on tilesim" in done.stdout


def test_environment_variable_for_unchanged_scripts(tmp_path):
    import site
    pth = [p for p in site.getsitepackages() if os.path.exists(os.path.join(p, "tilesim-interpret.pth"))]
    if not pth:
        pytest.skip("tilesim-interpret.pth is not installed in this Python (tools/setup installs it in .venv)")
    done = _run_script(tmp_path, [], {"TILESIM_INTERPRET": "1"})
    assert done.returncode == 0, done.stderr
    assert "unchanged script ran on tilesim" in done.stdout
