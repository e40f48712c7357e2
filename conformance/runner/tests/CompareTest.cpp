// Output comparison: bit-exact elements, both-NaN, elements within their error bound, integers within their bound modulo 2^w, and the
// counts, ulps and failing elements reported.
#include "conformance/runner/Compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/launch/HostBytes.h"

namespace tilesim {
namespace {

TEST(Compare, IdenticalBuffersAreBitExact) {
  std::vector<int64_t> shape = {3};
  auto data = bytesOf<float>({1.0f, NAN, -0.0f});
  OutputComparison result = compareOutput("y", ScalarKind::F32, shape, data, data, {});
  EXPECT_TRUE(result.bitExact());
  EXPECT_TRUE(result.passed());
  EXPECT_EQ(result.exact, 3);
  EXPECT_EQ(result.summary(), "y: pass, bit-exact (3 elements)");
}

TEST(Compare, BoundsNaNAndFailures) {
  std::vector<int64_t> shape = {2, 3};
  float one = 1.0f, next = std::nextafter(1.0f, 2.0f);
  auto got = bytesOf<float>({one, next, NAN, 2.0f, 0.0f, 5.0f});
  auto expected = bytesOf<float>({one, one, -NAN, 2.5f, -0.0f, 5.0f});
  std::vector<double> bounds = {0, 1e-6, 0, 0.1, 0, 0};
  OutputComparison result = compareOutput("y", ScalarKind::F32, shape, got, expected, bounds);
  EXPECT_EQ(result.exact, 2);        // [0,0] and [1,2]
  EXPECT_EQ(result.withinBound, 2);  // [0,1] within 1e-6; [0,2] both NaN
  EXPECT_EQ(result.failing, 2);      // [1,0] off by 0.5 > 0.1; [1,1] +0 vs -0 with bound 0 (bit for bit)
  EXPECT_FALSE(result.passed());
  EXPECT_DOUBLE_EQ(result.maxAbsError, 0.5);
  EXPECT_EQ(result.maxUlp, 1 << 21);  // 2.0 to 2.5 in f32: 0.5 / 2^-22
  ASSERT_EQ(result.firstFailures.size(), 2u);
  EXPECT_EQ(result.firstFailures[0].where, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(result.firstFailures[0].got, "2");
  EXPECT_EQ(result.firstFailures[0].expected, "2.5");
  EXPECT_NE(result.details().find("y[1, 0]: got 2, expected 2.5"), std::string::npos);
}

// An integer's bound allows ours + d, |d| <= bound, modulo 2^w (docs/semantics.md "Error bounds"): -1 is 1 from
// 0, INT_MAX 1 from INT_MIN; 5 is 15 from 20; a bound of 0 is bit for bit.
TEST(Compare, IntegersWithinTheirBoundModuloTheWidth) {
  std::vector<int64_t> shape = {5};
  auto got = bytesOf<int32_t>({7, -1, 2147483647, 5, 3});
  auto expected = bytesOf<int32_t>({7, 0, -2147483647 - 1, 20, 4});
  std::vector<double> bounds = {10, 1, 1, 10, 0};
  OutputComparison result = compareOutput("h", ScalarKind::I32, shape, got, expected, bounds);
  EXPECT_EQ(result.exact, 1);
  EXPECT_EQ(result.withinBound, 2);
  EXPECT_EQ(result.failing, 2);
  ASSERT_EQ(result.firstFailures.size(), 2u);
  EXPECT_EQ(result.firstFailures[0].got, "5");
  EXPECT_EQ(result.firstFailures[1].got, "3");
}

TEST(Compare, LimitsShownFailuresAndCountsTheRest) {
  std::vector<int64_t> shape = {10};
  auto got = bytesOf<int8_t>({1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  auto expected = bytesOf<int8_t>({0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  CompareOptions options;
  options.maxFailuresShown = 3;
  OutputComparison result = compareOutput("o", ScalarKind::I8, shape, got, expected, {}, options);
  EXPECT_EQ(result.failing, 10);
  EXPECT_EQ(result.firstFailures.size(), 3u);
  EXPECT_NE(result.details().find("... and 7 more"), std::string::npos);
}

TEST(Compare, SizeMismatchIsAnError) {
  std::vector<int64_t> shape = {2};
  auto got = bytesOf<float>({1, 2});
  auto expected = bytesOf<float>({1, 2, 3});
  OutputComparison result = compareOutput("y", ScalarKind::F32, shape, got, expected, {});
  EXPECT_FALSE(result.passed());
  EXPECT_FALSE(result.error.empty());
}

}  // namespace
}  // namespace tilesim
