// Pins each exact-profile math function (ir/eval/ExactMath.h) against a correctly rounded oracle: the function in
// long double (glibc's x87 libm, 64-bit significand) rounded once to the tested format. For float that is the
// correctly rounded result except in double-rounding hard cases far rarer than 1 in 2^30; for double the oracle
// itself is only good to about 2^-63 relative, so "correctly rounded" there means "agrees with the long double
// value rounded", and max ulp is exact only to about 1/1000 ulp. Inputs: every 4096th float bit pattern (about
// 1M, all exponents, both signs) and every 2^44th double pattern (1M), plus edge cases. A line per function is
// printed (docs/semantics.md "Math" keeps the table): samples, max ulp, percentage correctly rounded.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "ir/eval/ExactMath.h"

namespace tilesim {
namespace {

using Oracle = long double (*)(long double);

struct Function {
  const char* name;
  float (*single)(float);
  double (*dual)(double);
  Oracle oracle;
  double maxUlpFloat, maxUlpDouble;  // asserted bounds
};

long double rsqrtOracle(long double x) { return 1.0L / sqrtl(x); }
long double exp10Oracle(long double x) { return exp2l(x * 3.321928094887362347870319429489390175864831L); }

const Function kFunctions[] = {
    {"exp", exactmath::exp, exactmath::exp, expl, 1.0, 1.0},
    {"exp2", exactmath::exp2, exactmath::exp2, exp2l, 1.0, 1.0},
    {"exp10", exactmath::exp10, exactmath::exp10, exp10Oracle, 1.0, 1.0},
    {"log", exactmath::log, exactmath::log, logl, 1.0, 1.0},
    {"log2", exactmath::log2, exactmath::log2, log2l, 1.0, 1.0},
    {"log10", exactmath::log10, exactmath::log10, log10l, 1.0, 1.0},
    {"sin", exactmath::sin, exactmath::sin, sinl, 1.0, 1.0},
    {"cos", exactmath::cos, exactmath::cos, cosl, 1.0, 1.0},
    {"rsqrt", exactmath::rsqrt, exactmath::rsqrt, rsqrtOracle, 1.0, 1.0},
    {"tanh", exactmath::tanh, exactmath::tanh, tanhl, 1.0, 1.0},
    {"erf", exactmath::erf, exactmath::erf, erfl, 1.0, 1.0},
};

// |got - exact| in units of the format's ulp at `exact` (the subnormal spacing below the normal range).
template <typename T> double ulpError(T got, long double exact) {
  int exponent;
  frexpl(fabsl(exact), &exponent);  // |exact| in [2^(exponent-1), 2^exponent)
  constexpr int digits = std::numeric_limits<T>::digits;
  constexpr int minExponent = std::numeric_limits<T>::min_exponent;  // 2^(min_exponent-1) = smallest normal
  if (exact == 0 || exponent < minExponent) exponent = minExponent;
  long double ulp = ldexpl(1.0L, exponent - digits);
  return static_cast<double>(fabsl(static_cast<long double>(got) - exact) / ulp);
}

struct Stats {
  int64_t samples = 0, correctlyRounded = 0;
  double maxUlp = 0;
  uint64_t worstInput = 0;
  int64_t specialMismatches = 0;
};

template <typename T> uint64_t bitsOf(T x) {
  if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(x);
  else return std::bit_cast<uint64_t>(x);
}

template <typename T> void check(const Function& function, T x, Stats& stats) {
  T got = sizeof(T) == 4 ? static_cast<T>(function.single(static_cast<float>(x))) : static_cast<T>(function.dual(static_cast<double>(x)));
  long double exact = function.oracle(static_cast<long double>(x));
  T rounded = static_cast<T>(exact);
  ++stats.samples;
  if (std::isnan(rounded) || std::isinf(rounded) || std::isinf(exact) || rounded == 0) {
    // NaN, infinities and zero results must match exactly (sign of zero included).
    bool same = std::isnan(rounded) ? std::isnan(got) : bitsOf(got) == bitsOf(rounded);
    if (same) ++stats.correctlyRounded;
    else ++stats.specialMismatches;
    if (!same && stats.specialMismatches <= 3)
      ADD_FAILURE() << function.name << (sizeof(T) == 4 ? "f32" : "f64") << "(" << static_cast<double>(x) << ") = " << static_cast<double>(got)
                    << ", expected " << static_cast<double>(rounded);
    return;
  }
  if (bitsOf(got) == bitsOf(rounded)) ++stats.correctlyRounded;
  double error = ulpError(got, exact);
  if (!(error <= stats.maxUlp)) {
    stats.maxUlp = error;
    stats.worstInput = bitsOf(x);
  }
}

template <typename T> std::vector<T> edgeCases() {
  using L = std::numeric_limits<T>;
  std::vector<T> values = {T(0), L::denorm_min(), L::min(), L::max(), L::infinity(), L::quiet_NaN(), T(1), T(0.5),
                           T(2), T(0.84375), T(1.25), T(4), T(6), T(0.78539816339744830962), T(1.5707963267948966),
                           T(3.14159265358979323846), T(88.72283), T(88.7228394), T(-87.33654), T(-103.97),
                           T(-103.972077), T(-104), T(127.99), T(128), T(-149), T(-150), T(38.53), T(-45.15),
                           T(709.78), T(-745.13), T(1023.99), T(-1074), T(308.25), T(-323.3), T(9.01), T(19.06),
                           T(3.832), T(5.92), T(1e22), T(6381956970095103.0 * 0x1p797), T(16367173.0 * 0x1p72),
                           T(0x1.fffffep127), T(1.4142135623730951), T(0.7071067811865476)};
  std::vector<T> all;
  for (T v : values) {
    all.push_back(v);
    all.push_back(-v);
    all.push_back(std::nextafter(v, L::infinity()));
    all.push_back(std::nextafter(v, -L::infinity()));
  }
  for (int i = 1; i < 4000; ++i) all.push_back(T(i) * T(0.7853981633974483));  // near multiples of pi/4
  return all;
}

template <typename T> Stats measure(const Function& function) {
  Stats stats;
  if constexpr (sizeof(T) == 4) {
    for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4096)
      check<float>(function, std::bit_cast<float>(static_cast<uint32_t>(bits + (bits >> 12) % 4096)), stats);
  } else {
    for (uint64_t i = 0; i < (uint64_t{1} << 20); ++i)
      check<double>(function, std::bit_cast<double>((i << 44) | ((i * 0x9E3779B97F4A7C15ull) >> 20)), stats);
  }
  for (T x : edgeCases<T>()) check<T>(function, x, stats);
  return stats;
}

template <typename T> void runAll() {
  const char* type = sizeof(T) == 4 ? "f32" : "f64";
  for (const Function& function : kFunctions) {
    Stats stats = measure<T>(function);
    double bound = sizeof(T) == 4 ? function.maxUlpFloat : function.maxUlpDouble;
    std::printf("exactmath %s %-6s samples %8lld  max ulp %.3f  correctly rounded %.4f%%  (worst input 0x%llx)\n", type,
                function.name, static_cast<long long>(stats.samples), stats.maxUlp,
                100.0 * static_cast<double>(stats.correctlyRounded) / static_cast<double>(stats.samples),
                static_cast<unsigned long long>(stats.worstInput));
    EXPECT_LE(stats.maxUlp, bound) << type << " " << function.name;
    EXPECT_EQ(stats.specialMismatches, 0) << type << " " << function.name;
  }
}

TEST(ExactMath, FloatFunctionsAgainstCorrectlyRoundedOracle) { runAll<float>(); }
TEST(ExactMath, DoubleFunctionsAgainstLongDoubleOracle) { runAll<double>(); }

TEST(ExactMath, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(std::bit_cast<uint32_t>(exactmath::sin(-0.0f)), 0x80000000u);
  EXPECT_EQ(exactmath::cos(-0.0f), 1.0f);
  EXPECT_EQ(exactmath::log(1.0f), 0.0f);
  EXPECT_FALSE(std::signbit(exactmath::log(1.0f)));
  EXPECT_EQ(exactmath::log(0.0f), -inf);
  EXPECT_EQ(exactmath::log(-0.0f), -inf);
  EXPECT_TRUE(std::isnan(exactmath::log(-1.0f)));
  EXPECT_EQ(exactmath::rsqrt(-0.0f), -inf);
  EXPECT_EQ(exactmath::rsqrt(inf), 0.0f);
  EXPECT_EQ(exactmath::exp(-inf), 0.0f);
  EXPECT_EQ(exactmath::exp(inf), inf);
  EXPECT_EQ(exactmath::tanh(inf), 1.0f);
  EXPECT_EQ(exactmath::erf(-inf), -1.0f);
  EXPECT_TRUE(std::isnan(exactmath::sin(inf)));
  for (int n = -149; n <= 127; ++n) EXPECT_EQ(exactmath::log2(std::ldexp(1.0f, n)), static_cast<float>(n)) << n;
  for (int n = -1074; n <= 1023; ++n) EXPECT_EQ(exactmath::log2(std::ldexp(1.0, n)), static_cast<double>(n)) << n;
  for (int n = -149; n <= 127; ++n) EXPECT_EQ(exactmath::exp2(static_cast<float>(n)), std::ldexp(1.0f, n)) << n;
}

// f16/bf16 go through float and are rounded once (Triton's lowering).
TEST(ExactMath, NarrowFormatsRoundTheFloatResult) {
  for (uint64_t bits = 0; bits < 0x10000; bits += 7) {
    float input = static_cast<float>(doubleFromFloatBits(bits, ScalarKind::F16));
    uint64_t expected = floatBitsFromDouble(exactmath::exp(input), ScalarKind::F16);
    EXPECT_EQ(exactmath::evalBits(scalar::MathFunction::Exp, bits, ScalarKind::F16), expected) << bits;
  }
}

}  // namespace
}  // namespace tilesim
