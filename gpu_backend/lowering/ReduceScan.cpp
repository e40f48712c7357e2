// The ReduceScan family (ir/Ops.def; interpreter/ReduceScan.cpp): tt.reduce is Reduce.cpp's; tt.scan is here.
//
// tt.scan is Kogge-Stone over the index bits along the axis (docs/semantics.md): for d = 1, 2, ..., S/2, for every
// i >= d at once, x'[i] = combine(x[i - d], x[i]) (reverse: combine(x[i + d], x[i]) for i < S - d), others keep
// their value. When the whole axis lives in each thread's registers every level is a register move; otherwise each
// level goes through shared memory (store every element at its flat index, barrier, read the element d before).
#include <algorithm>
#include <unordered_map>

#include "gpu_backend/lowering/CombineRegion.h"
#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

bool axisInRegistersOnly(const LinearLayout& layout, uint64_t axisMask) {
  for (std::string_view dim : {kLaneDim, kWarpDim})
    for (uint64_t basis : layout.dimBases(dim))
      if (basis & axisMask) return false;
  return true;
}

}  // namespace

void lowerScan(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const int axis = AxisView{op}.axis();
  const bool reverse = ScanView{op}.reverse();
  const size_t count = op.numOperands();
  CombineOperands gathered = gatherCombineOperands(lowering, op, op.result(0), "tt.scan of a scalar");
  auto& [layout, values, registers] = gathered;
  const int axisBits = layout.outDims()[static_cast<size_t>(axis)].bits;
  const int offset = layout.outDimOffset(axis);
  const uint64_t extent = uint64_t{1} << axisBits;
  const uint64_t axisMask = (extent - 1) << offset;
  auto combineAt = [&](const std::vector<llvm::Value*>& earlier, const std::vector<llvm::Value*>& later) {
    return applyCombine(lowering, op, earlier, later);
  };

  if (axisInRegistersOnly(layout, axisMask)) {
    std::unordered_map<uint64_t, int> holder;
    for (int r = registers - 1; r >= 0; --r) holder[registerElement(layout, r)] = r;
    for (int q = 0; q < axisBits; ++q) {
      const uint64_t d = uint64_t{1} << q;
      std::vector<std::vector<llvm::Value*>> next = values;
      for (int r = 0; r < registers; ++r) {
        const uint64_t element = registerElement(layout, r);
        const uint64_t position = (element & axisMask) >> offset;
        if (reverse ? position + d >= extent : position < d) continue;
        const uint64_t source = reverse ? element + (d << offset) : element - (d << offset);
        const int from = holder.at(source);
        std::vector<llvm::Value*> earlier, later;
        for (size_t k = 0; k < count; ++k) {
          earlier.push_back(values[k][static_cast<size_t>(from)]);
          later.push_back(values[k][static_cast<size_t>(r)]);
        }
        std::vector<llvm::Value*> combined = combineAt(earlier, later);
        for (size_t k = 0; k < count; ++k) next[k][static_cast<size_t>(r)] = combined[k];
      }
      values = std::move(next);
    }
  } else {
    const int64_t numel = int64_t{1} << layout.outBits();
    for (int q = 0; q < axisBits; ++q) {
      const uint32_t shift = static_cast<uint32_t>((uint64_t{1} << q) << offset);
      std::vector<std::vector<llvm::Value*>> other(count);
      for (size_t k = 0; k < count; ++k) {
        llvm::Type* type = values[k][0]->getType();
        llvm::Type* stored = type->isIntegerTy(1) ? b.getInt8Ty() : type;
        const Type element = op.operand(k)->type.element();
        const int64_t bytes = numel * (element.isPointer() ? 8 : storageBytes(element.scalarKind()));
        KernelLowering::SharedBuffer buffer = lowering.sharedBuffer(bytes, &op, "a tensor");
        auto slot = [&](llvm::Value* index) { return b.CreateGEP(stored, buffer.base, b.CreateZExt(index, b.getInt64Ty())); };
        lowering.beforeSharedWrite(buffer.range);
        for (int r = 0; r < registers; ++r) {
          llvm::Value* value = values[k][static_cast<size_t>(r)];
          b.CreateStore(type->isIntegerTy(1) ? b.CreateZExt(value, stored) : value, slot(lowering.elementIndex(layout, r)));
        }
        lowering.beforeSharedRead(buffer.range);
        for (int r = 0; r < registers; ++r) {
          llvm::Value* index = lowering.elementIndex(layout, r);
          llvm::Value* source = reverse ? b.CreateAdd(index, b.getInt32(shift)) : b.CreateSub(index, b.getInt32(shift));
          llvm::Value* position = b.CreateAnd(index, b.getInt32(static_cast<uint32_t>(axisMask)));
          llvm::Value* valid = reverse ? b.CreateICmpULT(position, b.getInt32(static_cast<uint32_t>((extent << offset) - shift)))
                                       : b.CreateICmpUGE(position, b.getInt32(shift));
          llvm::Value* loaded = b.CreateLoad(stored, slot(b.CreateSelect(valid, source, index)));
          other[k].push_back(type->isIntegerTy(1) ? b.CreateICmpNE(loaded, b.getInt8(0)) : loaded);
        }
      }
      for (int r = 0; r < registers; ++r) {
        llvm::Value* index = lowering.elementIndex(layout, r);
        llvm::Value* position = b.CreateAnd(index, b.getInt32(static_cast<uint32_t>(axisMask)));
        llvm::Value* valid = reverse ? b.CreateICmpULT(position, b.getInt32(static_cast<uint32_t>((extent << offset) - shift)))
                                     : b.CreateICmpUGE(position, b.getInt32(shift));
        std::vector<llvm::Value*> earlier, later;
        for (size_t k = 0; k < count; ++k) {
          earlier.push_back(other[k][static_cast<size_t>(r)]);
          later.push_back(values[k][static_cast<size_t>(r)]);
        }
        std::vector<llvm::Value*> combined = combineAt(earlier, later);
        for (size_t k = 0; k < count; ++k)
          values[k][static_cast<size_t>(r)] = b.CreateSelect(valid, combined[k], values[k][static_cast<size_t>(r)]);
      }
    }
  }
  for (size_t k = 0; k < count; ++k) lowering.set(op.result(k), Lowered{values[k], layout});
}

void lowerReduceScanOp(KernelLowering& lowering, const Operation& op) {
  switch (familyOp<ReduceScanOp>(op.kind)) {
    case ReduceScanOp::TTReduce: return lowerReduce(lowering, op);
    case ReduceScanOp::TTScan: return lowerScan(lowering, op);
  }
}

}  // namespace tilesim::gpu
