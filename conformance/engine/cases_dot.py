"""Engine cases, family `dot`: tt.dot through a launch."""
from fractions import Fraction

import numpy as np

from engine_case import Case, module


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
