"""Engine cases, family `reduce_scan`: tt.scan and tt.reduce (docs/semantics.md "Reductions and scans"); integer data keeps every
result exact in any order."""
import numpy as np

from engine_case import Case, load_at, module, store_at, tile_kernel


def tile_load_kernel(extra_parameters, body):
    """Loads x (4x8 i32) as %x_1; `body` stores the results."""
    return module(tile_kernel("k(%x_ptr: !tt.ptr<i32>" + extra_parameters + ")",
                              "\n" + load_at("x", "%x_ptr", "i32") + body))


def sample_tile():
    return (np.arange(32) * 37) % 19 - 9


def reduce_scan_cases():
    x = np.array([3, -1, 4, 1, -5, 9, 2, 6], np.int32)
    Case("reduce_scan", "scan_reverse_cumsum", "rcumsum", module("""
module {
  tt.func public @rcumsum(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
""" + load_at("x", "%x_ptr", "i32", shape="8") + """\
    %0 = "tt.scan"(%x_1) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %2 = arith.addi %arg2, %arg3 : i32
      tt.scan.return %2 : i32
    }) : (tensor<8xi32>) -> tensor<8xi32>
""" + store_at("y", "%y_ptr", "%0", "i32", shape="8") + """\
    tt.return
  }
}
"""), "tt.scan with reverse = true: y[i] = sum of x[i..7].") \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.zeros(8), np.cumsum(x[::-1])[::-1])

    m = np.array([2, 1, 3, 1, 2, 1, 1, 2], np.int32)
    c = np.arange(1, 9, dtype=np.int32)
    out_m, out_c = [int(m[0])], [int(c[0])]
    for i in range(1, 8):
        out_c.append(out_c[-1] * int(m[i]) + int(c[i]))
        out_m.append(out_m[-1] * int(m[i]))
    Case("reduce_scan", "scan_two_operand_affine", "affine", module("""
module {
  tt.func public @affine(%m_ptr: !tt.ptr<i32>, %c_ptr: !tt.ptr<i32>, %outm_ptr: !tt.ptr<i32>, %outc_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
""" + load_at("m", "%m_ptr", "i32", shape="8") + load_at("c", "%c_ptr", "i32", shape="8") + """\
    %0:2 = "tt.scan"(%m_1, %c_1) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32):
      %1 = arith.muli %arg4, %arg6 : i32
      %2 = arith.muli %arg5, %arg6 : i32
      %3 = arith.addi %2, %arg7 : i32
      tt.scan.return %1, %3 : i32, i32
    }) : (tensor<8xi32>, tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>)
""" + store_at("om", "%outm_ptr", "%0#0", "i32", shape="8") +
        store_at("oc", "%outc_ptr", "%0#1", "i32", shape="8") + """\
    tt.return
  }
}
"""), "A two-operand tt.scan whose combine is not commutative: each element (m, c) is the map v -> m*v + c and "
          "combine((m1, c1), (m2, c2)) = (m1*m2, c1*m2 + c2) composes them left to right, so passing the "
          "accumulator and the current element in the wrong order changes the result.") \
        .tensor("m_ptr", "int32", m).tensor("c_ptr", "int32", c) \
        .tensor("outm_ptr", "int32", np.zeros(8), out_m).tensor("outc_ptr", "int32", np.zeros(8), out_c)

    x = sample_tile()
    Case("reduce_scan", "scan_axis1_2d", "k", tile_load_kernel(", %y_ptr: !tt.ptr<i32>", """
    %0 = "tt.scan"(%x_1) <{axis = 1 : i32, reverse = false}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %1 = arith.addi %arg2, %arg3 : i32
      tt.scan.return %1 : i32
    }) : (tensor<4x8xi32>) -> tensor<4x8xi32>
""" + store_at("y", "%y_ptr", "%0", "i32")),
        "tt.scan (cumulative sum) along axis 1 of a 4x8 tile: each row separately.") \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.zeros(32),
                                            np.cumsum(x.reshape(4, 8), axis=1).ravel())

    Case("reduce_scan", "reduce_axis0_2d", "k", tile_load_kernel(", %y_ptr: !tt.ptr<i32>", """
    %0 = "tt.reduce"(%x_1) <{axis = 0 : i32}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %1 = arith.addi %arg2, %arg3 : i32
      tt.reduce.return %1 : i32
    }) : (tensor<4x8xi32>) -> tensor<8xi32>
""" + store_at("y", "%y_ptr", "%0", "i32", shape="8", offsets="%cols")),
        "tt.reduce (sum) along axis 0 of a 4x8 tile: one sum per column.") \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.zeros(8), x.reshape(4, 8).sum(axis=0))

    x = np.array([5, 6, -3, 8, 9, 9, 9, -3, 4, 4, 4, 4, 4, 4, 4, 4,
                  1, 0, 3, 3, 0, 0, 0, 3, 9, 8, 7, 6, 5, 4, 3, -1], np.int32)
    rows = x.reshape(4, 8)
    indices = np.argmin(rows, axis=1)  # NumPy returns the first occurrence of the minimum
    assert indices.tolist() == [2, 0, 1, 7]
    Case("reduce_scan", "argmin_ties_smallest_index", "k", tile_load_kernel(
        ", %v_ptr: !tt.ptr<i32>, %i_ptr: !tt.ptr<i32>", """
    %0:2 = "tt.reduce"(%x_1, %cols_1) <{axis = 1 : i32}> ({
    ^bb0(%arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32):
      %1 = arith.cmpi eq, %arg4, %arg6 : i32
      %2 = arith.cmpi slt, %arg5, %arg7 : i32
      %3 = arith.andi %1, %2 : i1
      %4 = arith.cmpi slt, %arg4, %arg6 : i32
      %5 = arith.ori %4, %3 : i1
      %6 = arith.select %5, %arg4, %arg6 : i32
      %7 = arith.select %5, %arg5, %arg7 : i32
      tt.reduce.return %6, %7 : i32, i32
    }) : (tensor<4x8xi32>, tensor<4x8xi32>) -> (tensor<4xi32>, tensor<4xi32>)
""" + store_at("v", "%v_ptr", "%0#0", "i32", shape="4", offsets="%rows") +
        store_at("i", "%i_ptr", "%0#1", "i32", shape="4", offsets="%rows")),
        "Triton's argmin combine (tie_break_left: v1 < v2 or (v1 == v2 and i1 < i2)) along axis 1: ties pick the "
          "smallest index. Row 0 has its minimum at 2 and 7, row 1 is all equal, row 2 has it at 1, 4, 5, 6 "
          "(in the lowest-bit-first tree 4 meets 5 first, then 1 meets the winner of 4..7, so the index test "
          "decides), row 3 once at the end.") \
        .tensor("x_ptr", "int32", x).tensor("v_ptr", "int32", np.full(4, 99), rows.min(axis=1)) \
        .tensor("i_ptr", "int32", np.full(4, 99), indices)

    x = np.where(np.arange(32) < 16, np.arange(32) % 5 - 2, np.arange(32) - 10)
    expected = np.maximum(x.reshape(4, 8).max(axis=1), 5)
    assert expected.tolist() == [5, 5, 13, 21]
    Case("reduce_scan", "reduce_region_own_constant", "k", tile_load_kernel(", %y_ptr: !tt.ptr<i32>", """
    %0 = "tt.reduce"(%x_1) <{axis = 1 : i32}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %c5_i32 = arith.constant 5 : i32
      %1 = arith.maxsi %arg2, %arg3 : i32
      %2 = arith.maxsi %1, %c5_i32 : i32
      tt.reduce.return %2 : i32
    }) : (tensor<4x8xi32>) -> tensor<4xi32>
""" + store_at("y", "%y_ptr", "%0", "i32", shape="4", offsets="%rows")),
        "A tt.reduce combine region that defines its own constant: combine(a, b) = max(max(a, b), 5), so each "
          "row reduces to max(5, max of the row); rows 0-1 stay below 5.") \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.zeros(4), expected)
