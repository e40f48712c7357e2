"""Engine cases, family `layout`: kernels whose GPU lowering must move data between threads through shared memory
(layout conversions): tt.trans of 2-D and 3-D tiles of every element width, reshape then trans, a reduction
broadcast back onto its tile, two conversions in a row, a conversion inside scf.for (barriers across the back
edge), join / split / cat, f16 tt.dot (its operands and its result change layout), tiles smaller than the program
(replicated layouts), and the transpose benchmark's kernel on a 2x2 grid and under masks. Every value is a bit
pattern moved or an exact integer sum, so any engine must match bit for bit; num_warps varies over 1, 2, 4 and 8
(the layouts differ)."""
import numpy as np

from engine_case import Case
from layout_ttir import (LAYOUT_DTYPES, dims, layout_kernel, layout_rng, layout_values, load_nd, offsets_nd, ptrs_of,
                         small_ints, store_nd, tensor_of, trans_op, unwritten)


def trans_2d_kernel(element, rows, cols):
    """@trans: y (cols x rows) = tt.trans of x (rows x cols), both row-major."""
    body = (offsets_nd("xo", (rows, cols)) + offsets_nd("yo", (cols, rows)) +
            load_nd("x", "x_ptr", element, "xo", (rows, cols)) + trans_op("t", "x", (1, 0), (rows, cols), element) +
            store_nd("y", "y_ptr", element, "yo", (cols, rows), "t"))
    return layout_kernel("trans", [("x_ptr", element), ("y_ptr", element)], body)


def trans_2d_cases():
    shapes = [("f32", (64, 64), 4), ("f32", (32, 128), 2), ("f32", (16, 256), 8), ("f32", (128, 8), 1),
              ("f16", (64, 64), 8), ("f16", (32, 128), 4), ("bf16", (16, 256), 2), ("bf16", (64, 64), 4),
              ("i8", (64, 64), 1), ("i8", (32, 128), 8), ("i64", (64, 64), 4), ("i64", (128, 8), 1),
              ("i1", (64, 64), 2), ("i1", (16, 256), 4)]
    for element, (rows, cols), warps in shapes:
        name = "trans_%s_%dx%d_w%d" % (element, rows, cols, warps)
        x = layout_values(layout_rng(name), element, (rows, cols))
        y = np.ascontiguousarray(x.T)
        memory = " (through memory as i8 bytes: bitcast pointers, cmpi ne 0 after the load, extui before the store, "\
                 "as Triton lowers a bool pointer)" if element == "i1" else \
            " (raw bit patterns, any finite value)" if element == "bf16" else ""
        Case("layout", name, "trans", trans_2d_kernel(element, rows, cols),
             "tt.trans of a %dx%d %s tile%s loaded row-major, stored row-major as the %dx%d transpose with "
             "num_warps = %d: y = x.T, every bit of every element. A GPU lowering moves the elements between "
             "threads (through shared memory); y starts different from the expected value in every lane." %
             (rows, cols, element, memory, cols, rows, warps), num_warps=warps) \
            .tensor("x_ptr", LAYOUT_DTYPES[element], x) \
            .tensor("y_ptr", LAYOUT_DTYPES[element], unwritten(y, element), y)


def trans_3d_cases():
    for element, shape, order, warps in [("f32", (4, 8, 32), (2, 0, 1), 4), ("f16", (8, 16, 32), (1, 0, 2), 2),
                                         ("i8", (8, 8, 32), (2, 0, 1), 8), ("i32", (16, 4, 32), (1, 0, 2), 1)]:
        out = tuple(shape[i] for i in order)
        name = "trans3d_%s_%s_order%s_w%d" % (element, dims(shape), "".join(str(i) for i in order), warps)
        x = layout_values(layout_rng(name), element, shape)
        y = np.ascontiguousarray(np.transpose(x, order))  # result dim i is input dim order[i]
        body = (offsets_nd("xo", shape) + offsets_nd("yo", out) + load_nd("x", "x_ptr", element, "xo", shape) +
                trans_op("t", "x", order, shape, element) + store_nd("y", "y_ptr", element, "yo", out, "t"))
        Case("layout", name, "trans3", layout_kernel("trans3", [("x_ptr", element), ("y_ptr", element)], body),
             "tt.trans order [%s] of a %s %s tile (result dim i is input dim order[i]: %s), both tiles row-major "
             "in memory, num_warps = %d: y = np.transpose(x, order)." %
             (", ".join(str(i) for i in order), dims(shape), element, dims(out), warps), num_warps=warps) \
            .tensor("x_ptr", LAYOUT_DTYPES[element], x) \
            .tensor("y_ptr", LAYOUT_DTYPES[element], unwritten(y, element), y)


def reshape_trans_cases():
    for element, loaded, shape, warps in [("f32", (2048,), (32, 64), 4), ("i32", (16, 128), (64, 32), 8),
                                          ("f16", (64, 64), (128, 32), 2)]:
        name = "reshape_trans_%s_%s_to_%s_w%d" % (element, dims(loaded), dims(shape), warps)
        x = layout_values(layout_rng(name), element, loaded)
        y = np.ascontiguousarray(x.reshape(shape).T)
        out = (shape[1], shape[0])
        body = (offsets_nd("xo", loaded) + offsets_nd("yo", out) + load_nd("x", "x_ptr", element, "xo", loaded) +
                "    %%r = tt.reshape %%x : %s -> %s\n" % (tensor_of(loaded, element), tensor_of(shape, element)) +
                trans_op("t", "r", (1, 0), shape, element) + store_nd("y", "y_ptr", element, "yo", out, "t"))
        Case("layout", name, "reshape_trans", layout_kernel("reshape_trans", [("x_ptr", element), ("y_ptr", element)],
                                                             body),
             "tt.reshape of a loaded %s %s tile to %s (row-major element order), then tt.trans, num_warps = %d: "
             "y = x.reshape(%s).T." % (dims(loaded), element, dims(shape), warps, ", ".join(map(str, shape))),
             num_warps=warps) \
            .tensor("x_ptr", LAYOUT_DTYPES[element], x) \
            .tensor("y_ptr", LAYOUT_DTYPES[element], unwritten(y, element), y)


def reduce_region(element, combine):
    op = {("f32", "add"): "arith.addf", ("i32", "add"): "arith.addi", ("i32", "max"): "arith.maxsi",
          ("f32", "max"): "arith.maxnumf"}[(element, combine)]
    return """({
    ^bb0(%%ra: %(e)s, %%rb: %(e)s):
      %%rc = %(op)s %%ra, %%rb : %(e)s
      tt.reduce.return %%rc : %(e)s
    })""" % dict(e=element, op=op)


def reduce_broadcast_cases():
    for element, combine, (rows, cols), axis, warps in [("f32", "add", (64, 32), 0, 4), ("i32", "max", (128, 16), 0, 8),
                                                       ("f32", "add", (32, 64), 1, 2), ("i32", "add", (16, 128), 0, 1)]:
        name = "reduce_axis%d_broadcast_%s_%s_%dx%d_w%d" % (axis, combine, element, rows, cols, warps)
        rng = layout_rng(name)
        x = small_ints(rng, element, (rows, cols), 1000) if element == "f32" else \
            rng.integers(-2**20, 2**20, size=(rows, cols)).astype(np.int32)
        reduced = x.sum(axis=axis) if combine == "add" else x.max(axis=axis)
        reduced = reduced.astype(x.dtype)
        kept = (cols,) if axis == 0 else (rows,)
        unit = (1, cols) if axis == 0 else (rows, 1)
        back = np.expand_dims(reduced, axis)
        y = (x - back).astype(x.dtype)
        sub = "arith.subf" if element == "f32" else "arith.subi"
        body = (offsets_nd("xo", (rows, cols)) + offsets_nd("so", kept) +
                load_nd("x", "x_ptr", element, "xo", (rows, cols)) +
                '    %%s = "tt.reduce"(%%x) <{axis = %d : i32}> %s : (%s) -> %s\n' % (
                    axis, reduce_region(element, combine), tensor_of((rows, cols), element), tensor_of(kept, element)) +
                "    %%s_e = tt.expand_dims %%s {axis = %d : i32} : %s -> %s\n" % (
                    axis, tensor_of(kept, element), tensor_of(unit, element)) +
                "    %%s_b = tt.broadcast %%s_e : %s -> %s\n" % (tensor_of(unit, element),
                                                              tensor_of((rows, cols), element)) +
                "    %%d = %s %%x, %%s_b : %s\n" % (sub, tensor_of((rows, cols), element)) +
                store_nd("y", "y_ptr", element, "xo", (rows, cols), "d") +
                store_nd("r", "s_ptr", element, "so", kept, "s"))
        exact = "integers, so the sum is exact in any order" if element == "f32" else "int32"
        Case("layout", name, "reduce_bcast", layout_kernel("reduce_bcast", [("x_ptr", element), ("y_ptr", element),
                                                                             ("s_ptr", element)], body),
             "tt.reduce (%s) along axis %d of a %dx%d %s tile (%s), then tt.expand_dims axis %d and tt.broadcast "
             "back to %dx%d and subtracted from the tile, num_warps = %d: s = x.%s(axis=%d), y = x - s broadcast. "
             "The reduced vector's layout (sliced) goes back to the tile's." %
             (combine, axis, rows, cols, element, exact, axis, rows, cols, warps,
              "sum" if combine == "add" else "max", axis), num_warps=warps) \
            .tensor("x_ptr", LAYOUT_DTYPES[element], x) \
            .tensor("y_ptr", LAYOUT_DTYPES[element], unwritten(y, element), y) \
            .tensor("s_ptr", LAYOUT_DTYPES[element], unwritten(reduced, element), reduced)


def trans_trans_cases():
    for element, (rows, cols), warps in [("f32", (64, 32), 4), ("i32", (128, 32), 8)]:
        name = "trans_add_trans_add_%s_%dx%d_w%d" % (element, rows, cols, warps)
        rng = layout_rng(name)
        x = small_ints(rng, element, (rows, cols), 1 << 12)
        c = small_ints(rng, element, (cols, rows), 1 << 12)
        y = ((x.T + c).T + x).astype(x.dtype)
        add = "arith.addf" if element == "f32" else "arith.addi"
        body = (offsets_nd("xo", (rows, cols)) + offsets_nd("co", (cols, rows)) +
                load_nd("x", "x_ptr", element, "xo", (rows, cols)) +
                load_nd("c", "c_ptr", element, "co", (cols, rows)) +
                trans_op("t", "x", (1, 0), (rows, cols), element) +
                "    %%u = %s %%t, %%c : %s\n" % (add, tensor_of((cols, rows), element)) +
                trans_op("v", "u", (1, 0), (cols, rows), element) +
                "    %%w = %s %%v, %%x : %s\n" % (add, tensor_of((rows, cols), element)) +
                store_nd("y", "y_ptr", element, "xo", (rows, cols), "w"))
        Case("layout", name, "trans_trans", layout_kernel("trans_trans", [("x_ptr", element), ("c_ptr", element),
                                                                           ("y_ptr", element)], body),
             "Two conversions in a row with elementwise ops between them: y = trans(trans(x) + c) + x for a %dx%d "
             "%s tile x and a %dx%d tile c (small integers: exact), num_warps = %d; both transposes meet a tile in "
             "its loaded layout." % (rows, cols, element, cols, rows, warps), num_warps=warps) \
            .tensor("x_ptr", LAYOUT_DTYPES[element], x).tensor("c_ptr", LAYOUT_DTYPES[element], c) \
            .tensor("y_ptr", LAYOUT_DTYPES[element], unwritten(y, element), y)


def loop_cases():
    n, trips = 32, 7
    name = "loop_trans_i32_32x32_w4"
    x = layout_rng(name).integers(-1000, 1000, size=(n, n)).astype(np.int32)
    steps, current = [], x
    for _ in range(trips):
        current = current.T + x
        steps.append(current)
    final = np.ascontiguousarray(current.T)
    tile = tensor_of((n, n), "i32")
    ptrs = ptrs_of((n, n), "i32")
    body = (offsets_nd("xo", (n, n)) + load_nd("x", "x_ptr", "i32", "xo", (n, n)) + """\
    %%c0_i32 = arith.constant 0 : i32
    %%c1_i32 = arith.constant 1 : i32
    %%c%(trips)d_i32 = arith.constant %(trips)d : i32
    %%c%(size)d_i32 = arith.constant %(size)d : i32
    %%t = scf.for %%i = %%c0_i32 to %%c%(trips)d_i32 step %%c1_i32 iter_args(%%cur = %%x) -> (%(tile)s)  : i32 {
      %%tr = tt.trans %%cur {order = array<i32: 1, 0>} : %(tile)s -> %(tile)s
      %%next = arith.addi %%tr, %%x : %(tile)s
      %%base = arith.muli %%i, %%c%(size)d_i32 : i32
      %%yb = tt.addptr %%y_ptr, %%base : !tt.ptr<i32>, i32
      %%ys = tt.splat %%yb : !tt.ptr<i32> -> %(ptrs)s
      %%yq = tt.addptr %%ys, %%xo : %(ptrs)s, %(tile)s
      tt.store %%yq, %%next : %(ptrs)s
      scf.yield %%next : %(tile)s
    }
""" % dict(trips=trips, size=n * n, tile=tile, ptrs=ptrs) + trans_op("f", "t", (1, 0), (n, n), "i32") +
            store_nd("z", "z_ptr", "i32", "xo", (n, n), "f"))
    y = np.stack(steps)
    Case("layout", name, "loop_trans", layout_kernel("loop_trans", [("x_ptr", "i32"), ("y_ptr", "i32"),
                                                                     ("z_ptr", "i32")], body),
         "A loop-carried 32x32 i32 tile transposed every iteration of scf.for (7 trips): cur = trans(cur) + x, "
         "stored to y[i] each trip, and transposed once more after the loop into z, num_warps = 4. A lowering "
         "through shared memory reuses its buffer every trip, so it needs a barrier across the back edge (a "
         "trip's writes must wait for the previous trip's reads).") \
        .tensor("x_ptr", "int32", x) \
        .tensor("y_ptr", "int32", unwritten(y, "i32"), y) \
        .tensor("z_ptr", "int32", unwritten(final, "i32"), final)

    n, trips = 64, 4
    name = "loop_trans_acc_f32_64x64_w8"
    x = small_ints(layout_rng(name), "f32", (n, n), 16)
    current, acc = x, np.zeros((n, n), np.float32)
    for _ in range(trips):
        current = (current.T + x).astype(np.float32)
        acc = (acc + current.T).astype(np.float32)
    tile = tensor_of((n, n), "f32")
    body = (offsets_nd("xo", (n, n)) + load_nd("x", "x_ptr", "f32", "xo", (n, n)) + """\
    %%c0_i32 = arith.constant 0 : i32
    %%c1_i32 = arith.constant 1 : i32
    %%c%(trips)d_i32 = arith.constant %(trips)d : i32
    %%zero = arith.constant dense<0.000000e+00> : %(tile)s
    %%t:2 = scf.for %%i = %%c0_i32 to %%c%(trips)d_i32 step %%c1_i32 iter_args(%%cur = %%x, %%acc = %%zero) -> (%(tile)s, %(tile)s)  : i32 {
      %%tr = tt.trans %%cur {order = array<i32: 1, 0>} : %(tile)s -> %(tile)s
      %%next = arith.addf %%tr, %%x : %(tile)s
      %%back = tt.trans %%next {order = array<i32: 1, 0>} : %(tile)s -> %(tile)s
      %%acc_next = arith.addf %%acc, %%back : %(tile)s
      scf.yield %%next, %%acc_next : %(tile)s, %(tile)s
    }
""" % dict(trips=trips, tile=tile) + store_nd("y", "y_ptr", "f32", "xo", (n, n), "t#0") +
            store_nd("a", "a_ptr", "f32", "xo", (n, n), "t#1"))
    Case("layout", name, "loop_trans_acc", layout_kernel("loop_trans_acc", [("x_ptr", "f32"), ("y_ptr", "f32"),
                                                                             ("a_ptr", "f32")], body),
         "Two tt.trans per trip of scf.for (4 trips) on 64x64 f32 tiles with num_warps = 8: cur = trans(cur) + x, "
         "acc = acc + trans(cur); both loop-carried. Small integers, so every sum is exact. Checks barriers "
         "between the two conversions of one trip and across the back edge.", num_warps=8) \
        .tensor("x_ptr", "float32", x) \
        .tensor("y_ptr", "float32", unwritten(current, "f32"), current) \
        .tensor("a_ptr", "float32", unwritten(acc, "f32"), acc)


def join_split_cat_cases():
    name = "join_reshape_f32_64x32_w4"
    rng = layout_rng(name)
    a, b = layout_values(rng, "f32", (64, 32)), layout_values(rng, "f32", (64, 32))
    y = np.stack([a, b], axis=-1).reshape(64, 64)
    body = (offsets_nd("ao", (64, 32)) + offsets_nd("yo", (64, 64)) + load_nd("a", "a_ptr", "f32", "ao", (64, 32)) +
            load_nd("b", "b_ptr", "f32", "ao", (64, 32)) +
            "    %j = tt.join %a, %b : tensor<64x32xf32> -> tensor<64x32x2xf32>\n" +
            "    %r = tt.reshape %j : tensor<64x32x2xf32> -> tensor<64x64xf32>\n" +
            store_nd("y", "y_ptr", "f32", "yo", (64, 64), "r"))
    Case("layout", name, "join_reshape", layout_kernel("join_reshape", [("a_ptr", "f32"), ("b_ptr", "f32"),
                                                                         ("y_ptr", "f32")], body),
         "tt.join of two 64x32 f32 tiles (a new minor dim of size 2), reshaped to 64x64: y[r][2c] = a[r][c], "
         "y[r][2c+1] = b[r][c] (interleaved columns), num_warps = 4.") \
        .tensor("a_ptr", "float32", a).tensor("b_ptr", "float32", b) \
        .tensor("y_ptr", "float32", unwritten(y, "f32"), y)

    name = "reshape_split_f16_64x64_w2"
    x = layout_values(layout_rng(name), "f16", (64, 64))
    left, right = np.ascontiguousarray(x[:, 0::2]), np.ascontiguousarray(x[:, 1::2])
    body = (offsets_nd("xo", (64, 64)) + offsets_nd("lo", (64, 32)) + load_nd("x", "x_ptr", "f16", "xo", (64, 64)) +
            "    %x3 = tt.reshape %x : tensor<64x64xf16> -> tensor<64x32x2xf16>\n" +
            "    %l, %r = tt.split %x3 : tensor<64x32x2xf16> -> tensor<64x32xf16>\n" +
            store_nd("y", "y_ptr", "f16", "lo", (64, 32), "l") + store_nd("z", "z_ptr", "f16", "lo", (64, 32), "r"))
    Case("layout", name, "reshape_split", layout_kernel("reshape_split", [("x_ptr", "f16"), ("y_ptr", "f16"),
                                                                           ("z_ptr", "f16")], body),
         "A 64x64 f16 tile reshaped to 64x32x2 and tt.split: y = the even columns, z = the odd columns, "
         "num_warps = 2.", num_warps=2) \
        .tensor("x_ptr", "float16", x) \
        .tensor("y_ptr", "float16", unwritten(left, "f16"), left) \
        .tensor("z_ptr", "float16", unwritten(right, "f16"), right)

    name = "join_trans3d_i32_32x64_w8"
    rng = layout_rng(name)
    a, b = layout_values(rng, "i32", (32, 64)), layout_values(rng, "i32", (32, 64))
    y = np.ascontiguousarray(np.transpose(np.stack([a, b], axis=-1), (2, 0, 1)))
    body = (offsets_nd("ao", (32, 64)) + offsets_nd("yo", (2, 32, 64)) + load_nd("a", "a_ptr", "i32", "ao", (32, 64)) +
            load_nd("b", "b_ptr", "i32", "ao", (32, 64)) +
            "    %j = tt.join %a, %b : tensor<32x64xi32> -> tensor<32x64x2xi32>\n" +
            trans_op("t", "j", (2, 0, 1), (32, 64, 2), "i32") +
            store_nd("y", "y_ptr", "i32", "yo", (2, 32, 64), "t"))
    Case("layout", name, "join_trans", layout_kernel("join_trans", [("a_ptr", "i32"), ("b_ptr", "i32"),
                                                                     ("y_ptr", "i32")], body),
         "tt.join of two 32x64 i32 tiles (32x64x2), then tt.trans order [2, 0, 1] to 2x32x64, stored row-major: "
         "y = a then b, num_warps = 8 (the minor dim of size 2 becomes the major one).", num_warps=8) \
        .tensor("a_ptr", "int32", a).tensor("b_ptr", "int32", b) \
        .tensor("y_ptr", "int32", unwritten(y, "i32"), y)

    for element, n, warps in [("i32", 512, 1), ("f16", 1024, 4)]:
        name = "cat_%s_%d_w%d" % (element, n, warps)
        rng = layout_rng(name)
        a, b = layout_values(rng, element, (n,)), layout_values(rng, element, (n,))
        y = np.concatenate([a, b])
        body = (offsets_nd("o", (n,)) + offsets_nd("yo", (2 * n,)) + load_nd("a", "a_ptr", element, "o", (n,)) +
                load_nd("b", "b_ptr", element, "o", (n,)) +
                "    %%c = tt.cat %%a, %%b : %s -> %s\n" % (tensor_of((n,), element), tensor_of((2 * n,), element)) +
                store_nd("y", "y_ptr", element, "yo", (2 * n,), "c"))
        Case("layout", name, "cat", layout_kernel("cat", [("a_ptr", element), ("b_ptr", element),
                                                          ("y_ptr", element)], body),
             "tt.cat of two %d-element %s vectors, num_warps = %d: y = a then b (tilesim's order: ir/Ops.def; "
             "Triton's tl.cat(can_reorder=True) may reorder, so an engine that does would fail here)." %
             (n, element, warps), num_warps=warps) \
            .tensor("a_ptr", LAYOUT_DTYPES[element], a).tensor("b_ptr", LAYOUT_DTYPES[element], b) \
            .tensor("y_ptr", LAYOUT_DTYPES[element], unwritten(y, element), y)


def dot_f16_cases():
    for (m, n, k), warps, trans_a, out in [((16, 16, 16), 1, False, "f32"), ((64, 64, 32), 4, False, "f32"),
                                           ((128, 64, 64), 8, False, "f32"), ((64, 64, 32), 2, True, "f16")]:
        name = "dot_f16_%dx%dx%d%s_w%d" % (m, n, k, "_trans_a_f16_out" if trans_a else "", warps)
        rng = layout_rng(name)
        a = rng.integers(-4, 5, size=(m, k)).astype(np.float16)
        b = rng.integers(-4, 5, size=(k, n)).astype(np.float16)
        c = rng.integers(-64, 65, size=(m, n)).astype(np.float32)
        exact = a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64)
        assert np.abs(exact).max() < 2048  # exact in f16 and f32, whatever the order of the sum
        d = exact.astype(np.float16 if out == "f16" else np.float32)
        a_shape = (k, m) if trans_a else (m, k)
        body = (offsets_nd("ao", a_shape) + offsets_nd("bo", (k, n)) + offsets_nd("co", (m, n)) +
                load_nd("a" if not trans_a else "at", "a_ptr", "f16", "ao", a_shape) +
                (trans_op("a", "at", (1, 0), a_shape, "f16") if trans_a else "") +
                load_nd("b", "b_ptr", "f16", "bo", (k, n)) + load_nd("c", "c_ptr", "f32", "co", (m, n)) +
                "    %%d = tt.dot %%a, %%b, %%c, inputPrecision = tf32 : %s * %s -> %s\n" % (
                    tensor_of((m, k), "f16"), tensor_of((k, n), "f16"), tensor_of((m, n), "f32")) +
                ("    %%d16 = arith.truncf %%d : %s to %s\n" % (tensor_of((m, n), "f32"), tensor_of((m, n), "f16"))
                 if out == "f16" else "") +
                store_nd("y", "y_ptr", out, "co", (m, n), "d16" if out == "f16" else "d"))
        Case("layout", name, "dot_f16", layout_kernel("dot_f16", [("a_ptr", "f16"), ("b_ptr", "f16"), ("c_ptr", "f32"),
                                                                   ("y_ptr", out)], body),
             "tt.dot f16 x f16 -> f32, %dx%d by %dx%d onto a loaded accumulator, num_warps = %d%s: small integers "
             "(a, b in [-4, 4], c in [-64, 64]), so every product and sum is exact in any order (tensor cores or "
             "FMA): y = a @ b + c%s. The operands go to the dot's operand layouts and the result back to a "
             "blocked one for the store." %
             (m, k, k, n, warps, "; a is loaded as its %dx%d transpose and tt.trans'ed first" % (k, m) if trans_a
              else "", ", truncated to f16 (exact)" if out == "f16" else ""), num_warps=warps) \
            .tensor("a_ptr", "float16", a.T.copy() if trans_a else a).tensor("b_ptr", "float16", b) \
            .tensor("c_ptr", "float32", c) \
            .tensor("y_ptr", LAYOUT_DTYPES[out], unwritten(d, out), d)


def replicated_trans_cases():
    """Tiles smaller than the programs' threads: a GPU layout holds some elements in several threads (or wraps),
    so a conversion must read each element once and the store must not write a wrong copy."""
    for element, (rows, cols), warps in [("f32", (8, 16), 8), ("i8", (16, 32), 8), ("f16", (4, 64), 4)]:
        name = "trans_small_%s_%dx%d_w%d" % (element, rows, cols, warps)
        x = layout_values(layout_rng(name), element, (rows, cols))
        y = np.ascontiguousarray(x.T)
        Case("layout", name, "trans", trans_2d_kernel(element, rows, cols),
             "tt.trans of a %dx%d %s tile (%d elements) with num_warps = %d (%d threads): a tile smaller than the "
             "program, so a GPU layout replicates elements across threads; y = x.T, every lane written once with "
             "the right value." % (rows, cols, element, rows * cols, warps, 32 * warps), num_warps=warps) \
            .tensor("x_ptr", LAYOUT_DTYPES[element], x) \
            .tensor("y_ptr", LAYOUT_DTYPES[element], unwritten(y, element), y)


def trans_consumer_cases():
    name = "trans_then_reduce_axis1_f32_64x32_w4"
    x = small_ints(layout_rng(name), "f32", (64, 32), 1000)
    s = x.T.sum(axis=1).astype(np.float32)  # the column sums of x
    body = (offsets_nd("xo", (64, 32)) + offsets_nd("so", (32,)) + load_nd("x", "x_ptr", "f32", "xo", (64, 32)) +
            trans_op("t", "x", (1, 0), (64, 32), "f32") +
            '    %%s = "tt.reduce"(%%t) <{axis = 1 : i32}> %s : (tensor<32x64xf32>) -> tensor<32xf32>\n' %
            reduce_region("f32", "add") + store_nd("r", "s_ptr", "f32", "so", (32,), "s"))
    Case("layout", name, "trans_reduce", layout_kernel("trans_reduce", [("x_ptr", "f32"), ("s_ptr", "f32")], body),
         "A transposed tile feeding a reduction: s = sum over axis 1 of trans(x) for a 64x32 f32 tile of small "
         "integers (exact in any order), i.e. the column sums of x, num_warps = 4.") \
        .tensor("x_ptr", "float32", x).tensor("s_ptr", "float32", unwritten(s, "f32"), s)

    name = "dot_f16_64x32x32_trans_result_w4"
    rng = layout_rng(name)
    a = rng.integers(-4, 5, size=(64, 32)).astype(np.float16)
    b = rng.integers(-4, 5, size=(32, 32)).astype(np.float16)
    d = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32)
    y = np.ascontiguousarray(d.T)
    body = (offsets_nd("ao", (64, 32)) + offsets_nd("bo", (32, 32)) + offsets_nd("yo", (32, 64)) +
            load_nd("a", "a_ptr", "f16", "ao", (64, 32)) + load_nd("b", "b_ptr", "f16", "bo", (32, 32)) +
            "    %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32>\n" +
            "    %d = tt.dot %a, %b, %zero, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x32xf16> -> "
            "tensor<64x32xf32>\n" + trans_op("t", "d", (1, 0), (64, 32), "f32") +
            store_nd("y", "y_ptr", "f32", "yo", (32, 64), "t"))
    Case("layout", name, "dot_trans", layout_kernel("dot_trans", [("a_ptr", "f16"), ("b_ptr", "f16"),
                                                                   ("y_ptr", "f32")], body),
         "tt.dot f16 x f16 -> f32 (64x32 by 32x32, zero accumulator, small integers: exact in any order), its result "
         "tt.trans'ed and stored as 32x64, num_warps = 4: y = (a @ b).T. The conversion starts from the dot's "
         "result layout (on the GPU an mma accumulator).") \
        .tensor("a_ptr", "float16", a).tensor("b_ptr", "float16", b) \
        .tensor("y_ptr", "float32", unwritten(y, "f32"), y)


def transpose_kernel_cases():
    """The benchmark's kernel (bench/gpu/kernels.py `transpose`) written out: BLOCK x BLOCK tiles at program
    (pid_x, pid_y), an n x n matrix with n a scalar argument; and a masked variant over a matrix that is not a
    whole number of tiles."""
    n, block = 128, 64
    name = "transpose_tiles_f32_128x128_grid2x2_w4"
    x = layout_values(layout_rng(name), "f32", (n, n))
    y = np.ascontiguousarray(x.T)
    tile = "tensor<64x64xi32>"
    body = """    %c64_i32 = arith.constant 64 : i32
    %pid_x = tt.get_program_id x : i32
    %pid_y = tt.get_program_id y : i32
    %row0 = arith.muli %pid_x, %c64_i32 : i32
    %col0 = arith.muli %pid_y, %c64_i32 : i32
    %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %row0_s = tt.splat %row0 : i32 -> tensor<64xi32>
    %rows = arith.addi %row0_s, %range : tensor<64xi32>
    %col0_s = tt.splat %col0 : i32 -> tensor<64xi32>
    %cols = arith.addi %col0_s, %range : tensor<64xi32>
    %n_s = tt.splat %n : i32 -> tensor<64x1xi32>
    %r_e = tt.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %r_m = arith.muli %r_e, %n_s : tensor<64x1xi32>
    %r_b = tt.broadcast %r_m : tensor<64x1xi32> -> TILE
    %c_e = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c_b = tt.broadcast %c_e : tensor<1x64xi32> -> TILE
    %xo = arith.addi %r_b, %c_b : TILE
    %c_e1 = tt.expand_dims %cols {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c_m = arith.muli %c_e1, %n_s : tensor<64x1xi32>
    %c_b1 = tt.broadcast %c_m : tensor<64x1xi32> -> TILE
    %r_e1 = tt.expand_dims %rows {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %r_b1 = tt.broadcast %r_e1 : tensor<1x64xi32> -> TILE
    %yo = arith.addi %c_b1, %r_b1 : TILE
""".replace("TILE", tile) + load_nd("x", "x_ptr", "f32", "xo", (64, 64)) + \
        trans_op("t", "x", (1, 0), (64, 64), "f32") + store_nd("y", "y_ptr", "f32", "yo", (64, 64), "t")
    ttir = ("module {\n  tt.func public @transpose(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %n: i32) "
            "attributes {noinline = false} {\n" + body + "    tt.return\n  }\n}\n")
    Case("layout", name, "transpose", ttir,
         "The transpose benchmark's kernel (bench/gpu/kernels.py) at n = 128: program (i, j) of a 2x2 grid loads "
         "the 64x64 tile at rows 64i.., columns 64j.. of x (row-major, stride n), tt.trans, and stores it at rows "
         "64j.., columns 64i.. of y: y = x.T, num_warps = 4.", grid=(2, 2)) \
        .tensor("x_ptr", "float32", x).tensor("y_ptr", "float32", unwritten(y, "f32"), y).scalar("n", n)

    rows, cols = 50, 40
    name = "trans_masked_f32_50x40_in_64x64_w4"
    x = layout_values(layout_rng(name), "f32", (rows, cols))
    y = np.ascontiguousarray(x.T)
    body = (offsets_nd("xo", (64, 64), (cols, 1)) + offsets_nd("yo", (64, 64), (rows, 1)) + """\
    %%in_r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %%in_r0 = tt.expand_dims %%in_r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %%in_r1 = tt.broadcast %%in_r0 : tensor<64x1xi32> -> %(t)s
    %%in_c0 = tt.expand_dims %%in_r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %%in_c1 = tt.broadcast %%in_c0 : tensor<1x64xi32> -> %(t)s
    %%rows_k = arith.constant dense<%(rows)d> : %(t)s
    %%cols_k = arith.constant dense<%(cols)d> : %(t)s
    %%xm_r = arith.cmpi slt, %%in_r1, %%rows_k : %(t)s
    %%xm_c = arith.cmpi slt, %%in_c1, %%cols_k : %(t)s
    %%xm = arith.andi %%xm_r, %%xm_c : tensor<64x64xi1>
    %%ym_r = arith.cmpi slt, %%in_r1, %%cols_k : %(t)s
    %%ym_c = arith.cmpi slt, %%in_c1, %%rows_k : %(t)s
    %%ym = arith.andi %%ym_r, %%ym_c : tensor<64x64xi1>
    %%other = arith.constant dense<-1.000000e+00> : tensor<64x64xf32>
    %%x_p = tt.splat %%x_ptr : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %%x_q = tt.addptr %%x_p, %%xo : tensor<64x64x!tt.ptr<f32>>, %(t)s
    %%x = tt.load %%x_q, %%xm, %%other : tensor<64x64x!tt.ptr<f32>>
""" % dict(t=tile, rows=rows, cols=cols) + trans_op("t", "x", (1, 0), (64, 64), "f32") + """\
    %y_p = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>>
    %y_q = tt.addptr %y_p, %yo : tensor<64x64x!tt.ptr<f32>>, tensor<64x64xi32>
    tt.store %y_q, %t, %ym : tensor<64x64x!tt.ptr<f32>>
""")
    Case("layout", name, "trans_masked", layout_kernel("trans_masked", [("x_ptr", "f32"), ("y_ptr", "f32")], body),
         "A 64x64 tile over a 50x40 f32 matrix: masked tt.load (rows < 50, columns < 40, other = -1.0), tt.trans, "
         "masked tt.store into the 40x50 transpose (rows < 40, columns < 50), num_warps = 4: y = x.T exactly, "
         "nothing written outside it (y is exactly 40x50, so a lane stored past the mask is an out-of-bounds "
         "report).") \
        .tensor("x_ptr", "float32", x).tensor("y_ptr", "float32", unwritten(y, "f32"), y)


def layout_cases():
    trans_2d_cases()
    trans_3d_cases()
    reshape_trans_cases()
    reduce_broadcast_cases()
    trans_trans_cases()
    loop_cases()
    join_split_cat_cases()
    dot_f16_cases()
    replicated_trans_cases()
    trans_consumer_cases()
    transpose_kernel_cases()
