// semantic.cast of Triton 3.6: which op sequence converts a tensor from one dtype to another. fp8 and
// non-default downcast rounding use tt.fp_to_fp; fp16/bf16 to anything but fp32 go through fp32; ints use
// ext/trunc (sign-extending only signed, non-bool sources); to bool is `x != 0`; int to float picks
// uitofp for bool and unsigned sources.
#include "ir/FloatBits.h"
#include "ir/builder/Emitter.h"
#include "ir/builder/Promotion.h"

namespace tilesim::builder {

static Attribute keyword(const char* word) { return Attribute::keyword(word); }

Tensor Emitter::bitcast(const Tensor& x, DType to) {
  if (x.dtype == to) return x;
  int fromBits = primitiveBitWidth(x.dtype), toBits = primitiveBitWidth(to);
  if (fromBits != toBits)
    throwFrontendError(FrontendError::Kind::ValueError, "Cannot bitcast data-type of size " + std::to_string(fromBits) +
                                                            " to data-type of size " + std::to_string(toBits));
  Value* result = createValue(OpKind::TTBitcast, {x.value}, typeOf(to, false, x.shape));
  return tensorOf(result, to, false, x.shape);
}

// The value of a constant op, read back in `dtype` (signedness from the dtype).
static Literal constantValue(const Operation& op, DType dtype) {
  const Attribute& value = *op.attr("value");
  uint64_t bits = value.kind() == Attribute::Kind::Dense ? value.denseBitsAt(0)
                  : value.kind() == Attribute::Kind::Float ? value.bits()
                                                           : static_cast<uint64_t>(value.intValue());
  if (isFloating(dtype)) return Literal(doubleFromFloatBits(bits, scalarKindOf(dtype)));
  int width = primitiveBitWidth(dtype);
  if (width < 64) bits &= (uint64_t{1} << width) - 1;
  if (isUnsignedInt(dtype)) return Literal::bigInt(static_cast<BigInt>(bits));
  int64_t signExtended = width == 64 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
  return Literal::bigInt(signExtended);
}

Tensor Emitter::cast(const Tensor& x, DType to, std::optional<std::string> fpDowncastRounding) {
  DType from = x.dtype;
  if (x.pointer) throwFrontendError(FrontendError::Kind::TypeError, "pointer casts are not supported by the builder");
  if (from == to) return x;
  Operation* definer = x.value->definingOp;
  if (definer && definer->kind == OpKind::ArithConstant && !isFp8(from) && !isFp8(to) && !isBool(to) &&
      !fpDowncastRounding) {
    // A cast of a constant folds to a constant, as Triton's canonicalizer does (`a / 2` divides by 2.0).
    return constant(constantValue(*definer, from), to, x.shape);
  }
  auto emit = [&](OpKind kind, std::vector<NamedAttribute> attributes = {}) {
    Value* result = createValue(kind, {x.value}, typeOf(to, false, x.shape), std::move(attributes));
    return tensorOf(result, to, false, x.shape);
  };
  // A cast to bool is x != 0 (`predicate` an integer or float compare keyword), as Triton emits it.
  auto notEqualZero = [&](OpKind compare, Literal zeroValue, const char* predicate) {
    Tensor zero = constant(zeroValue, from, x.shape);
    Value* result = createValue(compare, {x.value, zero.value}, typeOf(DType::Int1, false, x.shape),
                                {{"predicate", keyword(predicate)}});
    return tensorOf(result, DType::Int1, false, x.shape);
  };
  bool truncatesFloat = isFloating(from) && isFloating(to) && primitiveBitWidth(from) > primitiveBitWidth(to);
  bool customRounding = false;
  if (fpDowncastRounding) {
    if (!truncatesFloat)
      throwFrontendError(FrontendError::Kind::ValueError,
                         "fp_downcast_rounding should be set only for truncating fp conversions, source_type is " +
                             std::string(dtypeName(from)) + " and destination type is " + std::string(dtypeName(to)));
    if (*fpDowncastRounding != "rtne" && *fpDowncastRounding != "rtz")
      throwFrontendError(FrontendError::Kind::ValueError, "unknown rounding mode " + *fpDowncastRounding);
    customRounding = *fpDowncastRounding != "rtne";
  }
  if ((isFp8(from) && isFloating(to)) || (isFloating(from) && isFp8(to)) || customRounding) {
    std::vector<NamedAttribute> attributes;
    if (truncatesFloat)
      attributes.push_back({"rounding", Attribute::keyword(fpDowncastRounding.value_or("rtne"))});
    return emit(OpKind::TTFpToFp, std::move(attributes));
  }
  if ((from == DType::Fp16 || from == DType::BF16) && to != DType::Fp32) return cast(cast(x, DType::Fp32), to);
  if (truncatesFloat) return emit(OpKind::ArithTruncF);
  if (isFloating(from) && isFloating(to)) return emit(OpKind::ArithExtF);
  if (isInt(from) && isInt(to)) {
    if (isBool(to)) return notEqualZero(OpKind::ArithCmpI, Literal(0), "ne");
    int fromBits = primitiveBitWidth(from), toBits = primitiveBitWidth(to);
    if (fromBits == toBits) return tensorOf(x.value, to, false, x.shape);  // a signedness change: no op
    if (fromBits > toBits) return emit(OpKind::ArithTruncI);
    return emit(isSignedInt(from) ? OpKind::ArithExtSI : OpKind::ArithExtUI);
  }
  if (isFloating(from) && isInt(to)) {
    if (isBool(to)) return notEqualZero(OpKind::ArithCmpF, Literal(0.0), "une");
    return emit(isSignedInt(to) ? OpKind::ArithFPToSI : OpKind::ArithFPToUI);
  }
  // int to float
  return emit(isSignedInt(from) ? OpKind::ArithSIToFP : OpKind::ArithUIToFP);
}

}  // namespace tilesim::builder
