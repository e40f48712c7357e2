// Operators of triton.language as Triton 3.6's semantic.py builds them: + - * / // % & | ^ << >>,
// comparisons, where, maximum/minimum, unary minus/invert and the fp32/fp64-only math functions.
#include <algorithm>
#include <iterator>
#include <tuple>

#include "ir/OpAttributes.h"
#include "ir/builder/Promotion.h"
#include "ir/builder/Semantic.h"

namespace tilesim::builder::semantic {

namespace {

[[noreturn]] void incompatible(const Tensor& a, const Tensor& b) {
  auto repr = [](const Tensor& t) {
    return t.pointer ? "pointer<" + dtypeRepr(t.dtype) + ">" : dtypeRepr(t.dtype);
  };
  throwFrontendError(FrontendError::Kind::IncompatibleTypeError,
                     "invalid operands of type " + repr(a) + " and " + repr(b));
}

// check_ptr_type_impl
void checkPointer(const Tensor& a, const Tensor& b, bool allowPointer) {
  if (!a.pointer) return;
  if (!allowPointer) incompatible(a, b);
  if (b.pointer && a.dtype != b.dtype) incompatible(a, b);
  if (!b.pointer && isFloating(b.dtype)) incompatible(a, b);
}

Tensor emitSameType(Emitter& emitter, OpKind kind, const Tensor& a, const Tensor& b) {
  Value* result = emitter.createValue(kind, {a.value, b.value}, a.value->type);
  return Emitter::tensorOf(result, a.dtype, false, a.shape);
}

std::pair<Tensor, Tensor> bitwiseTypeCheck(Emitter& emitter, const Operand& a, const Operand& b) {
  auto [lhs, rhs] = typeCheck(emitter, a, b, false, false, true, false);
  if (!isInt(lhs.dtype) || !isInt(rhs.dtype)) incompatible(lhs, rhs);
  DType promoted = integerPromote(lhs.dtype, rhs.dtype);
  return {emitter.cast(lhs, promoted), emitter.cast(rhs, promoted)};
}

Tensor addPointer(Emitter& emitter, Tensor pointer, Tensor offset) {
  if (isUnsignedInt(offset.dtype) && primitiveBitWidth(offset.dtype) < 64) {
    // tt.addptr treats the offset as signed: zero-extend narrow unsigned offsets.
    Value* wide = emitter.createValue(OpKind::ArithExtUI, {offset.value}, Emitter::typeOf(DType::Int64, false, offset.shape));
    offset = Emitter::tensorOf(wide, DType::Int64, false, offset.shape);
  }
  Value* result = emitter.createValue(OpKind::TTAddPtr, {pointer.value, offset.value}, pointer.value->type);
  return Emitter::tensorOf(result, pointer.dtype, true, pointer.shape);
}

}  // namespace

Tensor toTensor(Emitter& emitter, const Operand& operand) {
  if (!operand.isLiteral()) return operand.tensor();
  return emitter.constant(operand.literal(), literalDType(operand.literal()));
}

std::pair<Tensor, Tensor> typeCheck(Emitter& emitter, const Operand& a, const Operand& b, bool allowLhsPointer,
                                    bool allowRhsPointer, bool arithmeticCheck, bool divOrMod) {
  bool aIsScalar = a.isLiteral(), bIsScalar = b.isLiteral();
  // The dtypes the operands have before promotion (literals: to_tensor's choice).
  Tensor lhsType = aIsScalar ? Tensor{nullptr, literalDType(a.literal()), false, {}} : a.tensor();
  Tensor rhsType = bIsScalar ? Tensor{nullptr, literalDType(b.literal()), false, {}} : b.tensor();
  checkPointer(lhsType, rhsType, allowLhsPointer);
  checkPointer(rhsType, lhsType, allowRhsPointer);
  Tensor lhs, rhs;
  if (arithmeticCheck && !lhsType.pointer && !rhsType.pointer) {
    DType computation = computationType(lhsType.dtype, aIsScalar, rhsType.dtype, bIsScalar, divOrMod);
    if (aIsScalar) checkLiteralFits(a.literal(), computation);
    if (bIsScalar) checkLiteralFits(b.literal(), computation);
    lhs = aIsScalar ? emitter.constant(a.literal(), computation) : emitter.cast(a.tensor(), computation);
    rhs = bIsScalar ? emitter.constant(b.literal(), computation) : emitter.cast(b.tensor(), computation);
  } else {
    lhs = toTensor(emitter, a);
    rhs = toTensor(emitter, b);
  }
  return emitter.broadcastPair(lhs, rhs);
}

Tensor binary(Emitter& emitter, BinaryOp op, const Operand& a, const Operand& b) {
  switch (op) {
    case BinaryOp::Add: {
      auto [lhs, rhs] = typeCheck(emitter, a, b, true, true, true, false);
      if (lhs.pointer && rhs.pointer)
        throwFrontendError(FrontendError::Kind::TypeError, "cannot add pointers together");
      if (rhs.pointer) std::swap(lhs, rhs);
      if (lhs.pointer) return addPointer(emitter, lhs, rhs);
      return emitSameType(emitter, isFloating(lhs.dtype) ? OpKind::ArithAddF : OpKind::ArithAddI, lhs, rhs);
    }
    case BinaryOp::Sub: {
      auto [lhs, rhs] = typeCheck(emitter, a, b, true, false, true, false);
      if (lhs.pointer) return addPointer(emitter, lhs, minus(emitter, rhs));
      return emitSameType(emitter, isFloating(lhs.dtype) ? OpKind::ArithSubF : OpKind::ArithSubI, lhs, rhs);
    }
    case BinaryOp::Mul: {
      auto [lhs, rhs] = typeCheck(emitter, a, b, false, false, true, false);
      return emitSameType(emitter, isFloating(lhs.dtype) ? OpKind::ArithMulF : OpKind::ArithMulI, lhs, rhs);
    }
    case BinaryOp::TrueDiv: {
      auto [lhs, rhs] = typeCheck(emitter, a, b, false, false, true, true);
      if (isInt(lhs.dtype) && isInt(rhs.dtype)) {
        lhs = emitter.cast(lhs, DType::Fp32);
        rhs = emitter.cast(rhs, DType::Fp32);
      } else if (isFloating(lhs.dtype) && isInt(rhs.dtype)) {
        rhs = emitter.cast(rhs, lhs.dtype);
      } else if (isInt(lhs.dtype) && isFloating(rhs.dtype)) {
        lhs = emitter.cast(lhs, rhs.dtype);
      } else if (mantissaWidth(lhs.dtype) > mantissaWidth(rhs.dtype)) {
        rhs = emitter.cast(rhs, lhs.dtype);
      } else {
        lhs = emitter.cast(lhs, rhs.dtype);
      }
      return emitSameType(emitter, OpKind::ArithDivF, lhs, rhs);
    }
    case BinaryOp::FloorDiv: {
      auto [lhs, rhs] = typeCheck(emitter, a, b, false, false, true, true);
      if (!isInt(lhs.dtype))
        throwFrontendError(FrontendError::Kind::TypeError, "unexpected type " + std::string(dtypeName(lhs.dtype)));
      return emitSameType(emitter, isSignedInt(lhs.dtype) ? OpKind::ArithDivSI : OpKind::ArithDivUI, lhs, rhs);
    }
    case BinaryOp::Mod: {
      auto [lhs, rhs] = typeCheck(emitter, a, b, false, false, true, true);
      if (isFloating(lhs.dtype)) return emitSameType(emitter, OpKind::ArithRemF, lhs, rhs);
      return emitSameType(emitter, isSignedInt(lhs.dtype) ? OpKind::ArithRemSI : OpKind::ArithRemUI, lhs, rhs);
    }
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
    case BinaryOp::Shl: {
      auto [lhs, rhs] = bitwiseTypeCheck(emitter, a, b);
      OpKind kind = op == BinaryOp::And ? OpKind::ArithAndI
                    : op == BinaryOp::Or ? OpKind::ArithOrI
                    : op == BinaryOp::Xor ? OpKind::ArithXOrI
                                          : OpKind::ArithShLI;
      return emitSameType(emitter, kind, lhs, rhs);
    }
    case BinaryOp::Shr: {
      // `>>` is arithmetic when the left operand's own dtype is signed (decided before promotion).
      DType leftDType = a.isLiteral() ? literalDType(a.literal()) : a.tensor().dtype;
      auto [lhs, rhs] = bitwiseTypeCheck(emitter, a, b);
      return emitSameType(emitter, isSignedInt(leftDType) ? OpKind::ArithShRSI : OpKind::ArithShRUI, lhs, rhs);
    }
  }
  return {};
}

Tensor compare(Emitter& emitter, CompareOp op, const Operand& a, const Operand& b) {
  Tensor left = toTensor(emitter, a);
  Tensor right = toTensor(emitter, b);
  auto [lhs, rhs] = typeCheck(emitter, left, right, false, false, true, false);
  std::string_view predicate;
  OpKind kind = OpKind::ArithCmpI;
  if (isFloating(lhs.dtype)) {
    kind = OpKind::ArithCmpF;
    switch (op) {
      case CompareOp::Lt: predicate = keywordName(FloatPredicate::Olt); break;
      case CompareOp::Le: predicate = keywordName(FloatPredicate::Ole); break;
      case CompareOp::Gt: predicate = keywordName(FloatPredicate::Ogt); break;
      case CompareOp::Ge: predicate = keywordName(FloatPredicate::Oge); break;
      case CompareOp::Eq: predicate = keywordName(FloatPredicate::Oeq); break;
      case CompareOp::Ne: predicate = keywordName(FloatPredicate::Une); break;
    }
  } else {
    bool isSigned = isSignedInt(lhs.dtype);
    switch (op) {
      case CompareOp::Lt: predicate = keywordName(isSigned ? IntPredicate::Slt : IntPredicate::Ult); break;
      case CompareOp::Le: predicate = keywordName(isSigned ? IntPredicate::Sle : IntPredicate::Ule); break;
      case CompareOp::Gt: predicate = keywordName(isSigned ? IntPredicate::Sgt : IntPredicate::Ugt); break;
      case CompareOp::Ge: predicate = keywordName(isSigned ? IntPredicate::Sge : IntPredicate::Uge); break;
      case CompareOp::Eq: predicate = keywordName(IntPredicate::Eq); break;
      case CompareOp::Ne: predicate = keywordName(IntPredicate::Ne); break;
    }
  }
  Value* result = emitter.createValue(kind, {lhs.value, rhs.value}, Emitter::typeOf(DType::Int1, false, lhs.shape),
                                      {{"predicate", Attribute::keyword(std::string(predicate))}});
  return Emitter::tensorOf(result, DType::Int1, false, lhs.shape);
}

Tensor minMax(Emitter& emitter, bool isMax, const Operand& a, const Operand& b, PropagateNan nan) {
  // to_tensor first (strong literals), then bf16 is promoted to fp32 before the usual rules.
  Tensor left = toTensor(emitter, a);
  Tensor right = toTensor(emitter, b);
  if (left.dtype == DType::BF16) left = emitter.cast(left, DType::Fp32);
  if (right.dtype == DType::BF16) right = emitter.cast(right, DType::Fp32);
  auto [lhs, rhs] = typeCheck(emitter, left, right, false, false, true, false);
  OpKind kind;
  if (isFloating(lhs.dtype)) {
    bool all = nan == PropagateNan::All;
    kind = isMax ? (all ? OpKind::ArithMaximumF : OpKind::ArithMaxNumF) : (all ? OpKind::ArithMinimumF : OpKind::ArithMinNumF);
  } else if (isSignedInt(lhs.dtype)) {
    kind = isMax ? OpKind::ArithMaxSI : OpKind::ArithMinSI;
  } else {
    kind = isMax ? OpKind::ArithMaxUI : OpKind::ArithMinUI;
  }
  return emitSameType(emitter, kind, lhs, rhs);
}

Tensor where(Emitter& emitter, const Operand& conditionOperand, const Operand& x, const Operand& y) {
  Tensor condition = toTensor(emitter, conditionOperand);
  if (condition.dtype != DType::Int1) condition = emitter.cast(condition, DType::Int1);
  auto [lhs, rhs] = typeCheck(emitter, x, y, true, true, true, false);
  if (condition.isBlock()) {
    std::tie(condition, lhs) = emitter.broadcastPair(condition, lhs);
    std::tie(lhs, rhs) = emitter.broadcastPair(lhs, rhs);
  } else {
    condition = emitter.broadcastPair(condition, lhs).first;
  }
  Value* result = emitter.createValue(OpKind::ArithSelect, {condition.value, lhs.value, rhs.value}, lhs.value->type);
  return Emitter::tensorOf(result, lhs.dtype, lhs.pointer, lhs.shape);
}

Tensor minus(Emitter& emitter, const Tensor& x) {
  if (x.pointer)
    throwFrontendError(FrontendError::Kind::ValueError,
                       "wrong type argument to unary minus (pointer<" + dtypeRepr(x.dtype) + ">)");
  Tensor zero = emitter.constant(isFloating(x.dtype) ? Literal(0.0) : Literal(0), x.dtype);
  return binary(emitter, BinaryOp::Sub, zero, x);
}

Tensor invert(Emitter& emitter, const Tensor& x) {
  if (x.pointer || isFloating(x.dtype))
    throwFrontendError(FrontendError::Kind::ValueError,
                       "wrong type argument to unary invert (" + dtypeRepr(x.dtype) + ")");
  Tensor ones = emitter.constant(Literal(-1), x.dtype);
  return binary(emitter, BinaryOp::Xor, x, ones);
}

Tensor math(Emitter& emitter, MathOp op, const Tensor& x) {
  if (x.pointer || (x.dtype != DType::Fp32 && x.dtype != DType::Fp64))
    throwFrontendError(FrontendError::Kind::ValueError,
                       "Expected dtype ['fp32', 'fp64'] but got " + std::string(dtypeName(x.dtype)));
  OpKind kind = OpKind::MathExp;
  switch (op) {
    case MathOp::Exp: kind = OpKind::MathExp; break;
    case MathOp::Exp2: kind = OpKind::MathExp2; break;
    case MathOp::Log: kind = OpKind::MathLog; break;
    case MathOp::Log2: kind = OpKind::MathLog2; break;
    case MathOp::Sin: kind = OpKind::MathSin; break;
    case MathOp::Cos: kind = OpKind::MathCos; break;
    case MathOp::Sqrt: kind = OpKind::MathSqrt; break;
    case MathOp::Rsqrt: kind = OpKind::MathRsqrt; break;
    case MathOp::Floor: kind = OpKind::MathFloor; break;
    case MathOp::Ceil: kind = OpKind::MathCeil; break;
  }
  Value* result = emitter.createValue(kind, {x.value}, x.value->type);
  return Emitter::tensorOf(result, x.dtype, false, x.shape);
}

Tensor abs(Emitter& emitter, const Tensor& x) {
  if (isUnsignedInt(x.dtype)) return x;
  Value* result = emitter.createValue(isFloating(x.dtype) ? OpKind::MathAbsF : OpKind::MathAbsI, {x.value}, x.value->type);
  return Emitter::tensorOf(result, x.dtype, false, x.shape);
}

Tensor clamp(Emitter& emitter, const Operand& x, const Operand& lo, const Operand& hi, PropagateNan nan) {
  // core.clamp: to_tensor and bf16 -> fp32 on all three, then semantic.clamp's three pairwise legalizations
  // in Triton's order (min with max, x with min, x with max).
  Tensor value = toTensor(emitter, x), low = toTensor(emitter, lo), high = toTensor(emitter, hi);
  for (Tensor* t : {&value, &low, &high})
    if (t->dtype == DType::BF16) *t = emitter.cast(*t, DType::Fp32);
  std::tie(low, high) = typeCheck(emitter, low, high, false, false, true, false);
  std::tie(value, low) = typeCheck(emitter, value, low, false, false, true, false);
  std::tie(value, high) = typeCheck(emitter, value, high, false, false, true, false);
  if (!isFloating(value.dtype))
    throwFrontendError(FrontendError::Kind::ValueError,
                       "Unexpected dtype " + std::string(dtypeName(value.dtype)) + ". Only floating point clamp is supported");
  Value* result = emitter.createValue(OpKind::TTClampF, {value.value, low.value, high.value}, value.value->type,
                                      {{"propagateNan", Attribute::keyword(std::string(keywordName(nan)))}});
  return Emitter::tensorOf(result, value.dtype, false, value.shape);
}

Tensor fma(Emitter& emitter, const Operand& x, const Operand& y, const Operand& z) {
  // math.fma: to_tensor on all three, then legalize (x, y), (z, x), (z, y) as Triton does.
  Tensor a = toTensor(emitter, x), b = toTensor(emitter, y), c = toTensor(emitter, z);
  std::tie(a, b) = typeCheck(emitter, a, b, false, false, true, false);
  std::tie(c, a) = typeCheck(emitter, c, a, false, false, true, false);
  std::tie(c, b) = typeCheck(emitter, c, b, false, false, true, false);
  // Triton has no dtype check here; an integer fma fails MLIR's verifier later. We stop at the front end.
  if (!isFloating(a.dtype))
    throwFrontendError(FrontendError::Kind::TypeError, "fma needs floating-point operands, got " + std::string(dtypeName(a.dtype)));
  Value* result = emitter.createValue(OpKind::MathFma, {a.value, b.value, c.value}, a.value->type);
  return Emitter::tensorOf(result, a.dtype, false, a.shape);
}

Tensor umulhi(Emitter& emitter, const Operand& x, const Operand& y) {
  // math.umulhi's _check_dtype looks at the tensor arguments only (before to_tensor).
  static const DType kAllowed[] = {DType::Int32, DType::Int64, DType::UInt32, DType::UInt64};
  for (const Operand* operand : {&x, &y}) {
    if (operand->isLiteral()) continue;
    const Tensor& t = operand->tensor();
    if (t.pointer || std::find(std::begin(kAllowed), std::end(kAllowed), t.dtype) == std::end(kAllowed))
      throwFrontendError(FrontendError::Kind::ValueError, "Expected dtype ['int32', 'int64', 'uint32', 'uint64'] but got " +
                                                              std::string(t.pointer ? "pointer" : dtypeName(t.dtype)));
  }
  auto [lhs, rhs] = typeCheck(emitter, toTensor(emitter, x), toTensor(emitter, y), false, false, true, false);
  return emitSameType(emitter, OpKind::TTMulhiUI, lhs, rhs);
}

}  // namespace tilesim::builder::semantic
