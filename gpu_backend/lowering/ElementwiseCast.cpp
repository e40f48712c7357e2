// The Cast family (ir/Ops.def; interpreter/ElementwiseCast.cpp), docs/semantics.md §Casts: integer
// extension/truncation, int <-> float, float <-> float, bitcast.
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
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

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
  const bool zeroExtend = TILESIM_MUTANT(gpu_uitofp_i8_bf16_sext, isUnsigned, isUnsigned && !(width == 8 && target->isBFloatTy()));
  if (width < 32) x = zeroExtend ? b.CreateZExt(x, b.getInt32Ty()) : b.CreateSExt(x, b.getInt32Ty());
  const bool wide = x->getType()->getIntegerBitWidth() == 64;
  std::string modifiers = std::string("rn.") + floatName(target) + "." + (isUnsigned ? "u" : "s") + (wide ? "64" : "32");
  llvm::Value* bits = ptx::convert(b, modifiers, b.getInt16Ty(), "h", x, wide ? "l" : "r");
  return b.CreateBitCast(bits, target);
}

llvm::Value* floatToInt(Builder& b, llvm::Value* x, llvm::Type* target, bool isUnsigned) {
  if (x->getType()->isHalfTy() || x->getType()->isBFloatTy()) x = b.CreateFPExt(x, b.getFloatTy());
  const unsigned width = target->getIntegerBitWidth();
  const unsigned conversionWidth = width <= 16 ? 16 : width;
  std::string modifiers = std::string("rzi.") + (TILESIM_MUTANT(gpu_fptoui_signed, isUnsigned, false) ? "u" : "s") + std::to_string(conversionWidth) + "." +
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
  const OpFamily family = opFamily(op.kind);  // every other family: integers, memory, calls: bits unknown
  if (family == OpFamily::FloatArith) {
    switch (familyOp<FloatArithOp>(op.kind)) {
      case FloatArithOp::ArithAddF:
      case FloatArithOp::ArithSubF:
      case FloatArithOp::ArithMulF:
      case FloatArithOp::ArithDivF:
      case FloatArithOp::TTPreciseDivF:
      case FloatArithOp::ArithMaxNumF:
      case FloatArithOp::ArithMinNumF: return arithmetic();
      case FloatArithOp::TTClampF: return f64 ? NaNBits::unknown() : arithmetic();
      case FloatArithOp::ArithMaximumF:
      case FloatArithOp::ArithMinimumF:  // max.NaN.f64 writes 0x7FF8000000000000 whatever the inputs
        return f64 ? NaNBits::exactly(0x7FF8000000000000ull) : NaNBits::exactly(canonicalNaNBits(kind));
      case FloatArithOp::ArithRemF:  // isinf(b) ? a (its bits unchanged) : the arithmetic's NaN
        return f64 ? NaNBits::unknown() : join(operand(0), arithmetic());
      case FloatArithOp::ArithNegF: return NaNBits::unknown();
    }
  }
  if (family == OpFamily::Math) {
    switch (familyOp<MathOp>(op.kind)) {
      case MathOp::MathSqrt:
      case MathOp::TTPreciseSqrt:
      case MathOp::MathFma: return arithmetic();
      case MathOp::MathExp:
      case MathOp::MathExp2:
      case MathOp::MathLog:
      case MathOp::MathLog2:
      case MathOp::MathSin:
      case MathOp::MathCos:
      case MathOp::MathRsqrt:
      case MathOp::MathErf:
      case MathOp::MathFloor:
      case MathOp::MathCeil:
      case MathOp::MathAbsF: return NaNBits::unknown();
    }
  }
  if (family == OpFamily::Cast) {
    switch (familyOp<CastOp>(op.kind)) {
      case CastOp::ArithExtF:
      case CastOp::ArithTruncF: {  // f16 -> f32 and f32 -> f16/bf16 canonicalise; the others keep payloads
        const ScalarKind from = op.operand(0)->type.scalarKind();
        if ((from == ScalarKind::F16 && kind == ScalarKind::F32) ||
            (from == ScalarKind::F32 && (kind == ScalarKind::F16 || kind == ScalarKind::BF16)))
          return NaNBits::exactly(canonicalNaNBits(kind));
        return operand(0).kind == NaNBits::Kind::Never ? NaNBits::never() : NaNBits::unknown();
      }
      case CastOp::ArithSIToFP:
      case CastOp::ArithUIToFP: return NaNBits::never();
      case CastOp::ArithExtSI:
      case CastOp::ArithExtUI:
      case CastOp::ArithTruncI:
      case CastOp::ArithFPToSI:
      case CastOp::ArithFPToUI:
      case CastOp::ArithBitcast:
      case CastOp::TTFpToFp:
      case CastOp::TTBitcast: return NaNBits::unknown();
    }
  }
  if (family == OpFamily::Constant) {
    switch (familyOp<ConstantOp>(op.kind)) {
      case ConstantOp::ArithConstant: {
        const Attribute* attr = ConstantView{op}.value();
        if (!attr) return NaNBits::unknown();
        if (attr->kind() == Attribute::Kind::Float)
          return isNaNBits(attr->bits(), kind) ? NaNBits::exactly(attr->bits()) : NaNBits::never();
        if (attr->kind() != Attribute::Kind::Dense) return NaNBits::unknown();
        NaNBits all = NaNBits::never();
        for (uint64_t bits : attr->denseBits())
          all = join(all, isNaNBits(bits, kind) ? NaNBits::exactly(bits) : NaNBits::never());
        return all;
      }
      case ConstantOp::TTMakeRange:
      case ConstantOp::UBPoison: return NaNBits::unknown();
    }
  }
  if (family == OpFamily::Compare) {
    switch (familyOp<CompareOp>(op.kind)) {
      case CompareOp::ArithSelect: return join(operand(1), operand(2));
      case CompareOp::ArithCmpI:
      case CompareOp::ArithCmpF: return NaNBits::unknown();
    }
  }
  if (family == OpFamily::Shape) {
    switch (familyOp<ShapeOp>(op.kind)) {
      case ShapeOp::TTSplat:
      case ShapeOp::TTBroadcast:
      case ShapeOp::TTExpandDims:
      case ShapeOp::TTReshape:
      case ShapeOp::TTTrans: return operand(0);
      case ShapeOp::TTUnsplat:
      case ShapeOp::TTJoin:
      case ShapeOp::TTSplit:
      case ShapeOp::TTCat:
      case ShapeOp::TTGather:
      case ShapeOp::TTHistogram: return NaNBits::unknown();
    }
  }
  return NaNBits::unknown();
}

}  // namespace

void lowerCastOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Type sourceType = op.operand(0)->type, resultType = op.result()->type;
  if (isFp8(sourceType) || isFp8(resultType)) return lowerFp8Cast(lowering, op);
  llvm::Type* source = lowering.scalarType(op, sourceType);
  llvm::Type* target = lowering.scalarType(op, resultType);
  const CastOp kind = familyOp<CastOp>(op.kind);
  if (kind == CastOp::TTBitcast && (source->isPointerTy() != target->isPointerTy()))
    lowering.unsupported(op, "between pointers and integers");
  if (kind == CastOp::ArithTruncF || kind == CastOp::ArithExtF || kind == CastOp::TTFpToFp) {
    if (source->isDoubleTy() && target->isBFloatTy()) lowering.unsupported(op, "from f64 to bf16");
    const bool rtz = FpToFpView{op}.rounding() == RoundingMode::Rtz;  // absent: round to nearest even
    const bool rtzFromDouble = source->isDoubleTy() && target->isFloatTy();  // cvt.rz.f32.f64
    if (rtz && !rtzFromDouble && !(source->isFloatTy() && (target->isHalfTy() || target->isBFloatTy())))
      lowering.unsupported(op, "with rtz rounding other than f32 to f16/bf16 and f64 to f32");
    return lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
      llvm::Value* x = v[0];
      if (rtz && rtzFromDouble) return ptx::convert(b, "rz.f32.f64", target, "f", x, "d");
      if (rtz) {
        llvm::Value* bits = ptx::convert(b, std::string(TILESIM_MUTANT(gpu_fp_to_fp_rtz_as_rn, "rz.", "rn.")) + floatName(target) + ".f32", b.getInt16Ty(), "h", x, "f");
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
  if ((kind == CastOp::ArithBitcast || kind == CastOp::TTBitcast) && lowering.options.profile == FloatProfile::Exact &&
      source->isFloatingPointTy() && target->isIntegerTy())
    nan = nanBitsOf(op.operand(0), kNaNProvenanceDepth);
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    llvm::Value* x = v[0];
    switch (kind) {
      case CastOp::ArithExtSI: return b.CreateSExt(x, target);
      case CastOp::ArithExtUI: return TILESIM_MUTANT(gpu_extui_sign_extends, b.CreateZExt(x, target), b.CreateSExt(x, target));
      case CastOp::ArithTruncI: return b.CreateTrunc(x, target);
      case CastOp::ArithSIToFP: return intToFloat(b, x, target, false);
      case CastOp::ArithUIToFP: return intToFloat(b, x, target, true);
      case CastOp::ArithFPToSI: return floatToInt(b, x, target, false);
      case CastOp::ArithFPToUI: return floatToInt(b, x, target, true);
      case CastOp::ArithBitcast:
      case CastOp::TTBitcast:
        if (source == target) return x;
        if (source->isFloatingPointTy() && target->isFloatingPointTy())  // f16 <-> bf16: through an opaque i16
          return b.CreateBitCast(ptx::opaqueBits16(b, b.CreateBitCast(x, b.getInt16Ty())), target);
        if (nan.kind == NaNBits::Kind::Bits && target->isIntegerTy())
          return b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantInt::get(target, nan.bits), b.CreateBitCast(x, target));
        return b.CreateBitCast(x, target);
      case CastOp::ArithExtF:
      case CastOp::ArithTruncF:
      case CastOp::TTFpToFp: TILESIM_UNREACHABLE("float to float casts are lowered above");
    }
    TILESIM_UNREACHABLE("cast op");
  });
}

}  // namespace tilesim::gpu
