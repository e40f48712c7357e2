// Element formatting (shortest text that reads back to the same bits in the element's own format, as NumPy
// prints), NumPy-style summarisation, and ulp distances (defined by the IEEE formats' ordering).
#include "conformance/runner/Format.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "ir/FloatBits.h"

namespace tilesim {
namespace {

uint64_t f32Bits(float value) { return std::bit_cast<uint32_t>(value); }

TEST(Format, FloatsPrintShortestRoundTrip) {
  EXPECT_EQ(formatElement(f32Bits(1.5f), ScalarKind::F32), "1.5");
  EXPECT_EQ(formatElement(f32Bits(0.1f), ScalarKind::F32), "0.1");
  EXPECT_EQ(formatElement(f32Bits(-2.0f), ScalarKind::F32), "-2");
  EXPECT_EQ(formatElement(f32Bits(-0.0f), ScalarKind::F32), "-0");
  EXPECT_EQ(formatElement(f32Bits(NAN), ScalarKind::F32), "nan");
  EXPECT_EQ(formatElement(f32Bits(-INFINITY), ScalarKind::F32), "-inf");
  // 0.1 in bf16 is 0.10009765625; two digits already identify it in bf16.
  EXPECT_EQ(formatElement(floatBitsFromDouble(0.1, ScalarKind::BF16), ScalarKind::BF16), "0.1");
  EXPECT_EQ(formatElement(0x3C00, ScalarKind::F16), "1");  // IEEE binary16 1.0
}

TEST(Format, IntegersBySignedness) {
  EXPECT_EQ(formatElement(static_cast<uint64_t>(-5), ScalarKind::I32), "-5");
  EXPECT_EQ(formatElement(0xFF, ScalarKind::I8), "-1");
  EXPECT_EQ(formatElement(0xFF, ScalarKind::I8, /*isUnsigned=*/true), "255");
  EXPECT_EQ(formatElement(1, ScalarKind::I1), "true");
}

TEST(Format, SummarisesLikeNumPy) {
  auto index = [](int64_t i) { return std::to_string(i); };
  std::vector<int64_t> small = {4};
  EXPECT_EQ(summarizeArray(small, index), "[0, 1, 2, 3]");
  std::vector<int64_t> large = {100};
  EXPECT_EQ(summarizeArray(large, index), "[0, 1, 2, ..., 97, 98, 99]");
  std::vector<int64_t> matrix = {2, 2};
  EXPECT_EQ(summarizeArray(matrix, index), "[[0, 1],\n [2, 3]]");
  std::vector<int64_t> scalar = {};
  EXPECT_EQ(summarizeArray(scalar, index), "0");
  std::vector<int64_t> empty = {0, 3};
  EXPECT_EQ(summarizeArray(empty, index), "[]");
}

TEST(Format, UlpDistance) {
  EXPECT_EQ(ulpDistance(f32Bits(1.0f), f32Bits(std::nextafter(1.0f, 2.0f)), ScalarKind::F32), 1);
  EXPECT_EQ(ulpDistance(f32Bits(0.0f), f32Bits(-0.0f), ScalarKind::F32), 0);
  // The smallest subnormals of either sign are two steps apart (through zero).
  EXPECT_EQ(ulpDistance(0x00000001, 0x80000001, ScalarKind::F32), 2);
  EXPECT_EQ(ulpDistance(0x3F80, 0x3F82, ScalarKind::BF16), 2);
  EXPECT_EQ(ulpDistance(f32Bits(NAN), f32Bits(1.0f), ScalarKind::F32), INT64_MAX);
}

// A shape of 100,000 dimensions (one element) prints flat instead of recursing once per dimension; a shape
// whose product overflows prints a placeholder.
TEST(Format, AbsurdRanksAndSizesDoNotRecurseOrOverflow) {
  auto index = [](int64_t i) { return std::to_string(i); };
  std::vector<int64_t> deep(100000, 1);
  EXPECT_EQ(summarizeArray(deep, index), "[0]");
  std::vector<int64_t> huge = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_NE(summarizeArray(huge, index).find("too many elements"), std::string::npos);
}

}  // namespace
}  // namespace tilesim
