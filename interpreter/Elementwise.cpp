// evalElementwise: one switch over the op families (no default, so a new family in ir/Ops.def does not
// compile until it is placed here) routing to ElementwiseInt.cpp (IntArith, arith.cmpi), ElementwiseFloat.cpp
// (FloatArith, Math, arith.cmpf, tt.extern_elementwise), ElementwiseCast.cpp (Cast) and arith.select; each of
// those switches over its family's ops with no default. Under the triton
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
  auto compare = [&](CompareOp kind) -> MutableTileRef {
    switch (kind) {
      case CompareOp::ArithCmpI: return evalIntegerOp(op, operands, context);
      case CompareOp::ArithCmpF: return evalFloatOp(op, operands, context.profile, error);
      case CompareOp::ArithSelect: return evalSelect(op, operands);
    }
    return nullptr;
  };
  auto external = [&](ExternalOp kind) -> MutableTileRef {
    switch (kind) {
      case ExternalOp::TTExternElementwise: return evalFloatOp(op, operands, context.profile, error);
      case ExternalOp::TTElementwiseInlineAsm:  // the engine runs it (interpreter/InlineAsm.cpp)
        if (error) *error = "inline asm cannot be interpreted";
        return nullptr;
    }
    return nullptr;
  };
  // Other families (constants, memory, control flow, ...) never come here: the Executor evaluates them.
  MutableTileRef result = visitElementwiseFamily(op.kind, Overloaded{
      [&](IntArithOp) { return evalIntegerOp(op, operands, context); },
      [&](FloatArithOp) { return evalFloatOp(op, operands, context.profile, error); },
      [&](MathOp) { return evalFloatOp(op, operands, context.profile, error); },
      compare,
      [&](CastOp) { return evalCastOp(op, operands, context); },
      external,
  });
  if (!result) return nullptr;
  if (context.profile == FloatProfile::Triton) {
    if (op.kind == OpKind::ArithSelect) selectBounds(*operands[0], *operands[1], *operands[2], *result);
    else if (result->elementType().isScalar()) propagateErrorBounds(op, operands, *result);
  } else if (std::any_of(operands.begin(), operands.end(), [](const Tile* t) { return t->errorBounds() != nullptr; })) {
    // Exact profile: every op is bit for bit the GPU's, and bounds exist only where the GPU's value is not
    // determined (approximate inline PTX, a contended float atomic add). Those follow the data as under the
    // triton profile; a lane whose operands are all exact stays exact.
    if (op.kind == OpKind::ArithSelect) {
      selectBounds(*operands[0], *operands[1], *operands[2], *result);
    } else if (result->elementType().isScalar()) {
      propagateErrorBounds(op, operands, *result);
      if (double* bounds = result->mutableErrorBounds())
        for (int64_t i = 0, n = result->size(); i < n; ++i) {
          bool exact = true;
          for (const Tile* t : operands)
            exact = exact && (!t->errorBounds() || t->errorBounds()[t->size() == 1 ? 0 : i] == 0);
          if (exact) bounds[i] = 0;
        }
    }
  }
  return result;
}

}  // namespace tilesim
