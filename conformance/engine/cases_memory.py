"""Engine cases, family `memory`: block pointers, pointer <-> int, masked loads without `other`, a 3-D grid."""
import numpy as np

from engine_case import Case, QUIET_NAN_F32, constants, f32_bits, module, padding_case, store_at, tile_kernel


def block_of(matrix, row0, col0, pad):
    """The 4x8 block of `matrix` at (row0, col0); elements outside the matrix are `pad` (boundary-checked load)."""
    out = np.full((4, 8), pad, dtype=matrix.dtype)
    rows, cols = matrix.shape
    for r in range(4):
        for c in range(8):
            if 0 <= row0 + r < rows and 0 <= col0 + c < cols:
                out[r, c] = matrix[row0 + r, col0 + c]
    return out


def memory_cases():
    a = (np.float32(1.5) + np.arange(15, dtype=np.float32))
    zero = block_of(a.reshape(3, 5), 0, 0, np.float32(0))
    nan = block_of(a.reshape(3, 5), 2, 3, f32_bits([QUIET_NAN_F32])[0])
    out = np.concatenate([zero.ravel(), nan.ravel()])
    padding_case("memory", "block_ptr_load_padding", "bp_load",
                 "\n" + constants("i32", 0, 2, 3) + constants("i64", 1, 3, 5) + """\
    %cst = arith.constant dense<32> : tensor<4x8xi32>
    %bp = tt.make_tensor_ptr %a_ptr, [%c3_i64, %c5_i64], [%c5_i64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    %zero = tt.load %bp {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<4x8xf32>>
    %bp_0 = tt.advance %bp, [%c2_i32, %c3_i32] : <tensor<4x8xf32>>
    %nan = tt.load %bp_0 {boundaryCheck = array<i32: 0, 1>, padding = 2 : i32} : !tt.ptr<tensor<4x8xf32>>
""",
                 "Block pointer over a 3x5 row-major f32 matrix: a boundary-checked 4x8 tt.load at (0,0) pads with "
                 "zero (padding = 1), and after tt.advance by (2,3) with NaN (padding = 2, bits 0x7FC00000). out_ptr "
                 "is read back as int32 so the padding's bits (+0.0, the NaN payload) are compared exactly. Triton 3.6 "
                 "rewrites block pointers away before printing TTIR, so no golden case has them.", a, out)

    stored = np.full(15, -1.0, np.float32)
    for r in range(4):
        for c in range(8):
            if 1 + r < 3 and 2 + c < 5:
                stored[(1 + r) * 5 + 2 + c] = r * 8 + c
    Case("memory", "block_ptr_checked_store", "bp_store", module(tile_kernel("bp_store(%out_ptr: !tt.ptr<f32>)",
        "\n" + constants("i32", 1, 2) + constants("i64", 1, 3, 5) + """\
    %v = arith.sitofp %offs : tensor<4x8xi32> to tensor<4x8xf32>
    %bp = tt.make_tensor_ptr %out_ptr, [%c3_i64, %c5_i64], [%c5_i64, %c1_i64], [%c1_i32, %c2_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    tt.store %bp, %v {boundaryCheck = array<i32: 0, 1>} : !tt.ptr<tensor<4x8xf32>>
""")),
         "A boundary-checked block-pointer tt.store of a 4x8 block at (1,2) of a 3x5 matrix writes only rows 1..2, "
         "columns 2..4. Lanes past the end of a row would land inside the buffer (the next row) and lanes past the "
         "last row outside it: neither is written, and neither is reported.") \
        .tensor("out_ptr", "float32", np.full(15, -1.0, np.float32), stored)

    a = np.arange(24, dtype=np.float32) * np.float32(0.25)
    oob = Case("memory", "block_ptr_unchecked_dim_oob", "bp_oob", module(tile_kernel(
        "bp_oob(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", """
    %c0_i32 = arith.constant 0 : i32
""" + constants("i64", 1, 3, 8) + """\
    %bp = tt.make_tensor_ptr %a_ptr, [%c3_i64, %c8_i64], [%c8_i64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    %a = tt.load %bp {boundaryCheck = array<i32: 1>, padding = 1 : i32} : !tt.ptr<tensor<4x8xf32>>
    %cst = arith.constant dense<24> : tensor<4x8xi32>
    %rows_in = arith.cmpi slt, %offs, %cst : tensor<4x8xi32>
""" + store_at("out", "%out_ptr", "%a", "f32", mask="%rows_in"))),
        "a_ptr holds a 3x8 matrix; the 4x8 block pointer checks only dim 1, so tt.load reads row 3 past the end of "
        "a_ptr: one out-of-bounds report per lane of row 3 (8, at byte offsets 96..124 of a_ptr), and nothing "
        "else. Rows 0..2 are loaded as usual and stored to out_ptr; the store's mask leaves out row 3 (whatever "
        "an out-of-bounds read gives is engine-specific), so out_ptr[24..31] keep their 0s.")
    oob.tensor("a_ptr", "float32", a).tensor("out_ptr", "float32", np.zeros(32, np.float32),
                                             np.concatenate([a, np.zeros(8, np.float32)]))
    for c in range(8):
        oob.expect_report("out-of-bounds", op="tt.load", buffer="a_ptr", lane=[3, c], byte_offset=(24 + c) * 4)
    oob.expect_counts({"out-of-bounds": 8})

    x = np.array([1.0, 2.0, 3.25, 4.0], np.float32)
    Case("memory", "int_to_ptr_roundtrip", "roundtrip", module("""
module {
  tt.func public @roundtrip(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c8_i64 = arith.constant 8 : i64
    %0 = tt.ptr_to_int %x_ptr : !tt.ptr<f32> -> i64
    %1 = arith.addi %0, %c8_i64 : i64
    %2 = tt.int_to_ptr %1 : i64 -> !tt.ptr<f32>
    %3 = tt.load %2 : !tt.ptr<f32>
    tt.store %out_ptr, %3 : !tt.ptr<f32>
    tt.return
  }
}
"""), "tt.ptr_to_int, + 8 bytes, tt.int_to_ptr is the pointer to x[2]; loading through it gives 3.25.") \
        .tensor("x_ptr", "float32", x).tensor("out_ptr", "float32", [0.0], [x[2]])

    def masked_kernel(store_masked):
        store = ("    tt.store %y_0, %w, %mask : tensor<16x!tt.ptr<f32>>\n" if store_masked
                 else "    tt.store %y_0, %w : tensor<16x!tt.ptr<f32>>\n")
        return module("""
module {
  tt.func public @masked(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %n: i32) attributes {noinline = false} {
    %offs = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %m = tt.splat %n : i32 -> tensor<16xi32>
    %mask = arith.cmpi slt, %offs, %m : tensor<16xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %x_0 = tt.addptr %x, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %x_1 = tt.load %x_0, %mask : tensor<16x!tt.ptr<f32>>
    %w = arith.mulf %x_1, %x_1 : tensor<16xf32>
    %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %y_0 = tt.addptr %y, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
""") + store + "    tt.return\n  }\n}\n"

    x = np.arange(10, dtype=np.float32) - np.float32(3)
    y = np.full(16, 99.0, np.float32)
    y[:10] = x * x
    Case("memory", "masked_load_no_other_masked_store", "masked", masked_kernel(True),
         "x has n = 10 elements; lanes 10..15 of the tt.load are masked off (their addresses lie past the end of "
         "x_ptr and are never touched) and, with no `other`, undefined. The store uses the same mask, so no "
         "undefined lane reaches memory: no report, y[0..9] = x*x, y[10..15] keep 99.") \
        .tensor("x_ptr", "float32", x).tensor("y_ptr", "float32", np.full(16, 99.0, np.float32), y).scalar("n", 10)

    undefined = Case("memory", "masked_load_no_other_unmasked_store", "masked", masked_kernel(False),
                     "As masked_load_no_other_masked_store, but the store has no mask: the 6 undefined lanes "
                     "10..15 (masked-off load lanes with no `other`) reach memory, one undefined-value report "
                     "each at tt.store, and no out-of-bounds report (y_ptr has 16 elements). The masked-off load "
                     "lanes read as 0 (what NVIDIA gives), so y[10..15] = 0 * 0 = 0.")
    undefined.tensor("x_ptr", "float32", np.full(10, 2.0, np.float32)) \
        .tensor("y_ptr", "float32", np.full(16, 7.0, np.float32), np.where(np.arange(16) < 10, 4.0, 0.0)) \
        .scalar("n", 10)
    for lane in range(10, 16):
        undefined.expect_report("undefined-value", op="tt.store", lane=[lane])
    undefined.expect_counts({"undefined-value": 6})

    out = np.zeros(12, np.int32)
    nums = np.zeros(36, np.int32)
    for z in range(2):
        for y in range(3):
            for x in range(2):
                p = x + 2 * (y + 3 * z)
                out[p] = x + 10 * y + 100 * z
                nums[3 * p:3 * p + 3] = [2, 3, 2]
    Case("memory", "grid_3d_ids_and_num_programs", "grid3d", module("""
module {
  tt.func public @grid3d(%out_ptr: !tt.ptr<i32>, %num_ptr: !tt.ptr<i32>) attributes {noinline = false} {
""" + constants("i32", 1, 2, 3, 10, 100) + """\
    %px = tt.get_program_id x : i32
    %py = tt.get_program_id y : i32
    %pz = tt.get_program_id z : i32
    %nx = tt.get_num_programs x : i32
    %ny = tt.get_num_programs y : i32
    %nz = tt.get_num_programs z : i32
    %0 = arith.muli %py, %c10_i32 : i32
    %1 = arith.addi %px, %0 : i32
    %2 = arith.muli %pz, %c100_i32 : i32
    %value = arith.addi %1, %2 : i32
    %3 = arith.muli %ny, %pz : i32
    %4 = arith.addi %py, %3 : i32
    %5 = arith.muli %nx, %4 : i32
    %idx = arith.addi %px, %5 : i32
    %6 = tt.addptr %out_ptr, %idx : !tt.ptr<i32>, i32
    tt.store %6, %value : !tt.ptr<i32>
    %7 = arith.muli %idx, %c3_i32 : i32
    %8 = tt.addptr %num_ptr, %7 : !tt.ptr<i32>, i32
    tt.store %8, %nx : !tt.ptr<i32>
    %9 = tt.addptr %8, %c1_i32 : !tt.ptr<i32>, i32
    tt.store %9, %ny : !tt.ptr<i32>
    %10 = tt.addptr %8, %c2_i32 : !tt.ptr<i32>, i32
    tt.store %10, %nz : !tt.ptr<i32>
    tt.return
  }
}
"""), "A 2x3x2 grid: program (x, y, z) writes x + 10y + 100z at its linear index x + 2(y + 3z), and the "
          "tt.get_num_programs of each axis (2, 3, 2) at three times that index.", grid=(2, 3, 2)) \
        .tensor("out_ptr", "int32", np.full(12, -1), out).tensor("num_ptr", "int32", np.full(36, -1), nums)
