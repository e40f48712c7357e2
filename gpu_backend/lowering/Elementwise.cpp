// The Compare family (ir/Ops.def; interpreter/Elementwise.cpp): the ops that make or consume i1 lane masks.
// arith.cmpi compares the integers (or pointers) as they are; arith.cmpf compares f16/bf16 widened to f32, which
// is exact; arith.select picks per lane. The predicates come from the typed views of ir/OpAttributes.h.
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Mutation.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

// LLVM's predicate of each IntPredicate / FloatPredicate, in the enums' (MLIR's) order.
llvm::CmpInst::Predicate llvmPredicate(IntPredicate predicate) {
  static constexpr llvm::CmpInst::Predicate kPredicates[] = {
      llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,  llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
      llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE, llvm::CmpInst::ICMP_ULT, llvm::CmpInst::ICMP_ULE,
      llvm::CmpInst::ICMP_UGT, llvm::CmpInst::ICMP_UGE};
  static_assert(std::size(kPredicates) == static_cast<size_t>(IntPredicate::Uge) + 1);
  return kPredicates[static_cast<size_t>(predicate)];
}

llvm::CmpInst::Predicate llvmPredicate(FloatPredicate predicate) {
  using P = llvm::CmpInst::Predicate;
  static constexpr P kPredicates[] = {P::FCMP_FALSE, P::FCMP_OEQ, P::FCMP_OGT, P::FCMP_OGE, P::FCMP_OLT, P::FCMP_OLE,
                                      P::FCMP_ONE,   P::FCMP_ORD, P::FCMP_UEQ, P::FCMP_UGT, P::FCMP_UGE, P::FCMP_ULT,
                                      P::FCMP_ULE,   P::FCMP_UNE, P::FCMP_UNO, P::FCMP_TRUE};
  static_assert(std::size(kPredicates) == static_cast<size_t>(FloatPredicate::True) + 1);
  const P lowered = kPredicates[static_cast<size_t>(predicate)];
  return TILESIM_MUTANT(gpu_cmpf_une_as_one, lowered, predicate == FloatPredicate::Une ? P::FCMP_ONE : lowered);
}

}  // namespace

void lowerCompareOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  switch (familyOp<CompareOp>(op.kind)) {
    case CompareOp::ArithCmpI: {
      const llvm::CmpInst::Predicate predicate = llvmPredicate(CmpIView{op}.predicate());
      return lowerElementwise(lowering, op, [&](auto& v) { return b.CreateICmp(predicate, v[0], v[1]); });
    }
    case CompareOp::ArithCmpF: {
      for (const Value* operand : op.operands)
        if (!operand->type.isFloat() || isFp8(operand->type)) lowering.unsupported(op, "on " + operand->type.str());
      const llvm::CmpInst::Predicate predicate = llvmPredicate(CmpFView{op}.predicate());
      return lowerElementwise(lowering, op, [&](auto& v) {
        return b.CreateFCmp(predicate, widenFloat(b, v[0]), widenFloat(b, v[1]));
      });
    }
    case CompareOp::ArithSelect:
      return lowerElementwise(lowering, op, [&](auto& v) { return b.CreateSelect(v[0], v[1], v[2]); });
  }
}

}  // namespace tilesim::gpu
