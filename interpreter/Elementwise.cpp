// evalElementwise: one switch over every OpKind (no default, so a new op in ir/Ops.def does not compile until
// it is placed here) routing to the integer, float and cast families, plus arith.select. Under the triton
// profile the error bounds are added afterwards by ElementwiseBounds.cpp; the exact profile never allocates
// them. The engine owns the pointer ops (tt.addptr, int_to_ptr, ptr_to_int) and arith.constant.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "interpreter/ElementwiseInternal.h"

namespace tilesim {

namespace elementwise {

MutableTileRef makeResult(const Operation& op, Operands operands) {
  Type type = op.result(0)->type;
  const Tile* widest = nullptr;
  for (const Tile* t : operands)
    if (!widest || t->size() > widest->size()) widest = t;
  if (widest && widest->size() != type.numElements()) type = widest->type().withElement(type.element());
  return makeTile(type);
}

namespace {

template <typename Storage>
void selectLoop(const uint8_t* condition, bool scalarCondition, const Tile& x, const Tile& y, Tile& result) {
  const Storage* px = x.as<Storage>();
  const Storage* py = y.as<Storage>();
  Storage* out = result.as<Storage>();
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    bool pick = (scalarCondition ? condition[0] : condition[i]) & 1;
    out[i] = pick ? px[i] : py[i];
  }
}

// Select's own bound: the chosen side's, or, when the condition itself is uncertain, either side.
void selectBounds(const Tile& condition, const Tile& x, const Tile& y, Tile& result) {
  const double* conditionBounds = condition.errorBounds();
  if (!conditionBounds && !x.errorBounds() && !y.errorBounds()) return;
  double* bounds = result.mutableErrorBounds();
  bool scalar = condition.size() == 1;
  for (int64_t i = 0, n = result.size(); i < n; ++i) {
    double ex = x.errorBounds() ? x.errorBounds()[i] : 0, ey = y.errorBounds() ? y.errorBounds()[i] : 0;
    double ec = conditionBounds ? conditionBounds[scalar ? 0 : i] : 0;
    if (ec > 0) {
      bool numeric = x.elementType().isScalar();
      bounds[i] = numeric ? std::fabs(laneAsDouble(x, i) - laneAsDouble(y, i)) + std::max(ex, ey)
                          : std::numeric_limits<double>::infinity();
      if (std::isnan(bounds[i])) bounds[i] = std::numeric_limits<double>::infinity();
    } else {
      bounds[i] = (condition.as<uint8_t>()[scalar ? 0 : i] & 1) ? ex : ey;
    }
  }
}

}  // namespace

MutableTileRef evalSelect(const Operation& op, Operands operands) {
  MutableTileRef result = makeResult(op, operands);
  const Tile& condition = *operands[0];
  const Tile& x = *operands[1];
  const Tile& y = *operands[2];
  const uint8_t* bits = condition.as<uint8_t>();
  bool scalarCondition = condition.size() == 1 && result->size() != 1;
  switch (result->elementBytes()) {
    case 1: selectLoop<uint8_t>(bits, scalarCondition, x, y, *result); break;
    case 2: selectLoop<uint16_t>(bits, scalarCondition, x, y, *result); break;
    case 4: selectLoop<uint32_t>(bits, scalarCondition, x, y, *result); break;
    case 8: selectLoop<uint64_t>(bits, scalarCondition, x, y, *result); break;
    default: {
      int bytes = result->elementBytes();
      for (int64_t i = 0, n = result->size(); i < n; ++i) {
        const Tile& chosen = (bits[scalarCondition ? 0 : i] & 1) ? x : y;
        std::memcpy(static_cast<char*>(result->raw()) + i * bytes, static_cast<const char*>(chosen.raw()) + i * bytes,
                    bytes);
      }
    }
  }
  return result;
}

}  // namespace elementwise

MutableTileRef evalElementwise(const Operation& op, std::span<const Tile* const> operands,
                               const ElementwiseContext& context, std::string* error) {
  using namespace elementwise;
  MutableTileRef result;
  switch (op.kind) {
    case OpKind::ArithAddI:
    case OpKind::ArithSubI:
    case OpKind::ArithMulI:
    case OpKind::ArithDivSI:
    case OpKind::ArithDivUI:
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
    case OpKind::ArithAndI:
    case OpKind::ArithOrI:
    case OpKind::ArithXOrI:
    case OpKind::ArithShLI:
    case OpKind::ArithShRSI:
    case OpKind::ArithShRUI:
    case OpKind::ArithMaxSI:
    case OpKind::ArithMinSI:
    case OpKind::ArithMaxUI:
    case OpKind::ArithMinUI:
    case OpKind::ArithCmpI:
    case OpKind::MathAbsI:
    case OpKind::TTMulhiUI:
      result = evalIntegerOp(op, operands, context);
      break;
    case OpKind::ArithAddF:
    case OpKind::ArithSubF:
    case OpKind::ArithMulF:
    case OpKind::ArithDivF:
    case OpKind::ArithRemF:
    case OpKind::ArithNegF:
    case OpKind::ArithMaxNumF:
    case OpKind::ArithMinNumF:
    case OpKind::ArithMaximumF:
    case OpKind::ArithMinimumF:
    case OpKind::ArithCmpF:
    case OpKind::MathExp:
    case OpKind::MathExp2:
    case OpKind::MathLog:
    case OpKind::MathLog2:
    case OpKind::MathSin:
    case OpKind::MathCos:
    case OpKind::MathSqrt:
    case OpKind::MathRsqrt:
    case OpKind::MathErf:
    case OpKind::MathFloor:
    case OpKind::MathCeil:
    case OpKind::MathAbsF:
    case OpKind::MathFma:
    case OpKind::TTPreciseDivF:
    case OpKind::TTPreciseSqrt:
    case OpKind::TTClampF:
    case OpKind::TTExternElementwise:
      result = evalFloatOp(op, operands, context.profile, error);
      break;
    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI:
    case OpKind::ArithTruncI:
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP:
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI:
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
    case OpKind::ArithBitcast:
    case OpKind::TTFpToFp:
    case OpKind::TTBitcast:
      result = evalCastOp(op, operands, context);
      break;
    case OpKind::ArithSelect:
      result = evalSelect(op, operands);
      break;
    case OpKind::TTElementwiseInlineAsm:
      if (error) *error = "inline asm cannot be interpreted";
      return nullptr;
    case OpKind::TTAddPtr:
    case OpKind::TTIntToPtr:
    case OpKind::TTPtrToInt:
    case OpKind::ArithConstant:
    case OpKind::TTGetProgramId:
    case OpKind::TTGetNumPrograms:
    case OpKind::TTMakeRange:
    case OpKind::TTSplat:
    case OpKind::TTUnsplat:
    case OpKind::TTBroadcast:
    case OpKind::TTExpandDims:
    case OpKind::TTReshape:
    case OpKind::TTTrans:
    case OpKind::TTJoin:
    case OpKind::TTSplit:
    case OpKind::TTCat:
    case OpKind::TTGather:
    case OpKind::TTHistogram:
    case OpKind::TTLoad:
    case OpKind::TTStore:
    case OpKind::TTMakeTensorPtr:
    case OpKind::TTAdvance:
    case OpKind::TTAtomicRMW:
    case OpKind::TTAtomicCAS:
    case OpKind::TTDot:
    case OpKind::TTReduce:
    case OpKind::TTReduceReturn:
    case OpKind::TTScan:
    case OpKind::TTScanReturn:
    case OpKind::TTFunc:
    case OpKind::TTReturn:
    case OpKind::TTCall:
    case OpKind::TTPrint:
    case OpKind::TTAssert:
    case OpKind::SCFFor:
    case OpKind::SCFIf:
    case OpKind::SCFWhile:
    case OpKind::SCFYield:
    case OpKind::SCFCondition:
    case OpKind::CFBr:
    case OpKind::CFCondBr:
    case OpKind::GPUBarrier:
    case OpKind::UBPoison:
      TILESIM_UNREACHABLE("evalElementwise called for " + std::string(op.name()) + ", which the engine evaluates");
  }
  if (!result) return nullptr;
  if (context.profile == FloatProfile::Triton) {
    if (op.kind == OpKind::ArithSelect) selectBounds(*operands[0], *operands[1], *operands[2], *result);
    else if (result->elementType().isScalar()) propagateErrorBounds(op, operands, *result);
  }
  return result;
}

}  // namespace tilesim
