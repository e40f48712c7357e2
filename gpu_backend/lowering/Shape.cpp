// Shape ops that move elements between threads: tt.join, tt.split, tt.cat, tt.gather and tt.histogram
// (ir/Ops.def; interpreter/Movement.cpp). Each goes through shared memory with the generic staging below:
// barrier, every thread stores its registers of the operands at their flat (row-major) index, barrier, every
// thread loads the element each of its result registers needs, computed from the result's flat index:
//  - join (result [..., 2]): a and b are staged one after the other; result index i reads slot (i & 1) * n + i / 2.
//  - split (operand [..., 2]): result w, index i reads slot 2 i + w.
//  - cat along dim 0 of row-major tensors is the concatenation of the two flat arrays: slot i.
//  - gather: the result index's coordinates with the one along `axis` replaced by the index register's value,
//    in the source's strides. An index outside [0, size) traps in the interpreter; here it is wrapped into the
//    axis (index & (size - 1)) so that no thread reads outside the staged source.
//  - histogram: bins zeroed in shared memory, one shared `atomicrmw add` (atom.shared.add.u32) per element owner (copies of an element
//    in other threads or registers count once; masked-off elements and values outside [0, bins) not at all),
//    barrier, the result registers load their bins.
#include <fmt/format.h>

#include <unordered_set>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;


int log2Of(int64_t value) {
  int bits = 0;
  while ((int64_t{1} << bits) < value) ++bits;
  return bits;
}

// Element type as stored in a shared slot (i1 as a byte).
llvm::Type* slotType(KernelLowering& lowering, const Operation& op, Type type) {
  llvm::Type* scalar = lowering.scalarType(op, type);
  return scalar->isIntegerTy(1) ? lowering.builder.getInt8Ty() : scalar;
}

}  // namespace

SharedStage::SharedStage(KernelLowering& lowering, const Operation& op) : lowering_(lowering), op_(op) {}

llvm::Value* SharedStage::add(const Value* value, int64_t slots) {
  Builder& b = lowering_.builder;
  llvm::Type* type = slotType(lowering_, op_, value->type);
  const int64_t bytes = slots * static_cast<int64_t>(lowering_.module.getDataLayout().getTypeAllocSize(type));
  const int64_t offset = (bytes_ + 15) / 16 * 16;
  bytes_ = offset + bytes;
  if (bytes_ > SharedMemoryPlan::kMaxBytes)
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

namespace {

void lowerJoinSplitCat(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  SharedStage stage(lowering, op);
  const Value* first = op.operand(0);
  const int64_t n = first->type.numElements();
  llvm::Value* base = stage.add(first, op.kind == OpKind::TTSplit ? n : 2 * n);
  if (op.kind != OpKind::TTSplit) {
    // The second operand directly after the first (the slots are contiguous: same type, no padding).
    stage.addAt(op.operand(1), b.CreateGEP(slotType(lowering, op, first->type), base, b.getInt64(n)),
                slotType(lowering, op, first->type));
  }
  stage.storeAll();
  llvm::Type* type = slotType(lowering, op, first->type);
  llvm::Type* valueType = lowering.scalarType(op, first->type);
  for (size_t result = 0; result < op.numResults(); ++result) {
    const LinearLayout* layout = lowering.layoutOf(op.result(result));
    Lowered lowered;
    lowered.layout = *layout;
    for (int r = 0; r < numRegisters(*layout); ++r) {
      llvm::Value* index = lowering.elementIndex(*layout, r);
      llvm::Value* source = nullptr;
      switch (op.kind) {
        case OpKind::TTJoin:
          source = b.CreateOr(b.CreateMul(b.CreateAnd(index, 1), b.getInt32(static_cast<uint32_t>(n))), b.CreateLShr(index, 1));
          break;
        case OpKind::TTSplit: source = b.CreateOr(b.CreateShl(index, 1), b.getInt32(static_cast<uint32_t>(result))); break;
        case OpKind::TTCat: source = index; break;
        default: TILESIM_UNREACHABLE("not join/split/cat");
      }
      lowered.regs.push_back(stage.load(base, type, source, valueType));
    }
    lowering.set(op.result(result), std::move(lowered));
  }
}

void lowerGather(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Value* source = op.operand(0);
  const int axis = static_cast<int>(op.intAttr("axis"));
  std::span<const int64_t> sourceShape = source->type.shape();
  std::span<const int64_t> resultShape = op.result()->type.shape();
  SharedStage stage(lowering, op);
  llvm::Value* base = stage.add(source, source->type.numElements());
  const LinearLayout* layout = lowering.layoutOf(op.result());
  std::vector<llvm::Value*> indices = lowering.in(op.operand(1), layout);
  stage.storeAll();
  llvm::Type* type = slotType(lowering, op, source->type);
  llvm::Type* valueType = lowering.scalarType(op, source->type);
  Lowered lowered;
  lowered.layout = *layout;
  const int rank = static_cast<int>(resultShape.size());
  for (int r = 0; r < numRegisters(*layout); ++r) {
    llvm::Value* flat = lowering.elementIndex(*layout, r);
    // Coordinates of the result element (row-major, power-of-two extents), re-encoded in the source's strides.
    llvm::Value* sourceIndex = b.getInt32(0);
    int resultShift = 0, sourceShift = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int resultBits = log2Of(resultShape[static_cast<size_t>(d)]), sourceBits = log2Of(sourceShape[static_cast<size_t>(d)]);
      llvm::Value* coordinate;
      if (d == axis) {
        coordinate = b.CreateAnd(b.CreateTrunc(indices[static_cast<size_t>(r)], b.getInt32Ty()),
                                 b.getInt32(static_cast<uint32_t>(sourceShape[static_cast<size_t>(d)] - 1)));
      } else {
        coordinate = b.CreateAnd(b.CreateLShr(flat, static_cast<uint64_t>(resultShift)),
                                 b.getInt32(static_cast<uint32_t>(resultShape[static_cast<size_t>(d)] - 1)));
      }
      sourceIndex = b.CreateOr(sourceIndex, b.CreateShl(coordinate, static_cast<uint64_t>(sourceShift)));
      resultShift += resultBits;
      sourceShift += sourceBits;
    }
    lowered.regs.push_back(stage.load(base, type, sourceIndex, valueType));
  }
  lowering.set(op.result(), std::move(lowered));
}

void lowerHistogram(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Value* values = op.operand(0);
  const LinearLayout* valueLayout = lowering.layoutOf(values) ? lowering.layoutOf(values) : lowering.get(values).layout ? &*lowering.get(values).layout : nullptr;
  TILESIM_ASSERT(valueLayout, "tt.histogram of a scalar");
  std::vector<llvm::Value*> regs = lowering.in(values, valueLayout);
  std::vector<llvm::Value*> masks;
  if (op.numOperands() > 1) masks = lowering.in(op.operand(1), valueLayout);
  const int64_t bins = op.result()->type.numElements();
  KernelLowering::SharedBuffer binsBuffer = lowering.sharedBuffer(bins * 4, &op, "bins");
  llvm::Value* counts = binsBuffer.base;
  llvm::Type* i32 = b.getInt32Ty();
  // Zero the bins (thread t clears bins t, t + threads, ...).
  lowering.beforeSharedWrite(binsBuffer.range);
  const int threads = 32 * lowering.options.numWarps;
  llvm::Value* thread = lowering.threadId();
  for (int64_t start = 0; start < bins; start += threads) {
    llvm::Value* bin = b.CreateAdd(thread, b.getInt32(static_cast<uint32_t>(start)));
    llvm::BasicBlock* body = llvm::BasicBlock::Create(lowering.context, "histogram.zero", lowering.function);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(lowering.context, "histogram.zeroed", lowering.function);
    b.CreateCondBr(b.CreateICmpULT(bin, b.getInt32(static_cast<uint32_t>(bins))), body, next);
    b.SetInsertPoint(body);
    b.CreateStore(b.getInt32(0), b.CreateGEP(i32, counts, b.CreateZExt(bin, b.getInt64Ty())));
    b.CreateBr(next);
    b.SetInsertPoint(next);
  }
  lowering.beforeSharedWrite(binsBuffer.range);  // the counts after the zeroing (a write after writes)
  // One count per element: the owner copy (duplicating lane/warp bits 0, first register holding it).
  llvm::Value* owner = b.CreateICmpEQ(
      b.CreateOr(b.CreateAnd(lowering.laneId(), b.getInt32(static_cast<uint32_t>(valueLayout->zeroBasisMask(kLaneDim)))),
                 b.CreateAnd(lowering.warpId(), b.getInt32(static_cast<uint32_t>(valueLayout->zeroBasisMask(kWarpDim))))),
      b.getInt32(0));
  std::unordered_set<uint64_t> seen;
  for (int r = 0; r < numRegisters(*valueLayout); ++r) {
    if (!seen.insert(registerElement(*valueLayout, r)).second) continue;
    llvm::Value* v = regs[static_cast<size_t>(r)];
    llvm::Value* wide = b.CreateSExtOrTrunc(v, b.getInt64Ty());
    llvm::Value* counted = b.CreateAnd(owner, b.CreateICmpULT(wide, b.getInt64(static_cast<uint64_t>(bins))));
    if (!masks.empty()) counted = b.CreateAnd(counted, masks[static_cast<size_t>(r)]);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(lowering.context, "histogram.count", lowering.function);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(lowering.context, "histogram.counted", lowering.function);
    b.CreateCondBr(counted, body, next);
    b.SetInsertPoint(body);
    b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, b.CreateGEP(i32, counts, wide), b.getInt32(1), llvm::Align(4),
                      llvm::AtomicOrdering::Monotonic);  // atom.shared.add.u32 (the read below gets a barrier)
    b.CreateBr(next);
    b.SetInsertPoint(next);
  }
  lowering.beforeSharedRead(binsBuffer.range);
  const LinearLayout* layout = lowering.layoutOf(op.result());
  Lowered lowered;
  lowered.layout = *layout;
  for (int r = 0; r < numRegisters(*layout); ++r)
    lowered.regs.push_back(b.CreateLoad(i32, b.CreateGEP(i32, counts, b.CreateZExt(lowering.elementIndex(*layout, r), b.getInt64Ty()))));
  lowering.set(op.result(), std::move(lowered));
}

}  // namespace

// A non-splat dense arith.constant: the values as a constant table in global memory (row-major), each register
// loading the element at its flat index (the element a register holds depends on the thread).
void lowerDenseConstant(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Attribute* value = op.attr("value");
  const Type type = op.result()->type;
  llvm::Type* element = slotType(lowering, op, type);
  llvm::Type* valueType = lowering.scalarType(op, type);
  const int64_t count = type.numElements();
  const unsigned width = static_cast<unsigned>(lowering.module.getDataLayout().getTypeSizeInBits(element));
  std::vector<llvm::Constant*> elements;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = value->denseBitsAt(i);
    if (width < 64) bits &= (uint64_t{1} << width) - 1;
    llvm::Constant* integer = llvm::ConstantInt::get(b.getIntNTy(width), bits);
    elements.push_back(element->isIntegerTy() ? integer : llvm::ConstantExpr::getBitCast(integer, element));
  }
  auto* arrayType = llvm::ArrayType::get(element, static_cast<uint64_t>(count));
  auto* table = new llvm::GlobalVariable(lowering.module, arrayType, true, llvm::GlobalValue::InternalLinkage,
                                         llvm::ConstantArray::get(arrayType, elements), "dense_constant", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 1);
  const LinearLayout* layout = lowering.layoutOf(op.result());
  Lowered lowered;
  lowered.layout = *layout;
  for (int r = 0; r < numRegisters(*layout); ++r) {
    llvm::Value* v = b.CreateLoad(element, b.CreateGEP(element, table, b.CreateZExt(lowering.elementIndex(*layout, r), b.getInt64Ty())));
    lowered.regs.push_back(valueType->isIntegerTy(1) ? b.CreateICmpNE(v, b.getInt8(0)) : v);
  }
  lowering.set(op.result(), std::move(lowered));
}

void lowerShapeOp(KernelLowering& lowering, const Operation& op) {
  switch (op.kind) {
    case OpKind::TTJoin:
    case OpKind::TTSplit:
    case OpKind::TTCat: return lowerJoinSplitCat(lowering, op);
    case OpKind::TTGather: return lowerGather(lowering, op);
    case OpKind::TTHistogram: return lowerHistogram(lowering, op);
    default: TILESIM_UNREACHABLE("not a shape op");
  }
}

}  // namespace tilesim::gpu
