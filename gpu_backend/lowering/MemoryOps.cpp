// tt.addptr, tt.load, tt.store on pointers and tensors of pointers (docs/semantics.md §Programs, memory and
// masks). Every access is one predicated PTX instruction per register (Ptx.h): a masked-off lane executes no
// memory instruction at all and a masked load gives `other`, or 0 when there is none (what NVIDIA gives).
// Threads that hold copies of an element (zero bases in the layout) store the same value to the same address.
// Accesses are not vectorised yet: that needs the contiguity and divisibility facts of an AxisInfo analysis.
#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

Type pointeeOf(KernelLowering& lowering, const Operation& op, const Value* pointer) {
  Type element = pointer->type.element();
  if (!element.isPointer() || !element.pointee().isScalar()) lowering.unsupported(op, "on block pointers");
  return element.pointee();
}

// A register value as the integer a memory instruction moves (8-bit values in 16-bit registers).
llvm::Value* toMemoryBits(Builder& b, llvm::Value* value, int bits) {
  llvm::Type* registerType = b.getIntNTy(static_cast<unsigned>(ptx::registerBits(bits)));
  if (!value->getType()->isIntegerTy()) value = b.CreateBitCast(value, b.getIntNTy(static_cast<unsigned>(bits)));
  return b.CreateZExtOrTrunc(value, registerType);
}

llvm::Value* fromMemoryBits(Builder& b, llvm::Value* bits, llvm::Type* type, int width) {
  if (type->isIntegerTy(1)) return b.CreateICmpNE(b.CreateTrunc(bits, b.getInt8Ty()), b.getInt8(0));
  llvm::Value* exact = b.CreateTrunc(bits, b.getIntNTy(static_cast<unsigned>(width)));
  return type->isIntegerTy() ? exact : b.CreateBitCast(exact, type);
}

}  // namespace

void lowerMemoryOp(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  switch (op.kind) {
    case OpKind::TTAddPtr: {
      Type pointee = pointeeOf(lowering, op, op.operand(0));
      llvm::Type* element = lowering.storageType(op, pointee);
      const bool zeroExtend = op.operand(1)->type.element().scalarKind() == ScalarKind::I1;  // i1 offsets are 0/1
      return lowerElementwise(lowering, op, [&](auto& v) {
        llvm::Value* offset = zeroExtend ? b.CreateZExt(v[1], b.getInt64Ty()) : b.CreateSExtOrTrunc(v[1], b.getInt64Ty());
        return b.CreateGEP(element, v[0], offset);
      });
    }
    case OpKind::TTLoad: {
      Type pointee = pointeeOf(lowering, op, op.operand(0));
      llvm::Type* type = lowering.scalarType(op, pointee);
      const int bits = storageBytes(pointee.scalarKind()) * 8;
      const bool masked = op.numOperands() > 1, hasOther = op.numOperands() > 2;
      return lowerElementwise(lowering, op, [&](auto& v) {
        llvm::Value* other = hasOther ? toMemoryBits(b, v[2], bits) : b.getIntN(static_cast<unsigned>(ptx::registerBits(bits)), 0);
        llvm::Value* loaded = ptx::loadGlobal(b, v[0], bits, masked ? v[1] : nullptr, other);
        return fromMemoryBits(b, loaded, type, bits);
      });
    }
    case OpKind::TTStore: {
      Type pointee = pointeeOf(lowering, op, op.operand(0));
      const int bits = storageBytes(pointee.scalarKind()) * 8;
      const LinearLayout* layout = lowering.layoutOf(op.operand(0));
      std::vector<llvm::Value*> pointers = lowering.in(op.operand(0), layout);
      std::vector<llvm::Value*> values = lowering.in(op.operand(1), layout);
      std::vector<llvm::Value*> masks;
      if (op.numOperands() > 2) masks = lowering.in(op.operand(2), layout);
      for (size_t r = 0; r < pointers.size(); ++r)
        ptx::storeGlobal(b, pointers[r], bits, toMemoryBits(b, values[r], bits), masks.empty() ? nullptr : masks[r]);
      return;
    }
    default: TILESIM_UNREACHABLE("not a memory op");
  }
}

}  // namespace tilesim::gpu
