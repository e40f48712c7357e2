// SharedStage (Lowering.h): tensors staged in shared memory at their flat (row-major) index, for the ops whose
// result elements come from other threads (Movement.cpp's join, split, cat and gather; Dot.cpp; Descriptors.cpp).
#include <fmt/format.h>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {

using Builder = llvm::IRBuilder<>;

SharedStage::SharedStage(KernelLowering& lowering, const Operation& op) : lowering_(lowering), op_(op) {}

llvm::Value* SharedStage::add(const Value* value, int64_t slots) {
  Builder& b = lowering_.builder;
  llvm::Type* type = lowering_.storageType(op_, value->type);
  const int64_t bytes = slots * static_cast<int64_t>(lowering_.module.getDataLayout().getTypeAllocSize(type));
  const int64_t offset = (bytes_ + 15) / 16 * 16;
  bytes_ = offset + bytes;
  if (bytes_ > lowering_.sharedLimit())
    lowering_.unsupported(op_, fmt::format("on tensors that need {} bytes of shared memory", bytes_));
  // Where the stage starts is decided in storeAll, when its size is known: the start is an instruction whose
  // offset operand storeAll sets.
  if (!start_) {
    llvm::Value* zero = b.getInt64(0);
    start_ = llvm::GetElementPtrInst::Create(b.getInt8Ty(), lowering_.sharedGlobal(), llvm::ArrayRef<llvm::Value*>(zero), llvm::Twine("stage"));
    b.Insert(start_);
  }
  llvm::Value* base = offset == 0 ? start_ : b.CreateGEP(b.getInt8Ty(), start_, b.getInt64(offset));
  entries_.push_back({value, base, type});
  return base;
}

void SharedStage::storeAll() {
  Builder& b = lowering_.builder;
  const SharedRange range = lowering_.placeShared(bytes_, &op_, "staged tensors");
  if (start_) start_->setOperand(1, b.getInt64(static_cast<uint64_t>(range.offset)));
  lowering_.beforeSharedWrite(range);
  for (const Entry& entry : entries_) {
    if (!entry.value) continue;
    const Lowered& lowered = lowering_.get(entry.value);
    TILESIM_ASSERT(lowered.layout, "staging a scalar in shared memory");
    for (int r = 0; r < numRegisters(*lowered.layout); ++r) {
      llvm::Value* v = lowered.regs[static_cast<size_t>(r)];
      if (v->getType()->isIntegerTy(1)) v = b.CreateZExt(v, entry.type);
      b.CreateStore(v, slot(entry.base, entry.type, lowering_.elementIndex(*lowered.layout, r)));
    }
  }
  lowering_.beforeSharedRead(range);
}

llvm::Value* SharedStage::slot(llvm::Value* base, llvm::Type* type, llvm::Value* index) {
  Builder& b = lowering_.builder;
  return b.CreateGEP(type, base, b.CreateZExt(index, b.getInt64Ty()));
}

llvm::Value* SharedStage::load(llvm::Value* base, llvm::Type* type, llvm::Value* index, llvm::Type* valueType) {
  Builder& b = lowering_.builder;
  llvm::Value* v = b.CreateLoad(type, slot(base, type, index));
  return valueType->isIntegerTy(1) ? b.CreateICmpNE(v, llvm::ConstantInt::get(type, 0)) : v;
}

}  // namespace tilesim::gpu
