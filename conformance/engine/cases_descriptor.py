"""Engine cases, family `descriptor`: tensor descriptors (tt.make_tensor_descriptor,
tt.descriptor_load/store/gather/scatter, host TensorDescriptor arguments), in the syntax Triton 3.6 prints them."""
import string

import numpy as np

from engine_case import (Case, QUIET_NAN_F32, constants, f32_bits, load_at, module, padding_case, store_at, tile_4x8,
                         tile_kernel)


def desc_block(matrix, shape, row0, col0, pad, rows=4, cols=8):
    """The rows x cols block at (row0, col0) of `matrix` seen through a descriptor of `shape`: elements outside
    [0, shape) are `pad`, even where the buffer has data (the shape bounds the access, not the buffer)."""
    out = np.full((rows, cols), pad, dtype=matrix.dtype)
    for r in range(rows):
        for c in range(cols):
            if 0 <= row0 + r < shape[0] and 0 <= col0 + c < shape[1]:
                out[r, c] = matrix[row0 + r, col0 + c]
    return out


def host_descriptor_kernel(entry, block, element, extra_parameters="", tail=""):
    """A kernel taking a host TensorDescriptor %x_desc of 4x8 `block` blocks, as Triton 3.6's launcher passes it (the
    descriptor, then its shape as i32 and its strides as i64), and %out_ptr: program pid loads the block at
    (4 pid, 4) as `element`s and stores it to out_ptr[32 pid...]; `tail` follows."""
    text = """
module {
  tt.func public @$entry(%x_desc: !tt.tensordesc<tensor<4x8x$block>>, %x_desc_0: i32, %x_desc_1: i32, %x_desc_2: i64, %x_desc_3: i64, %out_ptr: !tt.ptr<$element>$extra) attributes {noinline = false} {
""" + constants("i32", 4, 32) + """\
    %pid = tt.get_program_id x : i32
    %row = arith.muli %pid, %c4_i32 : i32
    %t = tt.descriptor_load %x_desc[%row, %c4_i32] : !tt.tensordesc<tensor<4x8x$block>> -> tensor<4x8x$element>
    %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %rows_0 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %cst = arith.constant dense<8> : tensor<4x1xi32>
    %rows_1 = arith.muli %rows_0, %cst : tensor<4x1xi32>
    %rows_2 = tt.broadcast %rows_1 : tensor<4x1xi32> -> tensor<4x8xi32>
    %cols = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %cols_0 = tt.expand_dims %cols {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
    %cols_1 = tt.broadcast %cols_0 : tensor<1x8xi32> -> tensor<4x8xi32>
    %offs = arith.addi %rows_2, %cols_1 : tensor<4x8xi32>
    %base = arith.muli %pid, %c32_i32 : i32
    %out = tt.addptr %out_ptr, %base : !tt.ptr<$element>, i32
    %out_0 = tt.splat %out : !tt.ptr<$element> -> tensor<4x8x!tt.ptr<$element>>
    %out_1 = tt.addptr %out_0, %offs : tensor<4x8x!tt.ptr<$element>>, tensor<4x8xi32>
    tt.store %out_1, %t : tensor<4x8x!tt.ptr<$element>>
$tail    tt.return
  }
}
"""
    return module(string.Template(text).substitute(entry=entry, block=block, element=element, extra=extra_parameters,
                                                   tail=tail))


def descriptor_cases():
    a = (np.arange(60, dtype=np.float32) * np.float32(0.5) - np.float32(3)).reshape(5, 12)
    zero = desc_block(a, (5, 10), -1, 6, np.float32(0))
    nan = desc_block(a, (5, 10), 3, -2, f32_bits([QUIET_NAN_F32])[0])
    out = np.concatenate([zero.ravel(), nan.ravel()])
    padding_case("descriptor", "desc_load_padding", "desc_load",
                 "\n" + constants("i32", -1, -2, 3, 6, 5, 10) + constants("i64", 1, 12) + """\
    %cst = arith.constant dense<32> : tensor<4x8xi32>
    %dz = tt.make_tensor_descriptor %a_ptr, [%c5_i32, %c10_i32], [%c12_i64, %c1_i64] : <f32>, <tensor<4x8xf32>>
    %dn = tt.make_tensor_descriptor %a_ptr, [%c5_i32, %c10_i32], [%c12_i64, %c1_i64] {padding = 2 : i32} : <f32>, <tensor<4x8xf32>>
    %zero = tt.descriptor_load %dz[%c-1_i32, %c6_i32] : !tt.tensordesc<tensor<4x8xf32>> -> tensor<4x8xf32>
    %nan = tt.descriptor_load %dn[%c3_i32, %c-2_i32] : !tt.tensordesc<tensor<4x8xf32>> -> tensor<4x8xf32>
""",
                 "A descriptor of shape [5, 10] (strides [12, 1]) over a 5x12 f32 buffer: a 4x8 tt.descriptor_load at "
                 "(-1, 6) gives zero for row -1 and for columns 10, 11, which the buffer has but the shape excludes; "
                 "with padding = 2 the block at (3, -2) gives NaN (0x7FC00000) outside the shape. out_ptr is read back "
                 "as int32 so +0.0 and the NaN's bits are compared exactly.", a, out)

    buffer = np.full((5, 12), -1.0, np.float32)
    stored = buffer.copy()
    r, c = tile_4x8()
    block = (r * 8 + c).astype(np.float32)
    for i in range(4):
        for j in range(8):
            if 3 + i < 5 and 7 + j < 10:
                stored[3 + i, 7 + j] = block[i, j]
    Case("descriptor", "desc_store_drops", "desc_store", module(tile_kernel(
        "desc_store(%out_ptr: !tt.ptr<f32>)", "\n" + constants("i32", 3, 7, 5, 10) + constants("i64", 1, 12) + """\
    %v = arith.sitofp %offs : tensor<4x8xi32> to tensor<4x8xf32>
    %d = tt.make_tensor_descriptor %out_ptr, [%c5_i32, %c10_i32], [%c12_i64, %c1_i64] : <f32>, <tensor<4x8xf32>>
    tt.descriptor_store %d[%c3_i32, %c7_i32], %v : !tt.tensordesc<tensor<4x8xf32>>, tensor<4x8xf32>
""")),
         "A 4x8 tt.descriptor_store at (3, 7) through a [5, 10] descriptor of a 5x12 buffer writes rows 3..4, "
         "columns 7..9 only: elements past the shape are dropped, also those the buffer has (columns 10, 11) and "
         "those past the buffer's end (rows 5, 6), and none is reported.") \
        .tensor("out_ptr", "float32", buffer.ravel(), stored.ravel())

    x3 = (np.arange(48, dtype=np.float32) + np.float32(0.25)).reshape(2, 3, 8)
    got3 = np.zeros((4, 8), np.float32)
    for i in range(4):
        if 1 + i < 3:
            got3[i] = x3[1, 1 + i]
    Case("descriptor", "desc_rank3", "desc_rank3", module(tile_kernel(
        "desc_rank3(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)",
        "\n" + constants("i32", 0, 1, 2, 3, 8) + constants("i64", 1, 8, 24) + """\
    %d = tt.make_tensor_descriptor %x_ptr, [%c2_i32, %c3_i32, %c8_i32], [%c24_i64, %c8_i64, %c1_i64] : <f32>, <tensor<1x4x8xf32>>
    %t = tt.descriptor_load %d[%c1_i32, %c1_i32, %c0_i32] : !tt.tensordesc<tensor<1x4x8xf32>> -> tensor<1x4x8xf32>
    %t_0 = tt.reshape %t : tensor<1x4x8xf32> -> tensor<4x8xf32>
""" + store_at("out", "%out_ptr", "%t_0", "f32"))),
         "A rank-3 descriptor [2, 3, 8] (strides [24, 8, 1]) with block [1, 4, 8], loaded at (1, 1, 0) as the "
         "attention tutorial does: rows 1..2 of head 1, then rows 3, 4 outside the shape give zero.") \
        .tensor("x_ptr", "float32", x3) \
        .tensor("out_ptr", "float32", np.full(32, -1.0, np.float32), got3.ravel())

    g = (np.arange(96, dtype=np.float32) * np.float32(0.125) + np.float32(1)).reshape(6, 16)
    rows, y = [4, 0, 7, -1], 10
    gathered = np.zeros((4, 8), np.float32)
    for i, row in enumerate(rows):
        for j in range(8):
            if 0 <= row < 6 and y + j < 16:
                gathered[i, j] = g[row, y + j]
    target = np.full((6, 16), -1.0, np.float32)
    srows, sy = [5, 2, 9, 1], 12
    for i, row in enumerate(srows):
        for j in range(8):
            if 0 <= row < 6 and sy + j < 16:
                target[row, sy + j] = gathered[i, j]
    Case("descriptor", "desc_gather_scatter", "desc_gather", module(tile_kernel(
        "desc_gather(%g_ptr: !tt.ptr<f32>, %rows_ptr: !tt.ptr<i32>, %srows_ptr: !tt.ptr<i32>, %out_ptr: !tt.ptr<f32>, "
        "%t_ptr: !tt.ptr<f32>)",
        "\n" + constants("i32", 6, 10, 12, 16) + constants("i64", 1, 16) +
        load_at("r", "%rows_ptr", "i32", shape="4", offsets="%rows") +
        load_at("s", "%srows_ptr", "i32", shape="4", offsets="%rows") + """\
    %d = tt.make_tensor_descriptor %g_ptr, [%c6_i32, %c16_i32], [%c16_i64, %c1_i64] : <f32>, <tensor<1x8xf32>>
    %v = tt.descriptor_gather %d[%r_1, %c10_i32] : (!tt.tensordesc<tensor<1x8xf32>>, tensor<4xi32>, i32) -> tensor<4x8xf32>
""" + store_at("out", "%out_ptr", "%v", "f32") + """\
    %e = tt.make_tensor_descriptor %t_ptr, [%c6_i32, %c16_i32], [%c16_i64, %c1_i64] : <f32>, <tensor<1x8xf32>>
    tt.descriptor_scatter %e[%s_1, %c12_i32], %v : !tt.tensordesc<tensor<1x8xf32>>, tensor<4xi32>, i32, tensor<4x8xf32>
""")),
         "tt.descriptor_gather of rows [4, 0, 7, -1], columns 10..17 of a [6, 16] descriptor (block [1, 8]): "
         "row 7, row -1 and columns 16, 17 are outside the shape and give zero; tt.descriptor_scatter of the "
         "result to rows [5, 2, 9, 1], columns 12..19 of another: row 9 and columns 16..19 are dropped. (Triton "
         "3.6 compiles these to TMA gather4/scatter4, which need sm_100: no H200 golden case has them.)") \
        .tensor("g_ptr", "float32", g).tensor("rows_ptr", "int32", np.array(rows, np.int32)) \
        .tensor("srows_ptr", "int32", np.array(srows, np.int32)) \
        .tensor("out_ptr", "float32", np.full(32, -1.0, np.float32), gathered.ravel()) \
        .tensor("t_ptr", "float32", np.full(96, -1.0, np.float32), target.ravel())

    h = (np.arange(72, dtype=np.float32) - np.float32(20)).reshape(6, 12)
    hout = np.zeros((2, 4, 8), np.float32)
    for pid in range(2):
        hout[pid] = desc_block(h, (6, 12), pid * 4, 4, np.float32(0))
    Case("descriptor", "host_descriptor_argument", "host_desc", host_descriptor_kernel(
        "host_desc", "f32", "f32", ", %w_ptr: !tt.ptr<i64>", """\
    %c0_i32 = arith.constant 0 : i32
    %first = arith.cmpi eq, %pid, %c0_i32 : i32
    scf.if %first {
      %c1_i32 = arith.constant 1 : i32
      %c2_i32 = arith.constant 2 : i32
      %c3_i32 = arith.constant 3 : i32
      %s0 = arith.extsi %x_desc_0 : i32 to i64
      %s1 = arith.extsi %x_desc_1 : i32 to i64
      tt.store %w_ptr, %s0 : !tt.ptr<i64>
      %w1 = tt.addptr %w_ptr, %c1_i32 : !tt.ptr<i64>, i32
      tt.store %w1, %s1 : !tt.ptr<i64>
      %w2 = tt.addptr %w_ptr, %c2_i32 : !tt.ptr<i64>, i32
      tt.store %w2, %x_desc_2 : !tt.ptr<i64>
      %w3 = tt.addptr %w_ptr, %c3_i32 : !tt.ptr<i64>, i32
      tt.store %w3, %x_desc_3 : !tt.ptr<i64>
    }
"""),
         "A host TensorDescriptor argument (shape [6, 12], strides [12, 1], block [4, 8]) as Triton 3.6's launcher "
         "passes it: the descriptor, then its shape as i32 and its strides as i64, four more parameters named "
         "after it. Programs 0 and 1 load the block at (4 pid, 4): program 1's rows 6, 7 and both programs' "
         "columns 12..., outside the shape, give zero. Program 0 stores the four scalars to w_ptr.", grid=(2,)) \
        .descriptor("x_desc", "float32", h, (6, 12), (12, 1), (4, 8)) \
        .tensor("out_ptr", "float32", np.full(64, -1.0, np.float32), hout.ravel()) \
        .tensor("w_ptr", "int64", np.zeros(4, np.int64), np.array([6, 12, 12, 1], np.int64))

    # Integer blocks carry the Python dtype's signedness (uint8 -> ui8, int16 -> si16, Triton 3.6's text); the
    # values they move are the signless i8 / i16, bit for bit, and zero padding is 0.
    u8 = ((np.arange(60) * 37 + 100) % 256).astype(np.uint8).reshape(5, 12)
    loaded = desc_block(u8, (5, 10), -1, 6, np.uint8(0)).astype(np.int16)  # extui: 0..255
    s16 = np.full((5, 12), -1, np.int16)
    for i in range(4):
        for j in range(8):
            if 3 + i < 5 and 7 + j < 10:
                s16[3 + i, 7 + j] = loaded[i, j]
    Case("descriptor", "desc_signed_unsigned_blocks", "desc_int", module(tile_kernel(
        "desc_int(%a_ptr: !tt.ptr<i8>, %out_ptr: !tt.ptr<i16>)",
        "\n" + constants("i32", -1, 3, 6, 7, 5, 10) + constants("i64", 1, 12) + """\
    %d = tt.make_tensor_descriptor %a_ptr, [%c5_i32, %c10_i32], [%c12_i64, %c1_i64] : <i8>, <tensor<4x8xui8>>
    %t = tt.descriptor_load %d[%c-1_i32, %c6_i32] : !tt.tensordesc<tensor<4x8xui8>> -> tensor<4x8xi8>
    %w = arith.extui %t : tensor<4x8xi8> to tensor<4x8xi16>
    %e = tt.make_tensor_descriptor %out_ptr, [%c5_i32, %c10_i32], [%c12_i64, %c1_i64] : <i16>, <tensor<4x8xsi16>>
    tt.descriptor_store %e[%c3_i32, %c7_i32], %w : !tt.tensordesc<tensor<4x8xsi16>>, tensor<4x8xi16>
""")),
         "Descriptors of integer blocks as Triton 3.6 prints them for uint8 and int16 tensors: <tensor<4x8xui8>> "
         "and <tensor<4x8xsi16>>. The 4x8 ui8 block at (-1, 6) of a [5, 10] descriptor (strides [12, 1]) loads "
         "i8 bits, zero outside the shape; extui widens them (values 128..255 stay positive) and the si16 "
         "descriptor stores the block at (3, 7), dropping what falls outside [5, 10].") \
        .tensor("a_ptr", "uint8", u8) \
        .tensor("out_ptr", "int16", np.full((5, 12), -1, np.int16), s16)

    hu = ((np.arange(72, dtype=np.int64) * 2654435761) % 2**32).astype(np.uint32).reshape(6, 12)
    hout_u = np.zeros((2, 4, 8), np.uint32)
    for pid in range(2):
        hout_u[pid] = desc_block(hu, (6, 12), pid * 4, 4, np.uint32(0))
    Case("descriptor", "host_descriptor_ui32", "host_desc_u", host_descriptor_kernel("host_desc_u", "ui32", "i32"),
         "A host TensorDescriptor of a uint32 tensor: Triton 3.6 types the parameter !tt.tensordesc<tensor<4x8xui32>> "
         "and loads i32 bits. Programs 0 and 1 load the block at (4 pid, 4) of a [6, 12] descriptor: program 1's "
         "rows 6, 7 and both programs' columns 12... are outside the shape and give zero.", grid=(2,)) \
        .descriptor("x_desc", "uint32", hu, (6, 12), (12, 1), (4, 8)) \
        .tensor("out_ptr", "uint32", np.full(64, 7, np.uint32), hout_u.ravel())

    past = np.arange(48, dtype=np.float32).reshape(4, 12)
    oob = Case("descriptor", "desc_shape_past_buffer", "desc_past", module(tile_kernel(
        "desc_past(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)",
        "\n" + constants("i32", 0, 2, 5, 12) + constants("i64", 1, 12) + """\
    %d = tt.make_tensor_descriptor %a_ptr, [%c5_i32, %c12_i32], [%c12_i64, %c1_i64] : <f32>, <tensor<4x8xf32>>
    %t = tt.descriptor_load %d[%c2_i32, %c0_i32] : !tt.tensordesc<tensor<4x8xf32>> -> tensor<4x8xf32>
""" + store_at("out", "%out_ptr", "%t", "f32"))),
         "A descriptor whose shape [5, 12] reaches past its 4x12 buffer: the 4x8 block at (2, 0) has row 4 inside "
         "the shape but outside the buffer, an ordinary out-of-bounds read (8 reports, byte offsets 192..220 of "
         "a_ptr). Rows 5 (outside the shape) are padding, not reported. out_ptr is not compared (what an "
         "out-of-bounds read gives is engine-specific).")
    oob.tensor("a_ptr", "float32", past).tensor("out_ptr", "float32", np.zeros(32, np.float32))
    oob.expect_report("out-of-bounds", op="tt.descriptor_load", buffer="a_ptr", byte_offset=192)
    oob.expect_counts({"out-of-bounds": 8})
