// The builder kernels of tilesim_export_kernels and their inputs. Inputs are deterministic (no RNG) so the corpus
// is the same on every machine; values are chosen to reach the interesting cases (masked tails, ties, fp8
// saturation and subnormals, products whose two-rounding result differs from fma).
#include "tools/export/BuilderKernels.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/FloatBits.h"
#include "ir/builder/KernelBuilder.h"

namespace tilesim::exporter {
namespace {

using builder::DType;
using builder::KernelBuilder;
using builder::Tensor;

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

// A buffer holding `values` rounded to (or wrapped into) `kind`.
ExportArgument bufferOf(std::string name, ScalarKind kind, std::vector<int64_t> shape, const std::vector<double>& values) {
  ExportArgument argument;
  argument.name = std::move(name);
  argument.kind = kind;
  argument.shape = std::move(shape);
  int bytesPer = bitWidth(kind) <= 8 ? 1 : bitWidth(kind) / 8;
  argument.bytes.assign(static_cast<size_t>(elementCount(argument.shape) * bytesPer), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t bits = isFloatKind(kind) ? floatBitsFromDouble(values[i], kind)
                                      : static_cast<uint64_t>(static_cast<int64_t>(values[i]));
    std::memcpy(argument.bytes.data() + i * bytesPer, &bits, bytesPer);  // little-endian host
  }
  return argument;
}

ExportArgument outputOf(std::string name, ScalarKind kind, std::vector<int64_t> shape) {
  ExportArgument argument = bufferOf(std::move(name), kind, std::move(shape), {});
  argument.output = true;
  return argument;
}

ExportArgument scalarOf(std::string name, int64_t value) {
  ExportArgument argument;
  argument.name = std::move(name);
  argument.isBuffer = false;
  argument.kind = ScalarKind::I32;
  argument.scalar = value;
  return argument;
}

ExportKernel finishKernel(KernelBuilder& kb, std::string name, std::vector<ExportArgument> arguments,
                          std::array<int64_t, 3> grid) {
  kb.ret();
  builder::BuildResult built = kb.finish();
  ExportKernel kernel;
  kernel.name = std::move(name);
  kernel.module = std::move(built.module);
  if (built.error) kernel.error = built.error->str();
  kernel.arguments = std::move(arguments);
  kernel.grid = grid;
  return kernel;
}

// offs = pid * BLOCK + arange(BLOCK); out = load(x, mask, 0.0) + load(y, mask, 1.5), stored unmasked.
ExportKernel vectorAdd() {
  constexpr int64_t kBlock = 64, kPrograms = 4, kLength = 200;
  KernelBuilder kb("add_kernel");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor y = kb.pointerArg("y_ptr", DType::Fp32);
  Tensor out = kb.pointerArg("out_ptr", DType::Fp32);
  Tensor n = kb.scalarArg("n", DType::Int32);
  kb.setNameHint("offs");
  Tensor offs = kb.add(kb.mul(kb.programId(0), kBlock), kb.arange(0, kBlock));
  kb.setNameHint("mask");
  Tensor mask = kb.lt(offs, n);
  kb.setNameHint("");
  kb.store(kb.add(out, offs), kb.add(kb.load(kb.add(x, offs), mask, 0.0), kb.load(kb.add(y, offs), mask, 1.5)));
  std::vector<double> xs(kBlock * kPrograms), ys(kBlock * kPrograms);
  for (int64_t i = 0; i < kBlock * kPrograms; ++i) {
    xs[i] = 0.25 * static_cast<double>(i) - 7.0;
    ys[i] = 1.0 / static_cast<double>(i + 1);
  }
  return finishKernel(kb, "vadd_mask_other",
                      {bufferOf("x_ptr", ScalarKind::F32, {kBlock * kPrograms}, xs),
                       bufferOf("y_ptr", ScalarKind::F32, {kBlock * kPrograms}, ys),
                       outputOf("out_ptr", ScalarKind::F32, {kBlock * kPrograms}), scalarOf("n", kLength)},
                      {kPrograms, 1, 1});
}

// One program per row: y = exp(x - max(x)) / sum(exp(x - max(x))), masked tail loaded as -inf.
ExportKernel rowSoftmax() {
  constexpr int64_t kRows = 6, kColumns = 50, kBlock = 64;
  KernelBuilder kb("softmax_rows");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor out = kb.pointerArg("out_ptr", DType::Fp32);
  Tensor columnsArg = kb.scalarArg("n_cols", DType::Int32);
  kb.setNameHint("row_start");
  Tensor rowStart = kb.mul(kb.programId(0), columnsArg);
  kb.setNameHint("cols");
  Tensor cols = kb.arange(0, kBlock);
  kb.setNameHint("mask");
  Tensor mask = kb.lt(cols, columnsArg);
  kb.setNameHint("row");
  Tensor row = kb.load(kb.add(kb.add(x, rowStart), cols), mask, -std::numeric_limits<double>::infinity());
  kb.setNameHint("row_max");
  Tensor rowMax = kb.max(row, 0);
  kb.setNameHint("num");
  Tensor num = kb.exp(kb.sub(row, rowMax));
  kb.setNameHint("den");
  Tensor den = kb.sum(num, 0);
  kb.setNameHint("y");
  Tensor result = kb.truediv(num, den);
  kb.setNameHint("");
  kb.store(kb.add(kb.add(out, rowStart), cols), result, mask);
  std::vector<double> xs(kRows * kColumns);
  for (int64_t i = 0; i < kRows * kColumns; ++i) xs[i] = std::sin(0.37 * static_cast<double>(i)) * 4.0;
  return finishKernel(kb, "softmax_rows",
                      {bufferOf("x_ptr", ScalarKind::F32, {kRows, kColumns}, xs),
                       outputOf("out_ptr", ScalarKind::F32, {kRows, kColumns}), scalarOf("n_cols", kColumns)},
                      {kRows, 1, 1});
}

// c = dot(a, b) on 32x32 fp16 tiles, fp32 accumulator, no loop.
ExportKernel matmul() {
  constexpr int64_t kSize = 32;
  KernelBuilder kb("matmul_dot");
  Tensor a = kb.pointerArg("a_ptr", DType::Fp16);
  Tensor b = kb.pointerArg("b_ptr", DType::Fp16);
  Tensor c = kb.pointerArg("c_ptr", DType::Fp32);
  kb.setNameHint("rows");
  Tensor rows = kb.arange(0, kSize);
  kb.setNameHint("cols");
  Tensor cols = kb.arange(0, kSize);
  kb.setNameHint("offs");
  Tensor offs = kb.add(kb.mul(kb.expandDims(rows, 1), kSize), kb.expandDims(cols, 0));
  kb.setNameHint("acc");
  Tensor acc = kb.dot(kb.load(kb.add(a, offs)), kb.load(kb.add(b, offs)));
  kb.setNameHint("");
  kb.store(kb.add(c, offs), acc);
  std::vector<double> as(kSize * kSize), bs(kSize * kSize);
  for (int64_t i = 0; i < kSize * kSize; ++i) {
    as[i] = static_cast<double>((i * 7) % 17 - 8) / 8.0;
    bs[i] = std::cos(0.11 * static_cast<double>(i));  // rounded to fp16: sums are not exact
  }
  return finishKernel(kb, "matmul_dot",
                      {bufferOf("a_ptr", ScalarKind::F16, {kSize, kSize}, as),
                       bufferOf("b_ptr", ScalarKind::F16, {kSize, kSize}, bs),
                       outputOf("c_ptr", ScalarKind::F32, {kSize, kSize})},
                      {1, 1, 1});
}

// argmax over each row of a 4x16 tile whose maxima repeat (Triton's combine keeps the first).
ExportKernel argmaxRows() {
  constexpr int64_t kRows = 4, kColumns = 16;
  KernelBuilder kb("argmax_rows");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor out = kb.pointerArg("out_ptr", DType::Int32);
  kb.setNameHint("row");
  Tensor row = kb.programId(0);
  kb.setNameHint("columns");
  Tensor columns = kb.arange(0, kColumns);
  kb.setNameHint("best");
  Tensor best = kb.argmax(kb.load(kb.add(x, kb.add(kb.mul(row, kColumns), columns))), 0);
  kb.setNameHint("");
  kb.store(kb.add(out, row), best);
  std::vector<double> xs(kRows * kColumns);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kColumns; ++c)
      xs[r * kColumns + c] = static_cast<double>((c + 2 * r) % 5) - (r == 3 ? 10.0 : 0.0);
  return finishKernel(kb, "argmax_rows",
                      {bufferOf("x_ptr", ScalarKind::F32, {kRows, kColumns}, xs),
                       outputOf("out_ptr", ScalarKind::I32, {kRows})},
                      {kRows, 1, 1});
}

// fp32 -> fp16 (rtne and rtz), bf16, fp8e4nv, fp8e5, and fp16 -> bf16 -> fp32 -> fp8e4nv -> fp32.
ExportKernel castChain() {
  constexpr int64_t kSize = 64;
  KernelBuilder kb("cast_chain");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor toF16 = kb.pointerArg("f16_ptr", DType::Fp16);
  Tensor toF16Rtz = kb.pointerArg("f16_rtz_ptr", DType::Fp16);
  Tensor toBF16 = kb.pointerArg("bf16_ptr", DType::BF16);
  Tensor toE4 = kb.pointerArg("e4_ptr", DType::Fp8E4Nv);
  Tensor toE5 = kb.pointerArg("e5_ptr", DType::Fp8E5);
  Tensor chain = kb.pointerArg("chain_ptr", DType::Fp32);
  kb.setNameHint("offs");
  Tensor offs = kb.arange(0, kSize);
  kb.setNameHint("x");
  Tensor xs = kb.load(kb.add(x, offs));
  kb.setNameHint("");
  kb.store(kb.add(toF16, offs), kb.cast(xs, DType::Fp16));
  kb.store(kb.add(toF16Rtz, offs), kb.cast(xs, DType::Fp16, false, std::string("rtz")));
  kb.store(kb.add(toBF16, offs), kb.cast(xs, DType::BF16));
  kb.store(kb.add(toE4, offs), kb.cast(xs, DType::Fp8E4Nv));
  kb.store(kb.add(toE5, offs), kb.cast(xs, DType::Fp8E5));
  kb.setNameHint("h");
  Tensor half = kb.cast(xs, DType::Fp16);
  kb.setNameHint("b");
  Tensor brain = kb.cast(half, DType::BF16);
  kb.setNameHint("e");
  Tensor eight = kb.cast(kb.cast(brain, DType::Fp32), DType::Fp8E4Nv);
  kb.setNameHint("");
  kb.store(kb.add(chain, offs), kb.cast(eight, DType::Fp32));
  std::vector<double> xs0 = {0.0, -0.0, 1.0, -1.5, 0.1, 3.14159, 65504.0, 65520.0, 70000.0, -1e30, 448.0, 464.0,
                             1000.0, 57344.0, 1e-8, -3e-5, 6e-8, 2.9e-8, 1e-3, 0.0625, 0.01953125, 1.0 / 3.0};
  std::vector<double> values(kSize);
  for (int64_t i = 0; i < kSize; ++i)
    values[i] = i < static_cast<int64_t>(xs0.size()) ? xs0[i] : std::ldexp(std::sin(1.3 * static_cast<double>(i)), static_cast<int>(i % 21) - 10);
  return finishKernel(kb, "cast_chain",
                      {bufferOf("x_ptr", ScalarKind::F32, {kSize}, values), outputOf("f16_ptr", ScalarKind::F16, {kSize}),
                       outputOf("f16_rtz_ptr", ScalarKind::F16, {kSize}), outputOf("bf16_ptr", ScalarKind::BF16, {kSize}),
                       outputOf("e4_ptr", ScalarKind::F8E4M3FN, {kSize}), outputOf("e5_ptr", ScalarKind::F8E5M2, {kSize}),
                       outputOf("chain_ptr", ScalarKind::F32, {kSize})},
                      {1, 1, 1});
}

// clamp, fma, umulhi on 1-D tiles; permute of a 4x16 tile; cat of two 32-element halves.
ExportKernel miscOps() {
  constexpr int64_t kSize = 64, kRows = 4, kColumns = 16;
  KernelBuilder kb("misc_ops");
  Tensor x = kb.pointerArg("x_ptr", DType::Fp32);
  Tensor i = kb.pointerArg("i_ptr", DType::Int32);
  Tensor clampOut = kb.pointerArg("clamp_ptr", DType::Fp32);
  Tensor fmaOut = kb.pointerArg("fma_ptr", DType::Fp32);
  Tensor highOut = kb.pointerArg("high_ptr", DType::Int32);
  Tensor permOut = kb.pointerArg("perm_ptr", DType::Fp32);
  Tensor catOut = kb.pointerArg("cat_ptr", DType::Int32);
  kb.setNameHint("offs");
  Tensor offs = kb.arange(0, kSize);
  kb.setNameHint("xs");
  Tensor xs = kb.load(kb.add(x, offs));
  kb.setNameHint("is");
  Tensor is = kb.load(kb.add(i, offs));
  kb.setNameHint("");
  kb.store(kb.add(clampOut, offs), kb.clamp(xs, -1.0, 2.0));
  kb.store(kb.add(fmaOut, offs), kb.fma(xs, xs, -1.0));
  kb.store(kb.add(highOut, offs), kb.umulhi(is, 2));
  kb.setNameHint("rows");
  Tensor rows = kb.arange(0, kRows);
  kb.setNameHint("cols");
  Tensor cols = kb.arange(0, kColumns);
  kb.setNameHint("tile");
  Tensor tile = kb.load(kb.add(x, kb.add(kb.mul(kb.expandDims(rows, 1), kColumns), kb.expandDims(cols, 0))));
  kb.setNameHint("");
  Tensor outOffs = kb.add(kb.mul(kb.expandDims(cols, 1), kRows), kb.expandDims(rows, 0));
  kb.store(kb.add(permOut, outOffs), kb.permute(tile, {1, 0}));
  kb.setNameHint("half");
  Tensor halfOffs = kb.arange(0, kSize / 2);
  kb.setNameHint("");
  Tensor joined = kb.cat(kb.load(kb.add(i, halfOffs)), kb.load(kb.add(kb.add(i, kSize / 2), halfOffs)), true);
  kb.store(kb.add(catOut, offs), joined);
  std::vector<double> xv(kSize), iv(kSize);
  for (int64_t k = 0; k < kSize; ++k) {
    xv[k] = 1.0 + static_cast<double>(k - 32) * (0.09375 + 0x1p-20);
    iv[k] = static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(k * 0x13579BDF)) - (k % 3 == 0 ? 1 : 0));
  }
  iv[0] = -1;
  return finishKernel(kb, "misc_ops",
                      {bufferOf("x_ptr", ScalarKind::F32, {kSize}, xv), bufferOf("i_ptr", ScalarKind::I32, {kSize}, iv),
                       outputOf("clamp_ptr", ScalarKind::F32, {kSize}), outputOf("fma_ptr", ScalarKind::F32, {kSize}),
                       outputOf("high_ptr", ScalarKind::I32, {kSize}), outputOf("perm_ptr", ScalarKind::F32, {kColumns, kRows}),
                       [&] {
                         ExportArgument cat = outputOf("cat_ptr", ScalarKind::I32, {kSize});
                         cat.unordered = true;
                         return cat;
                       }()},
                      {1, 1, 1});
}

}  // namespace

std::vector<ExportKernel> buildExportKernels() {
  std::vector<ExportKernel> kernels;
  kernels.push_back(vectorAdd());
  kernels.push_back(rowSoftmax());
  kernels.push_back(matmul());
  kernels.push_back(argmaxRows());
  kernels.push_back(castChain());
  kernels.push_back(miscOps());
  return kernels;
}

}  // namespace tilesim::exporter
