// fp8 values (f8E4M3FN, f8E5M2) live in LLVM as i8 bit patterns: loads, stores, constants, selects and layout
// moves carry them unchanged; arithmetic on them does not exist (Triton converts first). This file lowers the
// conversions, as docs/semantics.md §Casts and interpreter/ElementwiseCast.cpp define them:
//  - fp8 -> f16/bf16/f32/f64: exact. The fields are moved into an f32 (normal: exponent rebiased; subnormal:
//    mantissa * 2^-9 or 2^-16, exact), then converted exactly to the target; NaN (e4m3: S.1111.111, e5m2:
//    exponent 31 with a mantissa) gives the target's canonical NaN, e5m2 inf gives inf. f8E5M2 -> bf16 follows
//    Triton's shift-and-scale PTX instead: exponent 31 is an ordinary exponent (0x7C -> 65536).
//  - f16/bf16/f32 -> fp8: round to nearest even with satfinite (±inf and out of range -> ±max finite) by
//    `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` (PTX ISA §9.7.9.21, sm_89+) from the exact f32; NaN -> 0x7F.
//  - fp8 -> fp8 through f32 (exact, then one rounding).
// f64 -> fp8 (two roundings through f32 would not be the interpreter's one), rtz to fp8 and int <-> fp8 casts
// are refused.
#include <cmath>

#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

bool isE5m2(Type type) { return type.element().scalarKind() == ScalarKind::F8E5M2; }

// The f32 an fp8 pattern denotes, and whether it is NaN. `nanAsNumber`: e5m2 exponent 31 is an ordinary one.
std::pair<llvm::Value*, llvm::Value*> decode(Builder& b, llvm::Value* bits, bool e5m2, bool nanAsNumber) {
  const unsigned mantissaBits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  llvm::Value* x = b.CreateZExt(bits, b.getInt32Ty());
  llvm::Value* sign = b.CreateShl(b.CreateAnd(x, 0x80), 24);
  llvm::Value* exponent = b.CreateAnd(b.CreateLShr(x, mantissaBits), e5m2 ? 0x1F : 0xF);
  llvm::Value* mantissa = b.CreateAnd(x, (1u << mantissaBits) - 1);
  llvm::Value* normal = b.CreateOr(b.CreateShl(b.CreateAdd(exponent, b.getInt32(127 - bias)), 23),
                                   b.CreateShl(mantissa, 23 - mantissaBits));
  // Subnormal: mantissa * 2^(1 - bias - mantissaBits), exact in f32.
  llvm::Value* subnormal = b.CreateFMul(b.CreateUIToFP(mantissa, b.getFloatTy()),
                                        llvm::ConstantFP::get(b.getFloatTy(), std::ldexp(1.0, 1 - static_cast<int>(bias + mantissaBits))));
  llvm::Value* isZeroExponent = b.CreateICmpEQ(exponent, b.getInt32(0));
  llvm::Value* magnitude = b.CreateSelect(isZeroExponent, b.CreateBitCast(subnormal, b.getInt32Ty()), normal);
  llvm::Value* nan = b.getFalse();
  if (e5m2 && !nanAsNumber) {
    llvm::Value* top = b.CreateICmpEQ(exponent, b.getInt32(31));
    magnitude = b.CreateSelect(top, b.getInt32(0x7F800000), magnitude);  // inf (NaN is decided below)
    nan = b.CreateAnd(top, b.CreateICmpNE(mantissa, b.getInt32(0)));
  } else if (!e5m2) {
    nan = b.CreateICmpEQ(b.CreateAnd(x, 0x7F), b.getInt32(0x7F));
  }
  return {b.CreateBitCast(b.CreateOr(sign, magnitude), b.getFloatTy()), nan};
}

llvm::Constant* canonicalNaN(llvm::Type* type) {
  if (type->isHalfTy() || type->isBFloatTy())
    return llvm::ConstantExpr::getBitCast(llvm::ConstantInt::get(llvm::Type::getInt16Ty(type->getContext()), 0x7FFF), type);
  if (type->isFloatTy())
    return llvm::ConstantExpr::getBitCast(llvm::ConstantInt::get(llvm::Type::getInt32Ty(type->getContext()), 0x7FFFFFFF), type);
  return llvm::ConstantExpr::getBitCast(llvm::ConstantInt::get(llvm::Type::getInt64Ty(type->getContext()), 0x7FFFFFFFFFFFFFFFull), type);
}

llvm::Value* encode(Builder& b, llvm::Value* f32, bool e5m2) {
  auto* type = llvm::FunctionType::get(b.getInt16Ty(), {b.getFloatTy(), b.getFloatTy()}, false);
  // cvt.rn.satfinite.e4m3x2.f32 d, a, b: a goes to the upper byte, b to the lower one.
  std::string text = std::string("cvt.rn.satfinite.") + (e5m2 ? "e5m2" : "e4m3") + "x2.f32 $0, $1, $2;";
  llvm::Value* pair = b.CreateCall(llvm::InlineAsm::get(type, text, "=h,f,f", false),
                                   {llvm::ConstantFP::get(b.getFloatTy(), 0.0), f32});
  llvm::Value* byte = b.CreateTrunc(pair, b.getInt8Ty());
  return b.CreateSelect(b.CreateFCmpUNO(f32, f32), b.getInt8(0x7F), byte);
}

}  // namespace

llvm::Value* fp8ToFloat(llvm::IRBuilder<>& b, llvm::Value* bits, bool e5m2) {
  auto [value, nan] = decode(b, bits, e5m2, false);
  return b.CreateSelect(nan, canonicalNaN(b.getFloatTy()), value);
}

bool isFp8(Type type) {
  if (!type.element().isScalar()) return false;
  ScalarKind kind = type.element().scalarKind();
  return kind == ScalarKind::F8E4M3FN || kind == ScalarKind::F8E5M2;
}

void lowerFp8Cast(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Type sourceType = op.operand(0)->type, resultType = op.result()->type;
  const bool fromFp8 = isFp8(sourceType), toFp8 = isFp8(resultType);
  if (op.kind == OpKind::ArithBitcast || op.kind == OpKind::TTBitcast)
    return lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
      llvm::Type* target = lowering.scalarType(op, resultType);
      return v[0]->getType() == target ? v[0] : b.CreateBitCast(v[0], target);
    });
  if (op.kind != OpKind::ArithExtF && op.kind != OpKind::ArithTruncF && op.kind != OpKind::TTFpToFp)
    lowering.unsupported(op, "between integers and fp8");
  if (toFp8 && FpToFpView{op}.rounding() == RoundingMode::Rtz) lowering.unsupported(op, "with rtz rounding to fp8");
  llvm::Type* source = lowering.scalarType(op, sourceType);
  llvm::Type* target = lowering.scalarType(op, resultType);
  if (toFp8 && source->isDoubleTy()) lowering.unsupported(op, "from f64 to fp8");
  const bool bfloatFromE5m2 = fromFp8 && isE5m2(sourceType) && target->isBFloatTy();
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    llvm::Value* x = v[0];
    llvm::Value* nan = nullptr;  // fp8 sources only
    if (fromFp8) std::tie(x, nan) = decode(b, x, isE5m2(sourceType), bfloatFromE5m2);
    else if (!x->getType()->isFloatTy()) x = b.CreateFPExt(x, b.getFloatTy());  // f16/bf16: exact
    if (toFp8) return nan ? b.CreateSelect(nan, b.getInt8(0x7F), encode(b, x, isE5m2(resultType))) : encode(b, x, isE5m2(resultType));
    llvm::Value* converted = target->isFloatTy() ? x : target->isDoubleTy() ? b.CreateFPExt(x, target) : b.CreateFPTrunc(x, target);
    return nan ? b.CreateSelect(nan, canonicalNaN(target), converted) : converted;
  });
}

}  // namespace tilesim::gpu
