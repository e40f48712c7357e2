// Rematerialization: a tensor wanted in a layout other than its own is computed again in that layout when its
// whole definition is cheap — make_range, splat, constants, expand_dims, broadcast and elementwise ops over them
// (index arithmetic, masks) — instead of moving through shared memory (a barrier and two accesses per element).
// Triton's RemoveLayoutConversions does the same by cloning such chains. The copy is the same ops on the same
// scalars, so its values are bit for bit the original's; at most kRematerializeBudget ops are copied per use.
// Copies are not kept for later uses: a use may sit in a region (a loop body, a branch) that later code is not
// dominated by; LLVM's CSE merges the copies that do dominate each other.
#include <optional>
#include <utility>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"
#include "ir/OpAttributes.h"

namespace tilesim::gpu {
namespace {

// How a shape op is computed again in another layout: not at all (it moves data between threads, or keeps its
// operand's registers in a layout derived from the operand's), from the operand in the same layout (splat), or
// from the operand in the layout projected back through the op (expand_dims, broadcast).
enum class ShapeRecompute { No, SameLayout, ExpandDims, Broadcast };

ShapeRecompute shapeRecompute(ShapeOp kind) {
  switch (kind) {
    case ShapeOp::TTSplat: return ShapeRecompute::SameLayout;
    case ShapeOp::TTExpandDims: return ShapeRecompute::ExpandDims;
    case ShapeOp::TTBroadcast: return ShapeRecompute::Broadcast;
    case ShapeOp::TTUnsplat:
    case ShapeOp::TTReshape:
    case ShapeOp::TTTrans:
    case ShapeOp::TTJoin:
    case ShapeOp::TTSplit:
    case ShapeOp::TTCat:
    case ShapeOp::TTGather:
    case ShapeOp::TTHistogram: return ShapeRecompute::No;
  }
  TILESIM_UNREACHABLE("shape op");
}

bool cheapToRecompute(const Operation& op) {
  if (op.numResults() != 1 || !op.regions.empty()) return false;
  const OpFamily family = opFamily(op.kind);
  if (family == OpFamily::External) return false;  // elementwise, but a libdevice call or inline asm is not cheap
  if (hasTrait(op.kind, kElementwise)) return true;  // lane by lane, on the operands' registers
  if (family == OpFamily::Shape) return shapeRecompute(familyOp<ShapeOp>(op.kind)) != ShapeRecompute::No;
  if (family != OpFamily::Constant) return false;
  switch (familyOp<ConstantOp>(op.kind)) {
    case ConstantOp::ArithConstant:
    case ConstantOp::TTMakeRange: return true;
    case ConstantOp::UBPoison: return false;
  }
  return false;
}

// The layout `op` reads tensor operand `index` in when its result is in `layout` (the lowering's own rule).
LinearLayout operandLayout(const Operation& op, size_t index, const LinearLayout& layout) {
  const Value* operand = op.operand(index);
  if (opFamily(op.kind) != OpFamily::Shape) return layout;  // elementwise ops read their operands in their own layout
  switch (shapeRecompute(familyOp<ShapeOp>(op.kind))) {
    case ShapeRecompute::ExpandDims:
      return layout.dropOutDim(AxisView{op}.axis()).withOutDims(tensorDims(operand->type.shape()));
    case ShapeRecompute::Broadcast: return broadcastSource(layout, operand->type.shape());
    case ShapeRecompute::SameLayout:
    case ShapeRecompute::No: return layout;
  }
  return layout;
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
  std::optional<SharedMemoryPlan::State> region = std::exchange(regionBefore_, std::nullopt);  // no op boundary
  lowerOp(*op);
  regionBefore_.swap(region);
  layoutOverrides_.erase(value);
  Lowered copy = get(value);
  set(value, std::move(original));
  for (auto& [restored, lowered] : swapped) set(restored, std::move(lowered));
  return copy.regs;
}

}  // namespace tilesim::gpu
