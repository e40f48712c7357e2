"""Engine cases, family `atomic`: tt.atomic_rmw / tt.atomic_cas (docs/semantics.md)."""
import numpy as np

from engine_case import Case, bits_of, module, store_at, wrap_i32


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
    """As measured on an H200: signed-int max where the operand's sign bit is clear, unsigned-int min where it is set."""
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
""" + store_at("o", "%old_ptr", "%old", "i32", shape="8") + """\
    tt.return
  }
}
"""), "Per-lane tt.atomic_cas: mem[k] = k, cmp matches on even lanes only, val = 50 + k. Even lanes swap in "
          "50 + k, odd lanes keep k; every lane returns the old value.") \
        .tensor("mem_ptr", "int32", memory, np.where(lanes % 2 == 0, 50 + lanes, lanes)) \
        .tensor("cmp_ptr", "int32", compare).tensor("old_ptr", "int32", np.full(8, -1), memory)
