// Casts (docs/semantics.md §Casts): integer extension/truncation, int <-> float, float <-> float, bitcast.
// float -> int is PTX cvt.rzi (truncate, saturate to the conversion width; 8- and 1-bit targets convert through
// 16 bits and wrap), int -> f16/bf16 is one cvt.rn from the integer (never through f32), both as inline PTX
// (Ptx.h). float -> float goes through f32 where that is exact (every f16/bf16 value is an f32), so it rounds once.
// NaN provenance (exact profile, docs/findings.md G8): a float -> int bitcast of a value whose every NaN has one
// known bit pattern on the H200 (nanBitsOf) becomes `isnan(x) ? thoseBits : bitcast(x)`. LLVM may give a NaN any
// bits when it folds (0.0 / 0.0 -> 0x7FC00000, maxnum(x, x) -> x keeping a bf16 payload); the select's NaN test is
// folded with the value, so the integer is the H200's bits whatever LLVM does to the float.
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/FloatBits.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;
constexpr int kNaNProvenanceDepth = 8;  // producers followed through selects and shape ops

const char* floatName(llvm::Type* type) {
  return type->isHalfTy() ? "f16" : type->isBFloatTy() ? "bf16" : type->isFloatTy() ? "f32" : "f64";
}

llvm::Value* intToFloat(Builder& b, llvm::Value* x, llvm::Type* target, bool isUnsigned) {
  if (target->isFloatTy() || target->isDoubleTy())
    return isUnsigned ? b.CreateUIToFP(x, target) : b.CreateSIToFP(x, target);
  const unsigned width = x->getType()->getIntegerBitWidth();
  if (width < 32) x = isUnsigned ? b.CreateZExt(x, b.getInt32Ty()) : b.CreateSExt(x, b.getInt32Ty());
  const bool wide = x->getType()->getIntegerBitWidth() == 64;
  std::string modifiers = std::string("rn.") + floatName(target) + "." + (isUnsigned ? "u" : "s") + (wide ? "64" : "32");
  llvm::Value* bits = ptx::convert(b, modifiers, b.getInt16Ty(), "h", x, wide ? "l" : "r");
  return b.CreateBitCast(bits, target);
}

llvm::Value* floatToInt(Builder& b, llvm::Value* x, llvm::Type* target, bool isUnsigned) {
  if (x->getType()->isHalfTy() || x->getType()->isBFloatTy()) x = b.CreateFPExt(x, b.getFloatTy());
  const unsigned width = target->getIntegerBitWidth();
  const unsigned conversionWidth = width <= 16 ? 16 : width;
  std::string modifiers = std::string("rzi.") + (isUnsigned ? "u" : "s") + std::to_string(conversionWidth) + "." +
                          floatName(x->getType());
  llvm::Value* result = ptx::convert(b, modifiers, b.getIntNTy(conversionWidth), ptx::constraintFor(static_cast<int>(conversionWidth)),
                                     x, x->getType()->isDoubleTy() ? "d" : "f");
  return width < conversionWidth ? b.CreateTrunc(result, target) : result;
}

// What every NaN of `value` is on the H200 (docs/semantics.md "NaN bits"), following the TTIR producers up to
// `depth` ops: Never (it cannot be NaN), Bits (always these bits), or Unknown (a load, an argument, a payload-
// keeping op: negf, absf, extf bf16 -> f32, truncf f64 -> f32, remf's infinite divisor with a NaN dividend...).
struct NaNBits {
  enum class Kind : uint8_t { Never, Bits, Unknown } kind = Kind::Unknown;
  uint64_t bits = 0;
  static NaNBits never() { return {Kind::Never, 0}; }
  static NaNBits exactly(uint64_t bits) { return {Kind::Bits, bits}; }
  static NaNBits unknown() { return {}; }
};
// One of two values (a select): Never joins anything; two Bits agree or give Unknown.
NaNBits join(NaNBits a, NaNBits b) {
  if (a.kind == NaNBits::Kind::Never) return b;
  if (b.kind == NaNBits::Kind::Never) return a;
  if (a.kind == NaNBits::Kind::Bits && b.kind == NaNBits::Kind::Bits && a.bits == b.bits) return a;
  return NaNBits::unknown();
}

NaNBits nanBitsOf(const Value* value, int depth) {
  if (depth <= 0 || !value->definingOp || !value->type.isFloat()) return NaNBits::unknown();
  const Operation& op = *value->definingOp;
  const ScalarKind kind = value->type.scalarKind();
  if (kind != ScalarKind::F32 && kind != ScalarKind::F16 && kind != ScalarKind::BF16 && kind != ScalarKind::F64)
    return NaNBits::unknown();
  const bool f64 = kind == ScalarKind::F64;
  auto operand = [&](size_t k) { return nanBitsOf(op.operand(k), depth - 1); };
  auto allNever = [&] {
    for (size_t k = 0; k < op.numOperands(); ++k)
      if (operand(k).kind != NaNBits::Kind::Never) return false;
    return true;
  };
  // f32/f16/bf16 arithmetic gives the canonical NaN; f64 arithmetic passes an input NaN through (quieted), so
  // only operands that cannot be NaN make its NaN the invalid operation's 0xFFF8000000000000.
  auto arithmetic = [&] {
    if (!f64) return NaNBits::exactly(canonicalNaNBits(kind));
    return allNever() ? NaNBits::exactly(0xFFF8000000000000ull) : NaNBits::unknown();
  };
  switch (op.kind) {
    case OpKind::ArithAddF:
    case OpKind::ArithSubF:
    case OpKind::ArithMulF:
    case OpKind::ArithDivF:
    case OpKind::TTPreciseDivF:
    case OpKind::MathSqrt:
    case OpKind::TTPreciseSqrt:
    case OpKind::MathFma:
    case OpKind::ArithMaxNumF:
    case OpKind::ArithMinNumF:
    case OpKind::TTClampF: return op.kind == OpKind::TTClampF && f64 ? NaNBits::unknown() : arithmetic();
    case OpKind::ArithMaximumF:
    case OpKind::ArithMinimumF:  // max.NaN.f64 writes 0x7FF8000000000000 whatever the inputs
      return f64 ? NaNBits::exactly(0x7FF8000000000000ull) : NaNBits::exactly(canonicalNaNBits(kind));
    case OpKind::ArithRemF:  // isinf(b) ? a (its bits unchanged) : the arithmetic's NaN
      return f64 ? NaNBits::unknown() : join(operand(0), arithmetic());
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF: {  // f16 -> f32 and f32 -> f16/bf16 canonicalise; the others keep payloads
      const ScalarKind from = op.operand(0)->type.scalarKind();
      if ((from == ScalarKind::F16 && kind == ScalarKind::F32) ||
          (from == ScalarKind::F32 && (kind == ScalarKind::F16 || kind == ScalarKind::BF16)))
        return NaNBits::exactly(canonicalNaNBits(kind));
      return operand(0).kind == NaNBits::Kind::Never ? NaNBits::never() : NaNBits::unknown();
    }
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP: return NaNBits::never();
    case OpKind::ArithConstant: {
      const Attribute* attr = op.attr("value");
      if (!attr) return NaNBits::unknown();
      if (attr->kind() == Attribute::Kind::Float)
        return isNaNBits(attr->bits(), kind) ? NaNBits::exactly(attr->bits()) : NaNBits::never();
      if (attr->kind() != Attribute::Kind::Dense) return NaNBits::unknown();
      NaNBits all = NaNBits::never();
      for (uint64_t bits : attr->denseBits())
        all = join(all, isNaNBits(bits, kind) ? NaNBits::exactly(bits) : NaNBits::never());
      return all;
    }
    case OpKind::ArithSelect: return join(operand(1), operand(2));
    case OpKind::TTSplat:
    case OpKind::TTBroadcast:
    case OpKind::TTExpandDims:
    case OpKind::TTReshape:
    case OpKind::TTTrans: return operand(0);
    default: return NaNBits::unknown();
  }
}

}  // namespace

void lowerCastOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Type sourceType = op.operand(0)->type, resultType = op.result()->type;
  if (isFp8(sourceType) || isFp8(resultType)) return lowerFp8Cast(lowering, op);
  llvm::Type* source = lowering.scalarType(op, sourceType);
  llvm::Type* target = lowering.scalarType(op, resultType);
  const OpKind kind = op.kind;
  if (kind == OpKind::TTBitcast && (source->isPointerTy() != target->isPointerTy()))
    lowering.unsupported(op, "between pointers and integers");
  if (kind == OpKind::ArithTruncF || kind == OpKind::ArithExtF || kind == OpKind::TTFpToFp) {
    if (source->isDoubleTy() && target->isBFloatTy()) lowering.unsupported(op, "from f64 to bf16");
    std::string rounding = op.keywordAttr("rounding", "rtne");
    if (const Attribute* attr = op.attr("rounding"); attr && attr->kind() == Attribute::Kind::Integer)
      rounding = attr->intValue() == 0 ? "rtz" : "rtne";  // Triton's RoundingMode enum: RTZ = 0, RTNE = 1
    const bool rtzFromDouble = source->isDoubleTy() && target->isFloatTy();  // cvt.rz.f32.f64
    if (rounding == "rtz" && !rtzFromDouble && !(source->isFloatTy() && (target->isHalfTy() || target->isBFloatTy())))
      lowering.unsupported(op, "with rtz rounding other than f32 to f16/bf16 and f64 to f32");
    return lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
      llvm::Value* x = v[0];
      if (rounding == "rtz" && rtzFromDouble) return ptx::convert(b, "rz.f32.f64", target, "f", x, "d");
      if (rounding == "rtz") {
        llvm::Value* bits = ptx::convert(b, std::string("rz.") + floatName(target) + ".f32", b.getInt16Ty(), "h", x, "f");
        return b.CreateBitCast(bits, target);
      }
      if (source->isDoubleTy() && target->isHalfTy())
        return b.CreateBitCast(ptx::convert(b, "rn.f16.f64", b.getInt16Ty(), "h", x, "d"), target);
      if (source == target) return x;
      if (source->isHalfTy() || source->isBFloatTy()) x = b.CreateFPExt(x, b.getFloatTy());  // exact
      if (x->getType() == target) return x;
      if (target->isDoubleTy()) return b.CreateFPExt(x, target);  // exact
      return b.CreateFPTrunc(x, target);                          // f64 -> f32, f32 -> f16/bf16: one rounding
    });
  }
  // NaN provenance (above): only under the exact profile, where the bits are promised.
  NaNBits nan = NaNBits::unknown();
  if ((kind == OpKind::ArithBitcast || kind == OpKind::TTBitcast) && lowering.options.profile == FloatProfile::Exact &&
      source->isFloatingPointTy() && target->isIntegerTy())
    nan = nanBitsOf(op.operand(0), kNaNProvenanceDepth);
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    llvm::Value* x = v[0];
    switch (kind) {
      case OpKind::ArithExtSI: return b.CreateSExt(x, target);
      case OpKind::ArithExtUI: return b.CreateZExt(x, target);
      case OpKind::ArithTruncI: return b.CreateTrunc(x, target);
      case OpKind::ArithSIToFP: return intToFloat(b, x, target, false);
      case OpKind::ArithUIToFP: return intToFloat(b, x, target, true);
      case OpKind::ArithFPToSI: return floatToInt(b, x, target, false);
      case OpKind::ArithFPToUI: return floatToInt(b, x, target, true);
      case OpKind::ArithBitcast:
      case OpKind::TTBitcast:
        if (source == target) return x;
        if (source->isFloatingPointTy() && target->isFloatingPointTy())  // f16 <-> bf16: through an opaque i16
          return b.CreateBitCast(ptx::opaqueBits16(b, b.CreateBitCast(x, b.getInt16Ty())), target);
        if (nan.kind == NaNBits::Kind::Bits && target->isIntegerTy())
          return b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantInt::get(target, nan.bits), b.CreateBitCast(x, target));
        return b.CreateBitCast(x, target);
      default: TILESIM_UNREACHABLE("not a cast");
    }
  });
}

}  // namespace tilesim::gpu
