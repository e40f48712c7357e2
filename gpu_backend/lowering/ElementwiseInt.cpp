// Integer ops, compare and select (docs/semantics.md §Integers). LLVM calls division by zero, signed MIN / -1
// and shifts of the width or more undefined; each is guarded here so the code never relies on LLVM's choice and
// gives NVIDIA's value, as the interpreter does: x / 0 = -1 (all ones), MIN / -1 = MIN, MIN % -1 = 0, shifts
// of >= width give 0 (shl, shrui) or the sign fill (shrsi).
#include <llvm/IR/Intrinsics.h>

#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

llvm::Value* allOnes(llvm::Type* type) { return llvm::Constant::getAllOnesValue(type); }

// Signed and unsigned division and remainder with the guards above.
llvm::Value* divide(Builder& b, OpKind kind, llvm::Value* x, llvm::Value* y) {
  llvm::Type* type = x->getType();
  const unsigned width = type->getIntegerBitWidth();
  llvm::Value* zero = b.CreateICmpEQ(y, llvm::ConstantInt::get(type, 0));
  const bool isSigned = kind == OpKind::ArithDivSI || kind == OpKind::ArithRemSI;
  const bool isDivision = kind == OpKind::ArithDivSI || kind == OpKind::ArithDivUI;
  if (width == 1)  // i1: the only non-zero divisor is 1 (-1 signed): x / 1 = x (MIN / -1 = MIN), x % 1 = 0
    return b.CreateSelect(zero, allOnes(type), isDivision ? x : llvm::ConstantInt::get(type, 0));
  llvm::Value* unsafe = zero;
  if (isSigned) {
    llvm::Value* overflow = b.CreateAnd(b.CreateICmpEQ(x, llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(width))),
                                        b.CreateICmpEQ(y, allOnes(type)));
    unsafe = b.CreateOr(zero, overflow);  // divide by 1 instead: MIN / 1 = MIN, MIN % 1 = 0
  }
  llvm::Value* safe = b.CreateSelect(unsafe, llvm::ConstantInt::get(type, 1), y);
  llvm::Value* quotient = nullptr;
  switch (kind) {
    case OpKind::ArithDivSI: quotient = b.CreateSDiv(x, safe); break;
    case OpKind::ArithDivUI: quotient = b.CreateUDiv(x, safe); break;
    case OpKind::ArithRemSI: quotient = b.CreateSRem(x, safe); break;
    default: quotient = b.CreateURem(x, safe); break;
  }
  return b.CreateSelect(zero, allOnes(type), quotient);
}

llvm::Value* shift(Builder& b, OpKind kind, llvm::Value* x, llvm::Value* y) {
  llvm::Type* type = x->getType();
  const unsigned width = type->getIntegerBitWidth();
  llvm::Value* last = llvm::ConstantInt::get(type, width - 1);
  llvm::Value* oversized = b.CreateICmpUGT(y, last);
  llvm::Value* clamped = b.CreateSelect(oversized, last, y);
  switch (kind) {
    case OpKind::ArithShRSI: return b.CreateAShr(x, clamped);  // sign fill once the amount saturates
    case OpKind::ArithShLI: return b.CreateSelect(oversized, llvm::ConstantInt::get(type, 0), b.CreateShl(x, clamped));
    default: return b.CreateSelect(oversized, llvm::ConstantInt::get(type, 0), b.CreateLShr(x, clamped));
  }
}

llvm::CmpInst::Predicate intPredicate(KernelLowering& lowering, const Operation& op) {
  static constexpr llvm::CmpInst::Predicate kPredicates[] = {
      llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,  llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
      llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE, llvm::CmpInst::ICMP_ULT, llvm::CmpInst::ICMP_ULE,
      llvm::CmpInst::ICMP_UGT, llvm::CmpInst::ICMP_UGE};
  static constexpr std::string_view kNames[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  const Attribute* attr = op.attr("predicate");
  if (attr && attr->kind() == Attribute::Kind::Integer && attr->intValue() >= 0 && attr->intValue() < 10)
    return kPredicates[attr->intValue()];
  if (attr)
    for (size_t i = 0; i < 10; ++i)
      if (attr->text() == kNames[i]) return kPredicates[i];
  lowering.unsupported(op, "with this predicate");
}

}  // namespace

void lowerIntegerOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const OpKind kind = op.kind;
  if (kind == OpKind::ArithCmpI) {
    const llvm::CmpInst::Predicate predicate = intPredicate(lowering, op);
    return lowerElementwise(lowering, op, [&](auto& v) { return b.CreateICmp(predicate, v[0], v[1]); });
  }
  if (kind == OpKind::ArithSelect)
    return lowerElementwise(lowering, op, [&](auto& v) { return b.CreateSelect(v[0], v[1], v[2]); });
  for (const Value* operand : op.operands)
    if (!operand->type.isInteger()) lowering.unsupported(op, "on " + operand->type.str());
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    switch (kind) {
      case OpKind::ArithAddI: return b.CreateAdd(v[0], v[1]);
      case OpKind::ArithSubI: return b.CreateSub(v[0], v[1]);
      case OpKind::ArithMulI: return b.CreateMul(v[0], v[1]);
      case OpKind::ArithDivSI:
      case OpKind::ArithDivUI:
      case OpKind::ArithRemSI:
      case OpKind::ArithRemUI: return divide(b, kind, v[0], v[1]);
      case OpKind::ArithAndI: return b.CreateAnd(v[0], v[1]);
      case OpKind::ArithOrI: return b.CreateOr(v[0], v[1]);
      case OpKind::ArithXOrI: return b.CreateXor(v[0], v[1]);
      case OpKind::ArithShLI:
      case OpKind::ArithShRSI:
      case OpKind::ArithShRUI: return shift(b, kind, v[0], v[1]);
      case OpKind::ArithMaxSI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v[0], v[1]);
      case OpKind::ArithMinSI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v[0], v[1]);
      case OpKind::ArithMaxUI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, v[0], v[1]);
      case OpKind::ArithMinUI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, v[0], v[1]);
      case OpKind::MathAbsI:  // wraps: abs(MIN) = MIN (is_int_min_poison = false)
        return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, v[0], b.getFalse());
      case OpKind::TTMulhiUI: {
        llvm::Type* type = v[0]->getType();
        const unsigned width = type->getIntegerBitWidth();
        // mul.hi.u16/u32/u64 (PTX ISA 8.5 §9.7.1.5), as Triton's libdevice __nv_umulhi is. The widening form
        // (zext, mul, lshr, trunc) is the same value, but InstCombine's known-bits queries through chains of it
        // (ten Philox rounds of golden/dropout_philox) cost most of the optimiser's time.
        llvm::Intrinsic::ID mulhi = llvm::Intrinsic::not_intrinsic;
        if (width == 16) mulhi = llvm::Intrinsic::nvvm_mulhi_us;
        if (width == 32) mulhi = llvm::Intrinsic::nvvm_mulhi_ui;
        if (width == 64) mulhi = llvm::Intrinsic::nvvm_mulhi_ull;
        if (mulhi != llvm::Intrinsic::not_intrinsic) return b.CreateIntrinsic(mulhi, {}, {v[0], v[1]});
        llvm::Type* wide = b.getIntNTy(2 * width);
        llvm::Value* product = b.CreateMul(b.CreateZExt(v[0], wide), b.CreateZExt(v[1], wide));
        return b.CreateTrunc(b.CreateLShr(product, width), type);
      }
      default: TILESIM_UNREACHABLE("not an integer op");
    }
  });
}

}  // namespace tilesim::gpu
