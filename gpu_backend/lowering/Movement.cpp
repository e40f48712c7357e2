// Values that come from nowhere or only change shape: constants, program ids, tt.make_range, splat, broadcast,
// expand_dims, reshape and trans. The last three move no data: the layout assignment already gave the result a
// layout whose registers are the operand's (LayoutAssignment.h). Broadcast converts the operand into the result
// layout projected onto the operand's shape (the broadcast dimensions' index bits dropped), so register r of the
// converted operand is exactly the element register r of the result repeats.
#include <llvm/ADT/APFloat.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

llvm::Constant* constantFromBits(llvm::Type* type, uint64_t bits) {
  if (type->isIntegerTy()) return llvm::ConstantInt::get(type, bits);
  const unsigned width = type->getPrimitiveSizeInBits();
  return llvm::ConstantFP::get(type->getContext(), llvm::APFloat(type->getFltSemantics(), llvm::APInt(width, bits)));
}

void lowerConstant(KernelLowering& lowering, const Operation& op) {
  const Attribute* value = op.attr("value");
  llvm::Type* type = lowering.scalarType(op, op.result()->type);
  uint64_t bits = 0;
  if (!value) lowering.unsupported(op, "without a value");
  switch (value->kind()) {
    case Attribute::Kind::Dense:
      if (!value->isSplat()) return lowerDenseConstant(lowering, op);  // a table in global memory (Shape.cpp)
      bits = value->denseBitsAt(0);
      break;
    case Attribute::Kind::Integer:
    case Attribute::Kind::Bool: bits = static_cast<uint64_t>(value->intValue()); break;
    case Attribute::Kind::Float: bits = value->bits(); break;
    default: lowering.unsupported(op, "with this value attribute");
  }
  if (type->isIntegerTy()) bits &= type->getIntegerBitWidth() >= 64 ? ~uint64_t{0} : (uint64_t{1} << type->getIntegerBitWidth()) - 1;
  const LinearLayout* layout = lowering.layoutOf(op.result());
  Lowered result{std::vector<llvm::Value*>(static_cast<size_t>(KernelLowering::registerCount(layout)),
                                           constantFromBits(type, bits)),
                 layout ? std::optional<LinearLayout>(*layout) : std::nullopt};
  lowering.set(op.result(), std::move(result));
}

int axisOf(const Operation& op) {
  const Attribute* attr = op.attr("axis");
  if (attr && attr->kind() == Attribute::Kind::Integer) return static_cast<int>(attr->intValue());
  std::string axis = op.keywordAttr("axis", "x");
  return axis == "z" ? 2 : axis == "y" ? 1 : 0;
}

llvm::Value* programRegister(Builder& b, OpKind kind, int axis) {
  static constexpr llvm::Intrinsic::ID kIds[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
  static constexpr llvm::Intrinsic::ID kCounts[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                                                    llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
                                                    llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z};
  return b.CreateIntrinsic(kind == OpKind::TTGetProgramId ? kIds[axis] : kCounts[axis], {}, {});
}

}  // namespace


void lowerMovementOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const LinearLayout* layout = lowering.layoutOf(op.result());
  auto withLayout = [&](std::vector<llvm::Value*> regs) {
    return Lowered{std::move(regs), layout ? std::optional<LinearLayout>(*layout) : std::nullopt};
  };
  switch (op.kind) {
    case OpKind::ArithConstant: return lowerConstant(lowering, op);
    case OpKind::TTGetProgramId:
    case OpKind::TTGetNumPrograms:
      return lowering.set(op.result(), Lowered{{programRegister(b, op.kind, axisOf(op))}, std::nullopt});
    case OpKind::TTMakeRange: {
      const int32_t start = static_cast<int32_t>(op.intAttr("start"));
      std::vector<llvm::Value*> regs;
      for (int r = 0; r < numRegisters(*layout); ++r)
        regs.push_back(start == 0 ? lowering.elementIndex(*layout, r)
                                  : b.CreateAdd(b.getInt32(static_cast<uint32_t>(start)), lowering.elementIndex(*layout, r)));
      return lowering.set(op.result(), withLayout(std::move(regs)));
    }
    case OpKind::TTSplat:
      return lowering.set(op.result(), withLayout(lowering.in(op.operand(0), layout)));
    case OpKind::TTUnsplat:
      return lowering.set(op.result(), Lowered{{lowering.get(op.operand(0)).regs[0]}, std::nullopt});
    case OpKind::TTBroadcast: {
      const Value* source = op.operand(0);
      if (!source->type.isTensor()) return lowering.set(op.result(), withLayout(lowering.in(source, layout)));
      LinearLayout wanted = broadcastSource(*layout, source->type.shape());
      return lowering.set(op.result(), withLayout(lowering.in(source, &wanted)));
    }
    case OpKind::TTExpandDims:
    case OpKind::TTReshape:
    case OpKind::TTTrans: {
      const Lowered& source = lowering.get(op.operand(0));
      TILESIM_ASSERT(layout && source.layout, "gpu lowering: shape op on a scalar");
      // The assignment derived the result layout from the operand's (same registers); without `order` it could not.
      if (op.kind == OpKind::TTTrans && !op.attr("order")) lowering.unsupported(op, "without an order attribute");
      TILESIM_ASSERT(numRegisters(*layout) == static_cast<int>(source.regs.size()),
                     "gpu lowering: a shape op whose layout does not keep the operand's registers");
      return lowering.set(op.result(), withLayout(source.regs));
    }
    default: TILESIM_UNREACHABLE("not a movement op");
  }
}

}  // namespace tilesim::gpu
