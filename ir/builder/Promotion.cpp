// Triton 3.6 computation_type_impl / integer_promote_impl / to_tensor, transcribed rule by rule.
#include "ir/builder/Promotion.h"

#include <cfloat>
#include <cmath>

namespace tilesim::builder {

void throwFrontendError(FrontendError::Kind kind, std::string message) {
  throw FrontendException{FrontendError{kind, std::move(message)}};
}

DType integerPromote(DType a, DType b) {
  int aRank = primitiveBitWidth(a);
  int bRank = primitiveBitWidth(b);
  bool aSigned = isSignedInt(a);
  bool bSigned = isSignedInt(b);
  if (aSigned == bSigned) return aRank > bRank ? a : b;
  if (!aSigned) return aRank >= bRank ? a : b;
  return bRank >= aRank ? b : a;
}

DType computationType(DType a, bool aIsScalar, DType b, bool bIsScalar, bool divOrMod) {
  // 0) A weak scalar of a kind not above the tensor's does not take part in promotion.
  if (aIsScalar != bIsScalar) {
    DType scalar = aIsScalar ? a : b;
    DType tensor = aIsScalar ? b : a;
    if (dtypeKind(scalar) <= dtypeKind(tensor)) {
      if (divOrMod && (tensor == DType::Fp16 || tensor == DType::BF16)) return DType::Fp32;
      return tensor;
    }
  }
  // 1)-2)
  if (a == DType::Fp64 || b == DType::Fp64) return DType::Fp64;
  if (a == DType::Fp32 || b == DType::Fp32) return DType::Fp32;
  // 3) fp16 wins over bf16; / and % have no fp16 instruction.
  if (a == DType::Fp16 || b == DType::Fp16) return divOrMod ? DType::Fp32 : DType::Fp16;
  // 4)
  if (a == DType::BF16 && b == DType::BF16) return divOrMod ? DType::Fp32 : DType::BF16;
  if (a == DType::BF16 || b == DType::BF16) return DType::Fp32;
  // 5)
  if (isFp8(a) && isFp8(b)) return a == b ? a : DType::Fp16;
  if (!isInt(a) || !isInt(b))
    throwFrontendError(FrontendError::Kind::TypeError,
                       "unexpected type " + std::string(dtypeName(a)) + " and " + std::string(dtypeName(b)));
  // 6)
  if (divOrMod && isSignedInt(a) != isSignedInt(b))
    throwFrontendError(FrontendError::Kind::TypeError,
                       "Cannot use /, #, or % with " + dtypeRepr(a) + " and " + dtypeRepr(b) +
                           " because they have different signedness;this is unlikely to result in a useful answer. "
                           "Cast them to the same signedness.");
  return integerPromote(a, b);
}

DType literalDType(const Literal& literal) {
  switch (literal.kind) {
    case Literal::Kind::Bool: return DType::Int1;
    case Literal::Kind::Int: {
      BigInt value = literal.intValue;
      BigInt two31 = static_cast<BigInt>(1) << 31;
      BigInt two63 = static_cast<BigInt>(1) << 63;
      if (value >= -two31 && value < two31) return DType::Int32;
      if (value >= two31 && value < 2 * two31) return DType::UInt32;
      if (value >= -two63 && value < two63) return DType::Int64;
      if (value >= two63 && value < 2 * two63) return DType::UInt64;
      throwFrontendError(FrontendError::Kind::ValueError, "Nonrepresentable integer " + literal.str() + ".");
    }
    case Literal::Kind::Float: {
      double value = literal.floatValue;
      double magnitude = std::fabs(value);
      if (value == 0 || std::isinf(value) || std::isnan(value) || (magnitude >= FLT_MIN && magnitude <= FLT_MAX))
        return DType::Fp32;
      return DType::Fp64;
    }
  }
  return DType::Int32;
}

void checkLiteralFits(const Literal& literal, DType computation) {
  if (literal.isNegative() && isUnsignedInt(computation))
    throwFrontendError(FrontendError::Kind::ValueError,
                       "Cannot perform a binary operation between an unsigned tensor and a negative scalar. "
                       "Perform a explicit cast on one of them.");
  if (isInt(computation) && literal.kind != Literal::Kind::Float) {
    if (literal.intValue < intMinValue(computation) || literal.intValue > intMaxValue(computation))
      throwFrontendError(FrontendError::Kind::ValueError,
                         "Scalar " + literal.str() + " is out of range for type " + std::string(dtypeName(computation)));
  }
}

}  // namespace tilesim::builder
