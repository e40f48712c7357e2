// One lane of an IntArith op, dispatched on the op: ScalarEval's per-op functions (the interpreter's semantics) picked
// by IntArithOp, for the code that evaluates single lanes rather than whole tiles: the interpreter's integer error
// bounds (interpreter/ElementwiseIntegerBounds.cpp, which enumerates the operand values a bound allows) and
// AxisInfo's constant folding (ir/analysis/AxisInfoRules.cpp). The whole-tile loops (interpreter/ElementwiseInt.cpp)
// keep their own switch, which hands each function to a vectorisable loop.
#pragma once

#include <cstdint>

#include "ir/Assert.h"
#include "ir/OpKind.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::scalar {

// The low `width` bits of `bits` (width 1 to 64).
inline uint64_t lowBits(uint64_t bits, int width) { return width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1); }

// The low `width` bits of `bits` read as a two's-complement integer (width 1 to 64: an i1 of 1 is -1).
inline int64_t signExtended(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>((lowBits(bits, width) ^ sign) - sign);
}

// `kind` on lane values of the unsigned type U (math.absi reads only `a`).
template <typename U>
U integerLane(IntArithOp kind, U a, U b) {
  switch (kind) {
    case IntArithOp::ArithAddI: return addWrap<U>(a, b);
    case IntArithOp::ArithSubI: return subWrap<U>(a, b);
    case IntArithOp::ArithMulI: return mulWrap<U>(a, b);
    case IntArithOp::ArithAndI: return static_cast<U>(a & b);
    case IntArithOp::ArithOrI: return static_cast<U>(a | b);
    case IntArithOp::ArithXOrI: return static_cast<U>(a ^ b);
    case IntArithOp::ArithShLI: return shiftLeft<U>(a, b);
    case IntArithOp::ArithShRSI: return shiftRightSigned<U>(a, b);
    case IntArithOp::ArithShRUI: return shiftRightUnsigned<U>(a, b);
    case IntArithOp::ArithMaxSI: return maxSigned<U>(a, b);
    case IntArithOp::ArithMinSI: return minSigned<U>(a, b);
    case IntArithOp::ArithMaxUI: return maxUnsigned<U>(a, b);
    case IntArithOp::ArithMinUI: return minUnsigned<U>(a, b);
    case IntArithOp::ArithDivSI: return divSigned<U>(a, b);
    case IntArithOp::ArithDivUI: return divUnsigned<U>(a, b);
    case IntArithOp::ArithRemSI: return remSigned<U>(a, b);
    case IntArithOp::ArithRemUI: return remUnsigned<U>(a, b);
    case IntArithOp::ArithCeilDivSI: return ceilDivSigned<U>(a, b);
    case IntArithOp::TTMulhiUI: return mulHighUnsigned<U>(a, b);
    case IntArithOp::MathAbsI: return absWrap<U>(a);
  }
  TILESIM_UNREACHABLE("integerLane: not an IntArith op");
}

}  // namespace tilesim::scalar
