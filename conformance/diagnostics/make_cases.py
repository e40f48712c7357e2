#!/usr/bin/env python3
"""Writes the diagnostics cases (one folder per planted bug) from the kernels in diagnostics.py.

Each folder is a golden-style case (kernel.ttir, case.json, input .npy files) plus `expect_reports` in
case.json: the first report of each kind the interpreter must produce (kind, program, lane, op, TTIR line,
Python source line). The TTIR is written here in the form Triton 3.6 prints, with loc() entries pointing into
diagnostics.py. Run: python3 conformance/diagnostics/make_cases.py (no third-party modules needed)."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "diagnostics.py"


def write_npy(path, dtype, values):
    codes = {"float32": ("<f4", "f"), "int32": ("<i4", "i")}
    descr, fmt = codes[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


class Kernel:
    """Accumulates TTIR lines; each op gets loc(#locN) -> "diagnostics.py":line:col (named if given)."""

    def __init__(self, name, params, def_line):
        self.name, self.params, self.def_line = name, params, def_line
        self.body, self.locs = [], []

    def op(self, text, line, col, var=None, indent=4):
        self.locs.append((line, col, var))
        self.body.append(" " * indent + text + " loc(#loc%d)" % len(self.locs))
        return len(self.body) + 3  # TTIR line of this op: after "#loc = ...", "module {" and the tt.func line

    def raw(self, text, indent=4):
        self.body.append(" " * indent + text)

    def text(self):
        params = ", ".join(
            "%%%s: %s%s loc(\"%s\"(#loc))" % (n, t, " {tt.divisibility = 16 : i32}" if t.startswith("!tt.ptr") else "", n)
            for n, t in self.params)
        lines = ['#loc = loc("%s":%d:0)' % (PY, self.def_line), "module {",
                 "  tt.func public @%s(%s) attributes {noinline = false} {" % (self.name, params)]
        lines += self.body
        lines += ["    tt.return loc(#loc)", "  } loc(#loc)", "} loc(#loc)"]
        aliases = []
        for i, (line, col, var) in enumerate(self.locs, 1):
            if var:
                aliases.append('#loc%d = loc("%s"(#locp%d))' % (i, var, i))
                aliases.append('#locp%d = loc("%s":%d:%d)' % (i, PY, line, col))
            else:
                aliases.append('#loc%d = loc("%s":%d:%d)' % (i, PY, line, col))
        return "\n".join(lines + aliases) + "\n"


def prologue(k, line_pid, line_offs, block=64):
    k.op("%%c%d_i32 = arith.constant %d : i32" % (block, block), line_offs, 16)
    k.op("%pid = tt.get_program_id x : i32", line_pid, 24, "pid")
    k.op("%%offs = arith.muli %%pid, %%c%d_i32 : i32" % block, line_offs, 16, "offs")
    k.op("%%offs_0 = tt.make_range {end = %d : i32, start = 0 : i32} : tensor<%dxi32>" % (block, block), line_offs, 35, "offs")
    k.op("%%offs_1 = tt.splat %%offs : i32 -> tensor<%dxi32>" % block, line_offs, 24, "offs")
    k.op("%%offs_2 = arith.addi %%offs_1, %%offs_0 : tensor<%dxi32>" % block, line_offs, 24, "offs")


def pointers(k, name, ptr, offsets, line, col, elem="f32", block=64):
    k.op("%%%s = tt.splat %%%s : !tt.ptr<%s> -> tensor<%dx!tt.ptr<%s>>" % (name, ptr, elem, block, elem), line, col)
    k.op("%%%s_p = tt.addptr %%%s, %%%s : tensor<%dx!tt.ptr<%s>>, tensor<%dxi32>" % (name, name, offsets, block, elem, block), line, col)
    return "%" + name + "_p"


def mask_below_n(k, line, col, result, var=None):
    """%RESULT = %offs_2 < %n: the lanes inside a buffer of n elements."""
    k.op("%m = tt.splat %n : i32 -> tensor<64xi32>", line, col)
    k.op("%%%s = arith.cmpi slt, %%offs_2, %%m : tensor<64xi32>" % result, line, col, var)


CASES = []


def case(name, kernel, grid, args, expect, notes, check=None, counts=None):
    CASES.append((name, kernel, grid, args, expect, notes, check, counts))


def arange(n, scale=1.0):
    return [float(i) * scale for i in range(n)]


# The parameters of the copy kernels (cases 1-3): y[i] = x[i] for the lanes below n.
COPY_PARAMETERS = [("x_ptr", "!tt.ptr<f32>"), ("y_ptr", "!tt.ptr<f32>"), ("n", "i32")]


def copy_arguments(y_size):
    """The arguments of a copy kernel: x = 0..99, n = 100, and y of `y_size` zeros."""
    return [("x_ptr", "float32", arange(100)), ("y_ptr", "float32", [0.0] * y_size), ("n", "int", 100)]


def elementwise_i32_kernel(name, operand, def_line, op, result):
    """%RESULT = x OP OPERAND over 64 i32 lanes, stored to y (cases 9 and 10, def at `def_line` of diagnostics.py,
    the op on the third line after it): the kernel and the TTIR line of the op."""
    line = def_line + 3
    k = Kernel(name, [("x_ptr", "!tt.ptr<i32>"), (operand + "_ptr", "!tt.ptr<i32>"), ("y_ptr", "!tt.ptr<i32>")],
               def_line)
    prologue(k, def_line + 1, def_line + 2)
    p = pointers(k, "a", "x_ptr", "offs_2", line, 16, "i32")
    k.op("%%a_v = tt.load %s : tensor<64x!tt.ptr<i32>>" % p, line, 8)
    q = pointers(k, "b", operand + "_ptr", "offs_2", line, 44, "i32")
    k.op("%%b_v = tt.load %s : tensor<64x!tt.ptr<i32>>" % q, line, 36)
    op_line = k.op("%%%s = %s %%a_v, %%b_v : tensor<64xi32>" % (result, op), line, 30, result)
    r = pointers(k, "y", "y_ptr", "offs_2", line + 1, 19, "i32")
    k.op("tt.store %s, %%%s : tensor<64x!tt.ptr<i32>>" % (r, result), line + 1, 4)
    return k, op_line


def copy_kernel(name, def_line):
    """A copy kernel (COPY_PARAMETERS) defined at `def_line` of diagnostics.py, its offsets on the next two lines."""
    k = Kernel(name, COPY_PARAMETERS, def_line)
    prologue(k, def_line + 1, def_line + 2)
    return k


def load_x(k, line, mask=None):
    """%x_4 = x[offs_2] (under %MASK if given), at `line` of diagnostics.py: the TTIR line of the load."""
    p = pointers(k, "x", "x_ptr", "offs_2", line, 20)
    return k.op("%%x_4 = tt.load %s%s : tensor<64x!tt.ptr<f32>>" % (p, ", %" + mask if mask else ""), line, 8, "x")


def elementwise_ub_case(case_name, kernel_name, operand, def_line, op, result, values, lane, notes):
    """A case of elementwise_i32_kernel over x = 0..63 and OPERAND = `values`, whose op is undefined behaviour in
    lane `lane` of program 0 (reported only with --check=ub)."""
    k, op_line = elementwise_i32_kernel(kernel_name, operand, def_line, op, result)
    case(case_name, k, [1, 1, 1],
         [("x_ptr", "int32", arange(64)), (operand + "_ptr", "int32", values), ("y_ptr", "int32", [0.0] * 64)],
         [{"kind": "undefined-behavior", "program": [0, 0, 0], "lane": [lane], "op": op, "ttir_line": op_line,
           "source": "%s:%d:30" % (PY, def_line + 3)}],
         notes, check="ub")


# 1. copy_no_mask: unmasked load past the end of x (n = 100, BLOCK = 64, grid 2 -> program 1 lanes 36..63).
k = copy_kernel("copy_no_mask", 8)
load_line = load_x(k, 11)
mask_below_n(k, 12, 39, "m_5")
q = pointers(k, "y", "y_ptr", "offs_2", 12, 19)
k.op("tt.store %s, %%x_4, %%m_5 : tensor<64x!tt.ptr<f32>>" % q, 12, 26)
case("oob_unmasked_load", k, [2, 1, 1], copy_arguments(100),
     [{"kind": "out-of-bounds", "program": [1, 0, 0], "lane": [36], "op": "tt.load", "ttir_line": load_line,
       "source": "%s:11:8" % PY, "buffer": "x_ptr", "byte_offset": 400}],
     "program 1 reads x[100..127]; x has 100 elements")

# 2. store_off_by_one: masked store to y + offs + 1 writes y[100].
k = copy_kernel("store_off_by_one", 16)
mask_below_n(k, 19, 14, "m_3", "m")
load_x(k, 20, "m_3")
k.op("%cst = arith.constant dense<1> : tensor<64xi32>", 21, 32)
k.op("%o = arith.addi %offs_2, %cst : tensor<64xi32>", 21, 32)
q = pointers(k, "y", "y_ptr", "o", 21, 19)
store_line = k.op("tt.store %s, %%x_4, %%m_3 : tensor<64x!tt.ptr<f32>>" % q, 21, 4)
case("oob_store_off_by_one", k, [2, 1, 1], copy_arguments(100),
     [{"kind": "out-of-bounds", "program": [1, 0, 0], "lane": [35], "op": "tt.store", "ttir_line": store_line,
       "source": "%s:21:4" % PY, "buffer": "y_ptr", "byte_offset": 400}],
     "lane 35 of program 1 writes y[100]; y has 100 elements")

# 3. store_undefined: masked load without other, stored unmasked (y has 128 elements, so no OOB).
k = copy_kernel("store_undefined", 25)
mask_below_n(k, 28, 35, "m_3")
load_x(k, 28, "m_3")
q = pointers(k, "y", "y_ptr", "offs_2", 29, 19)
store_line = k.op("tt.store %s, %%x_4 : tensor<64x!tt.ptr<f32>>" % q, 29, 4)
case("undefined_value_stored", k, [2, 1, 1], copy_arguments(128),
     [{"kind": "undefined-value", "program": [1, 0, 0], "lane": [36], "op": "tt.store", "ttir_line": store_line,
       "source": "%s:29:4" % PY}],
     "lanes 36..63 of program 1 come from a masked load without other and are stored")

# 4. gather_undefined_index: undefined lanes used as addresses.
k = Kernel("gather_undefined_index", [("idx_ptr", "!tt.ptr<i32>"), ("x_ptr", "!tt.ptr<f32>"), ("y_ptr", "!tt.ptr<f32>"), ("n", "i32")], 33)
prologue(k, 34, 35)
mask_below_n(k, 36, 39, "m_3")
p = pointers(k, "i", "idx_ptr", "offs_2", 36, 22, "i32")
k.op("%%idx = tt.load %s, %%m_3 : tensor<64x!tt.ptr<i32>>" % p, 36, 10, "idx")
q = pointers(k, "v", "x_ptr", "idx", 37, 20)
load_line = k.op("%%v_4 = tt.load %s : tensor<64x!tt.ptr<f32>>" % q, 37, 8, "v")
r = pointers(k, "y", "y_ptr", "offs_2", 38, 19)
k.op("tt.store %s, %%v_4, %%m_3 : tensor<64x!tt.ptr<f32>>" % r, 38, 4)
case("undefined_address", k, [2, 1, 1],
     [("idx_ptr", "int32", [float((7 * i) % 100) for i in range(100)]), ("x_ptr", "float32", arange(100)),
      ("y_ptr", "float32", [0.0] * 100), ("n", "int", 100)],
     [{"kind": "undefined-value", "program": [1, 0, 0], "lane": [36], "op": "tt.load", "ttir_line": load_line,
       "source": "%s:37:8" % PY}],
     "lanes 36..63 of program 1 load through addresses computed from undefined indices")

# 5. branch_on_undefined: scalar masked load without other decides an scf.if.
k = Kernel("branch_on_undefined", [("flag_ptr", "!tt.ptr<i32>"), ("y_ptr", "!tt.ptr<i32>"), ("nflags", "i32")], 42)
k.op("%c0_i32 = arith.constant 0 : i32", 45, 11)
k.op("%c1_i32 = arith.constant 1 : i32", 46, 32)
k.op("%pid = tt.get_program_id x : i32", 43, 24, "pid")
k.op("%f = arith.cmpi slt, %pid, %nflags : i32", 44, 41, "f")
k.op("%f_0 = tt.addptr %flag_ptr, %pid : !tt.ptr<i32>, i32", 44, 22, "f")
k.op("%f_1 = tt.load %f_0, %f : !tt.ptr<i32>", 44, 8, "f")
k.op("%0 = arith.cmpi sgt, %f_1, %c0_i32 : i32", 45, 7)
if_line = k.op("scf.if %0 {", 45, 7)
k.body[-1] = "    scf.if %0 {"
k.op("%1 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32", 46, 21, indent=6)
k.op("tt.store %1, %c1_i32 : !tt.ptr<i32>", 46, 29, indent=6)
k.locs.append((45, 4, None))
k.raw("} loc(#loc%d)" % len(k.locs))
case("undefined_branch", k, [4, 1, 1],
     [("flag_ptr", "int32", [1.0, 0.0]), ("y_ptr", "int32", [0.0] * 4), ("nflags", "int", 2)],
     [{"kind": "undefined-value", "program": [2, 0, 0], "op": "scf.if", "ttir_line": if_line,
       "source": "%s:45:4" % PY}],
     "programs 2 and 3 branch on a flag they never loaded")

# 6. store_same_block: every program writes out[0..63] (write-write race).
k = Kernel("store_same_block", [("x_ptr", "!tt.ptr<f32>"), ("out_ptr", "!tt.ptr<f32>")], 50)
prologue(k, 51, 52)
p = pointers(k, "x", "x_ptr", "offs_2", 53, 20)
k.op("%%x_3 = tt.load %s : tensor<64x!tt.ptr<f32>>" % p, 53, 8, "x")
q = pointers(k, "o", "out_ptr", "offs_0", 54, 21)
store_line = k.op("tt.store %s, %%x_3 : tensor<64x!tt.ptr<f32>>" % q, 54, 4)
case("race_write_write", k, [2, 1, 1],
     [("x_ptr", "float32", arange(128)), ("out_ptr", "float32", [0.0] * 64)],
     [{"kind": "race", "op": "tt.store", "ttir_line": store_line, "source": "%s:54:4" % PY, "buffer": "out_ptr"}],
     "programs 0 and 1 both write out[0..63]")

# 7. shift_in_place: program p reads x[64p + 64], which program p + 1 writes (read-write race).
k = Kernel("shift_in_place", [("x_ptr", "!tt.ptr<f32>")], 58)
prologue(k, 59, 60)
k.op("%cst = arith.constant dense<1> : tensor<64xi32>", 61, 28)
k.op("%n = arith.addi %offs_2, %cst : tensor<64xi32>", 61, 28)
p = pointers(k, "x", "x_ptr", "n", 61, 20)
k.op("%%x_3 = tt.load %s : tensor<64x!tt.ptr<f32>>" % p, 61, 8, "x")
q = pointers(k, "s", "x_ptr", "offs_2", 62, 19)
k.op("tt.store %s, %%x_3 : tensor<64x!tt.ptr<f32>>" % q, 62, 4)
case("race_read_write", k, [2, 1, 1],
     [("x_ptr", "float32", arange(129))],
     [{"kind": "race", "buffer": "x_ptr", "byte_offset": 256}],
     "program 0 reads x[64], which program 1 overwrites")

# 8. assert_non_negative: x[70] < 0 -> program 1, lane 6.
k = Kernel("assert_non_negative", [("x_ptr", "!tt.ptr<f32>")], 66)
prologue(k, 67, 68)
p = pointers(k, "x", "x_ptr", "offs_2", 69, 20)
k.op("%%x_3 = tt.load %s : tensor<64x!tt.ptr<f32>>" % p, 69, 8, "x")
k.op("%cst = arith.constant dense<0.000000e+00> : tensor<64xf32>", 70, 26)
k.op("%0 = arith.cmpf oge, %x_3, %cst : tensor<64xf32>", 70, 26)
assert_line = k.op("tt.assert %0, \"x must be non-negative\" : tensor<64xi1>", 70, 4)
xs = arange(128)
xs[70] = -1.0
case("assert_failure", k, [2, 1, 1], [("x_ptr", "float32", xs)],
     [{"kind": "assert", "program": [1, 0, 0], "lane": [6], "op": "tt.assert", "ttir_line": assert_line,
       "source": "%s:70:4" % PY}],
     "x[70] is negative")

# 9. divide_by_zero (under --check=ub): d[5] == 0.
ds = [float(1 + i % 7) for i in range(64)]
ds[5] = 0.0
elementwise_ub_case("ub_division_by_zero", "divide_by_zero", "d", 74, "arith.divsi", "q", ds, 5,
                    "d[5] is 0; reported only with --check=ub")

# 10. shift_too_far (under --check=ub): s[3] == 40.
ss = [float(i % 8) for i in range(64)]
ss[3] = 40.0
elementwise_ub_case("ub_shift_out_of_range", "shift_too_far", "s", 82, "arith.shli", "r", ss, 3,
                    "s[3] is 40, a shift of an i32 by 40; reported only with --check=ub")


# 11-13. Spin locks (docs/semantics.md, "Locks"): four programs add their row of x into acc. With the lock taken
# by tt.atomic_cas and released by an exchange after a gpu.barrier, the critical sections are ordered: no race
# (and acc is the exact sum). Without the barrier, or without the lock, program 1 reads what program 0 wrote.
def accumulate_kernel(name, def_line, locked, barrier):
    params = [("x_ptr", "!tt.ptr<f32>"), ("acc_ptr", "!tt.ptr<f32>")]
    params += [("lock_ptr", "!tt.ptr<i32>")] if locked else []
    params += [("count_ptr", "!tt.ptr<i32>")]
    k = Kernel(name, params, def_line)
    line = def_line + 2 if locked else def_line + 1  # pid = tl.program_id(0)
    k.op("%true = arith.constant true", line + 5 if locked else line + 4, 34)
    k.op("%c1_i32 = arith.constant 1 : i32", line + 5 if locked else line + 4, 34)
    k.op("%c0_i32 = arith.constant 0 : i32", line + 4 if locked else line + 3, 16)
    k.op("%c64_i32 = arith.constant 64 : i32", line + 2, 30)
    k.op("%pid = tt.get_program_id x : i32", line, 24, "pid")
    k.op("%offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>", line + 1, 24, "offs")
    k.op("%x = arith.muli %pid, %c64_i32 : i32", line + 2, 30, "x")
    k.op("%x_0 = tt.addptr %x_ptr, %x : !tt.ptr<f32>, i32", line + 2, 24, "x")
    k.op("%x_1 = tt.splat %x_0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>", line + 2, 38, "x")
    k.op("%x_2 = tt.addptr %x_1, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>", line + 2, 38, "x")
    k.op("%x_3 = tt.load %x_2 : tensor<64x!tt.ptr<f32>>", line + 2, 16, "x")
    lines = {}
    if locked:
        k.raw("scf.while : () -> () {")
        lines["cas"] = k.op("%5 = tt.atomic_cas acq_rel, gpu, %lock_ptr, %c0_i32, %c1_i32 : (!tt.ptr<i32>, i32, i32) -> i32",
                            line + 3, 37, indent=6)
        k.op("%6 = arith.cmpi eq, %5, %c1_i32 : i32", line + 3, 43, indent=6)
        k.op("scf.condition(%6)", line + 3, 43, indent=6)
        k.raw("} do {")
        k.op("scf.yield", line + 4, 8, indent=6)
        k.locs.append((line + 3, 4, None))
        k.raw("} loc(#loc%d)" % len(k.locs))
        line += 2  # the lock's two lines
    lines["count"] = k.op("%count = tt.load %count_ptr : !tt.ptr<i32>", line + 3, 20, "count")
    k.op("%0 = arith.cmpi eq, %count, %c0_i32 : i32", line + 4, 16)
    k.raw("%1 = scf.if %0 -> (tensor<64xf32>) {")
    k.op("%5 = tt.atomic_rmw exch, acq_rel, gpu, %count_ptr, %c1_i32, %true : (!tt.ptr<i32>, i32, i1) -> i32",
         line + 5, 34, indent=6)
    k.op("scf.yield %x_3 : tensor<64xf32>", line + 5, 34, indent=6)
    k.raw("} else {")
    k.op("%x_4 = tt.splat %acc_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>", line + 7, 31, "x", indent=6)
    k.op("%x_5 = tt.addptr %x_4, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>", line + 7, 31, "x", indent=6)
    lines["acc_load"] = k.op("%x_6 = tt.load %x_5 : tensor<64x!tt.ptr<f32>>", line + 7, 21, "x", indent=6)
    k.op("%x_7 = arith.addf %x_3, %x_6 : tensor<64xf32>", line + 7, 13, "x", indent=6)
    k.op("scf.yield %x_7 : tensor<64xf32>", line + 7, 13, "x", indent=6)
    k.locs.append((line + 4, 7, None))
    k.raw("} loc(#loc%d)" % len(k.locs))
    k.op("%2 = tt.splat %acc_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>", line + 8, 23)
    k.op("%3 = tt.addptr %2, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>", line + 8, 23)
    lines["acc_store"] = k.op("tt.store %3, %1 : tensor<64x!tt.ptr<f32>>", line + 8, 29)
    if locked and barrier:
        lines["barrier"] = k.op("gpu.barrier", line + 9, 4)
    if locked:
        lines["release"] = k.op("%4 = tt.atomic_rmw exch, acq_rel, gpu, %lock_ptr, %c0_i32, %true : (!tt.ptr<i32>, i32, i1) -> i32",
                                line + 10, 29)
    return k, lines


rows = [[float((7 * p + 3 * i) % 11 - 5) for i in range(64)] for p in range(4)]
row_sum = [sum(rows[p][i] for p in range(4)) for i in range(64)]
x_rows = [v for row in rows for v in row]
k, lines = accumulate_kernel("accumulate_locked", 90, locked=True, barrier=True)
case("lock_ordered_no_race", k, [4, 1, 1],
     [("x_ptr", "float32", x_rows), ("acc_ptr", "float32", [0.0] * 64, row_sum), ("lock_ptr", "int32", [0.0]),
      ("count_ptr", "int32", [0.0], [1.0])],
     [], "the correct spin lock (tutorial 05's layer-norm backward): tt.atomic_cas acquires, gpu.barrier covers the "
     "critical section, an exchange releases; four programs read-modify-write acc in turn, so no race is reported "
     "and acc is the exact sum of the four integer-valued rows", counts={"race": 0})
k, lines = accumulate_kernel("accumulate_locked", 90, locked=True, barrier=False)
case("race_lock_without_barrier", k, [4, 1, 1],
     [("x_ptr", "float32", x_rows), ("acc_ptr", "float32", [0.0] * 64), ("lock_ptr", "int32", [0.0]),
      ("count_ptr", "int32", [0.0])],
     [{"kind": "race", "program": [1, 0, 0], "op": "tt.load", "ttir_line": lines["acc_load"],
       "source": "%s:101:21" % PY, "buffer": "acc_ptr"}],
     "accumulate_locked with its gpu.barrier (tl.debug_barrier()) removed: the exchange that releases the lock is "
     "made by one thread, and the other threads' stores of the critical section are not ordered before it, so "
     "program 1's read of acc races with program 0's store")
k, lines = accumulate_kernel("accumulate_unlocked", 108, locked=False, barrier=False)
case("race_forgotten_lock", k, [4, 1, 1],
     [("x_ptr", "float32", x_rows), ("acc_ptr", "float32", [0.0] * 64), ("count_ptr", "int32", [0.0])],
     [{"kind": "race", "program": [1, 0, 0], "op": "tt.load", "ttir_line": lines["acc_load"],
       "source": "%s:116:21" % PY, "buffer": "acc_ptr"},
      {"kind": "race", "program": [1, 0, 0], "op": "tt.load", "ttir_line": lines["count"],
       "source": "%s:112:20" % PY, "buffer": "count_ptr"}],
     "the read-modify-write of acc without the lock: program 1 reads acc[0..63] and count, which program 0 wrote")


def main():
    for name, kernel, grid, args, expect, notes, check, counts in CASES:
        folder = os.path.join(HERE, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "kernel.ttir"), "w") as f:
            f.write(kernel.text())
        jargs = []
        for arg in args:
            aname, dtype, value = arg[:3]
            if dtype == "int":
                jargs.append({"name": aname, "kind": "scalar", "pytype": "int", "value": value})
            else:
                write_npy(os.path.join(folder, aname + ".npy"), dtype, [int(v) if dtype == "int32" else v for v in value])
                jargs.append({"name": aname, "kind": "tensor", "dtype": dtype, "shape": [len(value)], "input": aname + ".npy"})
                if len(arg) > 3:  # the buffer after the launch (a case that must also compute the right values)
                    write_npy(os.path.join(folder, aname + ".expected.npy"), dtype,
                              [int(v) if dtype == "int32" else v for v in arg[3]])
                    jargs[-1]["expected"] = aname + ".expected.npy"
        spec = {"name": name, "entry": kernel.name, "grid": grid, "num_warps": 4, "args": jargs, "constexprs": {"BLOCK": 64},
                "notes": notes, "made_by": "conformance/diagnostics/make_cases.py (hand-written TTIR)",
                "expect_reports": expect}
        if check:
            spec["check"] = check
        if counts is not None:
            spec["expect_report_counts"] = counts
        with open(os.path.join(folder, "case.json"), "w") as f:
            json.dump(spec, f, indent=1)
            f.write("\n")
        print("wrote", name)


if __name__ == "__main__":
    main()
