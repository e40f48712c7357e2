// The sample kernels (SampleKernels.h): each body is written as a Triton kernel would be, with the name hints
// standing for the Python variables, so the printed TTIR reads like Triton's own.
#include "ir/builder/kernels/SampleKernels.h"

#include <limits>
#include <string>

#include "ir/builder/KernelBuilder.h"
#include "ir/builder/NameHint.h"

namespace tilesim::builder::kernels {

BuildResult maskedVectorAdd(int64_t block) {
  KernelBuilder kb("add_kernel");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor y = kb.pointerArg("y_ptr", DType::Fp32);
  Tensor out = kb.pointerArg("out_ptr", DType::Fp32);
  Tensor n = kb.scalarArg("n", DType::Int32);
  Tensor offs = named(kb, "offs").add(kb.mul(kb.programId(0), block), kb.arange(0, block));
  Tensor mask = named(kb, "mask").lt(offs, n);
  kb.setNameHint("");
  kb.store(kb.add(out, offs), kb.add(kb.load(kb.add(x, offs), mask, 0.0), kb.load(kb.add(y, offs), mask, 1.5)));
  return kb.finish();
}

BuildResult rowSoftmax(int64_t block) {
  KernelBuilder kb("softmax_rows");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor out = kb.pointerArg("out_ptr", DType::Fp32);
  Tensor columnsArg = kb.scalarArg("n_cols", DType::Int32);
  Tensor rowStart = named(kb, "row_start").mul(kb.programId(0), columnsArg);
  Tensor cols = named(kb, "cols").arange(0, block);
  Tensor mask = named(kb, "mask").lt(cols, columnsArg);
  Tensor row = named(kb, "row").load(kb.add(kb.add(x, rowStart), cols), mask, -std::numeric_limits<double>::infinity());
  Tensor rowMax = named(kb, "row_max").max(row, 0);
  Tensor num = named(kb, "num").exp(kb.sub(row, rowMax));
  Tensor den = named(kb, "den").sum(num, 0);
  Tensor result = named(kb, "y").truediv(num, den);
  kb.setNameHint("");
  kb.store(kb.add(kb.add(out, rowStart), cols), result, mask);
  return kb.finish();
}

BuildResult dotMatmul(int64_t size) {
  KernelBuilder kb("matmul_dot");
  Tensor a = kb.pointerArg("a_ptr", DType::Fp16);
  Tensor b = kb.pointerArg("b_ptr", DType::Fp16);
  Tensor c = kb.pointerArg("c_ptr", DType::Fp32);
  Tensor rows = named(kb, "rows").arange(0, size);
  Tensor cols = named(kb, "cols").arange(0, size);
  Tensor offs = named(kb, "offs").add(kb.mul(kb.expandDims(rows, 1), size), kb.expandDims(cols, 0));
  Tensor acc = named(kb, "acc").dot(kb.load(kb.add(a, offs)), kb.load(kb.add(b, offs)));
  kb.setNameHint("");
  kb.store(kb.add(c, offs), acc);
  return kb.finish();
}

BuildResult argmaxRows(int64_t rowLength) {
  KernelBuilder kb("argmax_rows");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor out = kb.pointerArg("out_ptr", DType::Int32);
  Tensor row = named(kb, "row").programId(0);
  Tensor columns = named(kb, "columns").arange(0, rowLength);
  Tensor best = named(kb, "best").argmax(kb.load(kb.add(x, kb.add(kb.mul(row, rowLength), columns))), 0);
  kb.setNameHint("");
  kb.store(kb.add(out, row), best);
  return kb.finish();
}

BuildResult castChain(int64_t size) {
  KernelBuilder kb("cast_chain");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor toF16 = kb.pointerArg("f16_ptr", DType::Fp16);
  Tensor toF16Rtz = kb.pointerArg("f16_rtz_ptr", DType::Fp16);
  Tensor toBF16 = kb.pointerArg("bf16_ptr", DType::BF16);
  Tensor toE4 = kb.pointerArg("e4_ptr", DType::Fp8E4Nv);
  Tensor toE5 = kb.pointerArg("e5_ptr", DType::Fp8E5);
  Tensor chain = kb.pointerArg("chain_ptr", DType::Fp32);
  Tensor offs = named(kb, "offs").arange(0, size);
  Tensor xs = named(kb, "x").load(kb.add(x, offs));
  kb.setNameHint("");
  kb.store(kb.add(toF16, offs), kb.cast(xs, DType::Fp16));
  kb.store(kb.add(toF16Rtz, offs), kb.cast(xs, DType::Fp16, false, std::string("rtz")));
  kb.store(kb.add(toBF16, offs), kb.cast(xs, DType::BF16));
  kb.store(kb.add(toE4, offs), kb.cast(xs, DType::Fp8E4Nv));
  kb.store(kb.add(toE5, offs), kb.cast(xs, DType::Fp8E5));
  Tensor half = named(kb, "h").cast(xs, DType::Fp16);
  Tensor brain = named(kb, "b").cast(half, DType::BF16);
  Tensor eight = named(kb, "e").cast(kb.cast(brain, DType::Fp32), DType::Fp8E4Nv);
  kb.setNameHint("");
  kb.store(kb.add(chain, offs), kb.cast(eight, DType::Fp32));
  return kb.finish();
}

BuildResult miscOps(int64_t length, int64_t tileRows, int64_t tileColumns) {
  KernelBuilder kb("misc_ops");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor i = kb.pointerArg("i_ptr", DType::Int32);
  Tensor clampOut = kb.pointerArg("clamp_ptr", DType::Fp32);
  Tensor fmaOut = kb.pointerArg("fma_ptr", DType::Fp32);
  Tensor highOut = kb.pointerArg("high_ptr", DType::Int32);
  Tensor permOut = kb.pointerArg("perm_ptr", DType::Fp32);
  Tensor catOut = kb.pointerArg("cat_ptr", DType::Int32);
  Tensor offs = named(kb, "offs").arange(0, length);
  Tensor xs = named(kb, "xs").load(kb.add(x, offs));
  Tensor is = named(kb, "is").load(kb.add(i, offs));
  kb.setNameHint("");
  kb.store(kb.add(clampOut, offs), kb.clamp(xs, -1.0, 2.0));
  kb.store(kb.add(fmaOut, offs), kb.fma(xs, xs, -1.0));
  kb.store(kb.add(highOut, offs), kb.umulhi(is, 2));
  Tensor rows = named(kb, "rows").arange(0, tileRows);
  Tensor cols = named(kb, "cols").arange(0, tileColumns);
  Tensor tile =
      named(kb, "tile").load(kb.add(x, kb.add(kb.mul(kb.expandDims(rows, 1), tileColumns), kb.expandDims(cols, 0))));
  kb.setNameHint("");
  Tensor outOffs = kb.add(kb.mul(kb.expandDims(cols, 1), tileRows), kb.expandDims(rows, 0));
  kb.store(kb.add(permOut, outOffs), kb.permute(tile, {1, 0}));
  Tensor halfOffs = named(kb, "half").arange(0, length / 2);
  kb.setNameHint("");
  Tensor joined = kb.cat(kb.load(kb.add(i, halfOffs)), kb.load(kb.add(kb.add(i, length / 2), halfOffs)), true);
  kb.store(kb.add(catOut, offs), joined);
  return kb.finish();
}

}  // namespace tilesim::builder::kernels
