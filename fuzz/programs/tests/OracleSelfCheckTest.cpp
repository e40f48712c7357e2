// The oracle's generic rounding (OracleFloatFormat.cpp) checked against the host's own conversions, which share no
// code with it or with ir/eval: double -> float and int64 -> float/double in the FPU (nearest-even, and toward zero
// through the MXCSR rounding mode), and double/int64 -> _Float16 through GCC's libgcc (nearest-even). Samples are
// biased to ties, subnormals and overflow. Without _Float16 (not x86-64 GCC/Clang) that part is skipped visibly.
#include <bit>
#include <cfenv>
#include <cstring>

#include "fuzz/programs/OracleScalar.h"
#include "fuzz/programs/tests/CrossCheck.h"

namespace tilesim::fuzz::oracle::testing {
namespace {

// The host's own bit casts (std::bit_cast), not the oracle's helpers.
uint64_t bitsOf(float value) { return std::bit_cast<uint32_t>(value); }
double doubleOf(uint64_t bits) { return std::bit_cast<double>(bits); }

// The hardware's double -> float under the current rounding mode (volatile: computed at run time, in this mode).
float hardwareNarrow(double value) {
  volatile double input = value;
  volatile float output = static_cast<float>(input);
  return output;
}

TEST(OracleSelfCheck, DoubleToSingleMatchesTheFpu) {
  Mismatches nearest("double -> f32 rtne against the FPU"), towardZero("double -> f32 rtz against the FPU");
  std::mt19937_64 random(3);
  for (int i = 0; i < 4 * kSamples; ++i) {
    uint64_t bits = sampleFloat(ScalarKind::F64, random);
    if (i % 2)
      bits =
          (bits & 0x800FFFFFFFFFFFFFull) | (static_cast<uint64_t>(1023 - 160 + random() % 300) << 52);  // f32's range
    const double value = doubleOf(bits);
    if (value != value) continue;  // NaN bits are the GPU's, not the FPU's
    // encodeFloat's f32 nearest-even is the FPU itself; with `saturate` it takes the generic routine, which then
    // must agree wherever the FPU's result is finite.
    const float fpu = hardwareNarrow(value);
    if (fpu - fpu == 0)
      nearest.expectSame(encodeFloat(value, ScalarKind::F32, Round::NearestEven, /*saturate=*/true), bitsOf(fpu),
                         [&] { return hex(bits); });
    std::fesetround(FE_TOWARDZERO);
    const uint64_t hardware = bitsOf(hardwareNarrow(value));
    std::fesetround(FE_TONEAREST);
    towardZero.expectSame(encodeFloat(value, ScalarKind::F32, Round::TowardZero), hardware, [&] { return hex(bits); });
  }
}

TEST(OracleSelfCheck, IntegerToFloatMatchesTheFpu) {
  Mismatches single("int64 -> f32 against the FPU"), twice("int64 -> f64 against the FPU");
  std::mt19937_64 random(5);
  for (int i = 0; i < kSamples; ++i) {
    const uint64_t bits = sampleInteger(64, random);
    const volatile int64_t value = static_cast<int64_t>(bits);
    single.expectSame(integerToFloat(bits, 64, false, ScalarKind::F32), bitsOf(static_cast<float>(value)),
                      [&] { return hex(bits); });
    const double asDouble = static_cast<double>(value);
    uint64_t doubleBits;
    std::memcpy(&doubleBits, &asDouble, sizeof doubleBits);
    twice.expectSame(integerToFloat(bits, 64, false, ScalarKind::F64), doubleBits, [&] { return hex(bits); });
  }
}

TEST(OracleSelfCheck, HalfMatchesLibgcc) {
#if defined(__FLT16_MAX__)
  Mismatches fromDouble("double -> f16 against _Float16"), fromInteger("int32 -> f16 against _Float16");
  std::mt19937_64 random(9);
  auto halfBits = [](_Float16 value) {
    uint16_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return static_cast<uint64_t>(bits);
  };
  for (int i = 0; i < 4 * kSamples; ++i) {
    uint64_t bits = sampleFloat(ScalarKind::F64, random);
    if (i % 2)
      bits = (bits & 0x800FFFFFFFFFFFFFull) | (static_cast<uint64_t>(1023 - 30 + random() % 50) << 52);  // f16's range
    const volatile double value = doubleOf(bits);
    if (value != value) continue;
    fromDouble.expectSame(encodeFloat(value, ScalarKind::F16), halfBits(static_cast<_Float16>(value)),
                          [&] { return hex(bits); });
    const uint64_t integer = sampleInteger(32, random);
    const volatile int32_t signedValue = static_cast<int32_t>(integer);
    fromInteger.expectSame(integerToFloat(integer, 32, false, ScalarKind::F16),
                           halfBits(static_cast<_Float16>(signedValue)), [&] { return hex(integer); });
  }
#else
  GTEST_SKIP() << "no _Float16 on this compiler/target";
#endif
}

}  // namespace
}  // namespace tilesim::fuzz::oracle::testing
