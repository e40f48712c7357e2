// Rounding to the narrow float formats, checked against values whose encodings are fixed by the formats'
// definitions and by the PTX cvt behaviour measured on an H200 (docs/semantics.md "Casts").
#include <gtest/gtest.h>

#include <cmath>

#include "ir/FloatBits.h"

namespace tilesim {
namespace {

TEST(FloatBits, HalfRoundsToNearestEven) {
  EXPECT_EQ(floatBitsFromDouble(1.0, ScalarKind::F16), 0x3C00u);
  EXPECT_EQ(floatBitsFromDouble(65504.0, ScalarKind::F16), 0x7BFFu);
  EXPECT_EQ(floatBitsFromDouble(65520.0, ScalarKind::F16), 0x7C00u);  // ties to even -> overflow to inf
  EXPECT_EQ(floatBitsFromDouble(65519.0, ScalarKind::F16), 0x7BFFu);
  EXPECT_EQ(floatBitsFromDouble(std::ldexp(1.0, -24), ScalarKind::F16), 0x0001u);  // smallest subnormal
  EXPECT_EQ(floatBitsFromDouble(std::ldexp(1.0, -25), ScalarKind::F16), 0x0000u);  // tie -> even (0)
  EXPECT_EQ(floatBitsFromDouble(-0.0, ScalarKind::F16), 0x8000u);
  EXPECT_EQ(floatBitsFromDouble(1e6, ScalarKind::F16, Rounding::TowardZero), 0x7BFFu);  // rtz saturates finite
}

TEST(FloatBits, BFloat16) {
  EXPECT_EQ(floatBitsFromDouble(1.0, ScalarKind::BF16), 0x3F80u);
  EXPECT_EQ(floatBitsFromDouble(std::nan(""), ScalarKind::BF16), 0x7FFFu);
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even mantissa (1.0) wins.
  EXPECT_EQ(floatBitsFromDouble(1.0 + std::ldexp(1.0, -8), ScalarKind::BF16), 0x3F80u);
  EXPECT_EQ(floatBitsFromDouble(1.0 + 3 * std::ldexp(1.0, -8), ScalarKind::BF16), 0x3F82u);
}

TEST(FloatBits, Fp8SatfiniteAsPtx) {
  EXPECT_EQ(floatBitsFromDouble(448.0, ScalarKind::F8E4M3FN), 0x7Eu);
  EXPECT_EQ(floatBitsFromDouble(464.0, ScalarKind::F8E4M3FN, Rounding::NearestEven, true), 0x7Eu);
  EXPECT_EQ(floatBitsFromDouble(INFINITY, ScalarKind::F8E4M3FN, Rounding::NearestEven, true), 0x7Eu);
  EXPECT_EQ(floatBitsFromDouble(-INFINITY, ScalarKind::F8E5M2, Rounding::NearestEven, true), 0xFBu);
  EXPECT_EQ(floatBitsFromDouble(std::nan(""), ScalarKind::F8E5M2, Rounding::NearestEven, true), 0x7Fu);
  EXPECT_DOUBLE_EQ(largestFinite(ScalarKind::F8E4M3FN), 448.0);
  EXPECT_DOUBLE_EQ(largestFinite(ScalarKind::F8E5M2), 57344.0);
}

TEST(FloatBits, DecodeRoundTripsEveryEightBitPattern) {
  for (ScalarKind kind : {ScalarKind::F8E4M3FN, ScalarKind::F8E5M2}) {
    for (uint64_t bits = 0; bits < 256; ++bits) {
      double value = doubleFromFloatBits(bits, kind);
      if (std::isnan(value)) continue;
      EXPECT_EQ(floatBitsFromDouble(value, kind), bits) << scalarKindName(kind) << " bits " << bits;
    }
  }
  for (uint64_t bits = 0; bits < 65536; ++bits) {
    double value = doubleFromFloatBits(bits, ScalarKind::F16);
    if (!std::isnan(value)) {
      ASSERT_EQ(floatBitsFromDouble(value, ScalarKind::F16), bits);
    }
  }
}

}  // namespace
}  // namespace tilesim
