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
#include "ir/OpFacts.h"
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

template <typename U>
U intArithLane(IntArithOp op, std::span<const U> v) {
  switch (op) {
    case IntArithOp::ArithAddI: return addWrap(v[0], v[1]);
    case IntArithOp::ArithSubI: return subWrap(v[0], v[1]);
    case IntArithOp::ArithMulI: return mulWrap(v[0], v[1]);
    case IntArithOp::ArithDivSI: return divSigned(v[0], v[1]);
    case IntArithOp::ArithDivUI: return divUnsigned(v[0], v[1]);
    case IntArithOp::ArithRemSI: return remSigned(v[0], v[1]);
    case IntArithOp::ArithRemUI: return remUnsigned(v[0], v[1]);
    case IntArithOp::ArithAndI: return static_cast<U>(v[0] & v[1]);
    case IntArithOp::ArithOrI: return static_cast<U>(v[0] | v[1]);
    case IntArithOp::ArithXOrI: return static_cast<U>(v[0] ^ v[1]);
    case IntArithOp::ArithShLI: return shiftLeft(v[0], v[1]);
    case IntArithOp::ArithShRSI: return shiftRightSigned(v[0], v[1]);
    case IntArithOp::ArithShRUI: return shiftRightUnsigned(v[0], v[1]);
    case IntArithOp::ArithMaxSI: return maxSigned(v[0], v[1]);
    case IntArithOp::ArithMinSI: return minSigned(v[0], v[1]);
    case IntArithOp::ArithMaxUI: return maxUnsigned(v[0], v[1]);
    case IntArithOp::ArithMinUI: return minUnsigned(v[0], v[1]);
    case IntArithOp::TTMulhiUI: return mulHighUnsigned(v[0], v[1]);
    case IntArithOp::MathAbsI: return absWrap(v[0]);
  }
  return 0;
}

// An integer lane op (IntArith, arith.cmpi) at width U; i1 lanes are widened with boolToWide first.
template <typename U>
uint64_t intLaneOfWidth(const Operation& op, std::span<const uint64_t> lanes, bool isBool) {
  U values[3] = {};
  for (size_t i = 0; i < lanes.size() && i < 3; ++i)
    values[i] = isBool ? static_cast<U>(boolToWide(static_cast<uint8_t>(lanes[i]))) : static_cast<U>(lanes[i]);
  const std::span<const U> v(values, lanes.size());
  if (op.kind == OpKind::ArithCmpI) return compareInt(CmpIView{op}.predicate(), v[0], v[1]) ? 1 : 0;
  const U result = intArithLane<U>(familyOp<IntArithOp>(op.kind), v);
  if (isBool) return wideToBool(static_cast<uint8_t>(result));
  return static_cast<uint64_t>(result);
}

std::optional<uint64_t> intLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind kind) {
  switch (kind) {
    case ScalarKind::I1: return intLaneOfWidth<uint8_t>(op, lanes, true);
    case ScalarKind::I8: return intLaneOfWidth<uint8_t>(op, lanes, false);
    case ScalarKind::I16: return intLaneOfWidth<uint16_t>(op, lanes, false);
    case ScalarKind::I32: return intLaneOfWidth<uint32_t>(op, lanes, false);
    case ScalarKind::I64: return intLaneOfWidth<uint64_t>(op, lanes, false);
    default: return std::nullopt;  // not an integer kind
  }
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

// The operand lanes of a float op decoded once, and the two ways a result is encoded.
template <ScalarKind K>
struct FloatLanes {
  using C = typename FloatCodec<K>::Compute;
  std::span<const uint64_t> lanes;
  bool exactMath;
  C a = decode<K>(lanes[0]);
  C b = lanes.size() > 1 ? decode<K>(lanes[1]) : C(0);
  C c = lanes.size() > 2 ? decode<K>(lanes[2]) : C(0);
  uint64_t sign() const { return uint64_t{1} << (bitWidth(K) - 1); }

  // NVIDIA's f64 NaN results (ScalarEval.h F64NaN); other kinds encode the canonical NaN.
  uint64_t arith(C value, F64NaN rule) const {
    if (K == ScalarKind::F64 && value != value) return f64NaNResult(rule, lanes[0], lanes.size() > 1 ? lanes[1] : 0);
    return encode<K>(value);
  }
  // The exact profile's own algorithm where it has one, else the correctly rounded value.
  uint64_t math(MathFunction function) const {
    if (exactMath && exactmath::hasOwnAlgorithm(function)) return exactmath::evalBits(function, lanes[0], K);
    return floatBitsFromDouble(evalMath(function, static_cast<double>(a)), K);
  }
};

template <ScalarKind K>
uint64_t floatArithLane(const Operation& op, const FloatLanes<K>& f) {
  const auto a = f.a, b = f.b, c = f.c;
  switch (familyOp<FloatArithOp>(op.kind)) {
    case FloatArithOp::ArithAddF: return f.arith(a + b, F64NaN::SecondFirst);
    case FloatArithOp::ArithSubF: return f.arith(a - b, F64NaN::SecondFirst);
    case FloatArithOp::ArithMulF: return f.arith(a * b, F64NaN::SecondFirst);
    case FloatArithOp::ArithDivF:
    case FloatArithOp::TTPreciseDivF: return f.arith(a / b, F64NaN::FirstFirst);
    case FloatArithOp::ArithRemF:  // an infinite divisor selects the dividend's bits unchanged (f32, f64)
      if ((K == ScalarKind::F32 || K == ScalarKind::F64) && std::isinf(b)) return f.lanes[0];
      return f.arith(remainderNvidia<typename FloatLanes<K>::C>(a, b), F64NaN::FirstFirst);
    case FloatArithOp::ArithMaxNumF: return f.arith(maxNum(a, b), F64NaN::SecondFirst);
    case FloatArithOp::ArithMinNumF: return f.arith(minNum(a, b), F64NaN::SecondFirst);
    case FloatArithOp::ArithMaximumF: return f.arith(maximum(a, b), F64NaN::Positive);
    case FloatArithOp::ArithMinimumF: return f.arith(minimum(a, b), F64NaN::Positive);
    case FloatArithOp::ArithNegF: return f.lanes[0] ^ f.sign();
    case FloatArithOp::TTClampF:
      return encode<K>(ClampFView{op}.propagateNan() == PropagateNan::All ? minimum(maximum(a, b), c) : minNum(maxNum(a, b), c));
  }
  return 0;
}

// The math functions the reference takes from ScalarEval's library (and, under the exact profile, from the
// exact profile's own algorithms); nullopt for the math ops written out in mathLane.
std::optional<MathFunction> libraryFunction(MathOp op) {
  switch (op) {
    case MathOp::MathExp: return MathFunction::Exp;
    case MathOp::MathExp2: return MathFunction::Exp2;
    case MathOp::MathLog: return MathFunction::Log;
    case MathOp::MathLog2: return MathFunction::Log2;
    case MathOp::MathSin: return MathFunction::Sin;
    case MathOp::MathCos: return MathFunction::Cos;
    case MathOp::MathRsqrt: return MathFunction::Rsqrt;
    case MathOp::MathErf: return MathFunction::Erf;
    case MathOp::MathSqrt: case MathOp::TTPreciseSqrt: case MathOp::MathFloor: case MathOp::MathCeil:
    case MathOp::MathAbsF: case MathOp::MathFma: return std::nullopt;
  }
  return std::nullopt;
}

template <ScalarKind K>
uint64_t mathLane(const Operation& op, const FloatLanes<K>& f) {
  const auto a = f.a, b = f.b, c = f.c;
  const MathOp mathOp = familyOp<MathOp>(op.kind);
  if (std::optional<MathFunction> function = libraryFunction(mathOp)) return f.math(*function);
  switch (mathOp) {
    case MathOp::MathAbsF: return f.lanes[0] & ~f.sign();
    case MathOp::MathSqrt:
    case MathOp::TTPreciseSqrt: return f.arith(std::sqrt(a), F64NaN::FirstFirst);
    case MathOp::MathFloor: return encode<K>(std::floor(a));
    case MathOp::MathCeil: return encode<K>(std::ceil(a));
    case MathOp::MathFma:
      if (K == ScalarKind::F64 && std::isnan(std::fma(static_cast<double>(a), static_cast<double>(b), static_cast<double>(c))))
        return f64NaNResult(F64NaN::FmaOrder, f.lanes[0], f.lanes[1], f.lanes[2]);
      return floatBitsFromDouble(fusedMultiplyAdd(static_cast<double>(a), static_cast<double>(b), static_cast<double>(c), K), K);
    case MathOp::MathExp: case MathOp::MathExp2: case MathOp::MathLog: case MathOp::MathLog2: case MathOp::MathSin:
    case MathOp::MathCos: case MathOp::MathRsqrt: case MathOp::MathErf: break;  // libraryFunction above
  }
  return 0;
}

// A float lane op (FloatArith, Math, arith.cmpf) on lanes of kind K.
template <ScalarKind K>
uint64_t floatLaneOfKind(const Operation& op, std::span<const uint64_t> lanes, bool exactMath) {
  const FloatLanes<K> f{lanes, exactMath};
  if (op.kind == OpKind::ArithCmpF) return compareFloat(CmpFView{op}.predicate(), f.a, f.b) ? 1 : 0;
  if (opFamily(op.kind) == OpFamily::Math) return mathLane<K>(op, f);
  return floatArithLane<K>(op, f);
}

std::optional<uint64_t> floatLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind kind, bool exactMath) {
  switch (kind) {
    case ScalarKind::F16: return floatLaneOfKind<ScalarKind::F16>(op, lanes, exactMath);
    case ScalarKind::BF16: return floatLaneOfKind<ScalarKind::BF16>(op, lanes, exactMath);
    case ScalarKind::F32: return floatLaneOfKind<ScalarKind::F32>(op, lanes, exactMath);
    case ScalarKind::F64: return floatLaneOfKind<ScalarKind::F64>(op, lanes, exactMath);
    default: return std::nullopt;  // not an arithmetic float kind
  }
}

Rounding roundingOf(const Operation& op) {
  return FpToFpView{op}.rounding() == RoundingMode::Rtz ? Rounding::TowardZero : Rounding::NearestEven;
}

uint64_t castLane(const Operation& op, uint64_t bits, ScalarKind from, ScalarKind to, bool* ub) {
  switch (familyOp<CastOp>(op.kind)) {
    case CastOp::ArithExtSI: return maskToWidth(static_cast<uint64_t>(signExtendLane(bits, from)), to);
    case CastOp::ArithExtUI:
    case CastOp::ArithTruncI: return maskToWidth(maskToWidth(bits, from), to);
    case CastOp::ArithSIToFP: return floatBitsFromInteger(bits, bitWidth(from), false, to);
    case CastOp::ArithUIToFP: return floatBitsFromInteger(bits, bitWidth(from), true, to);
    case CastOp::ArithFPToSI:
    case CastOp::ArithFPToUI: {
      bool outOfRange = false;
      uint64_t value = integerFromFloat(doubleFromFloatBits(bits, from), from, bitWidth(to),
                                        op.kind == OpKind::ArithFPToUI, &outOfRange);
      *ub = outOfRange;
      return maskToWidth(value, to);
    }
    case CastOp::ArithExtF:
    case CastOp::ArithTruncF:
    case CastOp::TTFpToFp:
      if (std::optional<uint64_t> nan = convertedNaNBits(bits, from, to)) return *nan;
      return convertFloat(doubleFromFloatBits(bits, from), to, op.kind == OpKind::TTFpToFp ? roundingOf(op) : Rounding::NearestEven);
    case CastOp::ArithBitcast:
    case CastOp::TTBitcast: return bits;
  }
  return bits;
}

// Whether this lane is one LLVM may treat as undefined behaviour (the op table's UB column). Float -> int
// conversions find out while converting (castLane).
bool undefinedBehaviourLane(OpKind kind, std::span<const uint64_t> lanes, ScalarKind operandKind) {
  switch (opFacts(kind).undefinedBehaviour) {
    case UndefinedBehaviour::Never:
    case UndefinedBehaviour::FloatToIntOutOfRange: return false;
    case UndefinedBehaviour::ZeroDivisor: return maskToWidth(lanes[1], operandKind) == 0;
    case UndefinedBehaviour::ShiftPastWidth:
      return maskToWidth(lanes[1], operandKind) >= static_cast<uint64_t>(bitWidth(operandKind));
  }
  return false;
}

}  // namespace

bool usesLibraryMath(OpKind kind) {
  return opFamily(kind) == OpFamily::Math && libraryFunction(familyOp<MathOp>(kind)).has_value();
}

std::optional<uint64_t> evalLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind operandKind,
                                 ScalarKind resultKind, bool exactMath, std::string* error, bool* undefinedBehaviour) {
  std::optional<uint64_t> result;
  *undefinedBehaviour = undefinedBehaviourLane(op.kind, lanes, operandKind);
  switch (opFamily(op.kind)) {
    case OpFamily::IntArith: result = intLane(op, lanes, operandKind); break;
    case OpFamily::FloatArith:
    case OpFamily::Math: result = floatLane(op, lanes, operandKind, exactMath); break;
    case OpFamily::Compare:  // arith.select is not lane arithmetic: ReferenceEval picks the side itself
      if (op.kind == OpKind::ArithCmpI) result = intLane(op, lanes, operandKind);
      if (op.kind == OpKind::ArithCmpF) result = floatLane(op, lanes, operandKind, exactMath);
      break;
    case OpFamily::Cast: result = castLane(op, lanes[0], operandKind, resultKind, undefinedBehaviour); break;
    // Not lane arithmetic the reference models (libdevice, inline asm), or not elementwise at all.
    case OpFamily::External: case OpFamily::Constant: case OpFamily::Program: case OpFamily::Shape:
    case OpFamily::Pointer: case OpFamily::Memory: case OpFamily::Atomic: case OpFamily::Dot:
    case OpFamily::ReduceScan: case OpFamily::ControlFlow: case OpFamily::Function: case OpFamily::Terminator:
    case OpFamily::Debug: break;
  }
  if (!result && error) *error = "reference: cannot evaluate " + std::string(op.name()) + " on " + scalarKindName(operandKind);
  if (result) *result = maskToWidth(*result, resultKind);
  return result;
}

}  // namespace tilesim::fuzz
