// Lane-by-lane semantics for the fuzzer's reference (see ReferenceLanes.h). Integer ops dispatch on the width
// once per lane and call ScalarEval.h's templates (i1 widened with boolToWide, as ScalarEval.h defines it);
// float ops decode each operand with FloatCodec, apply the C++ operation or ScalarEval.h function, and encode the
// one result. Casts use ScalarEval.h's conversion functions; float->float casts always take the generic
// convertFloat path (never the halfFromFloat/bfloatFromFloat fast paths the interpreter uses for f32 sources).
#include "fuzz/programs/ReferenceLanes.h"

#include <bit>
#include <cmath>

#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"
#include "ir/eval/ExactMath.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::fuzz {

using namespace scalar;

uint64_t maskToWidth(uint64_t bits, ScalarKind kind) {
  int width = bitWidth(kind);
  return width >= 64 ? bits : bits & ((uint64_t{1} << width) - 1);
}

int64_t signExtendLane(uint64_t bits, ScalarKind kind) {
  int width = bitWidth(kind);
  if (width >= 64) return static_cast<int64_t>(bits);
  uint64_t sign = uint64_t{1} << (width - 1);
  bits = maskToWidth(bits, kind);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

namespace {

std::optional<IntPredicate> intPredicateOf(const Operation& op) { return intPredicateFrom(op.attr("predicate")); }

std::optional<FloatPredicate> floatPredicateOf(const Operation& op) { return floatPredicateFrom(op.attr("predicate")); }

template <typename U>
std::optional<U> intLane(const Operation& op, std::span<const U> v) {
  switch (op.kind) {
    case OpKind::ArithAddI: return addWrap(v[0], v[1]);
    case OpKind::ArithSubI: return subWrap(v[0], v[1]);
    case OpKind::ArithMulI: return mulWrap(v[0], v[1]);
    case OpKind::ArithDivSI: return divSigned(v[0], v[1]);
    case OpKind::ArithDivUI: return divUnsigned(v[0], v[1]);
    case OpKind::ArithRemSI: return remSigned(v[0], v[1]);
    case OpKind::ArithRemUI: return remUnsigned(v[0], v[1]);
    case OpKind::ArithAndI: return static_cast<U>(v[0] & v[1]);
    case OpKind::ArithOrI: return static_cast<U>(v[0] | v[1]);
    case OpKind::ArithXOrI: return static_cast<U>(v[0] ^ v[1]);
    case OpKind::ArithShLI: return shiftLeft(v[0], v[1]);
    case OpKind::ArithShRSI: return shiftRightSigned(v[0], v[1]);
    case OpKind::ArithShRUI: return shiftRightUnsigned(v[0], v[1]);
    case OpKind::ArithMaxSI: return maxSigned(v[0], v[1]);
    case OpKind::ArithMinSI: return minSigned(v[0], v[1]);
    case OpKind::ArithMaxUI: return maxUnsigned(v[0], v[1]);
    case OpKind::ArithMinUI: return minUnsigned(v[0], v[1]);
    case OpKind::TTMulhiUI: return mulHighUnsigned(v[0], v[1]);
    case OpKind::MathAbsI: return absWrap(v[0]);
    case OpKind::ArithCmpI: {
      auto predicate = intPredicateOf(op);
      if (!predicate) return std::nullopt;
      return static_cast<U>(compareInt(*predicate, v[0], v[1]) ? 1 : 0);
    }
    default: return std::nullopt;
  }
}

template <typename U>
std::optional<uint64_t> intLaneOfWidth(const Operation& op, std::span<const uint64_t> lanes, bool isBool) {
  U values[3] = {};
  for (size_t i = 0; i < lanes.size() && i < 3; ++i)
    values[i] = isBool ? static_cast<U>(boolToWide(static_cast<uint8_t>(lanes[i]))) : static_cast<U>(lanes[i]);
  std::optional<U> result = intLane<U>(op, std::span<const U>(values, lanes.size()));
  if (!result) return std::nullopt;
  if (op.kind == OpKind::ArithCmpI) return static_cast<uint64_t>(*result);
  if (isBool) return wideToBool(static_cast<uint8_t>(*result));
  return static_cast<uint64_t>(*result);
}

template <ScalarKind K>
typename FloatCodec<K>::Compute decode(uint64_t bits) {
  using Storage = typename FloatCodec<K>::Storage;
  if constexpr (std::is_same_v<Storage, float>) return FloatCodec<K>::load(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  else if constexpr (std::is_same_v<Storage, double>) return FloatCodec<K>::load(std::bit_cast<double>(bits));
  else return FloatCodec<K>::load(static_cast<Storage>(bits));
}

template <ScalarKind K>
uint64_t encode(typename FloatCodec<K>::Compute value) {
  auto stored = FloatCodec<K>::store(value);
  if constexpr (std::is_same_v<decltype(stored), float>) return std::bit_cast<uint32_t>(stored);
  else if constexpr (std::is_same_v<decltype(stored), double>) return std::bit_cast<uint64_t>(stored);
  else return static_cast<uint64_t>(stored);
}

bool propagatesNaN(const Operation& op) {
  return propagateNanFrom(op.attr("propagateNan")) == PropagateNan::All;
}

template <ScalarKind K>
std::optional<uint64_t> floatLane(const Operation& op, std::span<const uint64_t> lanes, bool exactMath) {
  using C = typename FloatCodec<K>::Compute;
  const int width = bitWidth(K);
  const uint64_t sign = uint64_t{1} << (width - 1);
  C a = decode<K>(lanes[0]);
  C b = lanes.size() > 1 ? decode<K>(lanes[1]) : C(0);
  C c = lanes.size() > 2 ? decode<K>(lanes[2]) : C(0);
  auto math = [&](MathFunction function) {
    if (exactMath && exactmath::hasOwnAlgorithm(function)) return exactmath::evalBits(function, lanes[0], K);
    return floatBitsFromDouble(evalMath(function, static_cast<double>(a)), K);
  };
  switch (op.kind) {
    case OpKind::ArithAddF: return encode<K>(a + b);
    case OpKind::ArithSubF: return encode<K>(a - b);
    case OpKind::ArithMulF: return encode<K>(a * b);
    case OpKind::ArithDivF:
    case OpKind::TTPreciseDivF: return encode<K>(a / b);
    case OpKind::ArithRemF: return encode<K>(remainderNvidia<C>(a, b));
    case OpKind::ArithMaxNumF: return encode<K>(maxNum(a, b));
    case OpKind::ArithMinNumF: return encode<K>(minNum(a, b));
    case OpKind::ArithMaximumF: return encode<K>(maximum(a, b));
    case OpKind::ArithMinimumF: return encode<K>(minimum(a, b));
    case OpKind::ArithNegF: return lanes[0] ^ sign;
    case OpKind::MathAbsF: return lanes[0] & ~sign;
    case OpKind::MathSqrt:
    case OpKind::TTPreciseSqrt: return encode<K>(std::sqrt(a));
    case OpKind::MathFloor: return encode<K>(std::floor(a));
    case OpKind::MathCeil: return encode<K>(std::ceil(a));
    case OpKind::MathExp: return math(MathFunction::Exp);
    case OpKind::MathExp2: return math(MathFunction::Exp2);
    case OpKind::MathLog: return math(MathFunction::Log);
    case OpKind::MathLog2: return math(MathFunction::Log2);
    case OpKind::MathSin: return math(MathFunction::Sin);
    case OpKind::MathCos: return math(MathFunction::Cos);
    case OpKind::MathRsqrt: return math(MathFunction::Rsqrt);
    case OpKind::MathErf: return math(MathFunction::Erf);
    case OpKind::MathFma:
      return floatBitsFromDouble(fusedMultiplyAdd(static_cast<double>(a), static_cast<double>(b), static_cast<double>(c), K), K);
    case OpKind::TTClampF:
      return encode<K>(propagatesNaN(op) ? minimum(maximum(a, b), c) : minNum(maxNum(a, b), c));
    case OpKind::ArithCmpF: {
      auto predicate = floatPredicateOf(op);
      if (!predicate) return std::nullopt;
      return compareFloat(*predicate, a, b) ? 1 : 0;
    }
    default: return std::nullopt;
  }
}

Rounding roundingOf(const Operation& op) {
  return roundingModeFrom(op.attr("rounding")) == RoundingMode::Rtz ? Rounding::TowardZero : Rounding::NearestEven;
}

std::optional<uint64_t> castLane(const Operation& op, uint64_t bits, ScalarKind from, ScalarKind to, bool* ub) {
  switch (op.kind) {
    case OpKind::ArithExtSI: return maskToWidth(static_cast<uint64_t>(signExtendLane(bits, from)), to);
    case OpKind::ArithExtUI:
    case OpKind::ArithTruncI: return maskToWidth(maskToWidth(bits, from), to);
    case OpKind::ArithSIToFP: return floatBitsFromInteger(bits, bitWidth(from), false, to);
    case OpKind::ArithUIToFP: return floatBitsFromInteger(bits, bitWidth(from), true, to);
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI: {
      bool outOfRange = false;
      uint64_t value = integerFromFloat(doubleFromFloatBits(bits, from), from, bitWidth(to),
                                        op.kind == OpKind::ArithFPToUI, &outOfRange);
      *ub = outOfRange;
      return maskToWidth(value, to);
    }
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
    case OpKind::TTFpToFp:
      // bf16 -> f32 is a shift on NVIDIA (cvt.f32.bf16): NaN keeps its sign and payload (docs/semantics.md, Casts).
      if (from == ScalarKind::BF16 && to == ScalarKind::F32) return (bits & 0xFFFFu) << 16;
      return convertFloat(doubleFromFloatBits(bits, from), to,
                          op.kind == OpKind::TTFpToFp ? roundingOf(op) : Rounding::NearestEven);
    case OpKind::ArithBitcast:
    case OpKind::TTBitcast: return bits;
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> evalLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind operandKind,
                                 ScalarKind resultKind, bool exactMath, std::string* error, bool* undefinedBehaviour) {
  std::optional<uint64_t> result;
  *undefinedBehaviour = false;
  switch (op.kind) {
    case OpKind::ArithDivSI: case OpKind::ArithDivUI: case OpKind::ArithRemSI: case OpKind::ArithRemUI:
      *undefinedBehaviour = maskToWidth(lanes[1], operandKind) == 0;
      break;
    case OpKind::ArithShLI: case OpKind::ArithShRSI: case OpKind::ArithShRUI:
      *undefinedBehaviour = maskToWidth(lanes[1], operandKind) >= static_cast<uint64_t>(bitWidth(operandKind));
      break;
    default: break;
  }
  if (opInfo(op.kind).syntax == Syntax::Cast || op.kind == OpKind::TTFpToFp || op.kind == OpKind::TTBitcast) {
    result = castLane(op, lanes[0], operandKind, resultKind, undefinedBehaviour);
  } else if (isIntegerKind(operandKind)) {
    switch (operandKind) {
      case ScalarKind::I1: result = intLaneOfWidth<uint8_t>(op, lanes, true); break;
      case ScalarKind::I8: result = intLaneOfWidth<uint8_t>(op, lanes, false); break;
      case ScalarKind::I16: result = intLaneOfWidth<uint16_t>(op, lanes, false); break;
      case ScalarKind::I32: result = intLaneOfWidth<uint32_t>(op, lanes, false); break;
      case ScalarKind::I64: result = intLaneOfWidth<uint64_t>(op, lanes, false); break;
      default: break;
    }
  } else {
    switch (operandKind) {
      case ScalarKind::F16: result = floatLane<ScalarKind::F16>(op, lanes, exactMath); break;
      case ScalarKind::BF16: result = floatLane<ScalarKind::BF16>(op, lanes, exactMath); break;
      case ScalarKind::F32: result = floatLane<ScalarKind::F32>(op, lanes, exactMath); break;
      case ScalarKind::F64: result = floatLane<ScalarKind::F64>(op, lanes, exactMath); break;
      default: break;
    }
  }
  if (!result && error) *error = "reference: cannot evaluate " + std::string(op.name()) + " on " + scalarKindName(operandKind);
  if (result) *result = maskToWidth(*result, resultKind);
  return result;
}

}  // namespace tilesim::fuzz
