"""The case writer of conformance/engine/make_cases.py: `Case` (one case directory), bit helpers and the TTIR
building blocks the case families share."""
import json
import os

import numpy as np


HERE = os.path.dirname(os.path.abspath(__file__))
MADE_BY = "conformance/engine/make_cases.py (NumPy oracle)"

# The NumPy type each case dtype is stored as (docs/conformance.md: fp8 as raw `|u1` bytes).
STORAGE = {
    "bool": np.bool_, "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "float16": np.float16,
    "float32": np.float32, "float64": np.float64, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8,
    "bfloat16": np.int16,  # raw bit patterns in `<i2` files (docs/conformance.md)
}

CASES = []


class Case:
    """One case directory: the kernel, its arguments in call order, and what the launch must produce."""

    def __init__(self, family, name, entry, ttir, notes, grid=(1, 1, 1), num_warps=4):
        self.family, self.name, self.entry, self.ttir, self.notes = family, name, entry, ttir, notes
        self.grid = list(grid) + [1] * (3 - len(grid))
        self.num_warps = num_warps
        self.args, self.files = [], {}
        self.reports, self.report_counts = None, None
        self.gpu_difference = None
        CASES.append(self)

    def tensor(self, name, dtype, value, expected=None):
        value = np.ascontiguousarray(np.asarray(value, dtype=STORAGE[dtype]))
        arg = {"name": name, "kind": "tensor", "dtype": dtype, "shape": list(value.shape), "input": name + ".npy"}
        self.files[name + ".npy"] = value
        if expected is not None:
            expected = np.ascontiguousarray(np.asarray(expected, dtype=STORAGE[dtype]))
            assert expected.shape == value.shape, (self.name, name, expected.shape, value.shape)
            arg["expected"] = name + ".expected.npy"
            self.files[name + ".expected.npy"] = expected
        self.args.append(arg)
        return self

    def descriptor(self, name, dtype, value, desc_shape, desc_strides, block_shape, padding="zero", expected=None):
        """A tensor passed as a host TensorDescriptor over its start (docs/conformance.md, kind tensordesc)."""
        self.tensor(name, dtype, value, expected)
        self.args[-1].update({"kind": "tensordesc", "desc_shape": list(desc_shape), "desc_strides": list(desc_strides),
                              "block_shape": list(block_shape), "padding": padding})
        return self

    def scalar(self, name, value):
        pytype = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
        self.args.append({"name": name, "kind": "scalar", "pytype": pytype, "value": value})
        return self

    def expect_report(self, kind, **fields):
        """A report the launch must produce (kind, and whichever of op, program, lane, buffer, ... it names)."""
        self.reports = self.reports or []
        self.reports.append(dict(kind=kind, **fields))
        return self

    def expect_counts(self, counts):
        """How many reports of each kind the launch makes in total (stored or only counted)."""
        self.report_counts = dict(counts)
        return self

    def differs_on_gpu_by_design(self, reason):
        """The GPU engine's run of this case differs from the interpreter's on purpose: case.json's
        gpu_differs_by_design, which gpu_backend/tests/device_check.sh reads to list the case as "design"."""
        self.gpu_difference = reason
        return self

    def write(self):
        directory = os.path.join(HERE, self.family, self.name)
        os.makedirs(directory)
        with open(os.path.join(directory, "kernel.ttir"), "w") as f:
            f.write(self.ttir)
        for file_name, array in self.files.items():
            np.save(os.path.join(directory, file_name), array, allow_pickle=False)
        case = {"name": self.name, "entry": self.entry, "grid": self.grid, "num_warps": self.num_warps,
                "args": self.args, "notes": self.notes, "made_by": MADE_BY}
        if self.reports is not None:
            case["expect_reports"] = self.reports
        if self.report_counts is not None:
            case["expect_report_counts"] = self.report_counts
        if self.gpu_difference is not None:
            case["gpu_differs_by_design"] = self.gpu_difference
        with open(os.path.join(directory, "case.json"), "w") as f:
            f.write(json.dumps(case, indent=1) + "\n")


# --- bit helpers -------------------------------------------------------------------------------------------------

def f32_bits(values):
    return np.asarray(values, dtype=np.uint32).view(np.float32)


def bits_of(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


CANONICAL_NAN_F32 = 0x7FFFFFFF  # docs/semantics.md "Floats": a NaN an arithmetic op produces
QUIET_NAN_F32 = 0x7FC00000      # the NaN of block-pointer padding


def wrap_i32(values):
    """Python/NumPy integers to int32 with two's-complement wrap-around."""
    return np.asarray((np.asarray(values, dtype=object) + 2**31) % 2**32 - 2**31, dtype=np.int64).astype(np.int32)


# --- TTIR building blocks (the same text the C++ tests had) -------------------------------------------------------

TILE_OFFSETS = """
    %cst_rows = arith.constant dense<8> : tensor<4x1xi32>
    %rows = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %rows_0 = tt.expand_dims %rows {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %rows_1 = arith.muli %rows_0, %cst_rows : tensor<4x1xi32>
    %rows_2 = tt.broadcast %rows_1 : tensor<4x1xi32> -> tensor<4x8xi32>
    %cols = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %cols_0 = tt.expand_dims %cols {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
    %cols_1 = tt.broadcast %cols_0 : tensor<1x8xi32> -> tensor<4x8xi32>
    %offs = arith.addi %rows_2, %cols_1 : tensor<4x8xi32>
"""


# Stores the 4x8 f32 tiles %zero to out_ptr[0..31] and %nan to out_ptr[32..63] (%cst = dense<32>): the padding cases
# of block pointers and descriptors, whose out_ptr is read back as int32 to compare the padding's bits.
STORE_ZERO_THEN_NAN = """\
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %zero : tensor<4x8x!tt.ptr<f32>>
    %out_1 = tt.addptr %out_0, %cst : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_1, %nan : tensor<4x8x!tt.ptr<f32>>
"""


def tile_kernel(signature, body):
    """A kernel whose body starts with %offs : tensor<4x8xi32> = r * 8 + c (and %rows, %cols, %cols_1)."""
    return ("module {\n  tt.func public @" + signature + " attributes {noinline = false} {" + TILE_OFFSETS + body +
            "    tt.return\n  }\n}\n")


def padding_case(family, name, entry, body, notes, a, out):
    """A case of the padding of out-of-bounds elements: kernel @ENTRY(%a_ptr, %out_ptr) loads 4x8 f32 tiles of a_ptr
    padded with zero as %zero and with NaN as %nan (`body`, after the tile offsets) and stores them one after the
    other; out_ptr starts at -7.0 and is read back as int32, so the padding's bits are compared exactly."""
    kernel = tile_kernel(entry + "(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", body + STORE_ZERO_THEN_NAN)
    return Case(family, name, entry, module(kernel), notes) \
        .tensor("a_ptr", "float32", a) \
        .tensor("out_ptr", "int32", np.full(64, -7.0, np.float32).view(np.int32), out.view(np.int32))


def module(text):
    return text.lstrip("\n")


def pointers_at(name, pointer, element, shape="4x8", offsets="%offs"):
    """TTIR: %NAME = the pointers `pointer` + `offsets` of a `shape` tile of `element`s (splat, then addptr into
    %NAME_0, which is what it returns)."""
    tensor = "tensor<%sx!tt.ptr<%s>>" % (shape, element)
    return ("    %%%s = tt.splat %s : !tt.ptr<%s> -> %s\n" % (name, pointer, element, tensor) +
            "    %%%s_0 = tt.addptr %%%s, %s : %s, tensor<%sxi32>\n" % (name, name, offsets, tensor, shape))


def store_at(name, pointer, value, element, shape="4x8", offsets="%offs", mask=""):
    """TTIR: tt.store of the `shape` tile `value` to `pointer` + `offsets` (through %NAME, %NAME_0), under `mask`."""
    return (pointers_at(name, pointer, element, shape, offsets) +
            "    tt.store %%%s_0, %s%s : tensor<%sx!tt.ptr<%s>>\n" % (name, value, ", " + mask if mask else "",
                                                                       shape, element))


def load_at(name, pointer, element, shape="4x8", offsets="%offs"):
    """TTIR: %NAME_1 = tt.load of the `shape` tile at `pointer` + `offsets` (through %NAME, %NAME_0)."""
    return (pointers_at(name, pointer, element, shape, offsets) +
            "    %%%s_1 = tt.load %%%s_0 : tensor<%sx!tt.ptr<%s>>\n" % (name, name, shape, element))


def constants(element, *values):
    """TTIR: %cN_ELEMENT = arith.constant N : ELEMENT for each N of `values`, in order (Triton's names)."""
    return "".join("    %%c%d_%s = arith.constant %d : %s\n" % (value, element, value, element) for value in values)


def tile_4x8():
    r, c = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    return r, c
