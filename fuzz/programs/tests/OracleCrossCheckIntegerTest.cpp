// ir/eval/ScalarEval.h's integer templates against the oracle (OracleInteger.cpp): every binary op and compare
// predicate over all 65,536 pairs of 8-bit operands and all 4 pairs of i1 operands (widened with boolToWide as the
// interpreter does), and 16/32/64-bit operands by sampling biased to limits and shift amounts near the width.
// A failure names the op, the width and the first operands that disagree.
#include <functional>

#include "fuzz/programs/OracleScalar.h"
#include "fuzz/programs/tests/CrossCheck.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::fuzz::oracle::testing {
namespace {

constexpr IntArithOp kIntOps[] = {
    IntArithOp::ArithAddI,  IntArithOp::ArithSubI,  IntArithOp::ArithMulI,  IntArithOp::ArithDivSI,
    IntArithOp::ArithDivUI, IntArithOp::ArithRemSI, IntArithOp::ArithRemUI, IntArithOp::ArithAndI,
    IntArithOp::ArithOrI,   IntArithOp::ArithXOrI,  IntArithOp::ArithShLI,  IntArithOp::ArithShRSI,
    IntArithOp::ArithShRUI, IntArithOp::ArithMaxSI, IntArithOp::ArithMinSI, IntArithOp::ArithMaxUI,
    IntArithOp::ArithMinUI, IntArithOp::TTMulhiUI,  IntArithOp::MathAbsI,   IntArithOp::ArithCeilDivSI,
};
constexpr IntPredicate kIntPredicates[] = {IntPredicate::Eq,  IntPredicate::Ne,  IntPredicate::Slt, IntPredicate::Sle,
                                           IntPredicate::Sgt, IntPredicate::Sge, IntPredicate::Ult, IntPredicate::Ule,
                                           IntPredicate::Ugt, IntPredicate::Uge};

// ScalarEval's function for `op` at width U.
template <typename U>
U scalarEvalArith(IntArithOp op, U a, U b) {
  using namespace scalar;
  switch (op) {
    case IntArithOp::ArithAddI: return addWrap(a, b);
    case IntArithOp::ArithSubI: return subWrap(a, b);
    case IntArithOp::ArithMulI: return mulWrap(a, b);
    case IntArithOp::ArithDivSI: return divSigned(a, b);
    case IntArithOp::ArithDivUI: return divUnsigned(a, b);
    case IntArithOp::ArithRemSI: return remSigned(a, b);
    case IntArithOp::ArithRemUI: return remUnsigned(a, b);
    case IntArithOp::ArithCeilDivSI: return ceilDivSigned(a, b);
    case IntArithOp::ArithAndI: return static_cast<U>(a & b);
    case IntArithOp::ArithOrI: return static_cast<U>(a | b);
    case IntArithOp::ArithXOrI: return static_cast<U>(a ^ b);
    case IntArithOp::ArithShLI: return shiftLeft(a, b);
    case IntArithOp::ArithShRSI: return shiftRightSigned(a, b);
    case IntArithOp::ArithShRUI: return shiftRightUnsigned(a, b);
    case IntArithOp::ArithMaxSI: return maxSigned(a, b);
    case IntArithOp::ArithMinSI: return minSigned(a, b);
    case IntArithOp::ArithMaxUI: return maxUnsigned(a, b);
    case IntArithOp::ArithMinUI: return minUnsigned(a, b);
    case IntArithOp::TTMulhiUI: return mulHighUnsigned(a, b);
    case IntArithOp::MathAbsI: return absWrap(a);
  }
  return 0;
}

template <typename U>
bool scalarEvalOverflow(IntArithOp op, U a, U b) {
  if (op == IntArithOp::ArithAddI) return scalar::addOverflowsSigned(a, b);
  if (op == IntArithOp::ArithSubI) return scalar::subOverflowsSigned(a, b);
  if (op == IntArithOp::ArithMulI) return scalar::mulOverflowsSigned(a, b);
  return false;
}

// Every op, predicate and overflow check on the operand pairs `forEachPair` yields, at width U.
template <typename U>
void crossCheckWidth(const std::function<void(const std::function<void(U, U)>&)>& forEachPair) {
  constexpr int width = static_cast<int>(sizeof(U) * 8);
  for (IntArithOp op : kIntOps) {
    Mismatches arith("integer op " + std::to_string(static_cast<int>(op)) + " at i" + std::to_string(width));
    Mismatches overflow("signed overflow of op " + std::to_string(static_cast<int>(op)) + " at i" +
                        std::to_string(width));
    forEachPair([&](U a, U b) {
      auto describe = [&] { return "op " + std::to_string(static_cast<int>(op)) + "(" + hex(a) + ", " + hex(b) + ")"; };
      arith.expectSame(integerArith(op, width, a, b), scalarEvalArith<U>(op, a, b), describe);
      overflow.expectSame(signedOverflow(op, width, a, b), scalarEvalOverflow<U>(op, a, b), describe);
    });
  }
  for (IntPredicate predicate : kIntPredicates) {
    Mismatches compare("cmpi predicate " + std::to_string(static_cast<int>(predicate)) + " at i" +
                       std::to_string(width));
    forEachPair([&](U a, U b) {
      compare.expectSame(integerCompare(predicate, width, a, b), scalar::compareInt(predicate, a, b), [&] {
        return "cmpi " + std::to_string(static_cast<int>(predicate)) + "(" + hex(a) + ", " + hex(b) + ")";
      });
    });
  }
}

template <typename U>
void sampledPairs(const std::function<void(U, U)>& body) {
  std::mt19937_64 random(sizeof(U));
  constexpr int width = static_cast<int>(sizeof(U) * 8);
  for (int i = 0; i < kSamples; ++i)
    body(static_cast<U>(sampleInteger(width, random)), static_cast<U>(sampleInteger(width, random)));
}

TEST(OracleCrossCheckInteger, EveryEightBitPair) {
  crossCheckWidth<uint8_t>([](const std::function<void(uint8_t, uint8_t)>& body) {
    for (int a = 0; a < 256; ++a)
      for (int b = 0; b < 256; ++b) body(static_cast<uint8_t>(a), static_cast<uint8_t>(b));
  });
}

TEST(OracleCrossCheckInteger, EveryBoolPair) {
  for (IntArithOp op : kIntOps) {
    Mismatches arith("i1 op " + std::to_string(static_cast<int>(op)));
    for (uint8_t a = 0; a < 2; ++a)
      for (uint8_t b = 0; b < 2; ++b) {
        const uint8_t wide = scalarEvalArith<uint8_t>(op, scalar::boolToWide(a), scalar::boolToWide(b));
        arith.expectSame(integerArith(op, 1, a, b), scalar::wideToBool(wide), [&] { return hex(a) + ", " + hex(b); });
      }
  }
  for (IntPredicate predicate : kIntPredicates) {
    Mismatches compare("i1 cmpi " + std::to_string(static_cast<int>(predicate)));
    for (uint8_t a = 0; a < 2; ++a)
      for (uint8_t b = 0; b < 2; ++b)
        compare.expectSame(integerCompare(predicate, 1, a, b),
                           scalar::compareInt(predicate, scalar::boolToWide(a), scalar::boolToWide(b)),
                           [&] { return hex(a) + ", " + hex(b); });
  }
}

TEST(OracleCrossCheckInteger, SampledSixteenBit) { crossCheckWidth<uint16_t>(sampledPairs<uint16_t>); }
TEST(OracleCrossCheckInteger, SampledThirtyTwoBit) { crossCheckWidth<uint32_t>(sampledPairs<uint32_t>); }
TEST(OracleCrossCheckInteger, SampledSixtyFourBit) { crossCheckWidth<uint64_t>(sampledPairs<uint64_t>); }

// The oracle itself on the cases docs/semantics.md "Integers" spells out.
TEST(OracleCrossCheckInteger, OracleMatchesTheDocumentedCases) {
  EXPECT_EQ(integerArith(IntArithOp::ArithRemSI, 32, static_cast<uint32_t>(-7), 2), static_cast<uint32_t>(-1));
  EXPECT_EQ(integerArith(IntArithOp::ArithRemSI, 32, 7, static_cast<uint32_t>(-2)), 1u);
  EXPECT_EQ(integerArith(IntArithOp::ArithDivSI, 8, 0x80, 0xFF), 0x80u);
  EXPECT_EQ(integerArith(IntArithOp::ArithRemSI, 8, 0x80, 0xFF), 0u);
  EXPECT_EQ(integerArith(IntArithOp::ArithDivUI, 16, 5, 0), 0xFFFFu);
  EXPECT_EQ(integerArith(IntArithOp::ArithShLI, 32, 1, 32), 0u);
  EXPECT_EQ(integerArith(IntArithOp::ArithShRSI, 32, static_cast<uint32_t>(-8), 33), 0xFFFFFFFFu);
  EXPECT_EQ(integerArith(IntArithOp::TTMulhiUI, 32, 0xFFFFFFFFu, 2), 1u);
  EXPECT_EQ(integerArith(IntArithOp::MathAbsI, 8, 0x80, 0), 0x80u);
  EXPECT_TRUE(integerCompare(IntPredicate::Ult, 8, 0x01, 0x80));
  EXPECT_FALSE(integerCompare(IntPredicate::Slt, 8, 0x01, 0x80));
}

}  // namespace
}  // namespace tilesim::fuzz::oracle::testing
