"""The native module and the buffer plan, below Triton: TTIR text run on numpy arrays in-process, views of one
storage as one buffer, errors as exceptions that name the argument or the TTIR position."""
import os

import numpy as np
import pytest

import tilesim
from tilesim import _memory

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
VADD = os.path.join(ROOT, "conformance", "golden", "vadd_f32")


def test_real_triton_ttir_on_numpy_matches_the_gpu():
    ttir = open(os.path.join(VADD, "kernel.ttir")).read()
    x, y = np.load(os.path.join(VADD, "x_ptr.npy")), np.load(os.path.join(VADD, "y_ptr.npy"))
    out = np.full_like(x, np.nan)
    result = tilesim.run_ttir(ttir, {"x_ptr": x, "y_ptr": y, "out_ptr": out, "n": x.size}, (10,))
    assert result["total"] == 0
    np.testing.assert_array_equal(out, np.load(os.path.join(VADD, "out_ptr.expected.npy")))


def test_plan_groups_views_of_one_storage():
    x = np.zeros(100, np.float32)
    other = np.zeros(8, np.int32)
    plan = _memory.plan_buffers({"a": _memory.view_of(x[10:]), "b": _memory.view_of(x), "c": _memory.view_of(other),
                                 "d": _memory.view_of(x[::-1])})
    kinds = {arg[1]: arg for arg in plan.arguments}
    assert kinds["b"][0] == "buffer" and kinds["b"][4] == 400       # owner: starts at the span's start
    assert kinds["a"][0] == "alias" and kinds["a"][3] == "b" and kinds["a"][4] == 40 and kinds["a"][5] == 360
    assert kinds["d"][0] == "alias" and kinds["d"][4] == 396         # x[::-1] points at the last element
    assert kinds["c"][0] == "buffer" and kinds["c"][2] == "i32" and kinds["c"][4] == 32


def test_aliases_share_memory_during_the_launch():
    ttir = open(os.path.join(VADD, "kernel.ttir")).read()
    x = np.arange(10007, dtype=np.float32)
    expected = x + x
    # out_ptr is x itself: an in-place add. Separate copies would give the same answer here, so also check that
    # one buffer was made (the alias has no storage of its own, the launch reports nothing).
    result = tilesim.run_ttir(ttir, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": x.size}, (10,))
    assert result["total"] == 0
    np.testing.assert_array_equal(x, expected)


def test_bad_ttir_is_a_ttir_error_with_position():
    with pytest.raises(tilesim.TtirError, match=r"<ttir>:1:\d+: error"):
        tilesim.run_ttir("module { tt.func @k( }", {}, (1,))


def test_missing_argument_is_named():
    ttir = open(os.path.join(VADD, "kernel.ttir")).read()
    x = np.zeros(16, np.float32)
    with pytest.raises(tilesim.LaunchError, match="n"):
        tilesim.run_ttir(ttir, {"x_ptr": x, "y_ptr": x, "out_ptr": x}, (1,))


def test_wrong_element_size_is_named():
    ttir = open(os.path.join(VADD, "kernel.ttir")).read()
    x = np.zeros(16, np.float32)
    with pytest.raises(tilesim.LaunchError, match="'y_ptr' holds i64"):
        tilesim.run_ttir(ttir, {"x_ptr": x, "y_ptr": np.zeros(16, np.int64), "out_ptr": x, "n": 16}, (1,))


def test_read_only_output_is_refused_and_left_unchanged():
    ttir = open(os.path.join(VADD, "kernel.ttir")).read()
    x = np.ones(16, np.float32)
    out = np.zeros(16, np.float32)
    out.flags.writeable = False
    from tilesim._native import native
    plan = _memory.plan_buffers({n: _memory.view_of(a) for n, a in [("x_ptr", x), ("y_ptr", x), ("out_ptr", out)]})
    result = native.launch(native.Program.parse(ttir), "", plan.arguments + [("int", "n", 16)], [1])
    assert result["read_only_written"] == ["out_ptr"]
    np.testing.assert_array_equal(out, 0)


def test_reports_come_back_as_data():
    ttir = open(os.path.join(VADD, "kernel.ttir")).read()
    x = np.ones(16, np.float32)
    result = tilesim.run_ttir(ttir, {"x_ptr": x, "y_ptr": x, "out_ptr": x, "n": 2000}, (2,),
                              raise_on_report=False)
    assert result["totals"]["out-of-bounds"] > 0
    first = result["reports"][0]
    assert first["kind"] == "out-of-bounds" and first["source"].startswith("kernels.py:")
    assert first["buffer"] == "x_ptr" and first["program"] == (0, 0, 0) and first["lane"] == [16]


def test_engine_availability_is_explained():
    assert tilesim.engine_available("interp") is None
    reason = tilesim.engine_available("gpu")
    assert reason is None or "unavailable" in reason
