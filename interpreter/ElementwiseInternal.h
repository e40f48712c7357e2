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

// Calls `visit` with an elementwise op's kind as its family's enum (IntArithOp, FloatArithOp, MathOp, CompareOp,
// CastOp or ExternalOp), so a per-family rule (an error bound, a property) is one overload switching over its own
// family's enum with no default. Any other family reaching here is a tilesim bug.
template <typename Visit>
decltype(auto) visitElementwiseFamily(OpKind kind, Visit&& visit) {
  switch (opFamily(kind)) {
    case OpFamily::IntArith: return visit(familyOp<IntArithOp>(kind));
    case OpFamily::FloatArith: return visit(familyOp<FloatArithOp>(kind));
    case OpFamily::Math: return visit(familyOp<MathOp>(kind));
    case OpFamily::Compare: return visit(familyOp<CompareOp>(kind));
    case OpFamily::Cast: return visit(familyOp<CastOp>(kind));
    case OpFamily::External: return visit(familyOp<ExternalOp>(kind));
    case OpFamily::Constant:
    case OpFamily::Program:
    case OpFamily::Shape:
    case OpFamily::Pointer:
    case OpFamily::Memory:
    case OpFamily::Atomic:
    case OpFamily::Dot:
    case OpFamily::ReduceScan:
    case OpFamily::ControlFlow:
    case OpFamily::Function:
    case OpFamily::Terminator:
    case OpFamily::Debug:
    case OpFamily::SharedMemory:
    case OpFamily::Hopper: break;
  }
  TILESIM_UNREACHABLE("visitElementwiseFamily: not an elementwise op");
}

// The lambdas of one visitElementwiseFamily call as one overload set.
template <typename... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};

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
