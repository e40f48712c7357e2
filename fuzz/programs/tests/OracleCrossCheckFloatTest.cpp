// ir/eval/ScalarEval.h's float semantics (FloatCodec, the NaN rules, maxNum/minNum/maximum/minimum,
// remainderNvidia, fusedMultiplyAdd, compareFloat) against the oracle (OracleFloat.cpp): every f16 and bf16
// input of the unary ops (sqrt, floor, ceil, absf, negf) and of the codec round trip, and sampled operands for
// the binary ops, fma and all 16 cmpf predicates on f16, bf16, f32 and f64 (specials, NaN payloads, subnormals,
// rounding ties). The ScalarEval side is composed the way the interpreter composes it: decode with FloatCodec,
// the C++ operation or ScalarEval function, encode (f64 NaNs by ScalarEval's F64NaN rules).
#include <bit>
#include <cmath>

#include "fuzz/programs/OracleScalar.h"
#include "fuzz/programs/tests/CrossCheck.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::fuzz::oracle::testing {
namespace {

using scalar::F64NaN;
using scalar::FloatCodec;

template <ScalarKind K>
typename FloatCodec<K>::Compute decode(uint64_t bits) {
  using Storage = typename FloatCodec<K>::Storage;
  if constexpr (std::is_same_v<Storage, float>)
    return FloatCodec<K>::load(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  else if constexpr (std::is_same_v<Storage, double>)
    return FloatCodec<K>::load(std::bit_cast<double>(bits));
  else
    return FloatCodec<K>::load(static_cast<Storage>(bits));
}

template <ScalarKind K>
uint64_t encode(typename FloatCodec<K>::Compute value) {
  const auto stored = FloatCodec<K>::store(value);
  if constexpr (std::is_same_v<decltype(stored), const float>)
    return std::bit_cast<uint32_t>(stored);
  else if constexpr (std::is_same_v<decltype(stored), const double>)
    return std::bit_cast<uint64_t>(stored);
  else
    return static_cast<uint64_t>(stored);
}

// An arithmetic result as the interpreter stores it: f64 NaNs by `rule`, the rest through FloatCodec.
template <ScalarKind K>
uint64_t arith(typename FloatCodec<K>::Compute value, F64NaN rule, uint64_t a, uint64_t b) {
  if (K == ScalarKind::F64 && value != value) return scalar::f64NaNResult(rule, a, b);
  return encode<K>(value);
}

template <ScalarKind K>
uint64_t scalarEvalArith(FloatArithOp op, uint64_t aBits, uint64_t bBits, uint64_t cBits, bool propagate) {
  using C = typename FloatCodec<K>::Compute;
  const C a = decode<K>(aBits), b = decode<K>(bBits), c = decode<K>(cBits);
  switch (op) {
    case FloatArithOp::ArithAddF: return arith<K>(a + b, F64NaN::SecondFirst, aBits, bBits);
    case FloatArithOp::ArithSubF: return arith<K>(a - b, F64NaN::SecondFirst, aBits, bBits);
    case FloatArithOp::ArithMulF: return arith<K>(a * b, F64NaN::SecondFirst, aBits, bBits);
    case FloatArithOp::ArithDivF:
    case FloatArithOp::TTPreciseDivF: return arith<K>(a / b, F64NaN::FirstFirst, aBits, bBits);
    case FloatArithOp::ArithRemF:
      if ((K == ScalarKind::F32 || K == ScalarKind::F64) && std::isinf(b)) return aBits;
      return arith<K>(scalar::remainderNvidia<C>(a, b), F64NaN::FirstFirst, aBits, bBits);
    case FloatArithOp::ArithMaxNumF: return arith<K>(scalar::maxNum(a, b), F64NaN::SecondFirst, aBits, bBits);
    case FloatArithOp::ArithMinNumF: return arith<K>(scalar::minNum(a, b), F64NaN::SecondFirst, aBits, bBits);
    case FloatArithOp::ArithMaximumF: return arith<K>(scalar::maximum(a, b), F64NaN::Positive, aBits, bBits);
    case FloatArithOp::ArithMinimumF: return arith<K>(scalar::minimum(a, b), F64NaN::Positive, aBits, bBits);
    case FloatArithOp::ArithNegF: return aBits ^ (uint64_t{1} << (bitWidth(K) - 1));
    case FloatArithOp::TTClampF:
      return encode<K>(propagate ? scalar::minimum(scalar::maximum(a, b), c) : scalar::minNum(scalar::maxNum(a, b), c));
  }
  return 0;
}

template <ScalarKind K>
uint64_t scalarEvalExactMath(ExactMath function, uint64_t aBits, uint64_t bBits, uint64_t cBits) {
  const auto a = decode<K>(aBits), b = decode<K>(bBits), c = decode<K>(cBits);
  switch (function) {
    case ExactMath::Sqrt: return arith<K>(std::sqrt(a), F64NaN::FirstFirst, aBits, 0);
    case ExactMath::Floor: return encode<K>(std::floor(a));
    case ExactMath::Ceil: return encode<K>(std::ceil(a));
    case ExactMath::Abs: return aBits & ~(uint64_t{1} << (bitWidth(K) - 1));
    case ExactMath::Fma: {
      const double da = static_cast<double>(a), db = static_cast<double>(b), dc = static_cast<double>(c);
      if (K == ScalarKind::F64 && std::isnan(std::fma(da, db, dc)))
        return scalar::f64NaNResult(F64NaN::FmaOrder, aBits, bBits, cBits);
      return floatBitsFromDouble(scalar::fusedMultiplyAdd(da, db, dc, K), K);
    }
  }
  return 0;
}

constexpr FloatArithOp kFloatOps[] = {
    FloatArithOp::ArithAddF,     FloatArithOp::ArithSubF,     FloatArithOp::ArithMulF,    FloatArithOp::ArithDivF,
    FloatArithOp::TTPreciseDivF, FloatArithOp::ArithRemF,     FloatArithOp::ArithMaxNumF, FloatArithOp::ArithMinNumF,
    FloatArithOp::ArithMaximumF, FloatArithOp::ArithMinimumF, FloatArithOp::ArithNegF,    FloatArithOp::TTClampF,
};

template <ScalarKind K>
void crossCheckBinary(int samples) {
  std::mt19937_64 random(static_cast<uint64_t>(K) + 100);
  std::vector<uint64_t> a(samples), b(samples), c(samples);
  for (int i = 0; i < samples; ++i)
    a[i] = sampleFloat(K, random), b[i] = sampleFloat(K, random), c[i] = sampleFloat(K, random);
  const std::string kind = scalarKindName(K);
  for (FloatArithOp op : kFloatOps)
    for (bool propagate : {false, true}) {
      if (propagate && op != FloatArithOp::TTClampF) continue;
      Mismatches mismatches("float op " + std::to_string(static_cast<int>(op)) + " on " + kind);
      for (int i = 0; i < samples; ++i)
        mismatches.expectSame(floatArith(op, K, a[i], b[i], c[i], propagate),
                              scalarEvalArith<K>(op, a[i], b[i], c[i], propagate),
                              [&] { return "(" + hex(a[i]) + ", " + hex(b[i]) + ", " + hex(c[i]) + ")"; });
    }
  for (ExactMath function : {ExactMath::Sqrt, ExactMath::Floor, ExactMath::Ceil, ExactMath::Abs, ExactMath::Fma}) {
    Mismatches mismatches("math function " + std::to_string(static_cast<int>(function)) + " on " + kind);
    for (int i = 0; i < samples; ++i)
      mismatches.expectSame(floatExactMath(function, K, a[i], b[i], c[i]),
                            scalarEvalExactMath<K>(function, a[i], b[i], c[i]),
                            [&] { return "(" + hex(a[i]) + ", " + hex(b[i]) + ", " + hex(c[i]) + ")"; });
  }
  for (int p = 0; p < 16; ++p) {
    const auto predicate = static_cast<FloatPredicate>(p);
    Mismatches mismatches("cmpf predicate " + std::to_string(p) + " on " + kind);
    for (int i = 0; i < samples; ++i)
      mismatches.expectSame(floatCompare(predicate, K, a[i], b[i]),
                            scalar::compareFloat(predicate, decode<K>(a[i]), decode<K>(b[i])),
                            [&] { return "(" + hex(a[i]) + ", " + hex(b[i]) + ")"; });
  }
}

// Every 16-bit input of the unary ops and of the codec (decode, then encode the decoded value).
template <ScalarKind K>
void crossCheckEverySixteenBitInput() {
  const std::string kind = scalarKindName(K);
  Mismatches codec("decode/encode of every " + kind);
  Mismatches unary("unary ops on every " + kind);
  for (uint64_t bits = 0; bits < 0x10000; ++bits) {
    const double oracleValue = decodeFloat(bits, K), evalValue = static_cast<double>(decode<K>(bits));
    codec.expectSame(std::bit_cast<uint64_t>(oracleValue != oracleValue ? 0.0 : oracleValue),
                     std::bit_cast<uint64_t>(evalValue != evalValue ? 0.0 : evalValue),
                     [&] { return "decode " + hex(bits); });
    codec.expectSame(oracleValue != oracleValue, evalValue != evalValue, [&] { return "NaN-ness of " + hex(bits); });
    codec.expectSame(encodeFloat(oracleValue, K), encode<K>(decode<K>(bits)), [&] { return "encode " + hex(bits); });
    for (ExactMath function : {ExactMath::Sqrt, ExactMath::Floor, ExactMath::Ceil, ExactMath::Abs})
      unary.expectSame(floatExactMath(function, K, bits), scalarEvalExactMath<K>(function, bits, 0, 0),
                       [&] { return "function " + std::to_string(static_cast<int>(function)) + " of " + hex(bits); });
    unary.expectSame(floatArith(FloatArithOp::ArithNegF, K, bits, 0, 0, false),
                     scalarEvalArith<K>(FloatArithOp::ArithNegF, bits, 0, 0, false),
                     [&] { return "negf " + hex(bits); });
  }
}

TEST(OracleCrossCheckFloat, EveryHalfInput) { crossCheckEverySixteenBitInput<ScalarKind::F16>(); }
TEST(OracleCrossCheckFloat, EveryBFloatInput) { crossCheckEverySixteenBitInput<ScalarKind::BF16>(); }
TEST(OracleCrossCheckFloat, SampledHalf) { crossCheckBinary<ScalarKind::F16>(kSamples); }
TEST(OracleCrossCheckFloat, SampledBFloat) { crossCheckBinary<ScalarKind::BF16>(kSamples); }
TEST(OracleCrossCheckFloat, SampledSingle) { crossCheckBinary<ScalarKind::F32>(kSamples); }
TEST(OracleCrossCheckFloat, SampledDouble) { crossCheckBinary<ScalarKind::F64>(kSamples); }

// The oracle itself on the cases docs/semantics.md "Floats" and "NaN bits" spell out.
TEST(OracleCrossCheckFloat, OracleMatchesTheDocumentedCases) {
  const uint64_t one = 0x3F800000, three = 0x40400000, inf = 0x7F800000, negZero = 0x80000000,
                 nanF64 = 0x7FF00000DEADBEEFull;
  EXPECT_EQ(floatArith(FloatArithOp::ArithRemF, ScalarKind::F32, inf, inf, 0, false), inf);       // inf % inf = inf
  EXPECT_EQ(floatArith(FloatArithOp::ArithRemF, ScalarKind::F32, negZero, three, 0, false), 0u);  // -0 % 3 = +0
  EXPECT_EQ(floatArith(FloatArithOp::ArithMaxNumF, ScalarKind::F32, negZero, 0, 0, false), 0u);   // max(-0, +0) = +0
  EXPECT_EQ(floatArith(FloatArithOp::ArithMinNumF, ScalarKind::F32, 0, negZero, 0, false),
            negZero);  // min(+0, -0) = -0
  EXPECT_EQ(floatArith(FloatArithOp::ArithMaxNumF, ScalarKind::F32, 0x7FC00000, one, 0, false), one);  // NaN ignored
  EXPECT_EQ(floatArith(FloatArithOp::ArithAddF, ScalarKind::F32, 0x7FC00001, one, 0, false), 0x7FFFFFFFu);
  EXPECT_EQ(floatArith(FloatArithOp::ArithAddF, ScalarKind::F64, nanF64, 0x3FF0000000000000ull, 0, false),
            nanF64 | (1ull << 51));
  EXPECT_EQ(floatArith(FloatArithOp::ArithMulF, ScalarKind::F64, 0, 0x7FF0000000000000ull, 0, false),
            0xFFF8000000000000ull);
  EXPECT_TRUE(floatCompare(FloatPredicate::Une, ScalarKind::F16, 0x7E00, 0x7E00));
  EXPECT_FALSE(floatCompare(FloatPredicate::Oeq, ScalarKind::F16, 0x7E00, 0x7E00));
  EXPECT_TRUE(floatCompare(FloatPredicate::Oeq, ScalarKind::BF16, 0x8000, 0x0000));  // -0 == +0
}

}  // namespace
}  // namespace tilesim::fuzz::oracle::testing
