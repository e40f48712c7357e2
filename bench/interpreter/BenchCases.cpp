// Inputs and references of the interpreter benchmark (see BenchCases.h). References are computed in double
// precision (for tf32 matmuls: on tf32-truncated inputs, which is what the kernel asks for), so a wrong
// interpreter shows up as an error far above the tolerance. The matrix products (matmul, attention) use Eigen
// over the launch buffers; the elementwise and row-wise cases are plain loops.
//
// Why a tolerance and not bit-exactness for the matmuls: the interpreter's tf32 dot is a sequential fma over k
// in f32 (interpreter/Dot.h), which a hand-written k loop could reproduce bit for bit, but Eigen's blocked,
// vectorised GEMM sums in its own order. So the check is Eigen's fp64 GEMM with the standard bound for an f32
// sum of K terms in any order, |c - exact| <= gamma_K * (|A| |B|)[m][n], gamma_K = K u / (1 - K u), u = 2^-24
// (taken at the largest entry of |A| |B|). The bit-exact sequential-fma order is tested in
// interpreter/tests/DotTest.cpp.
#include "bench/interpreter/BenchCases.h"

#include <Eigen/Dense>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

#include "ir/FloatBits.h"
#include "ir/launch/HostBytes.h"

namespace tilesim::bench {
namespace {

// Triton 3.6's interpreter (TRITON_INTERPRET=1) on the same kernels, measured with
// bench/triton/triton_interpreter_bench.py on the H200 host (16-vCPU Xeon), 2026-11-29 (docs/benchmarks.md).
constexpr const char* kTritonMeasured = "bench/triton/triton_interpreter_bench.py on the H200 host";

constexpr uint64_t kSeed = 20250601;

std::vector<float> randomFloats(size_t count, std::mt19937_64& random, float low = -1.0f, float high = 1.0f) {
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (float& value : values) value = dist(random);
  return values;
}

LaunchArgument floatBuffer(const std::string& name, const std::vector<float>& values) {
  return LaunchArgument::buffer(name, ScalarKind::F32, bytesOf(values));
}

// A case without arguments or check yet; tritonSeconds: Triton's interpreter on it (kTritonMeasured), 0 = not measured.
BenchCase describe(std::string name, std::string file, std::string shape, std::array<int64_t, 3> grid,
                   double tritonSeconds = 0) {
  BenchCase c;
  c.name = std::move(name);
  c.file = std::move(file);
  c.shape = std::move(shape);
  c.grid = grid;
  c.tritonSeconds = tritonSeconds;
  if (tritonSeconds > 0) c.tritonSource = kTritonMeasured;
  return c;
}

// Row-major views of the launch buffers (the kernels' layout), for Eigen.
using FloatMatrixMap = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using DoubleMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using DoubleMatrixMap = Eigen::Map<DoubleMatrix>;

// max |actual - expected| over a matrix (inf when any difference is NaN).
double maxAbsDifference(const FloatMatrixMap& actual, const DoubleMatrix& expected) {
  Eigen::ArrayXXd difference = (actual.cast<double>() - expected).array().abs();
  if (difference.isNaN().any()) return INFINITY;
  return difference.maxCoeff();
}

double maxAbsDifference(const std::vector<float>& actual, const std::vector<double>& expected) {
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    double difference = std::fabs(actual[i] - expected[i]);
    if (std::isnan(difference)) return INFINITY;
    worst = std::max(worst, difference);
  }
  return worst;
}

BenchCase vaddCase() {
  constexpr int64_t kElements = int64_t{1} << 20;
  std::mt19937_64 random(kSeed);
  BenchCase c = describe("vadd", "vadd.ttir", "1M f32, BLOCK 1024", {kElements / 1024, 1, 1}, 1.192);
  c.arguments = {floatBuffer("x_ptr", randomFloats(kElements, random)), floatBuffer("y_ptr", randomFloats(kElements, random)),
                 floatBuffer("out_ptr", std::vector<float>(kElements)), LaunchArgument::integer("n", kElements)};
  c.check = [](const std::vector<LaunchArgument>& args) {
    auto x = valuesOf<float>(findArgument(args, "x_ptr")), y = valuesOf<float>(findArgument(args, "y_ptr"));
    std::vector<double> expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) expected[i] = x[i] + y[i];  // f32 + f32 rounds exactly like this
    for (double& value : expected) value = static_cast<float>(value);
    return CheckResult{maxAbsDifference(valuesOf<float>(findArgument(args, "out_ptr")), expected), 0.0, "out vs x+y"};
  };
  c.work = kElements;
  return c;
}

BenchCase softmaxCase() {
  constexpr int64_t kRows = 256, kColumns = 1024;
  std::mt19937_64 random(kSeed + 1);
  BenchCase c = describe("softmax", "softmax.ttir", "256x1024 f32, row/program", {kRows, 1, 1}, 0.602);
  c.arguments = {floatBuffer("out_ptr", std::vector<float>(kRows * kColumns)),
                 floatBuffer("in_ptr", randomFloats(kRows * kColumns, random, -4.0f, 4.0f)),
                 LaunchArgument::integer("in_stride", kColumns), LaunchArgument::integer("out_stride", kColumns),
                 LaunchArgument::integer("ncols", kColumns)};
  c.check = [](const std::vector<LaunchArgument>& args) {
    auto in = valuesOf<float>(findArgument(args, "in_ptr"));
    std::vector<double> expected(in.size());
    for (int64_t row = 0; row < kRows; ++row) {
      const float* x = in.data() + row * kColumns;
      double largest = -INFINITY, sum = 0;
      for (int64_t j = 0; j < kColumns; ++j) largest = std::max(largest, double{x[j]});
      for (int64_t j = 0; j < kColumns; ++j) sum += std::exp(x[j] - largest);
      for (int64_t j = 0; j < kColumns; ++j) expected[row * kColumns + j] = std::exp(x[j] - largest) / sum;
    }
    return CheckResult{maxAbsDifference(valuesOf<float>(findArgument(args, "out_ptr")), expected), 1e-6, "out vs fp64 softmax"};
  };
  c.work = kRows * kColumns;
  return c;
}

float truncatedTf32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7F800000u) != 0x7F800000u) bits &= 0xFFFFE000u;
  std::memcpy(&value, &bits, 4);
  return value;
}

BenchCase matmulCase(int64_t size, double tritonSeconds) {
  std::mt19937_64 random(kSeed + 2 + size);
  int64_t tiles = (size / 64) * (size / 64);
  BenchCase c = describe("matmul" + std::to_string(size), "matmul_f32.ttir",
                         std::to_string(size) + "^3 f32 tf32, 64x64x32", {tiles, 1, 1}, tritonSeconds);
  c.arguments = {floatBuffer("a_ptr", randomFloats(size * size, random)), floatBuffer("b_ptr", randomFloats(size * size, random)),
                 floatBuffer("c_ptr", std::vector<float>(size * size)), LaunchArgument::integer("M", size),
                 LaunchArgument::integer("N", size), LaunchArgument::integer("K", size), LaunchArgument::integer("sam", size),
                 LaunchArgument::integer("sbk", size), LaunchArgument::integer("scm", size)};
  c.check = [size](const std::vector<LaunchArgument>& args) {
    auto a = valuesOf<float>(findArgument(args, "a_ptr")), b = valuesOf<float>(findArgument(args, "b_ptr"));
    auto c = valuesOf<float>(findArgument(args, "c_ptr"));
    for (float& value : a) value = truncatedTf32(value);
    for (float& value : b) value = truncatedTf32(value);
    FloatMatrixMap aMatrix(a.data(), size, size), bMatrix(b.data(), size, size), cMatrix(c.data(), size, size);
    DoubleMatrix aDouble = aMatrix.cast<double>(), bDouble = bMatrix.cast<double>();
    DoubleMatrix expected = aDouble * bDouble;  // products of floats are exact in double; sums round at 2^-53
    double magnitude = (aDouble.cwiseAbs() * bDouble.cwiseAbs()).maxCoeff();
    double gamma = size * 0x1p-24 / (1 - size * 0x1p-24);
    return CheckResult{maxAbsDifference(cMatrix, expected), gamma * magnitude,
                       "c vs Eigen fp64 GEMM on tf32 inputs, gamma_K*max(|A||B|)"};
  };
  c.work = 2.0 * size * size * size;
  c.workIsFlops = true;
  return c;
}

BenchCase layernormCase() {
  constexpr int64_t kRows = 4096, kColumns = 1024;
  std::mt19937_64 random(kSeed + 3);
  BenchCase c = describe("layernorm", "layernorm.ttir", "4096x1024 f32, row/program", {kRows, 1, 1}, 11.93);
  c.arguments = {floatBuffer("X", randomFloats(kRows * kColumns, random, -2.0f, 3.0f)),
                 floatBuffer("Y", std::vector<float>(kRows * kColumns)), floatBuffer("W", randomFloats(kColumns, random, 0.5f, 1.5f)),
                 floatBuffer("B", randomFloats(kColumns, random)), floatBuffer("Mean", std::vector<float>(kRows)),
                 floatBuffer("Rstd", std::vector<float>(kRows)), LaunchArgument::integer("stride", kColumns),
                 LaunchArgument::integer("N", kColumns), LaunchArgument::floating("eps", 1e-5)};
  c.check = [](const std::vector<LaunchArgument>& args) {
    auto x = valuesOf<float>(findArgument(args, "X")), w = valuesOf<float>(findArgument(args, "W"));
    auto b = valuesOf<float>(findArgument(args, "B"));
    std::vector<double> y(x.size()), mean(kRows), rstd(kRows);
    for (int64_t row = 0; row < kRows; ++row) {
      const float* xr = x.data() + row * kColumns;
      double sum = 0, squares = 0;
      for (int64_t j = 0; j < kColumns; ++j) sum += xr[j];
      mean[row] = sum / kColumns;
      for (int64_t j = 0; j < kColumns; ++j) squares += (xr[j] - mean[row]) * (xr[j] - mean[row]);
      rstd[row] = 1.0 / std::sqrt(squares / kColumns + static_cast<double>(1e-5f));
      for (int64_t j = 0; j < kColumns; ++j) y[row * kColumns + j] = (xr[j] - mean[row]) * rstd[row] * w[j] + b[j];
    }
    double error = std::max({maxAbsDifference(valuesOf<float>(findArgument(args, "Y")), y),
                             maxAbsDifference(valuesOf<float>(findArgument(args, "Mean")), mean),
                             maxAbsDifference(valuesOf<float>(findArgument(args, "Rstd")), rstd)});
    return CheckResult{error, 1e-4, "Y, Mean, Rstd vs fp64"};
  };
  c.work = kRows * kColumns;
  return c;
}

BenchCase attentionCase() {
  constexpr int64_t kHeads = 4, kContext = 512, kDim = 64;
  std::mt19937_64 random(kSeed + 4);
  auto halfBuffer = [&](const std::string& name) {
    std::vector<uint16_t> values(kHeads * kContext * kDim);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (uint16_t& value : values) value = static_cast<uint16_t>(floatBitsFromDouble(dist(random), ScalarKind::F16));
    return LaunchArgument::buffer(name, ScalarKind::F16, bytesOf(values));
  };
  BenchCase c = describe("attention", "attention.ttir", "4x512x64 f16 in, f32 acc", {kContext / 64, kHeads, 1});
  c.arguments = {halfBuffer("Q"), halfBuffer("K"), halfBuffer("V"),
                 floatBuffer("Out", std::vector<float>(kHeads * kContext * kDim)), LaunchArgument::floating("sm_scale", 0.125),
                 LaunchArgument::integer("N_CTX", kContext)};
  c.check = [](const std::vector<LaunchArgument>& args) {
    auto toDoubles = [](const LaunchArgument& argument) {
      auto bits = valuesOf<uint16_t>(argument);
      std::vector<double> values(bits.size());
      for (size_t i = 0; i < bits.size(); ++i) values[i] = doubleFromFloatBits(bits[i], ScalarKind::F16);
      return values;
    };
    auto q = toDoubles(findArgument(args, "Q")), k = toDoubles(findArgument(args, "K")), v = toDoubles(findArgument(args, "V"));
    auto actual = valuesOf<float>(findArgument(args, "Out"));
    double worst = 0;
    for (int64_t head = 0; head < kHeads; ++head) {
      const int64_t offset = head * kContext * kDim;
      DoubleMatrixMap qHead(q.data() + offset, kContext, kDim), kHead(k.data() + offset, kContext, kDim);
      DoubleMatrixMap vHead(v.data() + offset, kContext, kDim);
      DoubleMatrix scores = (qHead * kHead.transpose()) * 0.125;
      Eigen::VectorXd largest = scores.rowwise().maxCoeff();
      DoubleMatrix weights = (scores.colwise() - largest).array().exp().matrix();
      Eigen::VectorXd sums = weights.rowwise().sum();
      DoubleMatrix expected = sums.cwiseInverse().asDiagonal() * (weights * vHead);
      FloatMatrixMap out(actual.data() + offset, kContext, kDim);
      worst = std::max(worst, maxAbsDifference(out, expected));
    }
    // p is rounded to f16 before the second dot (relative 2^-11 per weight).
    return CheckResult{worst, 2e-3, "Out vs Eigen fp64 attention"};
  };
  c.work = kHeads * 4.0 * kContext * kContext * kDim;  // two dots of 2*512*512*64 flops per head
  c.workIsFlops = true;
  return c;
}

}  // namespace

const LaunchArgument& findArgument(const std::vector<LaunchArgument>& arguments, const std::string& name) {
  for (const LaunchArgument& argument : arguments)
    if (argument.name == name) return argument;
  std::cerr << "bench_interpreter: internal error: no argument " << name << "\n";
  std::abort();
}

std::vector<BenchCase> makeBenchCases() {
  std::vector<BenchCase> cases;
  cases.push_back(vaddCase());
  cases.push_back(softmaxCase());
  cases.push_back(matmulCase(256, 0.266));
  cases.push_back(matmulCase(512, 1.799));
  cases.push_back(layernormCase());
  cases.push_back(attentionCase());
  return cases;
}

}  // namespace tilesim::bench
