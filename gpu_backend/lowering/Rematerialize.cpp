// Rematerialization: a tensor wanted in a layout other than its own is computed again in that layout when its
// whole definition is cheap — make_range, splat, constants, expand_dims, broadcast and elementwise ops over them
// (index arithmetic, masks) — instead of moving through shared memory (a barrier and two accesses per element).
// Triton's RemoveLayoutConversions does the same by cloning such chains. The copy is the same ops on the same
// scalars, so its values are bit for bit the original's; at most kRematerializeBudget ops are copied per use.
// Copies are not kept for later uses: a use may sit in a region (a loop body, a branch) that later code is not
// dominated by; LLVM's CSE merges the copies that do dominate each other.
#include "gpu_backend/lowering/Lowering.h"

namespace tilesim::gpu {
namespace {

bool cheapToRecompute(const Operation& op) {
  if (op.numResults() != 1 || !op.regions.empty()) return false;
  switch (op.kind) {
    case OpKind::TTMakeRange:
    case OpKind::TTSplat:
    case OpKind::ArithConstant:
    case OpKind::TTExpandDims:
    case OpKind::TTBroadcast: return true;
    case OpKind::TTExternElementwise:
    case OpKind::TTElementwiseInlineAsm: return false;
    default: return hasTrait(op.kind, kElementwise);
  }
}

// The layout `op` reads tensor operand `index` in when its result is in `layout` (the lowering's own rule).
LinearLayout operandLayout(const Operation& op, size_t index, const LinearLayout& layout) {
  const Value* operand = op.operand(index);
  switch (op.kind) {
    case OpKind::TTExpandDims:
      return layout.dropOutDim(static_cast<int>(op.intAttr("axis"))).withOutDims(tensorDims(operand->type.shape()));
    case OpKind::TTBroadcast: return broadcastSource(layout, operand->type.shape());
    default: return layout;
  }
}

}  // namespace

std::optional<std::vector<llvm::Value*>> KernelLowering::rematerialize(const Value* value, const LinearLayout& layout,
                                                                       int& budget) {
  const Operation* op = value->definingOp;
  if (!op || !cheapToRecompute(*op) || --budget < 0) return std::nullopt;
  // The operands first, each in the layout the op will read it in (already there, a copy, or copied now).
  std::vector<std::pair<const Value*, Lowered>> swapped;  // operands whose own lowering is set aside meanwhile
  for (size_t i = 0; i < op->numOperands(); ++i) {
    const Value* operand = op->operand(i);
    if (!operand->type.isTensor()) continue;
    const LinearLayout wanted = operandLayout(*op, i, layout);
    const Lowered& current = get(operand);
    if (current.layout && *current.layout == wanted) continue;
    std::optional<std::vector<llvm::Value*>> copy = rematerialize(operand, wanted, budget);
    if (!copy) {
      for (auto& [restored, lowered] : swapped) set(restored, std::move(lowered));
      return std::nullopt;
    }
    swapped.emplace_back(operand, current);
    set(operand, Lowered{*copy, wanted});
  }
  // The op again, with its result in `layout`; its own lowering is put back afterwards.
  Lowered original = get(value);
  layoutOverrides_.insert_or_assign(value, layout);
  std::optional<SharedMemoryPlan::State> region = std::move(regionBefore_);  // a copy is no op boundary
  regionBefore_.reset();
  lowerOp(*op);
  regionBefore_ = std::move(region);
  layoutOverrides_.erase(value);
  Lowered copy = get(value);
  set(value, std::move(original));
  for (auto& [restored, lowered] : swapped) set(restored, std::move(lowered));
  return copy.regs;
}

}  // namespace tilesim::gpu
