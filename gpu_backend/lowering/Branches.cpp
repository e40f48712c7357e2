// Unstructured control flow: a kernel body whose blocks form a CFG with cf.br / cf.cond_br and tt.return in any
// block (docs/semantics.md §Control flow; interpreter/Executor.cpp runBlock). Each TTIR block is one LLVM basic
// block; a block argument is one phi per register, in the layout the assignment gave it. Blocks are lowered in
// reverse post-order from the entry, so every definition is lowered before its uses (TTIR dominance), and a
// branch adds its operands — converted to the argument's layout in the predecessor — as the phis' incoming
// values. Branch conditions are scalars, uniform across the program, so every thread takes the same edge and a
// barrier in any block is safe.
#include <unordered_map>
#include <unordered_set>

#include "gpu_backend/lowering/Lowering.h"
#include "ir/Assert.h"

namespace tilesim::gpu {
namespace {

void postOrder(const Block* block, std::unordered_set<const Block*>& seen, std::vector<const Block*>& order) {
  if (!seen.insert(block).second) return;
  const Operation* last = block->operations.empty() ? nullptr : block->operations.back().get();
  if (last)
    for (auto it = last->successors.rbegin(); it != last->successors.rend(); ++it) postOrder(*it, seen, order);
  order.push_back(block);
}

}  // namespace

void lowerKernelCfg(KernelLowering& lowering, const Region& region) {
  llvm::IRBuilder<>& b = lowering.builder;
  std::unordered_set<const Block*> seen;
  std::vector<const Block*> order;
  postOrder(&region.front(), seen, order);
  std::reverse(order.begin(), order.end());

  // One LLVM block per TTIR block (the entry continues the current one), the argument phis created up front.
  std::unordered_map<const Block*, llvm::BasicBlock*> blocks;
  std::unordered_map<const Value*, std::vector<llvm::PHINode*>> phis;
  blocks[&region.front()] = b.GetInsertBlock();
  llvm::BasicBlock* entryEnd = b.GetInsertBlock();
  for (size_t i = 1; i < order.size(); ++i) {
    const Block* block = order[i];
    llvm::BasicBlock* basic = llvm::BasicBlock::Create(lowering.context, "bb", lowering.function);
    blocks[block] = basic;
    b.SetInsertPoint(basic);
    for (const auto& argument : block->arguments) {
      const LinearLayout* layout = lowering.layoutOf(argument.get());
      if (argument->type.isTensor() && !layout) lowering.unsupported(*block->operations.front(), "after a block argument without a layout");
      llvm::Type* type = lowering.scalarType(*block->operations.front(), argument->type);
      Lowered lowered;
      for (int r = 0; r < KernelLowering::registerCount(layout); ++r) {
        llvm::PHINode* phi = b.CreatePHI(type, 2);
        phis[argument.get()].push_back(phi);
        lowered.regs.push_back(phi);
      }
      if (layout) lowered.layout = *layout;
      lowering.set(argument.get(), std::move(lowered));
    }
  }
  b.SetInsertPoint(entryEnd);

  for (const Block* block : order) {
    b.SetInsertPoint(blocks.at(block));
    const Operation* terminator = lowering.lowerBlockBody(*block);
    if (!terminator) lowering.unsupported(*block->operations.back(), "as the end of a block");
    if (terminator->kind == OpKind::TTReturn) {
      if (terminator->numOperands() != 0) lowering.unsupported(*terminator, "returning values from a kernel");
      b.CreateRetVoid();
      continue;
    }
    if (terminator->kind != OpKind::CFBr && terminator->kind != OpKind::CFCondBr) lowering.unsupported(*terminator);
    // The values each successor receives, in its arguments' layouts, computed here in the predecessor.
    std::vector<std::vector<std::vector<llvm::Value*>>> passed;
    for (size_t s = 0; s < terminator->successors.size(); ++s) {
      const Block* target = terminator->successors[s];
      std::vector<Value*> operands = terminator->successorOperands(s);
      std::vector<std::vector<llvm::Value*>> values;
      for (size_t i = 0; i < operands.size(); ++i)
        values.push_back(lowering.in(operands[i], lowering.layoutOf(target->argument(i))));
      passed.push_back(std::move(values));
    }
    llvm::BasicBlock* from = b.GetInsertBlock();
    for (size_t s = 0; s < terminator->successors.size(); ++s) {
      const Block* target = terminator->successors[s];
      for (size_t i = 0; i < passed[s].size(); ++i)
        for (size_t r = 0; r < passed[s][i].size(); ++r) phis.at(target->argument(i))[r]->addIncoming(passed[s][i][r], from);
    }
    if (terminator->kind == OpKind::CFBr) {
      b.CreateBr(blocks.at(terminator->successors[0]));
    } else {
      llvm::Value* condition = lowering.in(terminator->operand(0), nullptr)[0];
      llvm::BasicBlock* whenTrue = blocks.at(terminator->successors[0]);
      llvm::BasicBlock* whenFalse = blocks.at(terminator->successors[1]);
      if (whenTrue == whenFalse) {  // both edges into one block: one LLVM edge, the phis choose by a select
        for (size_t i = 0; i < passed[0].size(); ++i)
          for (size_t r = 0; r < passed[0][i].size(); ++r) {
            llvm::PHINode* phi = phis.at(terminator->successors[0]->argument(i))[r];
            phi->removeIncomingValue(phi->getNumIncomingValues() - 1, false);
            phi->removeIncomingValue(phi->getNumIncomingValues() - 1, false);
            b.SetInsertPoint(from);
            phi->addIncoming(b.CreateSelect(condition, passed[0][i][r], passed[1][i][r]), from);
          }
        b.CreateBr(whenTrue);
      } else {
        b.CreateCondBr(condition, whenTrue, whenFalse);
      }
    }
  }
}

}  // namespace tilesim::gpu
