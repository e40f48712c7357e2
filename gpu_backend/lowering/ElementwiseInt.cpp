// The IntArith family (ir/Ops.def; interpreter/ElementwiseInt.cpp): integer ops (docs/semantics.md §Integers).
// LLVM calls division by zero, signed MIN / -1 and shifts of the width or more undefined; each is guarded here so
// the code never relies on LLVM's choice and gives NVIDIA's value, as the interpreter does: x / 0 = -1 (all ones),
// MIN / -1 = MIN, MIN % -1 = 0, shifts of >= width give 0 (shl, shrui) or the sign fill (shrsi).
#include <llvm/IR/Intrinsics.h>

#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

llvm::Value* allOnes(llvm::Type* type) { return llvm::Constant::getAllOnesValue(type); }

// Signed and unsigned division and remainder with the guards above.
llvm::Value* divide(Builder& b, bool isSigned, bool isDivision, llvm::Value* x, llvm::Value* y) {
  llvm::Type* type = x->getType();
  const unsigned width = type->getIntegerBitWidth();
  llvm::Value* zero = b.CreateICmpEQ(y, llvm::ConstantInt::get(type, 0));
  if (width == 1)  // i1: the only non-zero divisor is 1 (-1 signed): x / 1 = x (MIN / -1 = MIN), x % 1 = 0
    return b.CreateSelect(zero, allOnes(type), isDivision ? x : llvm::ConstantInt::get(type, 0));
  llvm::Value* unsafe = zero;
  if (isSigned) {
    llvm::Value* overflow = b.CreateAnd(b.CreateICmpEQ(x, llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(width))),
                                        b.CreateICmpEQ(y, allOnes(type)));
    unsafe = b.CreateOr(zero, overflow);  // divide by 1 instead: MIN / 1 = MIN, MIN % 1 = 0
  }
  llvm::Value* safe = b.CreateSelect(unsafe, llvm::ConstantInt::get(type, 1), y);
  llvm::Value* quotient = isDivision ? (isSigned ? b.CreateSDiv(x, safe) : b.CreateUDiv(x, safe))
                                     : (isSigned ? b.CreateSRem(x, safe) : b.CreateURem(x, safe));
  return b.CreateSelect(zero, allOnes(type), quotient);
}

// arith.ceildivsi as the interpreter's ceilDivSigned: the truncated quotient, plus 1 when the division is inexact
// and the operands share a sign; a zero divisor gives -1 (as divsi), MIN / -1 gives MIN.
llvm::Value* ceilDivide(Builder& b, llvm::Value* x, llvm::Value* y) {
  llvm::Type* type = x->getType();
  llvm::Value* quotient = divide(b, true, true, x, y);
  if (type->getIntegerBitWidth() == 1) return quotient;  // divisors 0 and -1 only: exact
  llvm::Value* remainder = divide(b, true, false, x, y);
  llvm::Value* zero = llvm::ConstantInt::get(type, 0);
  llvm::Value* inexact = b.CreateICmpNE(remainder, zero);
  llvm::Value* sameSign = b.CreateICmpSGE(b.CreateXor(x, y), zero);
  llvm::Value* up = b.CreateZExt(b.CreateAnd(inexact, sameSign), type);
  return b.CreateSelect(b.CreateICmpEQ(y, zero), allOnes(type), b.CreateAdd(quotient, up));
}

enum class Shift { Left, RightArithmetic, RightLogical };

llvm::Value* shift(Builder& b, Shift kind, llvm::Value* x, llvm::Value* y) {
  llvm::Type* type = x->getType();
  const unsigned width = type->getIntegerBitWidth();
  llvm::Value* last = llvm::ConstantInt::get(type, width - 1);
  llvm::Value* oversized = b.CreateICmpUGT(y, last);
  llvm::Value* clamped = b.CreateSelect(oversized, last, y);
  switch (kind) {
    case Shift::RightArithmetic: return b.CreateAShr(x, clamped);  // sign fill once the amount saturates
    case Shift::Left: return b.CreateSelect(oversized, llvm::ConstantInt::get(type, 0), b.CreateShl(x, clamped));
    case Shift::RightLogical: return b.CreateSelect(oversized, llvm::ConstantInt::get(type, 0), b.CreateLShr(x, clamped));
  }
  TILESIM_UNREACHABLE("shift kind");
}

}  // namespace

void lowerIntArithOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const IntArithOp kind = familyOp<IntArithOp>(op.kind);
  for (const Value* operand : op.operands)
    if (!operand->type.isInteger()) lowering.unsupported(op, "on " + operand->type.str());
  lowerElementwise(lowering, op, [&](auto& v) -> llvm::Value* {
    switch (kind) {
      case IntArithOp::ArithAddI: return b.CreateAdd(v[0], v[1]);
      case IntArithOp::ArithSubI: return b.CreateSub(v[0], v[1]);
      case IntArithOp::ArithMulI: return b.CreateMul(v[0], v[1]);
      case IntArithOp::ArithDivSI: return divide(b, true, true, v[0], v[1]);
      case IntArithOp::ArithDivUI: return divide(b, false, true, v[0], v[1]);
      case IntArithOp::ArithRemSI: return divide(b, true, false, v[0], v[1]);
      case IntArithOp::ArithRemUI: return divide(b, false, false, v[0], v[1]);
      case IntArithOp::ArithCeilDivSI: return ceilDivide(b, v[0], v[1]);
      case IntArithOp::ArithAndI: return b.CreateAnd(v[0], v[1]);
      case IntArithOp::ArithOrI: return b.CreateOr(v[0], v[1]);
      case IntArithOp::ArithXOrI: return b.CreateXor(v[0], v[1]);
      case IntArithOp::ArithShLI: return shift(b, Shift::Left, v[0], v[1]);
      case IntArithOp::ArithShRSI: return shift(b, Shift::RightArithmetic, v[0], v[1]);
      case IntArithOp::ArithShRUI: return shift(b, Shift::RightLogical, v[0], v[1]);
      case IntArithOp::ArithMaxSI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v[0], v[1]);
      case IntArithOp::ArithMinSI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v[0], v[1]);
      case IntArithOp::ArithMaxUI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, v[0], v[1]);
      case IntArithOp::ArithMinUI: return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, v[0], v[1]);
      case IntArithOp::MathAbsI:  // wraps: abs(MIN) = MIN (is_int_min_poison = false)
        return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, v[0], b.getFalse());
      case IntArithOp::TTMulhiUI: {
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
    }
    TILESIM_UNREACHABLE("integer op");
  });
}

}  // namespace tilesim::gpu
