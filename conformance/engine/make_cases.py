#!/usr/bin/env python3
"""Writes the engine cases of conformance/engine/<family>/<case>/ with a NumPy oracle.

These are the end-to-end semantics tests of the execution engine (they used to be C++ tests with inline TTIR in
interpreter/tests/Engine*Test.cpp): one kernel launch each, as a conformance case that any engine can replay
(`tilesim conformance conformance/engine --engine interp|gpu`). The `layout` family was written here, not taken
from a C++ test: kernels whose GPU lowering moves data between threads through shared memory (tt.trans, reshape,
a reduction broadcast back, join / split / cat, f16 tt.dot, masks, a 2-D grid), with num_warps 1, 2, 4 and 8 in case.json, every
kernel checked to compile with Triton 3.6 too. For every case this script writes
  kernel.ttir                 the kernel (hand-written TTIR, as the C++ test had it; no loc() annotations),
  NAME.npy                    each tensor argument before the launch (fixed values or a seeded generator),
  NAME.expected.npy           each buffer the kernel writes, after the launch, computed HERE with NumPy from the
                              op's definition (docs/semantics.md), never by running tilesim,
  case.json                   the launch (docs/conformance.md), with `notes` saying what the case pins and, for a
                              case about a check, `expect_reports` (and `expect_report_counts`); for a case
                              whose GPU run differs on purpose, `gpu_differs_by_design` with the reason.

Every expected value is exact (integers, bit patterns, float ops whose result is representable or correctly
rounded), so the `triton` profile the runner uses compares them bit for bit; the notes of the one case that goes
through libdevice say why a bound may apply there.

Run it by hand and commit what it writes (CI does not run it; ctest `conformance_tree` replays the cases):
    python3 -m venv /tmp/enginecases-venv && /tmp/enginecases-venv/bin/pip install numpy
    /tmp/enginecases-venv/bin/python conformance/engine/make_cases.py
It deletes and rewrites every family directory below conformance/engine/, and it is deterministic: a second
run leaves `git status` clean.
"""
import json
import os
import shutil
import zlib
from fractions import Fraction

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


def tile_kernel(signature, body):
    """A kernel whose body starts with %offs : tensor<4x8xi32> = r * 8 + c (and %rows, %cols, %cols_1)."""
    return ("module {\n  tt.func public @" + signature + " attributes {noinline = false} {" + TILE_OFFSETS + body +
            "    tt.return\n  }\n}\n")


def module(text):
    return text.lstrip("\n")


def tile_4x8():
    r, c = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    return r, c


# =================================================================================================================
# memory: block pointers, pointer <-> int, masked loads without `other`, a 3-D grid
# =================================================================================================================

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
    Case("memory", "block_ptr_load_padding", "bp_load", module(tile_kernel(
        "bp_load(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", """
    %c0_i32 = arith.constant 0 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c5_i64 = arith.constant 5 : i64
    %cst = arith.constant dense<32> : tensor<4x8xi32>
    %bp = tt.make_tensor_ptr %a_ptr, [%c3_i64, %c5_i64], [%c5_i64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    %zero = tt.load %bp {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<4x8xf32>>
    %bp_0 = tt.advance %bp, [%c2_i32, %c3_i32] : <tensor<4x8xf32>>
    %nan = tt.load %bp_0 {boundaryCheck = array<i32: 0, 1>, padding = 2 : i32} : !tt.ptr<tensor<4x8xf32>>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %zero : tensor<4x8x!tt.ptr<f32>>
    %out_1 = tt.addptr %out_0, %cst : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_1, %nan : tensor<4x8x!tt.ptr<f32>>
""")),
         "Block pointer over a 3x5 row-major f32 matrix: a boundary-checked 4x8 tt.load at (0,0) pads with zero "
         "(padding = 1), and after tt.advance by (2,3) with NaN (padding = 2, bits 0x7FC00000). out_ptr is read "
         "back as int32 so the padding's bits (+0.0, the NaN payload) are compared exactly. Triton 3.6 rewrites "
         "block pointers away before printing TTIR, so no golden case has them.") \
        .tensor("a_ptr", "float32", a) \
        .tensor("out_ptr", "int32", np.full(64, -7.0, np.float32).view(np.int32), out.view(np.int32))

    stored = np.full(15, -1.0, np.float32)
    for r in range(4):
        for c in range(8):
            if 1 + r < 3 and 2 + c < 5:
                stored[(1 + r) * 5 + 2 + c] = r * 8 + c
    Case("memory", "block_ptr_checked_store", "bp_store", module(tile_kernel("bp_store(%out_ptr: !tt.ptr<f32>)", """
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c5_i64 = arith.constant 5 : i64
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
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c8_i64 = arith.constant 8 : i64
    %bp = tt.make_tensor_ptr %a_ptr, [%c3_i64, %c8_i64], [%c8_i64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    %a = tt.load %bp {boundaryCheck = array<i32: 1>, padding = 1 : i32} : !tt.ptr<tensor<4x8xf32>>
    %cst = arith.constant dense<24> : tensor<4x8xi32>
    %rows_in = arith.cmpi slt, %offs, %cst : tensor<4x8xi32>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %a, %rows_in : tensor<4x8x!tt.ptr<f32>>
""")),
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
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %c10_i32 = arith.constant 10 : i32
    %c100_i32 = arith.constant 100 : i32
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


# =================================================================================================================
# atomic: tt.atomic_rmw / tt.atomic_cas (SEMANTICS.md §3.4)
# =================================================================================================================

def contended_kernel(op, element):
    """4 programs x 8 lanes; every lane applies `op` with val[pid * 8 + lane] to acc[0]. (The C++ test also stored
    the old values; which update saw which value depends on the program order, so a case cannot pin them.)"""
    ptr, tensor = "!tt.ptr<%s>" % element, "tensor<8x%s>" % element
    ptrs = "tensor<8x%s>" % ptr
    return module("""
module {
  tt.func public @contended(%%acc_ptr: %(ptr)s, %%val_ptr: %(ptr)s) attributes {noinline = false} {
    %%c8_i32 = arith.constant 8 : i32
    %%pid = tt.get_program_id x : i32
    %%base = arith.muli %%pid, %%c8_i32 : i32
    %%offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %%idx = tt.splat %%base : i32 -> tensor<8xi32>
    %%idx_0 = arith.addi %%idx, %%offs : tensor<8xi32>
    %%v = tt.splat %%val_ptr : %(ptr)s -> %(ptrs)s
    %%v_0 = tt.addptr %%v, %%idx_0 : %(ptrs)s, tensor<8xi32>
    %%vals = tt.load %%v_0 : %(ptrs)s
    %%a = tt.splat %%acc_ptr : %(ptr)s -> %(ptrs)s
    %%old = tt.atomic_rmw %(op)s, acq_rel, gpu, %%a, %%vals : (%(ptrs)s, %(tensor)s) -> %(tensor)s
    tt.return
  }
}
""" % dict(ptr=ptr, ptrs=ptrs, tensor=tensor, op=op))


def per_lane_kernel(op, element, masked):
    """One lane per address: acc[k] = op(acc[k], val[k]); old[k] gets acc[k]'s previous value. With `masked`,
    lanes k >= n are masked off."""
    ptr, tensor = "!tt.ptr<%s>" % element, "tensor<8x%s>" % element
    ptrs = "tensor<8x%s>" % ptr
    if masked:
        rmw = "    %%old = tt.atomic_rmw %(op)s, acq_rel, gpu, %%a_0, %%vals, %%mask : (%(ptrs)s, %(tensor)s, tensor<8xi1>) -> %(tensor)s\n"
    else:
        rmw = "    %%old = tt.atomic_rmw %(op)s, relaxed, gpu, %%a_0, %%vals : (%(ptrs)s, %(tensor)s) -> %(tensor)s\n"
    return module(("""
module {
  tt.func public @per_lane(%%acc_ptr: %(ptr)s, %%val_ptr: %(ptr)s, %%old_ptr: %(ptr)s, %%n: i32) attributes {noinline = false} {
    %%offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %%m = tt.splat %%n : i32 -> tensor<8xi32>
    %%mask = arith.cmpi slt, %%offs, %%m : tensor<8xi32>
    %%v = tt.splat %%val_ptr : %(ptr)s -> %(ptrs)s
    %%v_0 = tt.addptr %%v, %%offs : %(ptrs)s, tensor<8xi32>
    %%vals = tt.load %%v_0 : %(ptrs)s
    %%a = tt.splat %%acc_ptr : %(ptr)s -> %(ptrs)s
    %%a_0 = tt.addptr %%a, %%offs : %(ptrs)s, tensor<8xi32>
""" + rmw + """    %%o = tt.splat %%old_ptr : %(ptr)s -> %(ptrs)s
    %%o_0 = tt.addptr %%o, %%offs : %(ptrs)s, tensor<8xi32>
    tt.store %%o_0, %%old : %(ptrs)s
    tt.return
  }
}
""") % dict(ptr=ptr, ptrs=ptrs, tensor=tensor, op=op))


def float_max_bits(memory, value):
    """SEMANTICS §3.4: signed-int max where the operand's sign bit is clear, unsigned-int min where it is set."""
    if value >> 31 == 0:
        return max(memory, value, key=lambda bits: bits - (1 << 32) if bits >> 31 else bits)
    return min(memory, value)


def float_min_bits(memory, value):
    """The mirror image: signed-int min where the sign bit is clear, unsigned-int max where it is set."""
    if value >> 31 == 0:
        return min(memory, value, key=lambda bits: bits - (1 << 32) if bits >> 31 else bits)
    return max(memory, value)


def atomic_cases():
    k = np.arange(32, dtype=np.int64)
    mixed = wrap_i32((k + 1) * 0x9E3779B9)
    u32 = lambda values: np.asarray(values, np.int32).view(np.uint32)
    folds = [
        ("add", 1000, k + 1, lambda init, v: np.add.reduce(np.append(np.int32(init), v.astype(np.int32)), dtype=np.int32)),
        ("and", -1, wrap_i32(~(1 << k) & 0xFFFFFFFF), lambda init, v: np.bitwise_and.reduce(np.append(np.int32(init), v))),
        ("or", 0, wrap_i32(1 << k), lambda init, v: np.bitwise_or.reduce(np.append(np.int32(init), v))),
        ("xor", 0x12345678, wrap_i32(1 << k), lambda init, v: np.bitwise_xor.reduce(np.append(np.int32(init), v))),
        ("max", -100, mixed, lambda init, v: np.max(np.append(np.int32(init), v))),
        ("min", 100, mixed, lambda init, v: np.min(np.append(np.int32(init), v))),
        ("umax", 5, mixed, lambda init, v: np.array([np.max(u32(np.append(np.int32(init), v)))]).view(np.int32)[0]),
        ("umin", -5, mixed, lambda init, v: np.array([np.min(u32(np.append(np.int32(init), v)))]).view(np.int32)[0]),
    ]
    for op, init, values, fold in folds:
        values = np.asarray(values).astype(np.int32)
        final = np.int32(fold(init, values))
        Case("atomic", "contended_%s_i32" % op, "contended", contended_kernel(op, "i32"),
             "tt.atomic_rmw %s from all 8 lanes of 4 programs on the one address acc[0]: every lane is one atomic "
             "update, so acc ends as the fold of its initial value %d and all 32 values in any order (%s is "
             "associative and commutative on int32%s). Atomics are never races." %
             (op, init, op, ", wrapping" if op == "add" else ""), grid=(4,)) \
            .tensor("acc_ptr", "int32", [init], [final]).tensor("val_ptr", "int32", values)

    values = np.arange(1, 33, dtype=np.float32)
    total = np.float32(0.5) + np.add.reduce(values, dtype=np.float64)
    assert total == 528.5
    Case("atomic", "contended_fadd_f32", "contended", contended_kernel("fadd", "f32"),
         "tt.atomic_rmw fadd of 1..32 from 4 programs x 8 lanes onto acc[0] = 0.5: every partial sum is an "
         "integer plus 0.5 below 2^24, so each addition is exact and the result, 528.5, is the same in any "
         "order (a float fadd is order-dependent only through rounding).", grid=(4,)) \
        .tensor("acc_ptr", "float32", [0.5], [total]).tensor("val_ptr", "float32", values)

    pairs = [  # (memory, value) as f32 bit patterns
        (0x80000000, 0x00000000), (0x00000000, 0x80000000),  # -0.0 vs +0.0
        (bits_of(-1.0), bits_of(-3.0)), (bits_of(-3.0), bits_of(-1.0)),
        (bits_of(-2.0), bits_of(5.0)), (bits_of(5.0), bits_of(-2.0)),
        (bits_of(3.0), 0x7FC00000), (bits_of(3.0), 0xFFC00000),  # a positive and a negative NaN
    ]
    memory = np.array([int(m) for m, _ in pairs], np.uint32)
    value = np.array([int(v) for _, v in pairs], np.uint32)
    for op, rule in (("max", float_max_bits), ("min", float_min_bits)):
        acc = np.array([rule(int(m), int(v)) for m, v in pairs], np.uint32)
        Case("atomic", "float_%s_bit_order" % op, "per_lane", per_lane_kernel(op, "f32", False),
             "f32 tt.atomic_rmw %s orders by bit pattern (SEMANTICS.md §3.4: signed-int %s on non-negative "
             "values, unsigned-int %s on negative ones): -0.0 < +0.0, a positive NaN beats everything and a "
             "negative NaN loses. One lane per address; old_ptr gets the previous values. acc_ptr and old_ptr "
             "are read back as int32, so -0.0/+0.0 and NaN signs are compared as bits." %
             (op, op, "min" if op == "max" else "max")) \
            .tensor("acc_ptr", "int32", memory.view(np.int32), acc.view(np.int32)) \
            .tensor("val_ptr", "float32", value.view(np.float32)) \
            .tensor("old_ptr", "int32", np.zeros(8), memory.view(np.int32)).scalar("n", 8)

    acc = np.array([0, 10, 20, 30, 40], np.int32)
    old = np.zeros(8, np.int32)
    old[:5] = acc
    Case("atomic", "masked_add_i32", "per_lane", per_lane_kernel("add", "i32", True),
         "A masked tt.atomic_rmw add: lanes 5..7 are masked off, so they touch nothing (acc_ptr holds only 5 "
         "elements: their addresses lie past its end, and no out-of-bounds report) and return 0 into old_ptr.") \
        .tensor("acc_ptr", "int32", acc, acc + 1).tensor("val_ptr", "int32", np.ones(8)) \
        .tensor("old_ptr", "int32", np.full(8, 77), old).scalar("n", 5)

    lanes = np.arange(8)
    memory = lanes.astype(np.int32)
    compare = np.where(lanes % 2 == 0, lanes, lanes + 100)
    Case("atomic", "cas_per_lane", "cas", module("""
module {
  tt.func public @cas(%mem_ptr: !tt.ptr<i32>, %cmp_ptr: !tt.ptr<i32>, %old_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %cst = arith.constant dense<50> : tensor<8xi32>
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %c = tt.splat %cmp_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %c_0 = tt.addptr %c, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %cmp = tt.load %c_0 : tensor<8x!tt.ptr<i32>>
    %val = arith.addi %offs, %cst : tensor<8xi32>
    %m = tt.splat %mem_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %m_0 = tt.addptr %m, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %old = tt.atomic_cas acq_rel, gpu, %m_0, %cmp, %val : (tensor<8x!tt.ptr<i32>>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %o = tt.splat %old_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %o_0 = tt.addptr %o, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %o_0, %old : tensor<8x!tt.ptr<i32>>
    tt.return
  }
}
"""), "Per-lane tt.atomic_cas: mem[k] = k, cmp matches on even lanes only, val = 50 + k. Even lanes swap in "
          "50 + k, odd lanes keep k; every lane returns the old value.") \
        .tensor("mem_ptr", "int32", memory, np.where(lanes % 2 == 0, 50 + lanes, lanes)) \
        .tensor("cmp_ptr", "int32", compare).tensor("old_ptr", "int32", np.full(8, -1), memory)


# =================================================================================================================
# cast: bitcast, fp_to_fp (fp8 satfinite, f16 rtz), clampf, precise_divf, libdevice, mulhiui, poison
# =================================================================================================================

def vector_kernel(parameters, body):
    """Loads 8 f32 from x_ptr as %x (with %offs); `body` follows."""
    return module("""
module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>""" + parameters + """) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %xs_0 = tt.addptr %xs, %offs : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %x = tt.load %xs_0 : tensor<8x!tt.ptr<f32>>
""") + body + "    tt.return\n  }\n}\n"


def store_to(buffer, value, element):
    ptrs = "tensor<8x!tt.ptr<%s>>" % element
    return ("    %%%s_s = tt.splat %%%s : !tt.ptr<%s> -> %s\n" % (buffer, buffer, element, ptrs) +
            "    %%%s_a = tt.addptr %%%s_s, %%offs : %s, tensor<8xi32>\n" % (buffer, buffer, ptrs) +
            "    tt.store %%%s_a, %%%s : %s\n" % (buffer, value, ptrs))


def fp8_value(code, exponent_bits, mantissa_bits):
    """The value of an 8-bit float code (sign, exponent, mantissa; IEEE-style subnormals), or None for NaN/inf."""
    bias = (1 << (exponent_bits - 1)) - 1
    sign = -1 if code >> 7 else 1
    exponent = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = code & ((1 << mantissa_bits) - 1)
    if exponent_bits == 4 and (code & 0x7F) == 0x7F:
        return None  # e4m3fn: no infinities, S.1111.111 is NaN
    if exponent_bits == 5 and exponent == 31:
        return None  # e5m2: IEEE inf / NaN
    if exponent == 0:
        return sign * Fraction(mantissa, 1 << mantissa_bits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(mantissa, 1 << mantissa_bits)) * Fraction(2) ** (exponent - bias)


def to_fp8_rne_satfinite(x, exponent_bits, mantissa_bits):
    """f32 -> fp8 by round to nearest even with saturation to the largest finite value; NaN -> 0x7F."""
    x = float(x)
    if np.isnan(x):
        return 0x7F
    codes = [c for c in range(256) if fp8_value(c, exponent_bits, mantissa_bits) is not None]
    largest = max(fp8_value(c, exponent_bits, mantissa_bits) for c in codes)
    negative = np.signbit(x)
    if np.isinf(x) or abs(Fraction(x)) >= largest:
        magnitude = largest
    else:
        magnitude = abs(Fraction(x))
    positive = [c for c in codes if c < 0x80]
    best = min(positive, key=lambda c: (abs(fp8_value(c, exponent_bits, mantissa_bits) - magnitude), c & 1))
    return best | (0x80 if negative else 0)


def to_f16_toward_zero(x):
    """f32 -> f16 rounding toward zero: the f16 of largest magnitude not above |x|; inf stays inf, NaN -> 0x7FFF."""
    x = np.float32(x)
    if np.isnan(x):
        return 0x7FFF
    if np.isinf(x):
        return int(np.float16(x).view(np.uint16))
    with np.errstate(over="ignore"):
        nearest = np.float16(x)  # round to nearest; step back toward zero if that overshot
    if abs(float(nearest)) > abs(float(x)):
        nearest = np.nextafter(nearest, np.float16(0))
    return int(nearest.view(np.uint16))



# fp8e4b15 (tl.float8e4b15): Triton 3.6 spells it `i8` in TTIR and converts with inline PTX (triton/language/extra/
# cuda/utils.py, the sm80+ form); this is its semantics written from the format, not from the PTX.
def e4b15_decode(byte):
    """The value of an fp8e4b15 byte: bias 15, 3 mantissa bits, subnormals at exponent 0, no inf or NaN."""
    sign = -1.0 if byte & 0x80 else 1.0
    exponent, mantissa = (byte >> 3) & 15, byte & 7
    return sign * (mantissa * 2.0**-17 if exponent == 0 else (1 + mantissa / 8) * 2.0**(exponent - 15))


def e4b15_encode(f16_bits):
    """fp16 -> fp8e4b15 as the conversion does it: |x| clamped to 1.75 (inf and NaN too, whose sign is kept),
    rounded to the nearest fp8e4b15 value with ties away from zero, the sign bit copied."""
    sign = 0x80 if f16_bits & 0x8000 else 0
    value = float(np.array([f16_bits], np.uint16).view(np.float16)[0])
    magnitude = 1.75 if np.isnan(value) else min(abs(value), 1.75)
    if magnitude == 0:
        return sign
    exponent = max(int(np.floor(np.log2(magnitude))), -14)
    ulp = Fraction(2) ** (exponent - 3)
    steps = int(Fraction(magnitude) / ulp + Fraction(1, 2))  # floor(x + 1/2): ties away from zero
    code = next(b for b in range(128) if Fraction(e4b15_decode(b)) == steps * ulp)
    return sign | code


E4B15_ROUNDTRIP_TTIR = """module {
  tt.func public @e4b15_roundtrip(%x_ptr: !tt.ptr<f16>, %y_ptr: !tt.ptr<i8>, %z_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c1024_i32 = arith.constant 1024 : i32
    %offs = tt.get_program_id x : i32
    %offs_0 = arith.muli %offs, %c1024_i32 : i32
    %offs_1 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %offs_2 = tt.splat %offs_0 : i32 -> tensor<1024xi32>
    %offs_3 = arith.addi %offs_2, %offs_1 : tensor<1024xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %x_4 = tt.addptr %x, %offs_3 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi32>
    %x_5 = tt.load %x_4 : tensor<1024x!tt.ptr<f16>>
    %0 = tt.splat %y_ptr : !tt.ptr<i8> -> tensor<1024x!tt.ptr<i8>>
    %1 = tt.addptr %0, %offs_3 : tensor<1024x!tt.ptr<i8>>, tensor<1024xi32>
    %2 = tt.elementwise_inline_asm "{\\0A            .reg .pred p<4>;\\0A            .reg .b32 a<2>, b<2>;\\0A            .reg .b16 c<4>;\\0A            .reg .b16 max_val_f16;\\0A            .reg .b32 max_val_f16x2;\\0A            mov.b16 max_val_f16,   0x3F00;\\0A            mov.b32 max_val_f16x2, 0x3F003F00;\\0A            and.b32 a0, $1, 0x7fff7fff;\\0A            and.b32 a1, $2, 0x7fff7fff;min.f16x2 a0, a0, max_val_f16x2;\\0A                  min.f16x2 a1, a1, max_val_f16x2;mad.lo.u32 a0, a0, 2, 0x00800080;\\0A              mad.lo.u32 a1, a1, 2, 0x00800080;\\0A              lop3.b32 b0, $1, 0x80008000, a0, 0xea;\\0A              lop3.b32 b1, $2, 0x80008000, a1, 0xea;\\0A              prmt.b32 $0, b0, b1, 0x7531;\\0A              }" {constraints = "=r,r,r", packed_element = 4 : i32, pure = true} %x_5 : tensor<1024xf16> -> tensor<1024xi8>
    tt.store %1, %2 : tensor<1024x!tt.ptr<i8>>
    %3 = tt.splat %z_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %4 = tt.addptr %3, %offs_3 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %5 = tt.load %1 : tensor<1024x!tt.ptr<i8>>
    %6 = tt.elementwise_inline_asm "{                                      \\0A.reg .b32 a<2>, b<2>;                  \\0Aprmt.b32 a0, 0, $2, 0x5746;            \\0Aand.b32 b0, a0, 0x7f007f00;            \\0Aand.b32 b1, a0, 0x00ff00ff;            \\0Aand.b32 a1, a0, 0x00800080;            \\0Ashr.b32  b0, b0, 1;                    \\0Aadd.u32 b1, b1, a1;                    \\0Alop3.b32 $0, b0, 0x80008000, a0, 0xf8; \\0Ashl.b32 $1, b1, 7;                     \\0A}                                      \\0A" {constraints = "=r,=r,r", packed_element = 4 : i32, pure = true} %5 : tensor<1024xi8> -> tensor<1024xf16>
    %7 = arith.extf %6 : tensor<1024xf16> to tensor<1024xf32>
    tt.store %4, %7 : tensor<1024x!tt.ptr<f32>>
    tt.return
  }
}
"""


def cast_cases():
    bits = np.array([0x3F800000, 0x80000000, 0x7FC00001, 0xFFFFFFFF, 0x00000001, 0x7F800000, 0xC0490FDB, 0x12345678],
                    np.uint32)
    Case("cast", "bitcast_roundtrip", "k", vector_kernel(", %i_ptr: !tt.ptr<i32>, %f_ptr: !tt.ptr<f32>",
                                                        "    %i = tt.bitcast %x : tensor<8xf32> -> tensor<8xi32>\n"
                                                        "    %f = tt.bitcast %i : tensor<8xi32> -> tensor<8xf32>\n" +
                                                        store_to("i_ptr", "i", "i32") + store_to("f_ptr", "f", "f32")),
         "tt.bitcast f32 -> i32 -> f32 keeps every bit: NaN payloads (0x7FC00001, 0xFFFFFFFF), -0.0, subnormals, "
         "inf. f_ptr is read back as int32 so the NaN payloads are compared as bits.") \
        .tensor("x_ptr", "float32", bits.view(np.float32)).tensor("i_ptr", "int32", np.zeros(8), bits.view(np.int32)) \
        .tensor("f_ptr", "int32", np.zeros(8), bits.view(np.int32))

    x = np.array([1e6, -1e6, np.nan, 1.0, -0.0, np.inf, 448.0, 1.000732421875], np.float32)
    e4 = [to_fp8_rne_satfinite(v, 4, 3) for v in x]
    e5 = [to_fp8_rne_satfinite(v, 5, 2) for v in x]
    h = [to_f16_toward_zero(v) for v in x]
    assert e4 == [0x7E, 0xFE, 0x7F, 0x38, 0x80, 0x7E, 0x7E, 0x38], [hex(v) for v in e4]
    assert e5 == [0x7B, 0xFB, 0x7F, 0x3C, 0x80, 0x7B, 0x5F, 0x3C], [hex(v) for v in e5]
    assert h == [0x7BFF, 0xFBFF, 0x7FFF, 0x3C00, 0x8000, 0x7C00, 0x5F00, 0x3C00], [hex(v) for v in h]
    Case("cast", "fp_to_fp_fp8_satfinite_f16_rtz", "k", vector_kernel(
        ", %e4_ptr: !tt.ptr<f8E4M3FN>, %e5_ptr: !tt.ptr<f8E5M2>, %h_ptr: !tt.ptr<f16>",
        "    %e4 = tt.fp_to_fp %x, rounding = rtne : tensor<8xf32> -> tensor<8xf8E4M3FN>\n"
        "    %e5 = tt.fp_to_fp %x, rounding = rtne : tensor<8xf32> -> tensor<8xf8E5M2>\n"
        "    %h = tt.fp_to_fp %x, rounding = rtz : tensor<8xf32> -> tensor<8xf16>\n" +
        store_to("e4_ptr", "e4", "f8E4M3FN") + store_to("e5_ptr", "e5", "f8E5M2") + store_to("h_ptr", "h", "f16")),
         "tt.fp_to_fp f32 -> f8E4M3FN and f8E5M2 round to nearest even and saturate to the largest finite value "
         "(448 = 0x7E, 57344 = 0x7B; also for inf), NaN -> 0x7F; f32 -> f16 with rounding = rtz truncates "
         "(1 + 0.75 * 2^-10 -> 1.0, 1e6 -> 65504 = 0x7BFF) while inf stays inf. The outputs are read back as "
         "uint8 / uint16 so every code, NaN included, is compared as bits.") \
        .tensor("x_ptr", "float32", x) \
        .tensor("e4_ptr", "uint8", np.full(8, 0xAA), e4).tensor("e5_ptr", "uint8", np.full(8, 0xAA), e5) \
        .tensor("h_ptr", "uint16", np.full(8, 0xAAAA), h)

    x = np.array([-5.0, -1.0, 0.5, 3.0, np.nan, 2.0, 4.0, 0.1], np.float32)
    y = np.array([3.0, 7.0, -0.5, 3.0, 2.0, 10.0, 0.5, 3.0], np.float32)
    nan_mask = np.isnan(x)
    lo, hi = np.float32(-1.5), np.float32(2.0)
    none = np.where(nan_mask, lo, np.minimum(np.maximum(x, lo), hi)).astype(np.float32)  # max(NaN, lo) = lo
    clamped_all = np.where(nan_mask, f32_bits([CANONICAL_NAN_F32])[0], np.minimum(np.maximum(x, lo), hi))
    with np.errstate(invalid="ignore"):
        div = np.where(nan_mask, f32_bits([CANONICAL_NAN_F32])[0], x / y).astype(np.float32)  # IEEE f32 division
        power = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
        tanh = np.tanh(x.astype(np.float64)).astype(np.float32)
    power[nan_mask] = f32_bits([CANONICAL_NAN_F32])[0]
    tanh[nan_mask] = f32_bits([CANONICAL_NAN_F32])[0]
    assert power[0] == -125.0 and power[6] == 2.0
    Case("cast", "clamp_precise_div_libdevice", "k", vector_kernel(
        ", %y_ptr: !tt.ptr<f32>, %none_ptr: !tt.ptr<f32>, %all_ptr: !tt.ptr<f32>, "
        "%div_ptr: !tt.ptr<f32>, %pow_ptr: !tt.ptr<f32>, %tanh_ptr: !tt.ptr<f32>", """
    %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %ys_0 = tt.addptr %ys, %offs : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    %y = tt.load %ys_0 : tensor<8x!tt.ptr<f32>>
    %lo = arith.constant dense<-1.500000e+00> : tensor<8xf32>
    %hi = arith.constant dense<2.000000e+00> : tensor<8xf32>
    %none = tt.clampf %x, %lo, %hi, propagateNan = none : tensor<8xf32>
    %all = tt.clampf %x, %lo, %hi, propagateNan = all : tensor<8xf32>
    %div = tt.precise_divf %x, %y : tensor<8xf32>
    %pow = tt.extern_elementwise %x, %y {libname = "", libpath = "", pure = true, symbol = "__nv_powf"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %tanh = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_tanhf"} : (tensor<8xf32>) -> tensor<8xf32>
""" + store_to("none_ptr", "none", "f32") + store_to("all_ptr", "all", "f32") + store_to("div_ptr", "div", "f32") +
        store_to("pow_ptr", "pow", "f32") + store_to("tanh_ptr", "tanh", "f32")),
         "tt.clampf to [-1.5, 2]: propagateNan = none maps NaN to -1.5 (NaN-ignoring max, then min), "
         "propagateNan = all gives NaN; tt.precise_divf is correctly rounded (IEEE f32 division); "
         "tt.extern_elementwise __nv_powf / __nv_tanhf are the double-precision results rounded once to f32 "
         "(docs/semantics.md \"Libdevice\"; pow(-5, 3) = -125, pow(4, 0.5) = 2). clampf and precise_divf are "
         "exact ops (bound 0, bit for bit); libdevice results carry the triton profile's ulp bound for the "
         "GPU's libdevice, so pow_ptr and tanh_ptr may pass within that bound. A NaN output matches any NaN.") \
        .tensor("x_ptr", "float32", x).tensor("y_ptr", "float32", y) \
        .tensor("none_ptr", "float32", np.zeros(8), none).tensor("all_ptr", "float32", np.zeros(8), clamped_all) \
        .tensor("div_ptr", "float32", np.zeros(8), div).tensor("pow_ptr", "float32", np.zeros(8), power) \
        .tensor("tanh_ptr", "float32", np.zeros(8), tanh)

    a = np.array([0xFFFFFFFF, 0x80000000, 123456789, 0xFFFFFFFF], np.uint64)
    b = np.array([2, 4, 987654321, 0xFFFFFFFF], np.uint64)
    high = ((a * b) >> np.uint64(32)).astype(np.uint32)  # the products fit in 64 bits
    assert high[0] == 1
    Case("cast", "mulhiui", "mulhi", module("""
module {
  tt.func public @mulhi(%a_ptr: !tt.ptr<i32>, %b_ptr: !tt.ptr<i32>, %h_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %a = tt.splat %a_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %a_0 = tt.addptr %a, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %a_1 = tt.load %a_0 : tensor<4x!tt.ptr<i32>>
    %b = tt.splat %b_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %b_0 = tt.addptr %b, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %b_1 = tt.load %b_0 : tensor<4x!tt.ptr<i32>>
    %h = tt.mulhiui %a_1, %b_1 : tensor<4xi32>
    %o = tt.splat %h_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %o_0 = tt.addptr %o, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %o_0, %h : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
"""), "tt.mulhiui is the high 32 bits of the unsigned 64-bit product: umulhi(0xFFFFFFFF, 2) = 1 "
          "(SEMANTICS.md §1.6), umulhi(-1, -1) = 0xFFFFFFFE.") \
        .tensor("a_ptr", "uint32", a).tensor("b_ptr", "uint32", b).tensor("h_ptr", "uint32", np.zeros(4), high)

    Case("cast", "poison_reaching_memory", "poison", module("""
module {
  tt.func public @poison(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %0 = ub.poison : i32
    %1 = arith.addi %0, %c1_i32 : i32
    tt.store %y_ptr, %1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "ub.poison is undefined and so is anything computed from it: storing poison + 1 is one undefined-value "
          "report at tt.store. y_ptr is not compared (what lands there is unspecified).") \
        .tensor("y_ptr", "int32", [5]).expect_report("undefined-value", op="tt.store").expect_counts({"undefined-value": 1})

    every_f16 = (np.arange(16384, dtype=np.uint32) * 4).astype(np.uint16)  # low 2 bits 0: ties, NaN, inf all in
    encoded = np.array([e4b15_encode(int(b)) for b in every_f16], np.uint8)
    decoded = np.array([e4b15_decode(int(b)) for b in encoded], np.float32)
    assert [e4b15_encode(b) for b in (0x3C00, 0x7C00, 0xFE00, 0x3F80, 0x0001, 0x8000)] == [0x78, 0x7E, 0xFE, 0x7E, 0x00, 0x80]
    Case("cast", "fp8e4b15_roundtrip", "e4b15_roundtrip", module(E4B15_ROUNDTRIP_TTIR),
         "x.to(tl.float8e4b15) then back .to(tl.float32), as Triton 3.6 compiles it for sm_90 (its TTIR, locations "
         "dropped): fp8e4b15 is `i8` in TTIR, and both conversions are tt.elementwise_inline_asm PTX. Over the "
         "16384 fp16 bit patterns with the low two bits 0 (both signs, every exponent, every tie, inf, NaN): |x| is clamped to 1.75 (inf and NaN too, keeping the sign bit), rounded to the "
         "nearest fp8e4b15 value with ties away from zero (bias 15, so fp16 subnormals below 2^-18 give 0); the "
         "decode is exact. y_ptr holds the fp8e4b15 bytes, z_ptr their values.", grid=(16,)) \
        .tensor("x_ptr", "uint16", every_f16) \
        .tensor("y_ptr", "uint8", np.full(16384, 0xAA, np.uint8), encoded) \
        .tensor("z_ptr", "float32", np.full(16384, -1.0, np.float32), decoded)


# =================================================================================================================
# control: scf.while, scf.for, scf.if, tt.call, tt.assert
# =================================================================================================================

def control_cases():
    x = np.array([1, 2, 3, 6, 7, 27], np.int32)
    steps = []
    for n in x.tolist():
        count = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        steps.append(count)
    assert steps[5] == 111
    Case("control", "while_collatz", "collatz", module("""
module {
  tt.func public @collatz(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %pid = tt.get_program_id x : i32
    %0 = tt.addptr %x_ptr, %pid : !tt.ptr<i32>, i32
    %n = tt.load %0 : !tt.ptr<i32>
    %steps:2 = scf.while (%n_0 = %n, %count = %c0_i32) : (i32, i32) -> (i32, i32) {
      %1 = arith.cmpi ne, %n_0, %c1_i32 : i32
      scf.condition(%1) %n_0, %count : i32, i32
    } do {
    ^bb0(%n_0: i32, %count: i32):
      %2 = arith.remsi %n_0, %c2_i32 : i32
      %3 = arith.cmpi eq, %2, %c0_i32 : i32
      %4 = arith.divsi %n_0, %c2_i32 : i32
      %5 = arith.muli %n_0, %c3_i32 : i32
      %6 = arith.addi %5, %c1_i32 : i32
      %n_1 = arith.select %3, %4, %6 : i32
      %count_2 = arith.addi %count, %c1_i32 : i32
      scf.yield %n_1, %count_2 : i32, i32
    }
    %7 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %7, %steps#1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "scf.while with a data-dependent trip count: the Collatz steps of x[pid] until it reaches 1, one program "
          "per input (27 takes 111 steps).", grid=(6,)) \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.full(6, -1), steps)

    Case("control", "cf_collatz_block_arguments", "collatz_cf", module("""
module {
  tt.func public @collatz_cf(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %pid = tt.get_program_id x : i32
    %0 = tt.addptr %x_ptr, %pid : !tt.ptr<i32>, i32
    %n = tt.load %0 : !tt.ptr<i32>
    cf.br ^bb1(%n, %c0_i32 : i32, i32)
  ^bb1(%n_0: i32, %count: i32):  // 2 preds: ^bb0, ^bb2
    %1 = arith.cmpi ne, %n_0, %c1_i32 : i32
    cf.cond_br %1, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %2 = arith.remsi %n_0, %c2_i32 : i32
    %3 = arith.cmpi eq, %2, %c0_i32 : i32
    %4 = arith.divsi %n_0, %c2_i32 : i32
    %5 = arith.muli %n_0, %c3_i32 : i32
    %6 = arith.addi %5, %c1_i32 : i32
    %n_1 = arith.select %3, %4, %6 : i32
    %count_2 = arith.addi %count, %c1_i32 : i32
    cf.br ^bb1(%n_1, %count_2 : i32, i32)
  ^bb3:  // pred: ^bb1
    %7 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %7, %count : !tt.ptr<i32>
    tt.return
  }
}
"""), "Unstructured control flow: the Collatz loop of while_collatz written with cf.br / cf.cond_br and block "
          "arguments (a back edge ^bb2 -> ^bb1), one program per input (27 takes 111 steps).", grid=(6,)) \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.full(6, -1), steps)

    n_valid = 5
    early = np.full(8, -1, np.int32)
    early[:n_valid] = np.arange(n_valid, dtype=np.int32) * 10
    Case("control", "cf_early_return", "early_return", module("""
module {
  tt.func public @early_return(%y_ptr: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
    %c10_i32 = arith.constant 10 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.cmpi sge, %pid, %n : i32
    cf.cond_br %0, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    tt.return
  ^bb2:  // pred: ^bb0
    %1 = arith.muli %pid, %c10_i32 : i32
    %2 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %2, %1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "A `return` inside an `if` (Triton emits cf.cond_br to two returning blocks): programs pid >= n return "
          "before storing, so y[5..7] keep their -1.", grid=(8,)) \
        .tensor("y_ptr", "int32", np.full(8, -1), early).scalar("n", n_valid)

    acc = count = total = 0
    for i in range(2, 20, 3):
        acc, count, total = acc * 2 + i, count + 1, total + i
    assert count == 6
    Case("control", "for_iter_args_step_three", "loop", module("""
module {
  tt.func public @loop(%y_ptr: !tt.ptr<i32>, %lb: i32, %ub: i32) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %acc:3 = scf.for %i = %lb to %ub step %c3_i32 iter_args(%acc_0 = %c0_i32, %count = %c0_i32, %lanes = %offs) -> (i32, i32, tensor<4xi32>)  : i32 {
      %0 = arith.muli %acc_0, %c2_i32 : i32
      %acc_1 = arith.addi %0, %i : i32
      %count_2 = arith.addi %count, %c1_i32 : i32
      %1 = tt.splat %i : i32 -> tensor<4xi32>
      %lanes_3 = arith.addi %lanes, %1 : tensor<4xi32>
      scf.yield %acc_1, %count_2, %lanes_3 : i32, i32, tensor<4xi32>
    }
    tt.store %y_ptr, %acc#0 : !tt.ptr<i32>
    %2 = tt.addptr %y_ptr, %c1_i32 : !tt.ptr<i32>, i32
    tt.store %2, %acc#1 : !tt.ptr<i32>
    %3 = tt.addptr %y_ptr, %c2_i32 : !tt.ptr<i32>, i32
    %4 = tt.splat %3 : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %5 = tt.addptr %4, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %5, %acc#2 : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
"""), "scf.for %i = 2 to 20 step 3 (6 trips) with three iter_args: acc = acc * 2 + i, a trip count, and a "
          "tensor<4xi32> that adds i to every lane of 0..3.") \
        .tensor("y_ptr", "int32", np.full(6, -1), [acc, count, total, total + 1, total + 2, total + 3]) \
        .scalar("lb", 2).scalar("ub", 20)

    Case("control", "nested_if_with_results", "nested", module("""
module {
  tt.func public @nested(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c2_i32 = arith.constant 2 : i32
    %c100_i32 = arith.constant 100 : i32
    %c200_i32 = arith.constant 200 : i32
    %c400_i32 = arith.constant 400 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.cmpi slt, %pid, %c2_i32 : i32
    %1 = scf.if %0 -> (i32) {
      %2 = arith.cmpi eq, %pid, %c0_i32 : i32
      %3 = scf.if %2 -> (i32) {
        scf.yield %c100_i32 : i32
      } else {
        scf.yield %c200_i32 : i32
      }
      scf.yield %3 : i32
    } else {
      %4 = arith.cmpi eq, %pid, %c2_i32 : i32
      %5 = scf.if %4 -> (i32) {
        %6 = arith.muli %pid, %c100_i32 : i32
        %7 = arith.addi %6, %c100_i32 : i32
        scf.yield %7 : i32
      } else {
        scf.yield %c400_i32 : i32
      }
      scf.yield %5 : i32
    }
    %8 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %8, %1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "Nested scf.if with results, one branch path per program: pid 0 -> 100, 1 -> 200, 2 -> 2 * 100 + 100, "
          "3 -> 400.", grid=(4,)) \
        .tensor("y_ptr", "int32", np.full(4, -1), [100, 200, 300, 400])

    x = np.array([0.5, 1.5, -2.0, 0.25], np.float32)
    Case("control", "call_noinline_helper", "caller", module("""
module {
  tt.func public @caller(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %cst = arith.constant 1.000000e+00 : f32
    %pid = tt.get_program_id x : i32
    %0 = tt.addptr %x_ptr, %pid : !tt.ptr<f32>, i32
    %1 = tt.load %0 : !tt.ptr<f32>
    %2 = tt.call @helper(%pid, %1) : (i32, f32) -> f32
    %3 = arith.addf %2, %cst : f32
    %4 = tt.addptr %y_ptr, %pid : !tt.ptr<f32>, i32
    tt.store %4, %3 : !tt.ptr<f32>
    tt.return
  }
  tt.func private @helper(%i: i32, %s: f32) -> f32 attributes {noinline = true} {
    %0 = arith.sitofp %i : i32 to f32
    %1 = arith.mulf %0, %s : f32
    tt.return %1 : f32
  }
}
"""), "tt.call of a noinline helper: y[pid] = helper(pid, x[pid]) + 1 with helper(i, s) = float(i) * s "
          "(every product and sum is exact in f32).", grid=(4,)) \
        .tensor("x_ptr", "float32", x) \
        .tensor("y_ptr", "float32", np.zeros(4), np.arange(4, dtype=np.float32) * x + np.float32(1))

    x = np.ones(32, np.int32)
    x[16 + 5] = 12  # program 1, lanes 5 and 9 fail
    x[16 + 9] = 10
    Case("control", "assert_first_failing_lane", "check", module("""
module {
  tt.func public @check(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c16_i32 = arith.constant 16 : i32
    %cst = arith.constant dense<10> : tensor<16xi32>
    %pid = tt.get_program_id x : i32
    %0 = arith.muli %pid, %c16_i32 : i32
    %1 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %2 = tt.splat %0 : i32 -> tensor<16xi32>
    %3 = arith.addi %2, %1 : tensor<16xi32>
    %4 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %5 = tt.addptr %4, %3 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %6 = tt.load %5 : tensor<16x!tt.ptr<i32>>
    %7 = arith.cmpi slt, %6, %cst : tensor<16xi32>
    tt.assert %7, "x must stay below 10" : tensor<16xi1>
    tt.return
  }
}
"""), "tt.assert fails in program 1 at lanes 5 and 9 (x = 12 and 10, not below 10): exactly one assert "
          "report, at the first failing lane (5).", grid=(2,)) \
        .tensor("x_ptr", "int32", x) \
        .expect_report("assert", op="tt.assert", program=[1, 0, 0], lane=[5]).expect_counts({"assert": 1}) \
        .differs_on_gpu_by_design("the kernel's tt.assert fails: the GPU traps (the launch fails), where the "
                                  "interpreter reports the first failing lane and goes on (docs/gpu-backend.md)")

    sizes = np.array([128 * 4 - 128 * pid for pid in range(4)], np.int32)  # n - pid * 128 with n = 512
    Case("control", "assume_violated", "assume_k", module("""
module {
  tt.func public @assume_k(%out_ptr: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %pid = tt.get_program_id x : i32
    %size = arith.muli %pid, %c128_i32 : i32
    %size_0 = arith.subi %n, %size : i32
    %0 = arith.cmpi sge, %size_0, %c256_i32 : i32
    llvm.intr.assume %0 : i1
    %1 = tt.addptr %out_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %1, %size_0 : !tt.ptr<i32>
    tt.return
  }
}
"""), "llvm.intr.assume (what tl.assume(size >= 256) emits) with n = 512 over 4 programs: size = n - 128 pid is "
          "512, 384, 256, 128, so the promise is false in program 3 only. LLVM may compile as if it held, so the "
          "interpreter reports it (kind assume, one report) and goes on: every program still stores its size.",
         grid=(4,)) \
        .tensor("out_ptr", "int32", np.zeros(4, np.int32), sizes).scalar("n", 512) \
        .expect_report("assume", op="llvm.intr.assume", program=[3, 0, 0]).expect_counts({"assume": 1})


# =================================================================================================================
# reduce_scan: tt.scan and tt.reduce (SEMANTICS.md §3.7-3.8); integer data keeps every result exact in any order
# =================================================================================================================

def tile_load_kernel(extra_parameters, body):
    """Loads x (4x8 i32) as %x_1; `body` stores the results."""
    return module(tile_kernel("k(%x_ptr: !tt.ptr<i32>" + extra_parameters + ")", """
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %x_0 = tt.addptr %x, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    %x_1 = tt.load %x_0 : tensor<4x8x!tt.ptr<i32>>
""" + body))


def sample_tile():
    return (np.arange(32) * 37) % 19 - 9


def reduce_scan_cases():
    x = np.array([3, -1, 4, 1, -5, 9, 2, 6], np.int32)
    Case("reduce_scan", "scan_reverse_cumsum", "rcumsum", module("""
module {
  tt.func public @rcumsum(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %x_0 = tt.addptr %x, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %x_1 = tt.load %x_0 : tensor<8x!tt.ptr<i32>>
    %0 = "tt.scan"(%x_1) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %2 = arith.addi %arg2, %arg3 : i32
      tt.scan.return %2 : i32
    }) : (tensor<8xi32>) -> tensor<8xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %y_0, %0 : tensor<8x!tt.ptr<i32>>
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
    %m = tt.splat %m_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %m_0 = tt.addptr %m, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %m_1 = tt.load %m_0 : tensor<8x!tt.ptr<i32>>
    %c = tt.splat %c_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %c_0 = tt.addptr %c, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %c_1 = tt.load %c_0 : tensor<8x!tt.ptr<i32>>
    %0:2 = "tt.scan"(%m_1, %c_1) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32):
      %1 = arith.muli %arg4, %arg6 : i32
      %2 = arith.muli %arg5, %arg6 : i32
      %3 = arith.addi %2, %arg7 : i32
      tt.scan.return %1, %3 : i32, i32
    }) : (tensor<8xi32>, tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>)
    %om = tt.splat %outm_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %om_0 = tt.addptr %om, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %om_0, %0#0 : tensor<8x!tt.ptr<i32>>
    %oc = tt.splat %outc_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %oc_0 = tt.addptr %oc, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %oc_0, %0#1 : tensor<8x!tt.ptr<i32>>
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
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    tt.store %y_0, %0 : tensor<4x8x!tt.ptr<i32>>
"""), "tt.scan (cumulative sum) along axis 1 of a 4x8 tile: each row separately.") \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.zeros(32),
                                            np.cumsum(x.reshape(4, 8), axis=1).ravel())

    Case("reduce_scan", "reduce_axis0_2d", "k", tile_load_kernel(", %y_ptr: !tt.ptr<i32>", """
    %0 = "tt.reduce"(%x_1) <{axis = 0 : i32}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %1 = arith.addi %arg2, %arg3 : i32
      tt.reduce.return %1 : i32
    }) : (tensor<4x8xi32>) -> tensor<8xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %cols : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %y_0, %0 : tensor<8x!tt.ptr<i32>>
"""), "tt.reduce (sum) along axis 0 of a 4x8 tile: one sum per column.") \
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
    %v = tt.splat %v_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %v_0 = tt.addptr %v, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %v_0, %0#0 : tensor<4x!tt.ptr<i32>>
    %i = tt.splat %i_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %i_0 = tt.addptr %i, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %i_0, %0#1 : tensor<4x!tt.ptr<i32>>
"""), "Triton's argmin combine (tie_break_left: v1 < v2 or (v1 == v2 and i1 < i2)) along axis 1: ties pick the "
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
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %y_0, %0 : tensor<4x!tt.ptr<i32>>
"""), "A tt.reduce combine region that defines its own constant: combine(a, b) = max(max(a, b), 5), so each "
          "row reduces to max(5, max of the row); rows 0-1 stay below 5.") \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.zeros(4), expected)


# =================================================================================================================
# shape: gather, histogram, cat / join / split / trans / reshape
# =================================================================================================================

def gather_kernel(axis):
    return module(tile_kernel("gather(%x_ptr: !tt.ptr<i32>, %idx_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>)", """
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %x_0 = tt.addptr %x, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    %x_1 = tt.load %x_0 : tensor<4x8x!tt.ptr<i32>>
    %i = tt.splat %idx_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %i_0 = tt.addptr %i, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    %i_1 = tt.load %i_0 : tensor<4x8x!tt.ptr<i32>>
    %g = tt.gather %x_1[%i_1] {axis = """ + str(axis) + """ : i32} : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    tt.store %y_0, %g : tensor<4x8x!tt.ptr<i32>>
"""))


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
    %c16_i32 = arith.constant 16 : i32
    %c80_i32 = arith.constant 80 : i32
    %c112_i32 = arith.constant 112 : i32
    %c144_i32 = arith.constant 144 : i32
    %y16 = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %y16_0 = tt.addptr %y16, %o16 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    tt.store %y16_0, %cat : tensor<16x!tt.ptr<i32>>
    %p1 = tt.addptr %y_ptr, %c16_i32 : !tt.ptr<i32>, i32
    %y64 = tt.splat %p1 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %y64_0 = tt.addptr %y64, %o64 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %y64_0, %j_0 : tensor<64x!tt.ptr<i32>>
    %p2 = tt.addptr %y_ptr, %c80_i32 : !tt.ptr<i32>, i32
    %y32 = tt.splat %p2 : !tt.ptr<i32> -> tensor<32x!tt.ptr<i32>>
    %y32_0 = tt.addptr %y32, %o32 : tensor<32x!tt.ptr<i32>>, tensor<32xi32>
    tt.store %y32_0, %l_0 : tensor<32x!tt.ptr<i32>>
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


# =================================================================================================================
# dot: tt.dot through a launch
# =================================================================================================================

def tile_offsets(prefix, rows, cols, stride):
    """TTIR defining %<prefix> : tensor<rows x cols x i32> = r * stride + c."""
    shape = "%dx%d" % (rows, cols)
    return """
    %%%(p)s_s = arith.constant dense<%(stride)d> : tensor<%(rows)dx1xi32>
    %%%(p)s_r = tt.make_range {end = %(rows)d : i32, start = 0 : i32} : tensor<%(rows)dxi32>
    %%%(p)s_r0 = tt.expand_dims %%%(p)s_r {axis = 1 : i32} : tensor<%(rows)dxi32> -> tensor<%(rows)dx1xi32>
    %%%(p)s_r1 = arith.muli %%%(p)s_r0, %%%(p)s_s : tensor<%(rows)dx1xi32>
    %%%(p)s_r2 = tt.broadcast %%%(p)s_r1 : tensor<%(rows)dx1xi32> -> tensor<%(shape)sxi32>
    %%%(p)s_c = tt.make_range {end = %(cols)d : i32, start = 0 : i32} : tensor<%(cols)dxi32>
    %%%(p)s_c0 = tt.expand_dims %%%(p)s_c {axis = 0 : i32} : tensor<%(cols)dxi32> -> tensor<1x%(cols)dxi32>
    %%%(p)s_c1 = tt.broadcast %%%(p)s_c0 : tensor<1x%(cols)dxi32> -> tensor<%(shape)sxi32>
    %%%(p)s = arith.addi %%%(p)s_r2, %%%(p)s_c1 : tensor<%(shape)sxi32>
""" % dict(p=prefix, rows=rows, cols=cols, stride=stride, shape=shape)


def load_tile(name, offsets, shape, element):
    ptrs = "tensor<%sx!tt.ptr<%s>>" % (shape, element)
    return ("    %%%s_p = tt.splat %%%s_ptr : !tt.ptr<%s> -> %s\n" % (name, name, element, ptrs) +
            "    %%%s_q = tt.addptr %%%s_p, %%%s : %s, tensor<%sxi32>\n" % (name, name, offsets, ptrs, shape) +
            "    %%%s = tt.load %%%s_q : %s\n" % (name, name, ptrs))


def dot_cases():
    M, N, K = 16, 32, 64
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, size=(M, K)).astype(np.int8)
    b = rng.integers(-128, 128, size=(K, N)).astype(np.int8)
    a.ravel()[::7] = -128
    b.ravel()[::5] = -128
    near = np.where(np.arange(M * N) % 2 == 1, 2**31 - 1 - 1000, -2**31 + 1000)
    c = (near + rng.integers(-128, 128, size=M * N)).astype(np.int32).reshape(M, N)
    exact = a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64)
    wrapped = exact.astype(np.int32)  # int64 -> int32 keeps the low 32 bits: two's-complement wrap-around
    assert (exact != wrapped).sum() > 0
    ttir = module("""
module {
  tt.func public @dot_i8(%a_ptr: !tt.ptr<i8>, %b_ptr: !tt.ptr<i8>, %c_ptr: !tt.ptr<i32>) attributes {noinline = false} {""" +
                  tile_offsets("ao", M, K, K) + tile_offsets("bo", K, N, N) + tile_offsets("co", M, N, N) +
                  load_tile("a", "ao", "%dx%d" % (M, K), "i8") + load_tile("b", "bo", "%dx%d" % (K, N), "i8") +
                  load_tile("c", "co", "%dx%d" % (M, N), "i32") + """    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<16x64xi8> * tensor<64x32xi8> -> tensor<16x32xi32>
    tt.store %c_q, %d : tensor<16x32x!tt.ptr<i32>>
    tt.return
  }
}
""")
    Case("dot", "dot_i8_i32_wrapping_acc", "dot_i8", ttir,
         "tt.dot i8 x i8 -> i32 (16x64 by 64x32) onto an accumulator near the int32 limits: exact products, "
         "the sum wraps around in int32 (%d of 512 lanes wrap), in any accumulation order." %
         int((exact != wrapped).sum())) \
        .tensor("a_ptr", "int8", a).tensor("b_ptr", "int8", b).tensor("c_ptr", "int32", c, wrapped)
    dot_f32_case()


def round_to_f32(exact):
    """The f32 nearest to the rational `exact`, ties to even (NumPy's own conversion could round twice)."""
    guess = np.float32(float(exact))
    candidates = [guess, np.nextafter(guess, np.float32(np.inf)), np.nextafter(guess, np.float32(-np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.array(c).view(np.uint32)) & 1))


def fma_f32(a, b, c):
    """fma(a, b, c) in f32: the exact a * b + c, rounded once."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    assert exact != 0  # the sign of an exact zero would need IEEE's rule; the data below never gives one
    return round_to_f32(exact)


def dot_f32_case():
    M = N = K = 16
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
    b = rng.uniform(-3, 3, size=(K, N)).astype(np.float32)
    c = rng.uniform(-1, 1, size=(M, N)).astype(np.float32)
    d = c.copy()
    for m in range(M):
        for n in range(N):
            acc = c[m, n]
            for k in range(K):
                acc = fma_f32(a[m, k], b[k, n], acc)
            d[m, n] = acc
    ttir = module("""
module {
  tt.func public @dot_f32(%a_ptr: !tt.ptr<f32>, %b_ptr: !tt.ptr<f32>, %c_ptr: !tt.ptr<f32>) attributes {noinline = false} {""" +
                  tile_offsets("o", M, N, N) + load_tile("a", "o", "16x16", "f32") + load_tile("b", "o", "16x16", "f32") +
                  load_tile("c", "o", "16x16", "f32") + """    %d = tt.dot %a, %b, %c, inputPrecision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    tt.store %c_q, %d : tensor<16x16x!tt.ptr<f32>>
    tt.return
  }
}
""")
    Case("dot", "dot_f32_ieee_sequential_fma", "dot_f32", ttir,
         "tt.dot f32 with inputPrecision = ieee is the sequential FMA chain over k from the accumulator, "
         "acc = fma(a[m][k], b[k][n], acc) for k = 0..15, each fma rounded once (BRIEF decision 5: what the GPU "
         "does); the oracle computes every fma exactly with fractions and rounds to nearest even. An ieee dot "
         "has bound 0 under the triton profile, so the comparison is bit for bit.") \
        .tensor("a_ptr", "float32", a).tensor("b_ptr", "float32", b).tensor("c_ptr", "float32", c, d)


# =================================================================================================================
# descriptor: tensor descriptors (tt.make_tensor_descriptor, tt.descriptor_load/store/gather/scatter, host
# TensorDescriptor arguments), in the syntax Triton 3.6 prints them
# =================================================================================================================

def desc_block(matrix, shape, row0, col0, pad, rows=4, cols=8):
    """The rows x cols block at (row0, col0) of `matrix` seen through a descriptor of `shape`: elements outside
    [0, shape) are `pad`, even where the buffer has data (the shape bounds the access, not the buffer)."""
    out = np.full((rows, cols), pad, dtype=matrix.dtype)
    for r in range(rows):
        for c in range(cols):
            if 0 <= row0 + r < shape[0] and 0 <= col0 + c < shape[1]:
                out[r, c] = matrix[row0 + r, col0 + c]
    return out


def descriptor_cases():
    a = (np.arange(60, dtype=np.float32) * np.float32(0.5) - np.float32(3)).reshape(5, 12)
    zero = desc_block(a, (5, 10), -1, 6, np.float32(0))
    nan = desc_block(a, (5, 10), 3, -2, f32_bits([QUIET_NAN_F32])[0])
    out = np.concatenate([zero.ravel(), nan.ravel()])
    Case("descriptor", "desc_load_padding", "desc_load", module(tile_kernel(
        "desc_load(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", """
    %c-1_i32 = arith.constant -1 : i32
    %c-2_i32 = arith.constant -2 : i32
    %c3_i32 = arith.constant 3 : i32
    %c6_i32 = arith.constant 6 : i32
    %c5_i32 = arith.constant 5 : i32
    %c10_i32 = arith.constant 10 : i32
    %c1_i64 = arith.constant 1 : i64
    %c12_i64 = arith.constant 12 : i64
    %cst = arith.constant dense<32> : tensor<4x8xi32>
    %dz = tt.make_tensor_descriptor %a_ptr, [%c5_i32, %c10_i32], [%c12_i64, %c1_i64] : <f32>, <tensor<4x8xf32>>
    %dn = tt.make_tensor_descriptor %a_ptr, [%c5_i32, %c10_i32], [%c12_i64, %c1_i64] {padding = 2 : i32} : <f32>, <tensor<4x8xf32>>
    %zero = tt.descriptor_load %dz[%c-1_i32, %c6_i32] : !tt.tensordesc<tensor<4x8xf32>> -> tensor<4x8xf32>
    %nan = tt.descriptor_load %dn[%c3_i32, %c-2_i32] : !tt.tensordesc<tensor<4x8xf32>> -> tensor<4x8xf32>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %zero : tensor<4x8x!tt.ptr<f32>>
    %out_1 = tt.addptr %out_0, %cst : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_1, %nan : tensor<4x8x!tt.ptr<f32>>
""")),
         "A descriptor of shape [5, 10] (strides [12, 1]) over a 5x12 f32 buffer: a 4x8 tt.descriptor_load at "
         "(-1, 6) gives zero for row -1 and for columns 10, 11, which the buffer has but the shape excludes; with "
         "padding = 2 the block at (3, -2) gives NaN (0x7FC00000) outside the shape. out_ptr is read back as int32 "
         "so +0.0 and the NaN's bits are compared exactly.") \
        .tensor("a_ptr", "float32", a) \
        .tensor("out_ptr", "int32", np.full(64, -7.0, np.float32).view(np.int32), out.view(np.int32))

    buffer = np.full((5, 12), -1.0, np.float32)
    stored = buffer.copy()
    r, c = tile_4x8()
    block = (r * 8 + c).astype(np.float32)
    for i in range(4):
        for j in range(8):
            if 3 + i < 5 and 7 + j < 10:
                stored[3 + i, 7 + j] = block[i, j]
    Case("descriptor", "desc_store_drops", "desc_store", module(tile_kernel(
        "desc_store(%out_ptr: !tt.ptr<f32>)", """
    %c3_i32 = arith.constant 3 : i32
    %c7_i32 = arith.constant 7 : i32
    %c5_i32 = arith.constant 5 : i32
    %c10_i32 = arith.constant 10 : i32
    %c1_i64 = arith.constant 1 : i64
    %c12_i64 = arith.constant 12 : i64
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
        "desc_rank3(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", """
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %c8_i32 = arith.constant 8 : i32
    %c1_i64 = arith.constant 1 : i64
    %c8_i64 = arith.constant 8 : i64
    %c24_i64 = arith.constant 24 : i64
    %d = tt.make_tensor_descriptor %x_ptr, [%c2_i32, %c3_i32, %c8_i32], [%c24_i64, %c8_i64, %c1_i64] : <f32>, <tensor<1x4x8xf32>>
    %t = tt.descriptor_load %d[%c1_i32, %c1_i32, %c0_i32] : !tt.tensordesc<tensor<1x4x8xf32>> -> tensor<1x4x8xf32>
    %t_0 = tt.reshape %t : tensor<1x4x8xf32> -> tensor<4x8xf32>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %t_0 : tensor<4x8x!tt.ptr<f32>>
""")),
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
        "%t_ptr: !tt.ptr<f32>)", """
    %c6_i32 = arith.constant 6 : i32
    %c10_i32 = arith.constant 10 : i32
    %c12_i32 = arith.constant 12 : i32
    %c16_i32 = arith.constant 16 : i32
    %c1_i64 = arith.constant 1 : i64
    %c16_i64 = arith.constant 16 : i64
    %r = tt.splat %rows_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %r_0 = tt.addptr %r, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %r_1 = tt.load %r_0 : tensor<4x!tt.ptr<i32>>
    %s = tt.splat %srows_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %s_0 = tt.addptr %s, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %s_1 = tt.load %s_0 : tensor<4x!tt.ptr<i32>>
    %d = tt.make_tensor_descriptor %g_ptr, [%c6_i32, %c16_i32], [%c16_i64, %c1_i64] : <f32>, <tensor<1x8xf32>>
    %v = tt.descriptor_gather %d[%r_1, %c10_i32] : (!tt.tensordesc<tensor<1x8xf32>>, tensor<4xi32>, i32) -> tensor<4x8xf32>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %v : tensor<4x8x!tt.ptr<f32>>
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
    Case("descriptor", "host_descriptor_argument", "host_desc", module("""
module {
  tt.func public @host_desc(%x_desc: !tt.tensordesc<tensor<4x8xf32>>, %x_desc_0: i32, %x_desc_1: i32, %x_desc_2: i64, %x_desc_3: i64, %out_ptr: !tt.ptr<f32>, %w_ptr: !tt.ptr<i64>) attributes {noinline = false} {
    %c4_i32 = arith.constant 4 : i32
    %c32_i32 = arith.constant 32 : i32
    %pid = tt.get_program_id x : i32
    %row = arith.muli %pid, %c4_i32 : i32
    %t = tt.descriptor_load %x_desc[%row, %c4_i32] : !tt.tensordesc<tensor<4x8xf32>> -> tensor<4x8xf32>
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
    %out = tt.addptr %out_ptr, %base : !tt.ptr<f32>, i32
    %out_0 = tt.splat %out : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_1 = tt.addptr %out_0, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_1, %t : tensor<4x8x!tt.ptr<f32>>
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
    tt.return
  }
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
        "desc_int(%a_ptr: !tt.ptr<i8>, %out_ptr: !tt.ptr<i16>)", """
    %c-1_i32 = arith.constant -1 : i32
    %c3_i32 = arith.constant 3 : i32
    %c6_i32 = arith.constant 6 : i32
    %c7_i32 = arith.constant 7 : i32
    %c5_i32 = arith.constant 5 : i32
    %c10_i32 = arith.constant 10 : i32
    %c1_i64 = arith.constant 1 : i64
    %c12_i64 = arith.constant 12 : i64
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
    Case("descriptor", "host_descriptor_ui32", "host_desc_u", module("""
module {
  tt.func public @host_desc_u(%x_desc: !tt.tensordesc<tensor<4x8xui32>>, %x_desc_0: i32, %x_desc_1: i32, %x_desc_2: i64, %x_desc_3: i64, %out_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c4_i32 = arith.constant 4 : i32
    %c32_i32 = arith.constant 32 : i32
    %pid = tt.get_program_id x : i32
    %row = arith.muli %pid, %c4_i32 : i32
    %t = tt.descriptor_load %x_desc[%row, %c4_i32] : !tt.tensordesc<tensor<4x8xui32>> -> tensor<4x8xi32>
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
    %out = tt.addptr %out_ptr, %base : !tt.ptr<i32>, i32
    %out_0 = tt.splat %out : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %out_1 = tt.addptr %out_0, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    tt.store %out_1, %t : tensor<4x8x!tt.ptr<i32>>
    tt.return
  }
}
"""),
         "A host TensorDescriptor of a uint32 tensor: Triton 3.6 types the parameter !tt.tensordesc<tensor<4x8xui32>> "
         "and loads i32 bits. Programs 0 and 1 load the block at (4 pid, 4) of a [6, 12] descriptor: program 1's "
         "rows 6, 7 and both programs' columns 12... are outside the shape and give zero.", grid=(2,)) \
        .descriptor("x_desc", "uint32", hu, (6, 12), (12, 1), (4, 8)) \
        .tensor("out_ptr", "uint32", np.full(64, 7, np.uint32), hout_u.ravel())

    past = np.arange(48, dtype=np.float32).reshape(4, 12)
    oob = Case("descriptor", "desc_shape_past_buffer", "desc_past", module(tile_kernel(
        "desc_past(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", """
    %c0_i32 = arith.constant 0 : i32
    %c2_i32 = arith.constant 2 : i32
    %c5_i32 = arith.constant 5 : i32
    %c12_i32 = arith.constant 12 : i32
    %c1_i64 = arith.constant 1 : i64
    %c12_i64 = arith.constant 12 : i64
    %d = tt.make_tensor_descriptor %a_ptr, [%c5_i32, %c12_i32], [%c12_i64, %c1_i64] : <f32>, <tensor<4x8xf32>>
    %t = tt.descriptor_load %d[%c2_i32, %c0_i32] : !tt.tensordesc<tensor<4x8xf32>> -> tensor<4x8xf32>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %t : tensor<4x8x!tt.ptr<f32>>
""")),
         "A descriptor whose shape [5, 12] reaches past its 4x12 buffer: the 4x8 block at (2, 0) has row 4 inside "
         "the shape but outside the buffer, an ordinary out-of-bounds read (8 reports, byte offsets 192..220 of "
         "a_ptr). Rows 5 (outside the shape) are padding, not reported. out_ptr is not compared (what an "
         "out-of-bounds read gives is engine-specific).")
    oob.tensor("a_ptr", "float32", past).tensor("out_ptr", "float32", np.zeros(32, np.float32))
    oob.expect_report("out-of-bounds", op="tt.descriptor_load", buffer="a_ptr", byte_offset=192)
    oob.expect_counts({"out-of-bounds": 8})


# =================================================================================================================
# layout: kernels whose GPU lowering must move data between threads through shared memory (layout conversions):
# tt.trans of 2-D and 3-D tiles of every element width, reshape then trans, a reduction broadcast back onto its
# tile, two conversions in a row, a conversion inside scf.for (barriers across the back edge), join / split / cat,
# f16 tt.dot (its operands and its result change layout), tiles smaller than the program (replicated layouts), and
# the transpose benchmark's kernel on a 2x2 grid and under masks. Every value is a bit pattern moved or an exact
# integer sum, so any engine must match bit for bit; num_warps varies over 1, 2, 4 and 8 (the layouts differ).
# =================================================================================================================

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


def load_nd(name, pointer, element, offsets, shape):
    """%<name> = the tile at pointer + offsets. i1 goes through memory as i8, as Triton lowers a bool pointer:
    the pointers bitcast to i8, the bytes loaded and compared with 0."""
    text = ("    %%%s_p = tt.splat %%%s : !tt.ptr<%s> -> %s\n" % (name, pointer, element, ptrs_of(shape, element)) +
            "    %%%s_q = tt.addptr %%%s_p, %%%s : %s, %s\n" % (name, name, offsets, ptrs_of(shape, element),
                                                           tensor_of(shape, "i32")))
    if element != "i1":
        return text + "    %%%s = tt.load %%%s_q : %s\n" % (name, name, ptrs_of(shape, element))
    return text + (
        "    %%%s_q8 = tt.bitcast %%%s_q : %s -> %s\n" % (name, name, ptrs_of(shape, "i1"), ptrs_of(shape, "i8")) +
        "    %%%s_b = tt.load %%%s_q8 : %s\n" % (name, name, ptrs_of(shape, "i8")) +
        "    %%%s_z = arith.constant dense<0> : %s\n" % (name, tensor_of(shape, "i8")) +
        "    %%%s = arith.cmpi ne, %%%s_b, %%%s_z : %s\n" % (name, name, name, tensor_of(shape, "i8")))


def store_nd(name, pointer, element, offsets, shape, value):
    """tt.store of %<value> to pointer + offsets (i1 widened to an i8 byte, as Triton stores a bool)."""
    text = ("    %%%s_p = tt.splat %%%s : !tt.ptr<%s> -> %s\n" % (name, pointer, element, ptrs_of(shape, element)) +
            "    %%%s_q = tt.addptr %%%s_p, %%%s : %s, %s\n" % (name, name, offsets, ptrs_of(shape, element),
                                                           tensor_of(shape, "i32")))
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


def trans_2d_cases():
    shapes = [("f32", (64, 64), 4), ("f32", (32, 128), 2), ("f32", (16, 256), 8), ("f32", (128, 8), 1),
              ("f16", (64, 64), 8), ("f16", (32, 128), 4), ("bf16", (16, 256), 2), ("bf16", (64, 64), 4),
              ("i8", (64, 64), 1), ("i8", (32, 128), 8), ("i64", (64, 64), 4), ("i64", (128, 8), 1),
              ("i1", (64, 64), 2), ("i1", (16, 256), 4)]
    for element, (rows, cols), warps in shapes:
        name = "trans_%s_%dx%d_w%d" % (element, rows, cols, warps)
        x = layout_values(layout_rng(name), element, (rows, cols))
        y = np.ascontiguousarray(x.T)
        body = (offsets_nd("xo", (rows, cols)) + offsets_nd("yo", (cols, rows)) +
                load_nd("x", "x_ptr", element, "xo", (rows, cols)) + trans_op("t", "x", (1, 0), (rows, cols), element) +
                store_nd("y", "y_ptr", element, "yo", (cols, rows), "t"))
        memory = " (through memory as i8 bytes: bitcast pointers, cmpi ne 0 after the load, extui before the store, "\
                 "as Triton lowers a bool pointer)" if element == "i1" else \
            " (raw bit patterns, any finite value)" if element == "bf16" else ""
        Case("layout", name, "trans", layout_kernel("trans", [("x_ptr", element), ("y_ptr", element)], body),
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
        body = (offsets_nd("xo", (rows, cols)) + offsets_nd("yo", (cols, rows)) +
                load_nd("x", "x_ptr", element, "xo", (rows, cols)) + trans_op("t", "x", (1, 0), (rows, cols), element) +
                store_nd("y", "y_ptr", element, "yo", (cols, rows), "t"))
        Case("layout", name, "trans", layout_kernel("trans", [("x_ptr", element), ("y_ptr", element)], body),
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


def main():
    for entry in sorted(os.listdir(HERE)):
        if os.path.isdir(os.path.join(HERE, entry)):
            shutil.rmtree(os.path.join(HERE, entry))
    for family in (memory_cases, atomic_cases, cast_cases, control_cases, reduce_scan_cases, shape_cases, dot_cases,
                   descriptor_cases, layout_cases):
        family()
    for case in CASES:
        case.write()
    families = {}
    for case in CASES:
        families[case.family] = families.get(case.family, 0) + 1
    print("%d cases: %s" % (len(CASES), ", ".join("%s %d" % item for item in families.items())))


if __name__ == "__main__":
    main()
