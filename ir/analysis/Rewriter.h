// Rewriter: the small set of IR mutations that keep a UseLists (ir/analysis/UseLists.h) exact — change one
// operand, replace every use of a value, insert an op next to another, erase an op. Erasing refuses (returns
// false and changes nothing) while a value the op defines, or a value defined inside its regions, is still used
// outside the erased ops, so a rewrite can never leave a dangling operand behind.
// Value ids (numberValues in ir/IR.h) are not updated: renumber the function before handing it to an engine.
#pragma once

#include <cstddef>
#include <memory>

#include "ir/IR.h"
#include "ir/analysis/UseLists.h"

namespace tilesim::analysis {

class Rewriter {
 public:
  explicit Rewriter(UseLists& uses) : uses_(uses) {}

  void setOperand(Operation& op, unsigned index, Value* value);
  // Every use of `from` reads `to` instead (same type required); returns how many uses moved.
  size_t replaceAllUsesWith(Value* from, Value* to);
  // Removes `op` and all ops nested in it; false (nothing changed) while something outside still uses them.
  bool eraseOp(Operation& op);
  // Inserts a new op (its operands must already be set) and records its uses; returns it.
  Operation* insertBefore(Operation& anchor, std::unique_ptr<Operation> op);
  Operation* insertAfter(Operation& anchor, std::unique_ptr<Operation> op);
  Operation* insertAtEnd(Block& block, std::unique_ptr<Operation> op);

 private:
  Operation* insertAt(Block& block, size_t position, std::unique_ptr<Operation> op);
  UseLists& uses_;
};

// The position of `op` in its parent block's operation list.
size_t positionInBlock(const Operation& op);

}  // namespace tilesim::analysis
