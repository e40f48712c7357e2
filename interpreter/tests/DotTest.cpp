// evalDot on tiles, against independent definitions: the naive sequential std::fma loop (the GPU's bit-exact
// model of an ieee dot) for f32 over shapes that reach every SIMD block and tail, inputs converted through
// ir/FloatBits for f16/bf16/fp8, the tf32 truncation the H200 applies, batching, the error bounds it attaches
// (triton profile only), undefined-lane propagation and rejected operand types: internals of the dot kernels
// that a launch does not show. The int8 -> int32 wrap-around dot is a conformance case
// (conformance/engine/dot/dot_i8_i32_wrapping_acc, from conformance/engine/make_cases.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "interpreter/Dot.h"
#include "ir/FloatBits.h"

namespace tilesim {
namespace {

struct DotCase {
  Block block;
  Operation op{OpKind::TTDot};
  MutableTileRef a, b, c;

  DotCase(Type aType, Type bType, Type cType, const char* precision = nullptr) {
    op.operands = {block.addArgument(aType, "a"), block.addArgument(bType, "b"), block.addArgument(cType, "c")};
    op.addResult(cType, "d");
    if (precision) op.setAttr(kInputPrecisionAttr, Attribute::keyword(precision));
    a = makeTile(aType);
    b = makeTile(bType);
    c = makeTile(cType);
  }
  MutableTileRef run(FloatProfile profile = FloatProfile::Exact) {
    std::string error;
    MutableTileRef result = evalDot(op, *a, *b, *c, profile, &error);
    EXPECT_TRUE(result) << error;
    return result;
  }
};

void fillFloats(Tile& tile, std::mt19937& random, float low = -1.0f, float high = 1.0f) {
  std::uniform_real_distribution<float> dist(low, high);
  for (int64_t i = 0; i < tile.size(); ++i) tile.as<float>()[i] = dist(random);
}

// Random bit patterns of a narrow float kind, NaN excluded (checked separately).
void fillNarrow(Tile& tile, ScalarKind kind, std::mt19937& random) {
  std::uniform_int_distribution<uint32_t> dist(0, (1u << bitWidth(kind)) - 1);
  for (int64_t i = 0; i < tile.size(); ++i) {
    uint64_t bits;
    do bits = dist(random);
    while (std::isnan(doubleFromFloatBits(bits, kind)) || std::isinf(doubleFromFloatBits(bits, kind)) ||
           std::fabs(doubleFromFloatBits(bits, kind)) > 1e4);
    tile.setBits(i, bits);
  }
}

float elementAsFloat(const Tile& tile, int64_t lane) {
  return static_cast<float>(doubleFromFloatBits(tile.bitsAt(lane), tile.elementType().scalarKind()));
}

// Definition: acc = c; for k in order: acc = fma(a[m][k], b[k][n], acc). `convert` maps operands.
template <typename Convert>
std::vector<float> referenceDot(const Tile& a, const Tile& b, const std::vector<float>& c, int64_t batches,
                                int64_t rows, int64_t columns, int64_t depth, Convert convert) {
  std::vector<float> out(c);
  for (int64_t batch = 0; batch < batches; ++batch)
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t n = 0; n < columns; ++n) {
        float acc = c[(batch * rows + m) * columns + n];
        for (int64_t k = 0; k < depth; ++k)
          acc = std::fma(convert(a, (batch * rows + m) * depth + k), convert(b, (batch * depth + k) * columns + n), acc);
        out[(batch * rows + m) * columns + n] = acc;
      }
  return out;
}

std::vector<float> floatsOf(const Tile& tile) {
  std::vector<float> out(static_cast<size_t>(tile.size()));
  for (int64_t i = 0; i < tile.size(); ++i) out[i] = elementAsFloat(tile, i);
  return out;
}

void expectBitsEqual(const std::vector<float>& expected, const float* actual) {
  for (size_t i = 0; i < expected.size(); ++i) {
    uint32_t want, got;
    std::memcpy(&want, &expected[i], 4);
    std::memcpy(&got, &actual[i], 4);
    ASSERT_EQ(want, got) << "lane " << i << ": expected " << expected[i] << ", got " << actual[i];
  }
}

// Shapes cover the SIMD blocks (4x16, 8x32) and every tail (rows not a multiple of 4, columns not of 8).
TEST(Dot, IeeeF32IsBitIdenticalToSequentialFma) {
  std::mt19937 random(2);
  const int64_t shapes[][3] = {{64, 64, 32}, {1, 1, 1}, {5, 19, 7}, {13, 40, 300}, {16, 8, 16}, {3, 3, 600}, {9, 72, 33}};
  for (const auto& shape : shapes) {
    int64_t M = shape[0], N = shape[1], K = shape[2];
    for (const char* precision : {static_cast<const char*>(nullptr), "ieee", "tf32x3", "bf16x3", "bf16x6"}) {
      DotCase dot(Type::tensor({M, K}, Type::f32()), Type::tensor({K, N}, Type::f32()), Type::tensor({M, N}, Type::f32()),
                  precision);
      fillFloats(*dot.a, random);
      fillFloats(*dot.b, random, -3.0f, 3.0f);
      fillFloats(*dot.c, random);
      MutableTileRef result = dot.run();
      auto expected = referenceDot(*dot.a, *dot.b, floatsOf(*dot.c), 1, M, N, K, elementAsFloat);
      SCOPED_TRACE(testing::Message() << M << "x" << N << "x" << K << " " << (precision ? precision : "(absent)"));
      expectBitsEqual(expected, result->as<float>());
    }
  }
}

TEST(Dot, SelectedKernelMatchesNaiveLoop) {
  std::mt19937 random(3);
  constexpr int64_t M = 37, N = 45, K = 70;
  std::vector<float> a(M * K), b(K * N), acc(M * N);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (float& x : a) x = dist(random);
  for (float& x : b) x = dist(random);
  for (float& x : acc) x = dist(random);
  std::vector<float> expected = acc;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) expected[m * N + n] = std::fma(a[m * K + k], b[k * N + n], expected[m * N + n]);
  multiplyAccumulateF32(a.data(), b.data(), acc.data(), 1, M, N, K);
  SCOPED_TRACE(multiplyAccumulateF32Variant());
  expectBitsEqual(expected, acc.data());
}

float truncatedTf32(const Tile& tile, int64_t lane) {
  uint32_t bits = static_cast<uint32_t>(tile.bitsAt(lane));
  if ((bits & 0x7F800000u) != 0x7F800000u) bits &= ~0x1FFFu;  // 13 low mantissa bits dropped: RZ to 10 bits
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

TEST(Dot, Tf32TruncatesInputsTowardZero) {
  DotCase dot(Type::tensor({1, 2}, Type::f32()), Type::tensor({2, 1}, Type::f32()), Type::tensor({1, 1}, Type::f32()), "tf32");
  dot.a->as<float>()[0] = 1.0f + 0x1p-20f;     // low mantissa bits only: truncated to 1
  dot.a->as<float>()[1] = -(1.0f + 0x1.ffp-10f);  // bit 2^-10 survives, the rest goes (toward zero)
  dot.b->as<float>()[0] = 3.0f;
  dot.b->as<float>()[1] = 1.0f;
  EXPECT_EQ(dot.run()->as<float>()[0], 3.0f - (1.0f + 0x1p-10f));
  DotCase ieee(Type::tensor({1, 2}, Type::f32()), Type::tensor({2, 1}, Type::f32()), Type::tensor({1, 1}, Type::f32()), "ieee");
  std::memcpy(ieee.a->raw(), dot.a->raw(), 8);
  std::memcpy(ieee.b->raw(), dot.b->raw(), 8);
  EXPECT_EQ(ieee.run()->as<float>()[0], std::fma(-(1.0f + 0x1.ffp-10f), 1.0f, 3.0f * (1.0f + 0x1p-20f)));

  // Random data against the definition, and NaN kept NaN even when its payload is only in the low bits.
  std::mt19937 random(4);
  DotCase wide(Type::tensor({32, 16}, Type::f32()), Type::tensor({16, 64}, Type::f32()), Type::tensor({32, 64}, Type::f32()), "tf32");
  fillFloats(*wide.a, random);
  fillFloats(*wide.b, random);
  fillFloats(*wide.c, random);
  auto expected = referenceDot(*wide.a, *wide.b, floatsOf(*wide.c), 1, 32, 64, 16, truncatedTf32);
  expectBitsEqual(expected, wide.run()->as<float>());
  wide.a->setBits(0, 0x7F800001u);
  EXPECT_TRUE(std::isnan(wide.run()->as<float>()[0]));
}

void checkNarrowInputs(ScalarKind aKind, ScalarKind bKind, ScalarKind resultKind, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << scalarKindName(aKind) << " x " << scalarKindName(bKind) << " -> " << scalarKindName(resultKind));
  std::mt19937 random(seed);
  constexpr int64_t M = 16, N = 24, K = 32;
  Type resultType = Type::tensor({M, N}, Type::scalar(resultKind));
  DotCase dot(Type::tensor({M, K}, Type::scalar(aKind)), Type::tensor({K, N}, Type::scalar(bKind)), resultType, "tf32");
  fillNarrow(*dot.a, aKind, random);
  fillNarrow(*dot.b, bKind, random);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (int64_t i = 0; i < dot.c->size(); ++i) dot.c->setBits(i, floatBitsFromDouble(dist(random), resultKind));
  MutableTileRef result = dot.run();
  auto accumulated = referenceDot(*dot.a, *dot.b, floatsOf(*dot.c), 1, M, N, K, elementAsFloat);
  for (int64_t i = 0; i < M * N; ++i)  // f16 results: accumulated in f32, rounded once
    ASSERT_EQ(floatBitsFromDouble(accumulated[i], resultKind), result->bitsAt(i)) << "lane " << i;
}

TEST(Dot, NarrowFloatInputsAccumulateInF32) {
  checkNarrowInputs(ScalarKind::F16, ScalarKind::F16, ScalarKind::F32, 5);
  checkNarrowInputs(ScalarKind::BF16, ScalarKind::BF16, ScalarKind::F32, 6);
  checkNarrowInputs(ScalarKind::F16, ScalarKind::F16, ScalarKind::F16, 7);
  checkNarrowInputs(ScalarKind::F8E4M3FN, ScalarKind::F8E5M2, ScalarKind::F32, 8);
  checkNarrowInputs(ScalarKind::F8E5M2, ScalarKind::F8E5M2, ScalarKind::F16, 9);
}

TEST(Dot, F64IsSequentialFmaInDouble) {
  std::mt19937_64 random(10);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  DotCase dot(Type::tensor({4, 8}, Type::f64()), Type::tensor({8, 4}, Type::f64()), Type::tensor({4, 4}, Type::f64()));
  for (auto* tile : {dot.a.get(), dot.b.get(), dot.c.get()})
    for (int64_t i = 0; i < tile->size(); ++i) tile->as<double>()[i] = dist(random);
  MutableTileRef result = dot.run();
  for (int64_t m = 0; m < 4; ++m)
    for (int64_t n = 0; n < 4; ++n) {
      double acc = dot.c->as<double>()[m * 4 + n];
      for (int64_t k = 0; k < 8; ++k) acc = std::fma(dot.a->as<double>()[m * 8 + k], dot.b->as<double>()[k * 4 + n], acc);
      EXPECT_EQ(acc, result->as<double>()[m * 4 + n]);
    }
}

TEST(Dot, BatchedRank3IsOneDotPerBatch) {
  std::mt19937 random(11);
  constexpr int64_t B = 3, M = 8, N = 16, K = 12;
  DotCase dot(Type::tensor({B, M, K}, Type::f32()), Type::tensor({B, K, N}, Type::f32()), Type::tensor({B, M, N}, Type::f32()), "ieee");
  fillFloats(*dot.a, random);
  fillFloats(*dot.b, random);
  fillFloats(*dot.c, random);
  auto expected = referenceDot(*dot.a, *dot.b, floatsOf(*dot.c), B, M, N, K, elementAsFloat);
  expectBitsEqual(expected, dot.run()->as<float>());
}

TEST(Dot, ErrorBoundsOnlyUnderTritonProfile) {
  std::mt19937 random(12);
  constexpr int64_t M = 8, N = 8, K = 64;
  for (const char* precision : {"tf32", "ieee"}) {
    DotCase dot(Type::tensor({M, K}, Type::f32()), Type::tensor({K, N}, Type::f32()), Type::tensor({M, N}, Type::f32()), precision);
    fillFloats(*dot.a, random);
    fillFloats(*dot.b, random);
    EXPECT_EQ(dot.run(FloatProfile::Exact)->errorBounds(), nullptr) << precision;
    MutableTileRef triton = dot.run(FloatProfile::Triton);
    if (std::string(precision) == "ieee") {
      EXPECT_EQ(triton->errorBounds(), nullptr);  // the GPU's ieee dot is this exact fma chain
      continue;
    }
    ASSERT_NE(triton->errorBounds(), nullptr);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double magnitude = 0;
        for (int64_t k = 0; k < K; ++k) magnitude += std::fabs(double{truncatedTf32(*dot.a, m * K + k)} * truncatedTf32(*dot.b, k * N + n));
        double bound = triton->errorBounds()[m * N + n];
        EXPECT_GE(bound, (K + 2) * 0x1p-24 * magnitude);
        EXPECT_LE(bound, (K + 2) * 0x1p-24 * magnitude * 1.01);
      }
  }
  // Operand bounds propagate: |a| * eb with a = 2, eb = 0.5 over K = 1 gives 1 on top of c's bound 0.25.
  DotCase dot(Type::tensor({1, 1}, Type::f32()), Type::tensor({1, 1}, Type::f32()), Type::tensor({1, 1}, Type::f32()), "ieee");
  dot.a->as<float>()[0] = 2.0f;
  dot.b->mutableErrorBounds()[0] = 0.5;
  dot.c->mutableErrorBounds()[0] = 0.25;
  EXPECT_NEAR(dot.run(FloatProfile::Triton)->errorBounds()[0], 1.25, 1e-5);
}

// The triton-profile bound must hold whatever order the GPU sums in (a tensor core adds a block of products
// to the accumulator at once; the interpreter rounds after every product). With an accumulator c much larger than
// the products, the interpreter's K roundings happen at |c|'s magnitude, so the bound must count |c| too. Three
// other orders, each computed independently here: k reversed; blocks of 16 products summed exactly (in double)
// and added to the f32 accumulator with one rounding (a model of mma.sync m16n8k16); the exact sum rounded once.
TEST(Dot, ErrorBoundCoversOtherSummationOrders) {
  std::mt19937 random(21);
  constexpr int64_t M = 8, N = 8, K = 64;
  DotCase dot(Type::tensor({M, K}, Type::f16()), Type::tensor({K, N}, Type::f16()), Type::tensor({M, N}, Type::f32()), "tf32");
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int64_t i = 0; i < dot.a->size(); ++i) dot.a->setBits(i, floatBitsFromDouble(unit(random), ScalarKind::F16));
  for (int64_t i = 0; i < dot.b->size(); ++i) dot.b->setBits(i, floatBitsFromDouble(unit(random), ScalarKind::F16));
  for (int64_t i = 0; i < dot.c->size(); ++i) dot.c->as<float>()[i] = static_cast<float>(1000.0 + 100.0 * unit(random));
  MutableTileRef result = dot.run(FloatProfile::Triton);
  ASSERT_NE(result->errorBounds(), nullptr);
  int64_t checked = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      auto product = [&](int64_t k) {
        return double{elementAsFloat(*dot.a, m * K + k)} * double{elementAsFloat(*dot.b, k * N + n)};  // exact
      };
      const float c = dot.c->as<float>()[m * N + n];
      float reversed = c, blocked = c;
      double exact = c;
      for (int64_t k = K - 1; k >= 0; --k) reversed = static_cast<float>(double{reversed} + product(k));  // one RN
      for (int64_t k0 = 0; k0 < K; k0 += 16) {
        double block = 0;
        for (int64_t k = k0; k < k0 + 16; ++k) block += product(k);  // exact: f16 products, 16 terms
        blocked = static_cast<float>(double{blocked} + block);
      }
      for (int64_t k = 0; k < K; ++k) exact += product(k);
      const double value = result->as<float>()[m * N + n], bound = result->errorBounds()[m * N + n];
      for (double other : {double{reversed}, double{blocked}, double{static_cast<float>(exact)}}) {
        EXPECT_LE(std::fabs(other - value), bound) << "[" << m << "][" << n << "] " << other << " vs " << value;
        ++checked;
      }
    }
  EXPECT_EQ(checked, M * N * 3);
}

TEST(Dot, UndefinedLanesSpreadAlongRowsAndColumns) {
  DotCase dot(Type::tensor({4, 4}, Type::f32()), Type::tensor({4, 4}, Type::f32()), Type::tensor({4, 4}, Type::f32()));
  dot.a->mutableUndefinedMask()[1 * 4 + 2] = 1;  // row 1 of the result
  dot.b->mutableUndefinedMask()[3 * 4 + 0] = 1;  // column 0
  dot.c->mutableUndefinedMask()[3 * 4 + 3] = 1;  // lane (3, 3)
  MutableTileRef result = dot.run();
  for (int64_t m = 0; m < 4; ++m)
    for (int64_t n = 0; n < 4; ++n)
      EXPECT_EQ(result->undefinedMask()[m * 4 + n], (m == 1 || n == 0 || (m == 3 && n == 3)) ? 1 : 0) << m << "," << n;
}

TEST(Dot, RejectsBadOperands) {
  std::string error;
  DotCase shapes(Type::tensor({4, 8}, Type::f32()), Type::tensor({4, 4}, Type::f32()), Type::tensor({4, 4}, Type::f32()));
  EXPECT_EQ(evalDot(shapes.op, *shapes.a, *shapes.b, *shapes.c, FloatProfile::Exact, &error), nullptr);
  EXPECT_NE(error.find("K of a"), std::string::npos) << error;
  DotCase mixed(Type::tensor({4, 4}, Type::f16()), Type::tensor({4, 4}, Type::bf16()), Type::tensor({4, 4}, Type::f32()));
  EXPECT_EQ(evalDot(mixed.op, *mixed.a, *mixed.b, *mixed.c, FloatProfile::Exact, &error), nullptr);
  EXPECT_NE(error.find("differ"), std::string::npos) << error;
  DotCase precision(Type::tensor({4, 4}, Type::f32()), Type::tensor({4, 4}, Type::f32()), Type::tensor({4, 4}, Type::f32()), "tf64");
  EXPECT_EQ(evalDot(precision.op, *precision.a, *precision.b, *precision.c, FloatProfile::Exact, &error), nullptr);
  EXPECT_NE(error.find("tf64"), std::string::npos) << error;
}

}  // namespace
}  // namespace tilesim
