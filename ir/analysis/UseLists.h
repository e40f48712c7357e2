// UseLists: for every Value under a root op (a tt.func, usually), the operand slots that read it. The IR itself
// stores only def -> operands edges (Operation::operands); analyses and rewrites that need the other direction
// build a UseLists once and keep it current through the Rewriter (ir/analysis/Rewriter.h), which is the only
// code that should change operands while a UseLists is alive.
#pragma once

#include <cstddef>
#include <span>
#include <unordered_map>
#include <vector>

#include "ir/IR.h"

namespace tilesim::analysis {

// One operand slot: `user->operands[operandIndex]` is the used value.
struct Use {
  Operation* user = nullptr;
  unsigned operandIndex = 0;
  bool operator==(const Use& other) const { return user == other.user && operandIndex == other.operandIndex; }
};

class UseLists {
 public:
  // Records every operand of every op nested under `root` (root's own operands included).
  explicit UseLists(Operation& root);

  // The uses of `value`, in the program order of their ops (then operand order); empty when unused.
  std::span<const Use> uses(const Value* value) const;
  bool hasUses(const Value* value) const { return !uses(value).empty(); }
  size_t numUses(const Value* value) const { return uses(value).size(); }

  // Bookkeeping for the Rewriter: add or drop the uses of all operands of `op` (and of ops nested in it).
  void addUsesOf(Operation& op);
  void removeUsesOf(Operation& op);
  void addUse(Value* value, Use use);
  void removeUse(Value* value, Use use);

 private:
  std::unordered_map<const Value*, std::vector<Use>> uses_;
};

}  // namespace tilesim::analysis
