// Integer elementwise ops over whole tiles: arith.addi ... arith.minui, tt.mulhiui, math.absi, arith.cmpi.
// One dispatch per tile picks the element width and the op; the loop body is a ScalarEval.h template the
// compiler can vectorise. i1 tiles run through the 8-bit loops sign-extended and are masked back to bit 0.
// UB lanes (division by zero, shift >= width, nsw overflow) are reported in a second pass only when asked.
#include <array>
#include <string_view>

#include "interpreter/ElementwiseInternal.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"
#include "ir/OpFacts.h"

namespace tilesim::elementwise {

using namespace scalar;

namespace {

template <typename U, bool IsBool, typename Fn>
void binaryLoop(const Tile& a, const Tile& b, Tile& result, Fn fn) {
  const U* pa = a.as<U>();
  const U* pb = b.as<U>();
  U* out = result.as<U>();
  int64_t n = result.size();
  if constexpr (IsBool) {
    for (int64_t i = 0; i < n; ++i) out[i] = wideToBool(fn(boolToWide(pa[i]), boolToWide(pb[i])));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = fn(pa[i], pb[i]);
  }
}

template <typename U, bool IsBool, IntPredicate P>
void compareLoop(const Tile& a, const Tile& b, Tile& result) {
  const U* pa = a.as<U>();
  const U* pb = b.as<U>();
  uint8_t* out = result.as<uint8_t>();
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    U x = IsBool ? static_cast<U>(boolToWide(pa[i])) : pa[i];
    U y = IsBool ? static_cast<U>(boolToWide(pb[i])) : pb[i];
    // P is a constant: the switch folds away
    out[i] = TILESIM_MUTANT(interp_cmpi_ult_i8_signed, compareInt(P, x, y),
                            compareInt(P == IntPredicate::Ult && sizeof(U) == 1 ? IntPredicate::Slt : P, x, y)) ? 1 : 0;
  }
}

template <typename U, bool IsBool>
void compareTiles(const Tile& a, const Tile& b, Tile& result, IntPredicate predicate) {
  switch (predicate) {
    case IntPredicate::Eq: return compareLoop<U, IsBool, IntPredicate::Eq>(a, b, result);
    case IntPredicate::Ne: return compareLoop<U, IsBool, IntPredicate::Ne>(a, b, result);
    case IntPredicate::Slt: return compareLoop<U, IsBool, IntPredicate::Slt>(a, b, result);
    case IntPredicate::Sle: return compareLoop<U, IsBool, IntPredicate::Sle>(a, b, result);
    case IntPredicate::Sgt: return compareLoop<U, IsBool, IntPredicate::Sgt>(a, b, result);
    case IntPredicate::Sge: return compareLoop<U, IsBool, IntPredicate::Sge>(a, b, result);
    case IntPredicate::Ult: return compareLoop<U, IsBool, IntPredicate::Ult>(a, b, result);
    case IntPredicate::Ule: return compareLoop<U, IsBool, IntPredicate::Ule>(a, b, result);
    case IntPredicate::Ugt: return compareLoop<U, IsBool, IntPredicate::Ugt>(a, b, result);
    case IntPredicate::Uge: return compareLoop<U, IsBool, IntPredicate::Uge>(a, b, result);
  }
}

template <typename U, bool IsBool>
MutableTileRef evalTyped(const Operation& op, Operands operands) {
  MutableTileRef result = makeResult(op, operands);
  const Tile& a = *operands[0];
  if (op.kind == OpKind::ArithCmpI) {  // the Compare family's integer half
    compareTiles<U, IsBool>(a, *operands[1], *result, intPredicate(op));
    return result;
  }
  const Tile& b = operands.size() > 1 ? *operands[1] : a;  // math.absi is unary
  switch (familyOp<IntArithOp>(op.kind)) {
    case IntArithOp::MathAbsI: {
      const U* pa = a.as<U>();
      U* out = result->as<U>();
      for (int64_t i = 0; i < result->size(); ++i)
        out[i] = IsBool ? wideToBool(absWrap<uint8_t>(boolToWide(pa[i]))) : absWrap(pa[i]);
      break;
    }
    case IntArithOp::ArithAddI: binaryLoop<U, IsBool>(a, b, *result, addWrap<U>); break;
    case IntArithOp::ArithSubI: binaryLoop<U, IsBool>(a, b, *result, subWrap<U>); break;
    case IntArithOp::ArithMulI: binaryLoop<U, IsBool>(a, b, *result, mulWrap<U>); break;
    case IntArithOp::ArithDivSI: binaryLoop<U, IsBool>(a, b, *result, TILESIM_MUTANT(interp_divsi_unsigned, divSigned<U>, divUnsigned<U>)); break;
    case IntArithOp::ArithDivUI: binaryLoop<U, IsBool>(a, b, *result, divUnsigned<U>); break;
    case IntArithOp::ArithRemSI: binaryLoop<U, IsBool>(a, b, *result, remSigned<U>); break;
    case IntArithOp::ArithRemUI: binaryLoop<U, IsBool>(a, b, *result, remUnsigned<U>); break;
    case IntArithOp::ArithCeilDivSI: binaryLoop<U, IsBool>(a, b, *result, ceilDivSigned<U>); break;
    case IntArithOp::ArithAndI: binaryLoop<U, IsBool>(a, b, *result, [](U x, U y) { return static_cast<U>(x & y); }); break;
    case IntArithOp::ArithOrI: binaryLoop<U, IsBool>(a, b, *result, [](U x, U y) { return static_cast<U>(x | y); }); break;
    case IntArithOp::ArithXOrI: binaryLoop<U, IsBool>(a, b, *result, [](U x, U y) { return static_cast<U>(x ^ y); }); break;
    case IntArithOp::ArithShLI: binaryLoop<U, IsBool>(a, b, *result, shiftLeft<U>); break;
    case IntArithOp::ArithShRSI: binaryLoop<U, IsBool>(a, b, *result, TILESIM_MUTANT(interp_shrsi_logical, shiftRightSigned<U>, shiftRightUnsigned<U>)); break;
    case IntArithOp::ArithShRUI: binaryLoop<U, IsBool>(a, b, *result, shiftRightUnsigned<U>); break;
    case IntArithOp::ArithMaxSI: binaryLoop<U, IsBool>(a, b, *result, TILESIM_MUTANT(interp_maxsi_unsigned, maxSigned<U>, maxUnsigned<U>)); break;
    case IntArithOp::ArithMinSI: binaryLoop<U, IsBool>(a, b, *result, minSigned<U>); break;
    case IntArithOp::ArithMaxUI: binaryLoop<U, IsBool>(a, b, *result, maxUnsigned<U>); break;
    case IntArithOp::ArithMinUI: binaryLoop<U, IsBool>(a, b, *result, minUnsigned<U>); break;
    case IntArithOp::TTMulhiUI: binaryLoop<U, IsBool>(a, b, *result, mulHighUnsigned<U>); break;
  }
  return result;
}

// The operand's lanes as values of its width, unsigned (i1 sign-extended to all ones, as in the loops).
uint64_t laneUnsigned(const Tile& tile, int64_t lane, int width) {
  uint64_t bits = tile.bitsAt(lane);
  if (width == 1) return (bits & 1) ? 1 : 0;
  return bits;
}

bool hasNoSignedWrap(const Operation& op) { return OverflowFlagsView{op}.noSignedWrap(); }

void reportUndefinedBehaviour(const Operation& op, Operands operands, std::vector<UBEvent>& events) {
  const Tile& a = *operands[0];
  int width = a.elementType().bitWidth();
  int64_t n = a.size();
  switch (opFacts(op.kind).undefinedBehaviour) {
    case UndefinedBehaviour::ZeroDivisor:
      for (int64_t i = 0; i < n; ++i)
        if (laneUnsigned(*operands[1], i, width) == 0) events.push_back({i, UBKind::DivisionByZero});
      return;
    case UndefinedBehaviour::ShiftPastWidth:
      for (int64_t i = 0; i < n; ++i)
        if (laneUnsigned(*operands[1], i, width) >= static_cast<uint64_t>(width))
          events.push_back({i, UBKind::ShiftOutOfRange});
      return;
    case UndefinedBehaviour::FloatToIntOutOfRange: return;  // not an integer op
    case UndefinedBehaviour::Never: break;
  }
  // Signed overflow is undefined only where the op carries `nsw` (an attribute, not a fact of the op kind).
  const bool wraps = op.kind == OpKind::ArithAddI || op.kind == OpKind::ArithSubI || op.kind == OpKind::ArithMulI;
  if (!wraps || !hasNoSignedWrap(op) || width < 8) return;
  for (int64_t i = 0; i < n; ++i) {
    __int128 x = a.signedAt(i), y = operands[1]->signedAt(i);
    __int128 exact = op.kind == OpKind::ArithAddI ? x + y : op.kind == OpKind::ArithSubI ? x - y : x * y;
    __int128 limit = static_cast<__int128>(1) << (width - 1);
    if (exact < -limit || exact >= limit) events.push_back({i, UBKind::SignedOverflow});
  }
}

}  // namespace

MutableTileRef evalIntegerOp(const Operation& op, Operands operands, const ElementwiseContext& context) {
  MutableTileRef result;
  switch (operands[0]->elementType().scalarKind()) {
    case ScalarKind::I1: result = evalTyped<uint8_t, true>(op, operands); break;
    case ScalarKind::I8: result = evalTyped<uint8_t, false>(op, operands); break;
    case ScalarKind::I16: result = evalTyped<uint16_t, false>(op, operands); break;
    case ScalarKind::I32: result = evalTyped<uint32_t, false>(op, operands); break;
    case ScalarKind::I64: result = evalTyped<uint64_t, false>(op, operands); break;
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2:
    case ScalarKind::F16:
    case ScalarKind::BF16:
    case ScalarKind::F32:
    case ScalarKind::F64: TILESIM_UNREACHABLE("integer op on a float tile: " + std::string(op.name()));
  }
  if (context.ubEvents) reportUndefinedBehaviour(op, operands, *context.ubEvents);
  return result;
}

IntPredicate intPredicate(const Operation& op) { return CmpIView{op}.predicate(); }

FloatPredicate floatPredicate(const Operation& op) { return CmpFView{op}.predicate(); }

}  // namespace tilesim::elementwise
