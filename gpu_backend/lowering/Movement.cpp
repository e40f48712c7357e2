// The Shape family (ir/Ops.def; interpreter/Movement.cpp): data movement within a tile, no arithmetic on the values.
//  - splat, unsplat, broadcast, expand_dims, reshape and trans move no data between threads. The last three keep
//    the operand's registers: the layout assignment already gave the result a layout whose registers are the
//    operand's (LayoutAssignment.h). Broadcast converts the operand into the result layout projected onto the
//    operand's shape (the broadcast dimensions' index bits dropped), so register r of the converted operand is
//    exactly the element register r of the result repeats.
//  - join, split, cat, gather and histogram move elements between threads, through shared memory with the
//    generic staging of SharedStage.cpp: barrier, every thread stores its registers of the operands at their flat
//    (row-major) index, barrier, every thread loads the element each of its result registers needs, computed from
//    the result's flat index:
//    - join (result [..., 2]): a and b are staged one after the other; result index i reads slot (i & 1) * n + i / 2.
//    - split (operand [..., 2]): result w, index i reads slot 2 i + w.
//    - cat along dim 0 of row-major tensors is the concatenation of the two flat arrays: slot i.
//    - gather: the result index's coordinates with the one along `axis` replaced by the index register's value,
//      in the source's strides. An index outside [0, size) traps in the interpreter; here it is wrapped into the
//      axis (index & (size - 1)) so that no thread reads outside the staged source.
//    - histogram: bins zeroed in shared memory, one shared `atomicrmw add` (atom.shared.add.u32) per element owner
//      (copies of an element in other threads or registers count once; masked-off elements and values outside
//      [0, bins) not at all), barrier, the result registers load their bins.
#include <unordered_set>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

// The staged slot that element `index` of result `result` reads (the operands staged one after the other, `n`
// elements each): join, split and cat differ only in this.
using SlotOf = llvm::Value* (*)(Builder& b, llvm::Value* index, size_t result, int64_t n);
llvm::Value* joinSlot(Builder& b, llvm::Value* index, size_t, int64_t n) {
  return b.CreateOr(b.CreateMul(b.CreateAnd(index, 1), b.getInt32(static_cast<uint32_t>(n))), b.CreateLShr(index, 1));
}
llvm::Value* splitSlot(Builder& b, llvm::Value* index, size_t result, int64_t) {
  return b.CreateOr(b.CreateShl(index, 1), b.getInt32(static_cast<uint32_t>(result)));
}
llvm::Value* catSlot(Builder&, llvm::Value* index, size_t, int64_t) { return index; }

void lowerJoinSplitCat(KernelLowering& lowering, const Operation& op, SlotOf slotOf) {
  Builder& b = lowering.builder;
  SharedStage stage(lowering, op);
  const Value* first = op.operand(0);
  const int64_t n = first->type.numElements();
  llvm::Value* base = stage.add(first, op.kind == OpKind::TTSplit ? n : 2 * n);
  if (op.kind != OpKind::TTSplit) {
    // The second operand directly after the first (the slots are contiguous: same type, no padding).
    stage.addAt(op.operand(1), b.CreateGEP(lowering.storageType(op, first->type), base, b.getInt64(n)),
                lowering.storageType(op, first->type));
  }
  stage.storeAll();
  llvm::Type* type = lowering.storageType(op, first->type);
  llvm::Type* valueType = lowering.scalarType(op, first->type);
  for (size_t result = 0; result < op.numResults(); ++result) {
    const LinearLayout* layout = lowering.layoutOf(op.result(result));
    Lowered lowered;
    lowered.layout = *layout;
    for (int r = 0; r < numRegisters(*layout); ++r) {
      llvm::Value* index = lowering.elementIndex(*layout, r);
      llvm::Value* source = slotOf(b, index, result, n);
      lowered.regs.push_back(stage.load(base, type, source, valueType));
    }
    lowering.set(op.result(result), std::move(lowered));
  }
}

void lowerGather(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Value* source = op.operand(0);
  const int axis = AxisView{op}.axis();
  std::span<const int64_t> sourceShape = source->type.shape();
  std::span<const int64_t> resultShape = op.result()->type.shape();
  SharedStage stage(lowering, op);
  llvm::Value* base = stage.add(source, source->type.numElements());
  const LinearLayout* layout = lowering.layoutOf(op.result());
  std::vector<llvm::Value*> indices = lowering.in(op.operand(1), layout);
  stage.storeAll();
  llvm::Type* type = lowering.storageType(op, source->type);
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
      const int resultBits = log2Ceil(resultShape[static_cast<size_t>(d)]), sourceBits = log2Ceil(sourceShape[static_cast<size_t>(d)]);
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

// The ops that keep the operand's registers (expand_dims, reshape, trans): the layout assignment derived the
// result layout from the operand's.
void lowerSameRegisters(KernelLowering& lowering, const Operation& op, const LinearLayout* layout) {
  const Lowered& source = lowering.get(op.operand(0));
  TILESIM_ASSERT(layout && source.layout, "gpu lowering: shape op on a scalar");
  TILESIM_ASSERT(numRegisters(*layout) == static_cast<int>(source.regs.size()),
                 "gpu lowering: a shape op whose layout does not keep the operand's registers");
  lowering.set(op.result(), Lowered{source.regs, *layout});
}

}  // namespace

void lowerShapeOp(KernelLowering& lowering, const Operation& op) {
  const LinearLayout* layout = lowering.layoutOf(op.result());
  auto withLayout = [&](std::vector<llvm::Value*> regs) {
    return Lowered{std::move(regs), layout ? std::optional<LinearLayout>(*layout) : std::nullopt};
  };
  switch (familyOp<ShapeOp>(op.kind)) {
    case ShapeOp::TTSplat: return lowering.set(op.result(), withLayout(lowering.in(op.operand(0), layout)));
    case ShapeOp::TTUnsplat:
      return lowering.set(op.result(), Lowered{{lowering.get(op.operand(0)).regs[0]}, std::nullopt});
    case ShapeOp::TTBroadcast: {
      const Value* source = op.operand(0);
      if (!source->type.isTensor()) return lowering.set(op.result(), withLayout(lowering.in(source, layout)));
      LinearLayout wanted = broadcastSource(*layout, source->type.shape());
      return lowering.set(op.result(), withLayout(lowering.in(source, &wanted)));
    }
    case ShapeOp::TTExpandDims:
    case ShapeOp::TTReshape: return lowerSameRegisters(lowering, op, layout);
    case ShapeOp::TTTrans:
      // Without `order` the assignment could not derive the result layout from the operand's.
      if (!OrderView{op}.order()) lowering.unsupported(op, "without an order attribute");
      return lowerSameRegisters(lowering, op, layout);
    case ShapeOp::TTJoin: return lowerJoinSplitCat(lowering, op, joinSlot);
    case ShapeOp::TTSplit: return lowerJoinSplitCat(lowering, op, splitSlot);
    case ShapeOp::TTCat: return lowerJoinSplitCat(lowering, op, catSlot);
    case ShapeOp::TTGather: return lowerGather(lowering, op);
    case ShapeOp::TTHistogram: return lowerHistogram(lowering, op);
  }
}

}  // namespace tilesim::gpu
