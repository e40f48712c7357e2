// ir/eval's conversions (ScalarEval.h floatBitsFromInteger, integerFromFloat, convertFloat, convertedNaNBits and
// the interpreter's f32 -> f16/bf16 fast paths halfFromFloat/bfloatFromFloat) against the oracle (OracleCast.cpp):
// every 8- and 16-bit source value of every cast (i8/i16 -> each float kind, signed and unsigned; f16/bf16/fp8 ->
// every float kind under rtne and rtz and -> every integer width, signed and unsigned, with the out-of-range flag),
// f32 -> f16/bf16 at and next to every rounding tie (each 16-bit result pattern with 8 low-bit endings), and sampled
// 32/64-bit sources for the rest.
#include <bit>

#include "fuzz/programs/OracleScalar.h"
#include "fuzz/programs/tests/CrossCheck.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::fuzz::oracle::testing {
namespace {

constexpr ScalarKind kFloatKinds[] = {ScalarKind::F8E4M3FN, ScalarKind::F8E5M2, ScalarKind::F16,
                                      ScalarKind::BF16,     ScalarKind::F32,    ScalarKind::F64};
constexpr int kIntegerWidths[] = {1, 8, 16, 32, 64};

// The interpreter's float -> float conversion of one lane (interpreter/ElementwiseCast.cpp floatConvertLoop).
uint64_t scalarEvalFloatToFloat(uint64_t bits, ScalarKind from, ScalarKind to, Round round) {
  if (std::optional<uint64_t> nan = scalar::convertedNaNBits(bits, from, to)) return *nan;
  const bool fp8Target = to == ScalarKind::F8E4M3FN || to == ScalarKind::F8E5M2;
  if (from == ScalarKind::F32 && round == Round::NearestEven && !fp8Target) {
    const float value = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (to == ScalarKind::F16) return scalar::halfFromFloat(value);
    if (to == ScalarKind::BF16) return scalar::bfloatFromFloat(value);
  }
  return scalar::convertFloat(doubleFromFloatBits(bits, from), to,
                              round == Round::TowardZero ? Rounding::TowardZero : Rounding::NearestEven);
}

void checkFloatSource(uint64_t bits, ScalarKind from, Mismatches& toFloat, Mismatches& toInteger) {
  for (ScalarKind to : kFloatKinds) {
    if (to == from) continue;
    for (Round round : {Round::NearestEven, Round::TowardZero})
      toFloat.expectSame(floatToFloat(bits, from, to, round), scalarEvalFloatToFloat(bits, from, to, round), [&] {
        return hex(bits) + " " + scalarKindName(from) + " -> " + scalarKindName(to) +
               (round == Round::TowardZero ? " rtz" : " rtne");
      });
  }
  for (int width : kIntegerWidths)
    for (bool isUnsigned : {false, true}) {
      bool oracleOutOfRange = false, evalOutOfRange = false;
      const uint64_t oracle = floatToInteger(bits, from, width, isUnsigned, &oracleOutOfRange);
      const uint64_t eval =
          scalar::integerFromFloat(doubleFromFloatBits(bits, from), from, width, isUnsigned, &evalOutOfRange);
      auto describe = [&] {
        return hex(bits) + " " + scalarKindName(from) + (isUnsigned ? " -> u" : " -> i") + std::to_string(width);
      };
      toInteger.expectSame(oracle, eval, describe);
      toInteger.expectSame(oracleOutOfRange, evalOutOfRange, [&] { return "out of range: " + describe(); });
    }
}

void checkIntegerSource(uint64_t bits, int width, Mismatches& mismatches) {
  for (ScalarKind to : kFloatKinds)
    for (bool isUnsigned : {false, true})
      mismatches.expectSame(
          integerToFloat(bits, width, isUnsigned, to), scalar::floatBitsFromInteger(bits, width, isUnsigned, to),
          [&] { return hex(bits) + (isUnsigned ? " u" : " i") + std::to_string(width) + " -> " + scalarKindName(to); });
}

TEST(OracleCrossCheckCast, EveryEightAndSixteenBitSource) {
  Mismatches toFloat("float -> float casts"), toInteger("float -> integer casts"),
      fromInteger("integer -> float casts");
  for (uint64_t bits = 0; bits < 0x10000; ++bits) {
    checkFloatSource(bits, ScalarKind::F16, toFloat, toInteger);
    checkFloatSource(bits, ScalarKind::BF16, toFloat, toInteger);
    checkIntegerSource(bits, 16, fromInteger);
    if (bits < 0x100) {
      checkFloatSource(bits, ScalarKind::F8E4M3FN, toFloat, toInteger);
      checkFloatSource(bits, ScalarKind::F8E5M2, toFloat, toInteger);
      checkIntegerSource(bits, 8, fromInteger);
      if (bits < 2) checkIntegerSource(bits, 1, fromInteger);
    }
  }
}

// f32 -> f16 / bf16 / fp8 where rounding decides: every 16-bit pattern as the f32's top bits, with the dropped
// low bits 0, 1, just below / at / just above the tie, all ones, and two random endings.
TEST(OracleCrossCheckCast, SingleToNarrowAtEveryTie) {
  Mismatches mismatches("f32 -> narrow float at ties");
  std::mt19937_64 random(7);
  for (uint64_t top = 0; top < 0x10000; ++top) {
    for (int shift : {13, 16}) {  // f16's and bf16's dropped bits
      const uint64_t half = uint64_t{1} << (shift - 1), all = (uint64_t{1} << shift) - 1;
      const uint64_t base = shift == 16 ? top << 16 : (top << 13) & 0xFFFFFFFF;
      for (uint64_t low : {uint64_t{0}, uint64_t{1}, half - 1, half, half + 1, all, random() & all, random() & all}) {
        const uint64_t bits = base | low;
        for (ScalarKind to : {ScalarKind::F16, ScalarKind::BF16, ScalarKind::F8E4M3FN, ScalarKind::F8E5M2})
          for (Round round : {Round::NearestEven, Round::TowardZero})
            mismatches.expectSame(floatToFloat(bits, ScalarKind::F32, to, round),
                                  scalarEvalFloatToFloat(bits, ScalarKind::F32, to, round), [&] {
                                    return hex(bits) + " f32 -> " + scalarKindName(to) +
                                           (round == Round::TowardZero ? " rtz" : " rtne");
                                  });
      }
    }
  }
}

TEST(OracleCrossCheckCast, SampledWideSources) {
  Mismatches toFloat("wide float -> float casts"), toInteger("wide float -> integer casts"),
      fromInteger("wide integer -> float casts");
  std::mt19937_64 random(11);
  for (int i = 0; i < kSamples; ++i) {
    checkFloatSource(sampleFloat(ScalarKind::F32, random), ScalarKind::F32, toFloat, toInteger);
    checkFloatSource(sampleFloat(ScalarKind::F64, random), ScalarKind::F64, toFloat, toInteger);
    checkIntegerSource(sampleInteger(32, random), 32, fromInteger);
    checkIntegerSource(sampleInteger(64, random), 64, fromInteger);
  }
}

// The oracle itself on the cases docs/semantics.md "Casts" spells out.
TEST(OracleCrossCheckCast, OracleMatchesTheDocumentedCases) {
  bool outOfRange = false;
  EXPECT_EQ(floatToInteger(0x43480000, ScalarKind::F32, 8, false, &outOfRange), 0xC8u);  // 200.0 -> int8 -56
  EXPECT_TRUE(outOfRange);
  EXPECT_EQ(floatToInteger(0x7F800000, ScalarKind::F32, 8, false, &outOfRange), 0xFFu);  // inf -> int8 -1
  EXPECT_EQ(floatToInteger(0xFF800000, ScalarKind::F32, 8, false, &outOfRange), 0x00u);  // -inf -> int8 0
  EXPECT_EQ(floatToInteger(0x477FE000, ScalarKind::F32, 8, true, &outOfRange), 0xE0u);   // 65504 -> uint8 224
  EXPECT_EQ(floatToInteger(0x7FC00000, ScalarKind::F32, 64, false, &outOfRange), 1ull << 63);
  EXPECT_EQ(floatToInteger(0x7FF8000000000000ull, ScalarKind::F64, 32, true, &outOfRange), 1ull << 31);
  EXPECT_EQ(integerToFloat((1ull << 24) + 1, 64, false, ScalarKind::F32), 0x4B800000u);  // 2^24 + 1 -> 2^24
  EXPECT_EQ(integerToFloat((1ull << 24) + 3, 64, false, ScalarKind::F32), 0x4B800002u);  // 2^24 + 3 -> 2^24 + 4
  EXPECT_EQ(floatToFloat(0x7FF80000DEADBEEFull, ScalarKind::F64, ScalarKind::F32, Round::NearestEven), 0x7FC00006u);
  EXPECT_EQ(floatToFloat(0xFF8B, ScalarKind::BF16, ScalarKind::F32, Round::NearestEven), 0xFF8B0000u);
  EXPECT_EQ(floatToFloat(0x7F800000, ScalarKind::F32, ScalarKind::F8E4M3FN, Round::NearestEven), 0x7Eu);  // inf -> 448
  EXPECT_EQ(floatToFloat(0x7F800000, ScalarKind::F32, ScalarKind::F8E5M2, Round::NearestEven), 0x7Bu);  // inf -> 57344
  EXPECT_EQ(floatToFloat(0x7F7FFFFF, ScalarKind::F32, ScalarKind::F16, Round::TowardZero), 0x7BFFu);  // rtz: max finite
  EXPECT_EQ(floatToFloat(0x7F800000, ScalarKind::F32, ScalarKind::F16, Round::TowardZero), 0x7C00u);  // inf stays inf
  EXPECT_EQ(floatToFloat(0x3F801000, ScalarKind::F32, ScalarKind::F16, Round::NearestEven), 0x3C00u);  // tie to even
  EXPECT_EQ(floatToFloat(0x3F803000, ScalarKind::F32, ScalarKind::F16, Round::NearestEven),
            0x3C02u);  // tie to even, up
  EXPECT_EQ(floatToFloat(0x3F803FFF, ScalarKind::F32, ScalarKind::F16, Round::TowardZero), 0x3C01u);
}

}  // namespace
}  // namespace tilesim::fuzz::oracle::testing
