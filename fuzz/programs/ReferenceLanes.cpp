// Lane-by-lane semantics for the fuzzer's reference (see ReferenceLanes.h). Every value is computed by the
// fuzzer's own scalar oracle (OracleScalar.h), written again from docs/semantics.md, so a bug planted in the
// interpreter's shared scalar code (ir/eval/ScalarEval) is a mismatch instead of a copied expected value:
// integer arithmetic, compares, shifts, division, min/max; float + - * / remf, max/min in both NaN conventions,
// clampf, negf, absf, sqrt, floor, ceil, fma, cmpf; every cast (int <-> float, float <-> float with rtne/rtz and
// fp8 satfinite, NaN payloads) and bitcasts.
//
// What still goes through ir/eval, and why: the transcendental math functions math.exp, exp2, log, log2, sin,
// cos, rsqrt and erf. Their value under the exact profile is, by definition, the result of ir/eval/ExactMath's own
// algorithms (a fixed sequence of IEEE operations, checked against its baseline in exact_math_clones_test), and
// under the triton profile the correctly rounded value of <cmath>'s function (ScalarEval's evalMath, only a switch
// over <cmath> calls). The oracle decodes their operand and rounds their double result itself.
#include "fuzz/programs/ReferenceLanes.h"

#include <bit>
#include <cmath>

#include "fuzz/programs/OracleScalar.h"
#include "ir/OpAttributes.h"
#include "ir/OpFacts.h"
#include "ir/eval/ExactMath.h"
#include "ir/eval/ScalarEval.h"

namespace tilesim::fuzz {

using scalar::evalMath;
using scalar::MathFunction;

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

// Integer lane ops (IntArith, arith.cmpi): the oracle at the kind's width (i1 is width 1).
std::optional<uint64_t> intLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind kind) {
  if (!isIntegerKind(kind)) return std::nullopt;
  const int width = bitWidth(kind);
  const uint64_t b = lanes.size() > 1 ? lanes[1] : 0;
  if (op.kind == OpKind::ArithCmpI) return oracle::integerCompare(CmpIView{op}.predicate(), width, lanes[0], b) ? 1 : 0;
  return oracle::integerArith(familyOp<IntArithOp>(op.kind), width, lanes[0], b);
}

// The math functions the reference still takes from ir/eval (see the opening comment); nullopt for the math ops
// with an exact definition, which the oracle computes.
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

uint64_t mathLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind kind, bool exactMath) {
  const MathOp mathOp = familyOp<MathOp>(op.kind);
  if (std::optional<MathFunction> function = libraryFunction(mathOp)) {
    // The exact profile's own algorithm where it has one, else the correctly rounded value of <cmath>'s function.
    if (exactMath && exactmath::hasOwnAlgorithm(*function)) return exactmath::evalBits(*function, lanes[0], kind);
    return oracle::encodeFloat(evalMath(*function, oracle::decodeFloat(lanes[0], kind)), kind);
  }
  const uint64_t b = lanes.size() > 1 ? lanes[1] : 0, c = lanes.size() > 2 ? lanes[2] : 0;
  switch (mathOp) {
    case MathOp::MathAbsF: return oracle::floatExactMath(oracle::ExactMath::Abs, kind, lanes[0]);
    case MathOp::MathSqrt:
    case MathOp::TTPreciseSqrt: return oracle::floatExactMath(oracle::ExactMath::Sqrt, kind, lanes[0]);
    case MathOp::MathFloor: return oracle::floatExactMath(oracle::ExactMath::Floor, kind, lanes[0]);
    case MathOp::MathCeil: return oracle::floatExactMath(oracle::ExactMath::Ceil, kind, lanes[0]);
    case MathOp::MathFma: return oracle::floatExactMath(oracle::ExactMath::Fma, kind, lanes[0], b, c);
    case MathOp::MathExp: case MathOp::MathExp2: case MathOp::MathLog: case MathOp::MathLog2: case MathOp::MathSin:
    case MathOp::MathCos: case MathOp::MathRsqrt: case MathOp::MathErf: break;  // libraryFunction above
  }
  return 0;
}

// A float lane op (FloatArith, Math, arith.cmpf) on lanes of an arithmetic float kind (f16, bf16, f32, f64).
std::optional<uint64_t> floatLane(const Operation& op, std::span<const uint64_t> lanes, ScalarKind kind, bool exactMath) {
  if (kind != ScalarKind::F16 && kind != ScalarKind::BF16 && kind != ScalarKind::F32 && kind != ScalarKind::F64)
    return std::nullopt;  // fp8 arithmetic does not lower on NVIDIA; integers are not float lanes
  const uint64_t b = lanes.size() > 1 ? lanes[1] : 0, c = lanes.size() > 2 ? lanes[2] : 0;
  if (op.kind == OpKind::ArithCmpF) return oracle::floatCompare(CmpFView{op}.predicate(), kind, lanes[0], b) ? 1 : 0;
  if (opFamily(op.kind) == OpFamily::Math) return mathLane(op, lanes, kind, exactMath);
  const bool clampPropagatesNan = op.kind == OpKind::TTClampF && ClampFView{op}.propagateNan() == PropagateNan::All;
  return oracle::floatArith(familyOp<FloatArithOp>(op.kind), kind, lanes[0], b, c, clampPropagatesNan);
}

oracle::Round roundingOf(const Operation& op) {
  if (op.kind != OpKind::TTFpToFp) return oracle::Round::NearestEven;
  return FpToFpView{op}.rounding() == RoundingMode::Rtz ? oracle::Round::TowardZero : oracle::Round::NearestEven;
}

uint64_t castLane(const Operation& op, uint64_t bits, ScalarKind from, ScalarKind to, bool* ub) {
  switch (familyOp<CastOp>(op.kind)) {
    case CastOp::ArithExtSI: return maskToWidth(static_cast<uint64_t>(signExtendLane(bits, from)), to);
    case CastOp::ArithExtUI:
    case CastOp::ArithTruncI: return maskToWidth(maskToWidth(bits, from), to);
    case CastOp::ArithSIToFP: return oracle::integerToFloat(bits, bitWidth(from), false, to);
    case CastOp::ArithUIToFP: return oracle::integerToFloat(bits, bitWidth(from), true, to);
    case CastOp::ArithFPToSI:
    case CastOp::ArithFPToUI:
      return oracle::floatToInteger(bits, from, bitWidth(to), op.kind == OpKind::ArithFPToUI, ub);
    case CastOp::ArithExtF:
    case CastOp::ArithTruncF:
    case CastOp::TTFpToFp: return oracle::floatToFloat(bits, from, to, roundingOf(op));
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
    case OpFamily::Debug: case OpFamily::SharedMemory: case OpFamily::Hopper: break;
  }
  if (!result && error) *error = "reference: cannot evaluate " + std::string(op.name()) + " on " + scalarKindName(operandKind);
  if (result) *result = maskToWidth(*result, resultKind);
  return result;
}

}  // namespace tilesim::fuzz
