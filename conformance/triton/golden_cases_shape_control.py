"""The golden-extra cases of make_golden.py over shape ops, control flow, special grids, block pointers and tt.dot
(kernels_shape_control.py)."""
import numpy as np

from golden_case import Case, INF, INT32_MAX, INT32_MIN, In, NAN, Out, f32, i32


def shape_cases(rng):
    """Golden-extra: gather, histogram, cat, permute, flip / ravel, sort."""
    C = []
    C.append(Case("gather_2d_f32", "gather2d", (1,), [
        ("s_ptr", In(f32(rng.standard_normal((8, 16))))),
        ("i1_ptr", In(i32(rng.integers(0, 16, 128)).reshape(8, 16))),
        ("i0_ptr", In(i32(rng.integers(0, 8, 128)).reshape(8, 16))),
        ("o1_ptr", Out((8, 16), "float32")), ("o0_ptr", Out((8, 16), "float32"))], {"R": 8, "C": 16},
        notes="tl.gather along axis 1 and axis 0 of an 8x16 block"))

    hx = rng.integers(0, 16, 256)
    hx[:16] = 3
    C.append(Case("histogram_mask_i32", "histogram_mask", (2,), [
        ("x_ptr", In(i32(hx))), ("h_ptr", Out(32, "int32")), ("hm_ptr", Out(32, "int32")), ("n", 200)],
        {"BLOCK": 128, "BINS": 16},
        notes="tl.histogram of values in [0,16) per program, without and with a mask (offs < 200)"))

    ca = i32(rng.integers(-1000, 1000, 32))
    cb = i32(rng.integers(-1000, 1000, 32))
    for raw, cname in ((False, "cat_reduce_i32"), (True, "cat_order_i32")):
        C.append(Case(cname, "cat_ops", (1,), [
            ("a_ptr", In(ca)), ("b_ptr", In(cb)), ("o_ptr", Out(64, "int32")), ("s_ptr", Out(3, "int32"))],
            {"N": 32, "STORE_RAW": raw},
            notes="tl.cat(can_reorder=True) then " + ("the result stored as it comes (Triton may reorder it)"
                                                      if raw else "only order-free reductions (sum, max, xor)")))

    C.append(Case("permute3d_f32", "permute3d", (1,), [
        ("x_ptr", In(f32(np.arange(64) * 1.5 - 7))), ("p_ptr", Out(64, "float32")), ("t_ptr", Out(64, "float32")),
        ("r_ptr", Out(64, "float32"))], {"A": 2, "B": 4, "C": 8},
        notes="tl.permute (2,0,1) and tl.trans(1,0,2) of a 2x4x8 block, reshape to 8x8 and 2-D trans"))

    C.append(Case("flip_ravel_i32", "flip_ravel", (1,), [
        ("x_ptr", In(i32(rng.integers(-1000, 1000, 64)).reshape(4, 16))), ("f_ptr", Out((4, 16), "int32")),
        ("g_ptr", Out(64, "int32")), ("v_ptr", Out((4, 16), "int32"))], {"R": 4, "C": 16},
        notes="tl.flip of the last dim of 4x16, tl.flip of a raveled 64-vector, reshape round trip"))

    sy = f32(rng.standard_normal((4, 16)))
    sy[0, :6] = f32([0.0, -0.0, 0.0, -0.0, INF, -INF])
    sy[1, ::5] = NAN
    sy[2, :] = f32(rng.integers(-3, 3, 16))
    C.append(Case("sort_i32_f32", "sort_ops", (1,), [
        ("x_ptr", In(i32(np.concatenate([rng.integers(-5, 5, 32), rng.integers(INT32_MIN, INT32_MAX, 32)]))
                     .reshape(4, 16))),
        ("y_ptr", In(sy)), ("xs_ptr", Out((4, 16), "int32")), ("ys_ptr", Out((4, 16), "float32"))],
        {"R": 4, "C": 16},
        notes="tl.sort ascending of int32 rows with duplicates, descending of f32 rows with +-0, +-inf, NaN"))
    return C


def control_cases(rng):
    """Golden-extra: while loops, a noinline call, for loops with runtime and negative steps, 2-D and 3-D grids."""
    C = []
    C.append(Case("while_loops_i32", "while_loops", (8,), [
        ("x_ptr", In(i32([1, 27, 97, 6, 7, 2, 871, 3]))), ("steps_ptr", Out(8, "int32")),
        ("v_ptr", In(i32(rng.integers(-5, 40, 128)))), ("vo_ptr", Out(128, "int32")), ("it_ptr", Out(8, "int32"))],
        {"BLOCK": 16},
        notes="scf.while with a data-dependent trip count (Collatz steps, scf.if inside) and a while over a tensor "
              "state whose condition is a reduction"))

    C.append(Case("noinline_call", "noinline_call", (4,), [
        ("x_ptr", In(i32([5, -3, INT32_MAX, 100]))), ("y_ptr", In(f32([1.0, -2.5, 1e-3, 7.0]))),
        ("o_ptr", Out(8, "int32")), ("of_ptr", Out(4, "float32"))], {},
        notes="@triton.jit(noinline=True) helpers called with scalars (tt.call to private functions)"))

    bounds = [(0, 10, 3), (-7, 8, 2), (5, 5, 1), (10, 3, 1), (-20, -1, 5), (3, 100, 7), (0, 1, 1), (-3, 4, 4)]
    C.append(Case("for_runtime_i32", "for_runtime", (8,), [
        ("b_ptr", In(i32([v for t3 in bounds for v in t3]))), ("o_ptr", Out(16, "int32")),
        ("vo_ptr", Out(128, "int32"))], {"BLOCK": 16},
        notes="scf.for with run-time bounds and step (odd steps, empty ranges, lo > hi)"))

    nb = [(0, 10), (-7, 8), (5, 5), (10, 3), (-20, -1), (3, 100), (0, 1), (-3, 4)]
    C.append(Case("for_negative_step_i32", "for_negative_step", (8,), [
        ("b_ptr", In(i32([v for t2 in nb for v in t2]))), ("o_ptr", Out(16, "int32"))], {},
        notes="for i in range(hi, lo, -3) with run-time bounds"))

    C.append(Case("grid2d_i32", "grid2d", (3, 5), [("o_ptr", Out(15 * 8, "int32"))], {"BLOCK": 8},
                  notes="2-D grid: program_id and num_programs along x and y"))
    C.append(Case("grid3d_i32", "grid3d", (2, 3, 4), [("o_ptr", Out(24 * 8, "int32"))], {"BLOCK": 8},
                  notes="3-D grid: program_id and num_programs along x, y and z"))
    return C


def blockptr_dot_cases(rng):
    """Golden-extra: a block pointer's NaN padding; f32 tl.dot under ieee and tf32."""
    C = []
    C.append(Case("blockptr_nan_f32", "blockptr_nan", (2,), [
        ("x_ptr", In(f32(np.arange(20 * 13).reshape(20, 13) * 0.5 - 3))), ("o_ptr", Out((2, 16, 16), "float32")),
        ("y_ptr", Out((20, 13), "float32")), ("M", 20), ("N", 13)], {"BM": 16, "BN": 16},
        notes="block pointers: boundary_check=(0,1) with padding_option='nan' at negative and too-large offsets, "
              "advance, zero padding, a boundary-checked block store"))

    da = f32(rng.standard_normal((32, 32)))
    db = f32(rng.standard_normal((32, 32)))
    dc = f32(rng.standard_normal((32, 32)))
    for prec in ("ieee", "tf32"):
        C.append(Case(f"dot_{prec}_f32", "dot_f32", (1,), [
            ("a_ptr", In(da)), ("b_ptr", In(db)), ("c_ptr", In(dc)), ("o_ptr", Out((32, 32), "float32"))],
            {"M": 32, "N": 32, "K": 32, "PREC": prec},
            notes=f"fp32 tl.dot 32x32x32 with an accumulator, input_precision='{prec}'"))
    return C
