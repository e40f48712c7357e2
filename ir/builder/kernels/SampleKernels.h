// Kernels built with ir/builder that more than one consumer needs, defined once: tilesim_export_kernels
// (tools/export) writes them out, with inputs, for real Triton to compile and run, and the builder tests
// (ir/builder/tests) run them on the interpreter against plain C++, so what is exported is what is tested.
// Each returns KernelBuilder::finish()'s result (the module, or Triton's error); the caller chooses the sizes
// and the inputs. Parameters are listed in signature order.
#pragma once

#include <cstdint>

#include "ir/builder/KernelBuilder.h"

namespace tilesim::builder::kernels {

// add_kernel(x_ptr, y_ptr, out_ptr: fp32*, n: i32): offs = pid * block + arange(block), mask = offs < n;
// out[offs] = load(x, mask, other=0.0) + load(y, mask, other=1.5), stored unmasked (lanes past n store 1.5).
BuildResult maskedVectorAdd(int64_t block);

// softmax_rows(x_ptr, out_ptr: fp32*, n_cols: i32), one program per row of n_cols <= block elements:
// y = exp(x - max(x)) / sum(exp(x - max(x))), the masked tail loaded as -inf and not stored.
BuildResult rowSoftmax(int64_t block);

// matmul_dot(a_ptr, b_ptr: fp16*, c_ptr: fp32*): c = dot(a, b) on size x size row-major tiles, fp32
// accumulator, no loop.
BuildResult dotMatmul(int64_t size);

// argmax_rows(x_ptr: fp32*, out_ptr: i32*), one program per row of rowLength elements: out[row] = argmax of
// the row (Triton's combine keeps the first of equal maxima).
BuildResult argmaxRows(int64_t rowLength);

// cast_chain(x_ptr: fp32*; f16_ptr, f16_rtz_ptr: fp16*; bf16_ptr: bf16*; e4_ptr: fp8e4nv*; e5_ptr: fp8e5*;
// chain_ptr: fp32*) over `size` elements: x cast to fp16 (rtne and rtz), bf16, fp8e4nv and fp8e5, and
// fp32 -> fp16 -> bf16 -> fp32 -> fp8e4nv -> fp32 into chain.
BuildResult castChain(int64_t size);

// misc_ops(x_ptr: fp32*, i_ptr: i32*, clamp_ptr, fma_ptr: fp32*, high_ptr: i32*, perm_ptr: fp32*, cat_ptr: i32*)
// over `length` elements: clamp(x, -1, 2); fma(x, x, -1); umulhi(i, 2); the first tileRows x tileColumns
// elements of x as a row-major tile, stored permuted (tileColumns x tileRows); cat of i's two halves with
// can_reorder (the element order is unspecified).
BuildResult miscOps(int64_t length, int64_t tileRows, int64_t tileColumns);

}  // namespace tilesim::builder::kernels
