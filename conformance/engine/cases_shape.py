"""Engine cases, family `shape`: gather, histogram, cat / join / split / trans / reshape."""
import numpy as np

from engine_case import Case, constants, load_at, module, store_at, tile_4x8, tile_kernel


def gather_kernel(axis):
    return module(tile_kernel("gather(%x_ptr: !tt.ptr<i32>, %idx_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>)",
                              "\n" + load_at("x", "%x_ptr", "i32") + load_at("i", "%idx_ptr", "i32") + """\
    %g = tt.gather %x_1[%i_1] {axis = """ + str(axis) + """ : i32} : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
""" + store_at("y", "%y_ptr", "%g", "i32")))


def shape_cases():
    x = (100 + np.arange(32)).reshape(4, 8)
    r, c = tile_4x8()
    for axis in (0, 1):
        index = (r * 5 + c * 3) % (4 if axis == 0 else 8)
        gathered = np.take_along_axis(x, index, axis=axis)
        Case("shape", "gather_axis%d" % axis, "gather", gather_kernel(axis),
             "tt.gather along axis %d of a 4x8 tile: y[r][c] = x[idx[r][c]][c]%s." %
             (axis, "" if axis == 0 else " with the index on the column instead: x[r][idx[r][c]]")) \
            .tensor("x_ptr", "int32", x.ravel()).tensor("idx_ptr", "int32", index.ravel()) \
            .tensor("y_ptr", "int32", np.full(32, -1), gathered.ravel())

    index = np.zeros(32, np.int32)
    index[2 * 8 + 3] = 8  # axis 1 has extent 8
    Case("shape", "gather_index_out_of_range", "gather", gather_kernel(1),
         "A tt.gather index of 8 along an axis of extent 8 (lane (2, 3)) is one out-of-bounds report at "
         "tt.gather; the program stops there, so y_ptr keeps its -1s.") \
        .tensor("x_ptr", "int32", np.ones(32)).tensor("idx_ptr", "int32", index) \
        .tensor("y_ptr", "int32", np.full(32, -1), np.full(32, -1)) \
        .expect_report("out-of-bounds", op="tt.gather", lane=[2, 3]).expect_counts({"out-of-bounds": 1}) \
        .differs_on_gpu_by_design("an out-of-range tt.gather index is undefined in Triton: the interpreter reports "
                                  "it, the GPU wraps it into the axis (docs/gpu-backend.md)")

    x = np.array([0, 1, 1, 7, 8, -1, 3, 3, 3, 100, 7, 0, -2**31, 5, 2, 9], np.int32)
    Case("shape", "histogram_ignores_outside_bins", "hist", module("""
module {
  tt.func public @hist(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %1 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %3 = tt.load %2 : tensor<16x!tt.ptr<i32>>
    %4 = tt.histogram %3 : tensor<16xi32> -> tensor<8xi32>
    %5 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %6 = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %7 = tt.addptr %6, %5 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %7, %4 : tensor<8x!tt.ptr<i32>>
    tt.return
  }
}
"""), "tt.histogram into 8 bins counts the values in [0, 8) and ignores the rest (8, 9, 100, -1, INT32_MIN).") \
        .tensor("x_ptr", "int32", x) \
        .tensor("y_ptr", "int32", np.full(8, -1), np.bincount(x[(x >= 0) & (x < 8)], minlength=8))

    a = np.arange(32).reshape(4, 8)
    b = a + 100
    joined = np.stack([a, b], axis=-1)                    # tt.join: a new minor axis of size 2
    t0 = np.transpose(joined, (2, 0, 1))                  # tt.trans order [2, 0, 1]: out dim i = in dim order[i]
    t1 = np.transpose(t0, (2, 0, 1))
    y = np.concatenate([np.concatenate([a[0], b[0]]), joined.ravel(), joined[..., 0].ravel(), joined[..., 1].ravel(),
                        t1.ravel()])
    assert y.size == 208
    Case("shape", "cat_join_split_trans_reshape", "shapes", module(tile_kernel("shapes(%y_ptr: !tt.ptr<i32>)", """
    %cst = arith.constant dense<100> : tensor<4x8xi32>
    %cst_0 = arith.constant dense<100> : tensor<8xi32>
    %a = arith.addi %offs, %cst : tensor<4x8xi32>
    %b0 = arith.addi %cols, %cst_0 : tensor<8xi32>
    %cat = tt.cat %cols, %b0 : tensor<8xi32> -> tensor<16xi32>
    %j = tt.join %offs, %a : tensor<4x8xi32> -> tensor<4x8x2xi32>
    %j_0 = tt.reshape %j : tensor<4x8x2xi32> -> tensor<64xi32>
    %l, %r = tt.split %j : tensor<4x8x2xi32> -> tensor<4x8xi32>
    %l_0 = tt.reshape %l : tensor<4x8xi32> -> tensor<32xi32>
    %r_0 = tt.reshape %r : tensor<4x8xi32> -> tensor<32xi32>
    %ab = tt.join %offs, %a : tensor<4x8xi32> -> tensor<4x8x2xi32>
    %t0 = tt.trans %ab {order = array<i32: 2, 0, 1>} : tensor<4x8x2xi32> -> tensor<2x4x8xi32>
    %t1 = tt.trans %t0 {order = array<i32: 2, 0, 1>} : tensor<2x4x8xi32> -> tensor<8x2x4xi32>
    %t2 = tt.reshape %t1 : tensor<8x2x4xi32> -> tensor<64xi32>
    %o16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %o32 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %o64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
""" + constants("i32", 16, 80, 112, 144) + store_at("y16", "%y_ptr", "%cat", "i32", shape="16", offsets="%o16") + """\
    %p1 = tt.addptr %y_ptr, %c16_i32 : !tt.ptr<i32>, i32
""" + store_at("y64", "%p1", "%j_0", "i32", shape="64", offsets="%o64") + """\
    %p2 = tt.addptr %y_ptr, %c80_i32 : !tt.ptr<i32>, i32
""" + store_at("y32", "%p2", "%l_0", "i32", shape="32", offsets="%o32") + """\
    %p3 = tt.addptr %y_ptr, %c112_i32 : !tt.ptr<i32>, i32
    %y32_1 = tt.splat %p3 : !tt.ptr<i32> -> tensor<32x!tt.ptr<i32>>
    %y32_2 = tt.addptr %y32_1, %o32 : tensor<32x!tt.ptr<i32>>, tensor<32xi32>
    tt.store %y32_2, %r_0 : tensor<32x!tt.ptr<i32>>
    %p4 = tt.addptr %y_ptr, %c144_i32 : !tt.ptr<i32>, i32
    %y64_1 = tt.splat %p4 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %y64_2 = tt.addptr %y64_1, %o64 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %y64_2, %t2 : tensor<64x!tt.ptr<i32>>
""")), "With a = 0..31 and b = 100..131 as 4x8 tiles: tt.cat(a[row 0], b[row 0]) -> y[0..15] (tilesim's "
           "order, a then b: ir/Ops.def; Triton's tl.cat may reorder, so a GPU engine that does would fail only "
           "here); tt.join(a, b) (4x8x2) reshaped row-major -> y[16..79]; tt.split of it -> y[80..111] and "
           "y[112..143]; tt.trans order [2, 0, 1] twice (4x8x2 -> 2x4x8 -> 8x2x4) reshaped -> y[144..207]. "
           "The expand_dims / broadcast / splat that build the offsets are covered on the way.") \
        .tensor("y_ptr", "int32", np.full(208, -1), y)
