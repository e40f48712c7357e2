// scf.for, scf.while and scf.if with results (docs/semantics.md §Control flow). Scalars are uniform across a program (they
// come from arguments, program ids, scalar loads and reductions), so every thread of a program takes the same
// branch and barriers inside a region are safe. Loop-carried tensors keep the layout LayoutAssignment gives their
// iter_arg; each register is one phi. A loop-invariant operand of a tensor-core dot in the body is converted into
// its mma operand layout once, before the loop (hoistInvariantDotOperands).
#include <utility>

#include "gpu_backend/lowering/Lowering.h"
#include "gpu_backend/lowering/Ptx.h"
#include "ir/Assert.h"
#include "ir/Mutation.h"

namespace tilesim::gpu {
namespace {

using Builder = llvm::IRBuilder<>;

// A tensor-core dot of the loop body whose a or b is defined before the loop (attention's q) would convert it into
// the mma operand layout, through shared memory, in every iteration: convert it once here, before the loop, as
// Triton hoists the convert_layout of a loop-invariant dot operand. Returns how many were added to
// lowering.hoisted (the caller drops them after the loop: they dominate only the loop).
size_t hoistInvariantDotOperands(KernelLowering& lowering, const Block& body) {
  const size_t before = lowering.hoisted.size();
  for (const auto& op : body.operations) {
    if (op->kind != OpKind::TTDot) continue;
    const std::optional<std::array<LinearLayout, 2>> layouts = tensorCoreOperandLayouts(lowering, *op);
    for (size_t i = 0; layouts && i < 2; ++i) {
      const Value* operand = op->operand(i);
      // The body's own ops see values of the body or from outside the loop only (nested regions' values do not
      // escape), so a value not defined in the body is defined before the loop.
      const bool invariant = operand->definingOp ? operand->definingOp->parentBlock != &body : operand->ownerBlock != &body;
      const LinearLayout* own = lowering.layoutOf(operand);
      if (!invariant || !own || *own == (*layouts)[i]) continue;
      std::vector<llvm::Value*> regs = lowering.in(operand, &(*layouts)[i]);
      lowering.hoisted.push_back({operand, (*layouts)[i], std::move(regs)});
    }
  }
  return lowering.hoisted.size() - before;
}

void lowerFor(KernelLowering& lowering, const Operation& op) {
  if (lowerPipelinedFor(lowering, op)) return;
  Builder& b = lowering.builder;
  llvm::Value* lower = lowering.in(op.operand(0), nullptr)[0];
  llvm::Value* upper = lowering.in(op.operand(1), nullptr)[0];
  llvm::Value* step = lowering.in(op.operand(2), nullptr)[0];
  const Block& body = op.region(0).front();
  std::vector<const Value*> carried;  // the iter_args (block arguments 1..)
  for (size_t i = 1; i < body.arguments.size(); ++i) carried.push_back(body.argument(i));
  std::vector<std::vector<llvm::Value*>> initial;
  for (size_t i = 0; i < carried.size(); ++i) initial.push_back(lowering.in(op.operand(3 + i), lowering.layoutOf(carried[i])));
  const size_t hoisted = hoistInvariantDotOperands(lowering, body);
  const PinnedOperands pinned = pinInvariantWgmmaOperands(lowering, body);
  size_t accumulating = 0;
  const Operation* deferred = wgmmaCarriedAccumulator(lowering, op, &accumulating);
  lowering.waitForWgmma();  // nothing in flight enters a region

  const LoopBlocks blocks = openLoop(lowering, "for.header", "for.body", "for.exit");
  llvm::BasicBlock *preheader = blocks.preheader, *header = blocks.header, *loop = blocks.body, *exit = blocks.exit;
  llvm::PHINode* induction = b.CreatePHI(lower->getType(), 2, "iv");
  induction->addIncoming(lower, preheader);
  const std::vector<std::vector<llvm::PHINode*>> phis = carriedPhis(b, initial, preheader);
  // iv < ub (signed); a step <= 0 runs no iteration rather than forever (the interpreter traps on it).
  llvm::Value* positive = b.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
  llvm::Value* below = TILESIM_MUTANT(gpu_for_runs_while_le, b.CreateICmpSLT(induction, upper), b.CreateICmpSLE(induction, upper));
  b.CreateCondBr(b.CreateAnd(below, positive), loop, exit);

  b.SetInsertPoint(loop);
  lowering.set(body.argument(0), Lowered{{induction}, std::nullopt});
  for (size_t i = 0; i < carried.size(); ++i)
    lowering.set(carried[i], loweredFromPhis(phis[i], lowering.layoutOf(carried[i])));
  const Operation* outer = std::exchange(lowering.deferredWgmmaDot, deferred);
  lowering.wgmmaInFlight = deferred != nullptr;  // the previous iteration's group, over the back edge
  const Operation* yield = lowering.lowerBlockBody(body);
  lowering.deferredWgmmaDot = outer;
  TILESIM_ASSERT(yield && yield->kind == OpKind::SCFYield, "scf.for body without scf.yield");
  std::vector<std::vector<llvm::Value*>> next = yieldedRegisters(lowering, yield, carried);
  llvm::Value* advanced = b.CreateAdd(induction, step);
  llvm::BasicBlock* latch = b.GetInsertBlock();
  b.CreateBr(header);
  induction->addIncoming(advanced, latch);
  for (size_t i = 0; i < carried.size(); ++i)
    for (size_t r = 0; r < phis[i].size(); ++r) phis[i][r]->addIncoming(next[i][r], latch);

  b.SetInsertPoint(exit);
  for (size_t i = 0; i < op.numResults(); ++i) lowering.set(op.result(i), loweredFromPhis(phis[i], lowering.layoutOf(carried[i])));
  if (deferred) {  // the last iteration's group: the accumulator's registers once it is done
    Lowered done = lowering.get(op.result(accumulating));
    done.regs = ptx::wgmmaWaitGroup(b, 0, done.regs);
    lowering.set(op.result(accumulating), std::move(done));
  }
  lowering.wgmmaInFlight = false;
  unpinWgmmaOperands(lowering, pinned);
  lowering.hoisted.erase(lowering.hoisted.end() - static_cast<ptrdiff_t>(hoisted), lowering.hoisted.end());
}

void lowerIf(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  llvm::Value* condition = lowering.in(op.operand(0), nullptr)[0];
  lowering.waitForWgmma();  // nothing in flight enters a region
  std::vector<const Value*> results;
  for (const auto& result : op.results) results.push_back(result.get());
  llvm::Function* function = b.GetInsertBlock()->getParent();
  auto* thenBlock = llvm::BasicBlock::Create(lowering.context, "if.then", function);
  auto* elseBlock = llvm::BasicBlock::Create(lowering.context, "if.else", function);
  auto* merge = llvm::BasicBlock::Create(lowering.context, "if.end", function);
  b.CreateCondBr(condition, thenBlock, elseBlock);

  struct Arm {
    std::vector<std::vector<llvm::Value*>> values;
    llvm::BasicBlock* end = nullptr;
  };
  auto lowerArm = [&](llvm::BasicBlock* start, size_t regionIndex) {
    Arm arm;
    b.SetInsertPoint(start);
    if (regionIndex < op.regions.size() && !op.region(regionIndex).empty()) {
      const Operation* yield = lowering.lowerBlockBody(op.region(regionIndex).front());
      if (!results.empty()) {
        TILESIM_ASSERT(yield && yield->kind == OpKind::SCFYield, "scf.if region without scf.yield");
        arm.values = yieldedRegisters(lowering, yield, results);
      }
    }
    arm.end = b.GetInsertBlock();
    b.CreateBr(merge);
    return arm;
  };
  Arm thenArm = lowerArm(thenBlock, 0);
  Arm elseArm = lowerArm(elseBlock, 1);
  b.SetInsertPoint(merge);
  for (size_t i = 0; i < results.size(); ++i) {
    Lowered lowered;
    for (size_t r = 0; r < thenArm.values[i].size(); ++r) {
      llvm::PHINode* phi = b.CreatePHI(thenArm.values[i][r]->getType(), 2);
      phi->addIncoming(thenArm.values[i][r], thenArm.end);
      phi->addIncoming(elseArm.values[i][r], elseArm.end);
      lowered.regs.push_back(phi);
    }
    if (const LinearLayout* layout = lowering.layoutOf(results[i])) lowered.layout = *layout;
    lowering.set(results[i], std::move(lowered));
  }
}

// scf.while: the before region runs first with the carried values and ends in scf.condition(flag) forwarded...;
// while the flag is true the after region runs on the forwarded values and yields the next carried values; when it
// is false the forwarded values are the results. Carried and forwarded tensors take the layouts the assignment
// gave the regions' block arguments (and the results).
void lowerWhile(KernelLowering& lowering, const Operation& op) {
  Builder& b = lowering.builder;
  const Block& before = op.region(0).front();
  const Block& after = op.region(1).front();
  std::vector<const Value*> carried, forwarded, results;
  for (const auto& argument : before.arguments) carried.push_back(argument.get());
  for (const auto& argument : after.arguments) forwarded.push_back(argument.get());
  for (const auto& result : op.results) results.push_back(result.get());
  std::vector<std::vector<llvm::Value*>> initial;
  for (size_t i = 0; i < carried.size(); ++i) initial.push_back(lowering.in(op.operand(i), lowering.layoutOf(carried[i])));

  lowering.waitForWgmma();  // nothing in flight enters a region
  const LoopBlocks blocks = openLoop(lowering, "while.before", "while.after", "while.exit");
  llvm::BasicBlock *preheader = blocks.preheader, *header = blocks.header, *body = blocks.body, *exit = blocks.exit;
  const std::vector<std::vector<llvm::PHINode*>> phis = carriedPhis(b, initial, preheader);
  for (size_t i = 0; i < carried.size(); ++i)
    lowering.set(carried[i], loweredFromPhis(phis[i], lowering.layoutOf(carried[i])));
  const Operation* condition = lowering.lowerBlockBody(before);
  TILESIM_ASSERT(condition && condition->kind == OpKind::SCFCondition, "scf.while before region without scf.condition");
  llvm::Value* flag = lowering.in(condition->operand(0), nullptr)[0];
  std::vector<Lowered> passed;  // the forwarded values, in the layouts of the after region's arguments
  for (size_t i = 0; i < forwarded.size(); ++i) {
    Lowered lowered;
    lowered.regs = lowering.in(condition->operand(i + 1), lowering.layoutOf(forwarded[i]));
    if (const LinearLayout* layout = lowering.layoutOf(forwarded[i])) lowered.layout = *layout;
    passed.push_back(std::move(lowered));
  }
  b.CreateCondBr(flag, body, exit);

  b.SetInsertPoint(body);
  for (size_t i = 0; i < forwarded.size(); ++i) lowering.set(forwarded[i], passed[i]);
  const Operation* yield = lowering.lowerBlockBody(after);
  TILESIM_ASSERT(yield && yield->kind == OpKind::SCFYield, "scf.while after region without scf.yield");
  std::vector<std::vector<llvm::Value*>> next = yieldedRegisters(lowering, yield, carried);
  llvm::BasicBlock* latch = b.GetInsertBlock();
  b.CreateBr(header);
  for (size_t i = 0; i < carried.size(); ++i)
    for (size_t r = 0; r < phis[i].size(); ++r) phis[i][r]->addIncoming(next[i][r], latch);

  b.SetInsertPoint(exit);
  for (size_t i = 0; i < results.size(); ++i) {
    const LinearLayout* layout = lowering.layoutOf(results[i]);
    Lowered lowered;
    // The forwarded values are in the after arguments' layouts; results may have been given another one.
    const bool same = (layout == nullptr) == !passed[i].layout.has_value() && (!layout || *layout == *passed[i].layout);
    lowered.regs = same ? passed[i].regs : convertLayout(lowering, passed[i], *layout, results[i]->type.element(), &op);
    if (layout) lowered.layout = *layout;
    lowering.set(results[i], std::move(lowered));
  }
}

}  // namespace

std::vector<std::vector<llvm::Value*>> yieldedRegisters(KernelLowering& lowering, const Operation* yield,
                                               const std::vector<const Value*>& targets) {
  std::vector<std::vector<llvm::Value*>> values;
  for (size_t i = 0; i < targets.size(); ++i)
    values.push_back(lowering.in(yield->operand(i), lowering.layoutOf(targets[i])));
  return values;
}

Lowered loweredFromPhis(const std::vector<llvm::PHINode*>& phis, const LinearLayout* layout) {
  Lowered lowered;
  for (llvm::PHINode* phi : phis) lowered.regs.push_back(phi);
  if (layout) lowered.layout = *layout;
  return lowered;
}

LoopBlocks openLoop(KernelLowering& lowering, const char* header, const char* body, const char* exit) {
  Builder& b = lowering.builder;
  LoopBlocks blocks{};
  blocks.preheader = b.GetInsertBlock();
  llvm::Function* function = blocks.preheader->getParent();
  blocks.header = llvm::BasicBlock::Create(lowering.context, header, function);
  blocks.body = llvm::BasicBlock::Create(lowering.context, body, function);
  blocks.exit = llvm::BasicBlock::Create(lowering.context, exit, function);
  b.CreateBr(blocks.header);
  b.SetInsertPoint(blocks.header);
  return blocks;
}

std::vector<std::vector<llvm::PHINode*>> carriedPhis(Builder& b, const std::vector<std::vector<llvm::Value*>>& initial,
                                                     llvm::BasicBlock* preheader) {
  std::vector<std::vector<llvm::PHINode*>> phis(initial.size());
  for (size_t i = 0; i < initial.size(); ++i)
    for (llvm::Value* value : initial[i]) {
      llvm::PHINode* phi = b.CreatePHI(value->getType(), 2);
      phi->addIncoming(value, preheader);
      phis[i].push_back(phi);
    }
  return phis;
}

void lowerControlFlowOp(KernelLowering& lowering, const Operation& op) {
  switch (familyOp<ControlFlowOp>(op.kind)) {
    case ControlFlowOp::SCFFor: return lowerFor(lowering, op);
    case ControlFlowOp::SCFIf: return lowerIf(lowering, op);
    case ControlFlowOp::SCFWhile: return lowerWhile(lowering, op);
  }
}

}  // namespace tilesim::gpu
