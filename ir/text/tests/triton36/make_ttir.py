# Writes the TTIR files of this directory with Triton 3.6's own front end (no GPU needed): tensor descriptors of
# signed and unsigned integers (Triton prints their blocks as si* / ui*), and tl.assume (llvm.intr.assume).
#   /work/main/.venv/bin/python make_ttir.py device u32 > desc_copy_ui32.ttir   (see README.md for all six)
import sys
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from triton._C.libtriton import ir
TARGET = GPUTarget("cuda", 90, 32)
be = make_backend(TARGET)


def ttir(fn, signature, constexprs={}):
    context = ir.context(); ir.load_dialects(context); be.load_dialects(context)
    options = be.parse_options({})
    src = ASTSource(fn, signature, constexprs, {})
    m = src.make_ir(TARGET, options, be.get_codegen_implementation(options), be.get_module_map(), context)
    return str(be.make_ttir(m, {}, options, 90))


@triton.jit
def desc_copy(out_ptr, a_ptr, M, N, M_BLOCK: tl.constexpr, N_BLOCK: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[M_BLOCK, N_BLOCK])
    out = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[M_BLOCK, N_BLOCK])
    block = a.load([M_BLOCK, 2 * N_BLOCK])
    out.store([0, N_BLOCK], block)


@triton.jit
def host_desc_copy(in_desc, out_desc):
    v = in_desc.load([1, 8])
    out_desc.store([0, 0], v)


@triton.jit
def desc_gather(x_ptr, idx_ptr, y_ptr, M, N, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    idx = tl.load(idx_ptr + tl.arange(0, 8))
    t = xd.gather(idx, 4)
    yd = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    yd.scatter(t, idx, 4)


@triton.jit
def assume_k(out_ptr, n, BLOCK: tl.constexpr):
    size = n - tl.program_id(0) * BLOCK
    tl.assume(size >= BLOCK)
    tl.store(out_ptr + tl.program_id(0), size)


which = sys.argv[1]
if which == "device":
    print(ttir(desc_copy, {"out_ptr": "*" + sys.argv[2], "a_ptr": "*" + sys.argv[2], "M": "i32", "N": "i32",
                           "M_BLOCK": "constexpr", "N_BLOCK": "constexpr"}, {(4,): 2, (5,): 16}), end="")
elif which == "host":
    t = sys.argv[2]
    print(ttir(host_desc_copy, {"in_desc": f"tensordesc<{t}[4, 8]>", "out_desc": f"tensordesc<{t}[4, 8]>"}), end="")
elif which == "gather":
    t = sys.argv[2]
    print(ttir(desc_gather, {"x_ptr": "*" + t, "idx_ptr": "*i32", "y_ptr": "*" + t, "M": "i32", "N": "i32",
                             "BN": "constexpr"}, {(5,): 32}), end="")
elif which == "assume":
    print(ttir(assume_k, {"out_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"}, {(2,): 128}), end="")
