# Kernels with one planted bug each, for tilesim's checks (conformance/diagnostics/). The TTIR beside each
# case was written by hand in the form Triton 3.6 prints; its loc(...) entries point at the lines below.
import triton
import triton.language as tl


@triton.jit
def copy_no_mask(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # bug: no mask, reads past the end of x
    tl.store(y_ptr + offs, x, mask=offs < n)


@triton.jit
def store_off_by_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs + 1, x, mask=m)  # bug: writes y[n]


@triton.jit
def store_undefined(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)  # no `other`: masked-off lanes are undefined
    tl.store(y_ptr + offs, x)  # bug: stores them


@triton.jit
def gather_undefined_index(idx_ptr, x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs, mask=offs < n)  # no `other`
    v = tl.load(x_ptr + idx)  # bug: undefined lanes used as addresses
    tl.store(y_ptr + offs, v, mask=offs < n)


@triton.jit
def branch_on_undefined(flag_ptr, y_ptr, nflags):
    pid = tl.program_id(0)
    f = tl.load(flag_ptr + pid, mask=pid < nflags)  # bug: no `other`, programs >= nflags read nothing
    if f > 0:
        tl.store(y_ptr + pid, 1)


@triton.jit
def store_same_block(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + tl.arange(0, BLOCK), x)  # bug: every program writes the same block


@triton.jit
def shift_in_place(x_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs + 1)  # reads the next program's first element
    tl.store(x_ptr + offs, x)  # bug: ...which that program overwrites


@triton.jit
def assert_non_negative(x_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x >= 0, "x must be non-negative")


@triton.jit
def divide_by_zero(x_ptr, d_ptr, y_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    q = tl.load(x_ptr + offs) // tl.load(d_ptr + offs)  # bug: d has a zero
    tl.store(y_ptr + offs, q)


@triton.jit
def shift_too_far(x_ptr, s_ptr, y_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    r = tl.load(x_ptr + offs) << tl.load(s_ptr + offs)  # bug: a shift of 40 on int32
    tl.store(y_ptr + offs, r)


@triton.jit
def accumulate_locked(x_ptr, acc_ptr, lock_ptr, count_ptr, BLOCK: tl.constexpr):
    # layer-norm-backward style: every program adds its row into one shared row under a spin lock
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * BLOCK + offs)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    count = tl.load(count_ptr)
    if count == 0:
        tl.atomic_xchg(count_ptr, 1)
    else:
        x += tl.load(acc_ptr + offs)
    tl.store(acc_ptr + offs, x)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def accumulate_unlocked(x_ptr, acc_ptr, count_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * BLOCK + offs)
    count = tl.load(count_ptr)  # bug: no lock around the read-modify-write of acc
    if count == 0:
        tl.atomic_xchg(count_ptr, 1)
    else:
        x += tl.load(acc_ptr + offs)
    tl.store(acc_ptr + offs, x)
