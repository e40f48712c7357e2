// The exact profile's math functions are compiled twice on x86-64 (ir/eval/ExactMathSupport.h): a clone for CPUs
// with FMA, where fma and rint are inlined instructions, and the baseline with libm's fma. The loader picks the
// clone on this machine; this test holds it to the baseline, bit for bit, on every 509th float bit pattern (about
// 8.4M: every exponent, both signs), a million double patterns and the edge values. The baseline is the same
// sources built without clones (ExactMathBaseline*.cpp) — both sides are one rounding per fma, so any difference
// is a contraction or an instruction selection that changed the algorithm.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "ir/eval/ExactMath.h"

namespace tilesim::exactmath_baseline {
float exp(float), exp2(float), exp10(float), log(float), log2(float), log10(float), sin(float), cos(float),
    rsqrt(float), tanh(float), erf(float);
double exp(double), exp2(double), exp10(double), log(double), log2(double), log10(double), sin(double),
    cos(double), rsqrt(double), tanh(double), erf(double);
}  // namespace tilesim::exactmath_baseline

namespace tilesim {
namespace {

struct Pair {
  const char* name;
  float (*single)(float);
  float (*singleBaseline)(float);
  double (*dual)(double);
  double (*dualBaseline)(double);
};

#define TILESIM_PAIR(f)                                                                               \
  Pair {                                                                                              \
    #f, static_cast<float (*)(float)>(exactmath::f), static_cast<float (*)(float)>(exactmath_baseline::f), \
        static_cast<double (*)(double)>(exactmath::f), static_cast<double (*)(double)>(exactmath_baseline::f) \
  }

scalar::MathFunction scalarFunctionNamed(const char* name) {
  const std::string n = name;
  if (n == "exp") return scalar::MathFunction::Exp;
  if (n == "exp2") return scalar::MathFunction::Exp2;
  if (n == "log") return scalar::MathFunction::Log;
  return scalar::MathFunction::Sin;  // any function without an array entry point (the test skips those)
}

const Pair kPairs[] = {TILESIM_PAIR(exp),   TILESIM_PAIR(exp2), TILESIM_PAIR(exp10), TILESIM_PAIR(log),
                       TILESIM_PAIR(log2),  TILESIM_PAIR(log10), TILESIM_PAIR(sin),  TILESIM_PAIR(cos),
                       TILESIM_PAIR(rsqrt), TILESIM_PAIR(tanh), TILESIM_PAIR(erf)};

template <typename T, typename Word> bool sameBits(T a, T b) {
  return std::bit_cast<Word>(a) == std::bit_cast<Word>(b) || (a != a && b != b);
}

TEST(ExactMathClones, FmaCloneEqualsTheBaselineBitForBit) {
  std::printf("this CPU %s FMA: the library runs its %s clone\n", __builtin_cpu_supports("fma") ? "has" : "lacks",
              __builtin_cpu_supports("fma") ? "fma" : "default");
  const float floatEdges[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(),
                              std::numeric_limits<float>::max(), 88.7228394f, -103.972084f, 1e-30f, 0.5f};
  for (const Pair& pair : kPairs) {
    int64_t checked = 0, differing = 0;
    auto checkFloat = [&](float x) {
      ++checked;
      if (!sameBits<float, uint32_t>(pair.single(x), pair.singleBaseline(x)) && differing++ < 3)
        ADD_FAILURE() << pair.name << "(float bits 0x" << std::hex << std::bit_cast<uint32_t>(x) << ")";
    };
    for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 509) checkFloat(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    for (float edge : floatEdges) checkFloat(edge);
    auto checkDouble = [&](double x) {
      ++checked;
      if (!sameBits<double, uint64_t>(pair.dual(x), pair.dualBaseline(x)) && differing++ < 3)
        ADD_FAILURE() << pair.name << "(double bits 0x" << std::hex << std::bit_cast<uint64_t>(x) << ")";
    };
    for (uint64_t index = 0; index < (1u << 20); ++index) checkDouble(std::bit_cast<double>(index * 0x100000000001ull));
    for (float edge : floatEdges) checkDouble(static_cast<double>(edge));
    std::printf("%-6s %lld values, %lld differ\n", pair.name, static_cast<long long>(checked),
                static_cast<long long>(differing));
    EXPECT_EQ(differing, 0) << pair.name;
  }
}

// The array entry points (floatArrayFunction: the AVX-512 clone's vectorised loop on this machine when it has
// AVX-512) against the scalar function, lane by lane, on every 509th float bit pattern (8.4M: every exponent, both
// signs, NaNs included; a NaN result must be a NaN, its payload is canonicalised by the caller).
TEST(ExactMathClones, ArrayEntryPointsEqualTheScalarFunctionBitForBit) {
  std::printf("this CPU %s AVX-512F: the array entry points run their %s clone\n",
              __builtin_cpu_supports("avx512f") ? "has" : "lacks", __builtin_cpu_supports("avx512f") ? "avx512f" : "fma/default");
  int functions = 0;
  for (const Pair& pair : kPairs) {
    const exactmath::FloatArrayFunction whole = exactmath::floatArrayFunction(scalarFunctionNamed(pair.name));
    if (!whole) continue;
    ++functions;
    std::vector<float> in, out;
    for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 509) in.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    in.insert(in.end(), {0.0f, -0.0f, INFINITY, -INFINITY, 88.7228394f, -103.972084f, 129.0f, -152.0f, 1e-45f});
    out.resize(in.size());
    whole(in.data(), out.data(), static_cast<int64_t>(in.size()));
    int64_t differing = 0;
    for (size_t i = 0; i < in.size(); ++i)
      if (!sameBits<float, uint32_t>(out[i], pair.single(in[i])) && differing++ < 3)
        ADD_FAILURE() << pair.name << "Array(float bits 0x" << std::hex << std::bit_cast<uint32_t>(in[i]) << ")";
    std::printf("%-6s array: %zu values, %lld differ\n", pair.name, in.size(), static_cast<long long>(differing));
    EXPECT_EQ(differing, 0) << pair.name;
  }
  EXPECT_EQ(functions, 2);  // exp and exp2 have array entry points
}

}  // namespace
}  // namespace tilesim
