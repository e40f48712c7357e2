// Casts (docs/semantics.md §Casts): integer extension/truncation, int <-> float, float <-> float, bitcast.
// float -> int is PTX cvt.rzi (truncate, saturate to the conversion width; 8- and 1-bit targets convert through
// 16 bits and wrap), int -> f16/bf16 is one cvt.rn from the integer (never through f32), both as inline PTX
// (Ptx.h). float -> float goes through f32 where that is exact (every f16/bf16 value is an f32), so it rounds once.
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

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
        return b.CreateBitCast(x, target);
      default: TILESIM_UNREACHABLE("not a cast");
    }
  });
}

}  // namespace tilesim::gpu
