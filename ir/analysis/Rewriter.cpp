// The mutations of ir/analysis/Rewriter.h, each updating the UseLists it was given.
#include "ir/analysis/Rewriter.h"

#include <unordered_set>
#include <vector>

#include "ir/Assert.h"

namespace tilesim::analysis {

size_t positionInBlock(const Operation& op) {
  TILESIM_ASSERT(op.parentBlock, "op is not in a block");
  const auto& operations = op.parentBlock->operations;
  for (size_t i = 0; i < operations.size(); ++i)
    if (operations[i].get() == &op) return i;
  TILESIM_UNREACHABLE("op not found in its parent block");
}

void Rewriter::setOperand(Operation& op, unsigned index, Value* value) {
  TILESIM_ASSERT(index < op.operands.size(), "operand index out of range");
  uses_.removeUse(op.operands[index], Use{&op, index});
  op.operands[index] = value;
  uses_.addUse(value, Use{&op, index});
}

size_t Rewriter::replaceAllUsesWith(Value* from, Value* to) {
  TILESIM_ASSERT(from->type == to->type, "replaceAllUsesWith changes the type " + from->type.str() + " to " + to->type.str());
  if (from == to) return 0;
  std::vector<Use> moving(uses_.uses(from).begin(), uses_.uses(from).end());
  for (const Use& use : moving) setOperand(*use.user, use.operandIndex, to);
  return moving.size();
}

bool Rewriter::eraseOp(Operation& op) {
  TILESIM_ASSERT(op.parentBlock, "erasing an op that is not in a block");
  std::unordered_set<const Operation*> erased;
  std::vector<const Value*> defined;
  walk(op, [&](const Operation& nested) {
    erased.insert(&nested);
    for (const auto& result : nested.results) defined.push_back(result.get());
    for (const auto& region : nested.regions)
      for (const auto& block : region->blocks)
        for (const auto& argument : block->arguments) defined.push_back(argument.get());
  });
  for (const Value* value : defined)
    for (const Use& use : uses_.uses(value))
      if (!erased.count(use.user)) return false;
  uses_.removeUsesOf(op);
  auto& operations = op.parentBlock->operations;
  operations.erase(operations.begin() + static_cast<std::ptrdiff_t>(positionInBlock(op)));
  return true;
}

Operation* Rewriter::insertAt(Block& block, size_t position, std::unique_ptr<Operation> op) {
  op->parentBlock = &block;
  Operation* inserted = op.get();
  block.operations.insert(block.operations.begin() + static_cast<std::ptrdiff_t>(position), std::move(op));
  uses_.addUsesOf(*inserted);
  return inserted;
}

Operation* Rewriter::insertBefore(Operation& anchor, std::unique_ptr<Operation> op) {
  return insertAt(*anchor.parentBlock, positionInBlock(anchor), std::move(op));
}

Operation* Rewriter::insertAfter(Operation& anchor, std::unique_ptr<Operation> op) {
  return insertAt(*anchor.parentBlock, positionInBlock(anchor) + 1, std::move(op));
}

Operation* Rewriter::insertAtEnd(Block& block, std::unique_ptr<Operation> op) {
  return insertAt(block, block.operations.size(), std::move(op));
}

}  // namespace tilesim::analysis
