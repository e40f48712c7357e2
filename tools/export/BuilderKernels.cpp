// The builder kernels of tilesim_export_kernels with their inputs and launches; the kernels themselves are
// ir/builder/kernels/SampleKernels.h (also run by the builder tests). Inputs are deterministic (no RNG) so the
// corpus is the same on every machine; values are chosen to reach the interesting cases (masked tails, ties, fp8
// saturation and subnormals, products whose two-rounding result differs from fma).
#include "tools/export/BuilderKernels.h"

#include <cmath>
#include <cstring>

#include "ir/FloatBits.h"
#include "ir/builder/kernels/SampleKernels.h"

namespace tilesim::exporter {
namespace {

namespace kernels = builder::kernels;

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

ExportKernel exported(builder::BuildResult built, std::string name, std::vector<ExportArgument> arguments,
                      std::array<int64_t, 3> grid) {
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
  std::vector<double> xs(kBlock * kPrograms), ys(kBlock * kPrograms);
  for (int64_t i = 0; i < kBlock * kPrograms; ++i) {
    xs[i] = 0.25 * static_cast<double>(i) - 7.0;
    ys[i] = 1.0 / static_cast<double>(i + 1);
  }
  return exported(kernels::maskedVectorAdd(kBlock), "vadd_mask_other",
                      {bufferOf("x_ptr", ScalarKind::F32, {kBlock * kPrograms}, xs),
                       bufferOf("y_ptr", ScalarKind::F32, {kBlock * kPrograms}, ys),
                       outputOf("out_ptr", ScalarKind::F32, {kBlock * kPrograms}), scalarOf("n", kLength)},
                      {kPrograms, 1, 1});
}

// One program per row: y = exp(x - max(x)) / sum(exp(x - max(x))), masked tail loaded as -inf.
ExportKernel rowSoftmax() {
  constexpr int64_t kRows = 6, kColumns = 50, kBlock = 64;
  std::vector<double> xs(kRows * kColumns);
  for (int64_t i = 0; i < kRows * kColumns; ++i) xs[i] = std::sin(0.37 * static_cast<double>(i)) * 4.0;
  return exported(kernels::rowSoftmax(kBlock), "softmax_rows",
                      {bufferOf("x_ptr", ScalarKind::F32, {kRows, kColumns}, xs),
                       outputOf("out_ptr", ScalarKind::F32, {kRows, kColumns}), scalarOf("n_cols", kColumns)},
                      {kRows, 1, 1});
}

// c = dot(a, b) on 32x32 fp16 tiles, fp32 accumulator, no loop.
ExportKernel matmul() {
  constexpr int64_t kSize = 32;
  std::vector<double> as(kSize * kSize), bs(kSize * kSize);
  for (int64_t i = 0; i < kSize * kSize; ++i) {
    as[i] = static_cast<double>((i * 7) % 17 - 8) / 8.0;
    bs[i] = std::cos(0.11 * static_cast<double>(i));  // rounded to fp16: sums are not exact
  }
  return exported(kernels::dotMatmul(kSize), "matmul_dot",
                      {bufferOf("a_ptr", ScalarKind::F16, {kSize, kSize}, as),
                       bufferOf("b_ptr", ScalarKind::F16, {kSize, kSize}, bs),
                       outputOf("c_ptr", ScalarKind::F32, {kSize, kSize})},
                      {1, 1, 1});
}

// argmax over each row of a 4x16 tile whose maxima repeat (Triton's combine keeps the first).
ExportKernel argmaxRows() {
  constexpr int64_t kRows = 4, kColumns = 16;
  std::vector<double> xs(kRows * kColumns);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kColumns; ++c)
      xs[r * kColumns + c] = static_cast<double>((c + 2 * r) % 5) - (r == 3 ? 10.0 : 0.0);
  return exported(kernels::argmaxRows(kColumns), "argmax_rows",
                      {bufferOf("x_ptr", ScalarKind::F32, {kRows, kColumns}, xs),
                       outputOf("out_ptr", ScalarKind::I32, {kRows})},
                      {kRows, 1, 1});
}

// fp32 -> fp16 (rtne and rtz), bf16, fp8e4nv, fp8e5, and fp16 -> bf16 -> fp32 -> fp8e4nv -> fp32.
ExportKernel castChain() {
  constexpr int64_t kSize = 64;
  std::vector<double> xs0 = {0.0, -0.0, 1.0, -1.5, 0.1, 3.14159, 65504.0, 65520.0, 70000.0, -1e30, 448.0, 464.0,
                             1000.0, 57344.0, 1e-8, -3e-5, 6e-8, 2.9e-8, 1e-3, 0.0625, 0.01953125, 1.0 / 3.0};
  std::vector<double> values(kSize);
  for (int64_t i = 0; i < kSize; ++i)
    values[i] = i < static_cast<int64_t>(xs0.size()) ? xs0[i] : std::ldexp(std::sin(1.3 * static_cast<double>(i)), static_cast<int>(i % 21) - 10);
  return exported(kernels::castChain(kSize), "cast_chain",
                      {bufferOf("x_ptr", ScalarKind::F32, {kSize}, values), outputOf("f16_ptr", ScalarKind::F16, {kSize}),
                       outputOf("f16_rtz_ptr", ScalarKind::F16, {kSize}), outputOf("bf16_ptr", ScalarKind::BF16, {kSize}),
                       outputOf("e4_ptr", ScalarKind::F8E4M3FN, {kSize}), outputOf("e5_ptr", ScalarKind::F8E5M2, {kSize}),
                       outputOf("chain_ptr", ScalarKind::F32, {kSize})},
                      {1, 1, 1});
}

// clamp, fma, umulhi on 1-D tiles; permute of a 4x16 tile; cat of two 32-element halves.
ExportKernel miscOps() {
  constexpr int64_t kSize = 64, kRows = 4, kColumns = 16;
  std::vector<double> xv(kSize), iv(kSize);
  for (int64_t k = 0; k < kSize; ++k) {
    xv[k] = 1.0 + static_cast<double>(k - 32) * (0.09375 + 0x1p-20);
    iv[k] = static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(k * 0x13579BDF)) - (k % 3 == 0 ? 1 : 0));
  }
  iv[0] = -1;
  return exported(kernels::miscOps(kSize, kRows, kColumns), "misc_ops",
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
