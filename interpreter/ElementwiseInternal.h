// Private to interpreter/Elementwise*.cpp: the op families evalElementwise dispatches to, and the helpers
// they share (type dispatch that turns a runtime ScalarKind into a template argument once per tile, lane
// values as double for error bounds, attribute readers). Not part of the interpreter's public API.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "interpreter/Elementwise.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::elementwise {

using Operands = std::span<const Tile* const>;

template <ScalarKind K>
using KindTag = std::integral_constant<ScalarKind, K>;

// Calls fn(KindTag<K>{}) for a float kind K.
template <typename Fn>
decltype(auto) dispatchFloatKind(ScalarKind kind, Fn&& fn) {
  switch (kind) {
    case ScalarKind::F32: return fn(KindTag<ScalarKind::F32>{});
    case ScalarKind::F64: return fn(KindTag<ScalarKind::F64>{});
    case ScalarKind::F16: return fn(KindTag<ScalarKind::F16>{});
    case ScalarKind::BF16: return fn(KindTag<ScalarKind::BF16>{});
    case ScalarKind::F8E4M3FN: return fn(KindTag<ScalarKind::F8E4M3FN>{});
    case ScalarKind::F8E5M2: return fn(KindTag<ScalarKind::F8E5M2>{});
    case ScalarKind::I1:
    case ScalarKind::I8:
    case ScalarKind::I16:
    case ScalarKind::I32:
    case ScalarKind::I64: break;
  }
  TILESIM_UNREACHABLE(std::string("float op on ") + scalarKindName(kind));
}

// Storage <-> double for any float kind (exact widening; narrowing rounds RTNE, canonical NaN).
template <ScalarKind K>
double loadAsDouble(typename scalar::FloatCodec<K>::Storage v) {
  return static_cast<double>(scalar::FloatCodec<K>::load(v));
}
template <ScalarKind K>
typename scalar::FloatCodec<K>::Storage storeFromDouble(double v) {
  using Storage = typename scalar::FloatCodec<K>::Storage;
  if constexpr (K == ScalarKind::F64) return scalar::FloatCodec<K>::store(v);
  else if constexpr (K == ScalarKind::F32) return scalar::FloatCodec<K>::store(static_cast<float>(v));
  else return static_cast<Storage>(floatBitsFromDouble(v, K));
}

// A lane as a double: floats decoded, integers sign-extended (i1: 0 or 1).
double laneAsDouble(const Tile& tile, int64_t lane);

// The result tile: the op's element type, in the shape of the largest operand. Usually that is the op's result
// type; inside a reduce/scan combine region run on whole slices, the IR says scalar but the tiles are slices.
MutableTileRef makeResult(const Operation& op, Operands operands);

// Families. Each returns the result tile (without error bounds) or null with `error` set.
MutableTileRef evalIntegerOp(const Operation& op, Operands operands, const ElementwiseContext& context);
// Math functions (math.*, libdevice) take the exact profile's own algorithms (ir/eval/ExactMath.h) under
// FloatProfile::Exact and the correctly rounded value (scalar::evalMath) under FloatProfile::Triton.
MutableTileRef evalFloatOp(const Operation& op, Operands operands, FloatProfile profile, std::string* error);
MutableTileRef evalCastOp(const Operation& op, Operands operands, const ElementwiseContext& context);
MutableTileRef evalSelect(const Operation& op, Operands operands);

// Triton profile: fills result.mutableErrorBounds() when the op or its operands are inexact.
void propagateErrorBounds(const Operation& op, Operands operands, Tile& result);
// ElementwiseIntegerBounds.cpp: the bound of one integer-valued lane (integer ops, integer compares, casts into
// and out of integers) from its operands' bounds ea and eb; nullopt where the general rules apply.
std::optional<double> integerLaneBound(const Operation& op, Operands operands, const Tile& result, int64_t lane,
                                       double ea, double eb);

// Attribute readers accepting both the keyword form (`slt`) and MLIR's integer enum form.
scalar::IntPredicate intPredicate(const Operation& op);
scalar::FloatPredicate floatPredicate(const Operation& op);

}  // namespace tilesim::elementwise
