"""TTIR and value builders of the `layout` engine cases (cases_layout.py): n-d offsets, loads, stores and
transposes of any shape and element type, seeded values, and the sentinel an output starts from."""
import zlib

import numpy as np


LAYOUT_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i8": "int8", "i32": "int32",
                 "i64": "int64", "i1": "bool"}


def dims(shape):
    return "x".join(str(d) for d in shape)


def tensor_of(shape, element):
    return "tensor<%sx%s>" % (dims(shape), element)


def ptrs_of(shape, element):
    return "tensor<%sx!tt.ptr<%s>>" % (dims(shape), element)


def offsets_nd(prefix, shape, strides=None):
    """TTIR defining %<prefix> : tensor<shape x i32> = sum over d of index_d * strides[d] (default row-major)."""
    rank = len(shape)
    if strides is None:
        strides = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(rank)]
    lines, terms = [], []
    for d, (extent, stride) in enumerate(zip(shape, strides)):
        name = "%s_%d" % (prefix, d)
        lines.append("    %%%s = tt.make_range {end = %d : i32, start = 0 : i32} : tensor<%dxi32>" %
                     (name, extent, extent))
        current = [extent]
        for step in range(rank - 1):
            axis = 0 if step < d else len(current)
            grown = current[:axis] + [1] + current[axis:]
            lines.append("    %%%s_e%d = tt.expand_dims %%%s {axis = %d : i32} : %s -> %s" % (
                name, step, name if step == 0 else "%s_e%d" % (name, step - 1), axis, tensor_of(current, "i32"),
                tensor_of(grown, "i32")))
            current = grown
        last = name if rank == 1 else "%s_e%d" % (name, rank - 2)
        if stride != 1:
            lines.append("    %%%s_k = arith.constant dense<%d> : %s" % (name, stride, tensor_of(current, "i32")))
            lines.append("    %%%s_m = arith.muli %%%s, %%%s_k : %s" % (name, last, name, tensor_of(current, "i32")))
            last = name + "_m"
        if current != list(shape):
            lines.append("    %%%s_b = tt.broadcast %%%s : %s -> %s" % (name, last, tensor_of(current, "i32"),
                                                                      tensor_of(shape, "i32")))
            last = name + "_b"
        terms.append(last)
    total = terms[0]
    for d, term in enumerate(terms[1:]):
        name = prefix if d == len(terms) - 2 else "%s_s%d" % (prefix, d)
        lines.append("    %%%s = arith.addi %%%s, %%%s : %s" % (name, total, term, tensor_of(shape, "i32")))
        total = name
    if total != prefix:  # rank 1 with stride 1: the range itself
        lines.append("    %%%s = arith.addi %%%s, %%%s_zero : %s" % (prefix, total, prefix, tensor_of(shape, "i32")))
        lines.insert(0, "    %%%s_zero = arith.constant dense<0> : %s" % (prefix, tensor_of(shape, "i32")))
    return "\n".join(lines) + "\n"


def pointers_nd(name, pointer, element, offsets, shape):
    """%<name>_q = the pointers pointer + offsets of a tile (splat into %<name>_p, then addptr)."""
    return ("    %%%s_p = tt.splat %%%s : !tt.ptr<%s> -> %s\n" % (name, pointer, element, ptrs_of(shape, element)) +
            "    %%%s_q = tt.addptr %%%s_p, %%%s : %s, %s\n" % (name, name, offsets, ptrs_of(shape, element),
                                                           tensor_of(shape, "i32")))


def load_nd(name, pointer, element, offsets, shape):
    """%<name> = the tile at pointer + offsets. i1 goes through memory as i8, as Triton lowers a bool pointer:
    the pointers bitcast to i8, the bytes loaded and compared with 0."""
    text = pointers_nd(name, pointer, element, offsets, shape)
    if element != "i1":
        return text + "    %%%s = tt.load %%%s_q : %s\n" % (name, name, ptrs_of(shape, element))
    return text + (
        "    %%%s_q8 = tt.bitcast %%%s_q : %s -> %s\n" % (name, name, ptrs_of(shape, "i1"), ptrs_of(shape, "i8")) +
        "    %%%s_b = tt.load %%%s_q8 : %s\n" % (name, name, ptrs_of(shape, "i8")) +
        "    %%%s_z = arith.constant dense<0> : %s\n" % (name, tensor_of(shape, "i8")) +
        "    %%%s = arith.cmpi ne, %%%s_b, %%%s_z : %s\n" % (name, name, name, tensor_of(shape, "i8")))


def store_nd(name, pointer, element, offsets, shape, value):
    """tt.store of %<value> to pointer + offsets (i1 widened to an i8 byte, as Triton stores a bool)."""
    text = pointers_nd(name, pointer, element, offsets, shape)
    if element != "i1":
        return text + "    tt.store %%%s_q, %%%s : %s\n" % (name, value, ptrs_of(shape, element))
    return text + (
        "    %%%s_q8 = tt.bitcast %%%s_q : %s -> %s\n" % (name, name, ptrs_of(shape, "i1"), ptrs_of(shape, "i8")) +
        "    %%%s_v8 = arith.extui %%%s : %s to %s\n" % (name, value, tensor_of(shape, "i1"), tensor_of(shape, "i8")) +
        "    tt.store %%%s_q8, %%%s_v8 : %s\n" % (name, name, ptrs_of(shape, "i8")))


def trans_op(result, value, order, shape, element):
    out = [shape[i] for i in order]
    return "    %%%s = tt.trans %%%s {order = array<i32: %s>} : %s -> %s\n" % (
        result, value, ", ".join(str(i) for i in order), tensor_of(shape, element), tensor_of(out, element))


def layout_kernel(entry, parameters, body):
    signature = ", ".join("%%%s: !tt.ptr<%s>" % (name, element) for name, element in parameters)
    return ("module {\n  tt.func public @%s(%s) attributes {noinline = false} {\n" % (entry, signature) + body +
            "    tt.return\n  }\n}\n")


def layout_rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def layout_values(rng, element, shape):
    """Arbitrary bit patterns for a data-movement test: every bit of the element must arrive (finite floats only,
    so that the case is about layouts, not NaNs: docs/semantics.md "NaN bits" has those)."""
    if element == "f32":
        return rng.standard_normal(shape).astype(np.float32) * np.float32(1 << 10)
    if element == "f16":
        return (rng.standard_normal(shape) * 64).astype(np.float16)
    if element == "bf16":
        bits = rng.integers(0, 1 << 16, size=shape, dtype=np.uint32)
        bits = np.where((bits >> 7) & 0xFF == 0xFF, bits ^ 0x4000, bits)  # exponent all ones -> 0x7F: finite
        return bits.astype(np.uint16).view(np.int16)
    if element == "i8":
        return rng.integers(-128, 128, size=shape).astype(np.int8)
    if element == "i32":
        return rng.integers(-2**31, 2**31, size=shape, dtype=np.int64).astype(np.int32)
    if element == "i64":
        return rng.integers(-2**63, 2**63 - 1, size=shape, dtype=np.int64, endpoint=True)
    assert element == "i1"
    return rng.random(shape) < 0.5


def small_ints(rng, element, shape, bound):
    """Integers in [-bound, bound] as `element`: every sum the cases form is exact in any order."""
    values = rng.integers(-bound, bound + 1, size=shape)
    return values.astype({"f32": np.float32, "f16": np.float16, "i32": np.int32}[element])


def unwritten(expected, element):
    """The output buffer before the launch: differs from the expected value in every lane, so a lane the kernel
    does not write (or writes to the wrong place) fails."""
    if element in ("f32", "f16"):
        return np.full(expected.shape, 12345.0, expected.dtype)
    if element == "i1":
        return ~expected
    return expected ^ np.array(0x55, expected.dtype)
