"""What a golden case of make_golden.py is made of: value helpers (wrapped integers, float bit patterns), the
buffers of a launch (In, Out, InOut, Storage; host TensorDescriptors; views into another buffer's storage) and
`Case`, one launch of a kernel of kernels.py."""
import os
import struct

import numpy as np


HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------------- values
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
FLT_MAX = float(np.finfo(np.float32).max)
NAN = float("nan")
INF = float("inf")


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def i8(vals):
    return np.array([wrap(int(v), 8) for v in vals], dtype=np.int8)


def i32(vals):
    return np.array([wrap(int(v), 32) for v in vals], dtype=np.int32)


def i64(vals):
    return np.array([wrap(int(v), 64) for v in vals], dtype=np.int64)


def f32(vals):
    with np.errstate(over="ignore"):
        return np.array(vals, dtype=np.float64).astype(np.float32)


def f32bits(bits):
    return np.array([b & 0xFFFFFFFF for b in bits], dtype=np.uint32).view(np.float32)


def fbits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def fill_to(vals, n, extra):
    """vals (edge values) followed by extra values (an array) up to n elements."""
    vals = list(vals)
    assert len(vals) <= n, (len(vals), n)
    return vals + list(extra[: n - len(vals)])


# ---------------------------------------------------------------------------------------------------- buffers
RAW = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}
SAVE_AS = {"bfloat16": np.int16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}
FILL = {
    "float32": np.float32(NAN), "float64": np.float64(NAN), "float16": np.float16(NAN),
    "bfloat16": np.uint16(0x7FC0), "float8_e4m3fn": np.uint8(0x7F), "float8_e5m2": np.uint8(0x7F),
    "int8": np.int8(0x5A), "uint8": np.uint8(0xA5), "int16": np.int16(0x5A5A),
    "int32": np.int32(0x5A5A5A5A), "int64": np.int64(0x5A5A5A5A5A5A5A5A),
}


class Buf:
    """A tensor argument: its contents before the launch (raw bits for bf16/fp8) and whether it is recorded."""

    def __init__(self, data, dtype, out):
        self.dtype = dtype
        want = RAW[dtype] if dtype in RAW else np.dtype(dtype)
        data = np.ascontiguousarray(data)
        assert data.dtype == want, (dtype, data.dtype)
        self.data = data
        self.out = out


def In(arr, dtype=None):
    return Buf(arr, dtype or arr.dtype.name, False)


def Out(shape, dtype):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    fill = FILL[dtype]
    return Buf(np.full(shape, fill, dtype=fill.dtype), dtype, True)


def InOut(arr, dtype=None):
    return Buf(arr, dtype or arr.dtype.name, True)


def Storage(arr, dtype=None):
    """A buffer recorded (before and after) but not passed to the kernel: the storage that View arguments
    point into."""
    buf = Buf(arr, dtype or arr.dtype.name, True)
    buf.hidden = True
    return buf


class Desc:
    """A host-side triton.tools.tensor_descriptor.TensorDescriptor argument over buffer `buf` (its base is the
    buffer's start): shape and strides in elements, the block shape, padding "zero" or "nan". Triton 3.6's
    launcher passes it as the descriptor, then shape (i32 each), then strides (i64 each)."""

    def __init__(self, buf, shape, strides, block_shape, padding="zero"):
        self.buf, self.shape, self.strides = buf, list(shape), list(strides)
        self.block_shape, self.padding = list(block_shape), padding
        self.dtype, self.data, self.out = buf.dtype, buf.data, buf.out


class View:
    """A pointer into an earlier tensor argument's storage (`of`), `offset` elements in, covering `span`
    elements: in-place kernels and strided views. Recorded as alias_of / alias_offset; its expected file is the
    span's contents after the launch."""

    def __init__(self, of, offset, span, out=True):
        self.of, self.offset, self.span, self.out = of, offset, span, out


class Case:
    def __init__(self, name, kernel, grid, args, constexprs=None, num_warps=4, notes="", group="extra"):
        self.name, self.kernel, self.args = name, kernel, args
        self.grid = tuple(grid) + (1,) * (3 - len(grid))
        self.constexprs = constexprs or {}
        self.num_warps, self.notes, self.group = num_warps, notes, group
