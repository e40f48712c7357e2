// Building and maintaining the def -> use edges of ir/analysis/UseLists.h.
#include "ir/analysis/UseLists.h"

#include <algorithm>

#include "ir/Assert.h"

namespace tilesim::analysis {

UseLists::UseLists(Operation& root) { addUsesOf(root); }

std::span<const Use> UseLists::uses(const Value* value) const {
  auto found = uses_.find(value);
  if (found == uses_.end()) return {};
  return found->second;
}

void UseLists::addUse(Value* value, Use use) { uses_[value].push_back(use); }

void UseLists::removeUse(Value* value, Use use) {
  auto found = uses_.find(value);
  TILESIM_ASSERT(found != uses_.end(), "removing a use that was never recorded");
  std::vector<Use>& list = found->second;
  auto position = std::find(list.begin(), list.end(), use);
  TILESIM_ASSERT(position != list.end(), "removing a use that was never recorded");
  list.erase(position);
  if (list.empty()) uses_.erase(found);
}

void UseLists::addUsesOf(Operation& op) {
  walk(op, [&](const Operation& visited) {
    auto& mutableOp = const_cast<Operation&>(visited);  // walk() hands out const refs; the tree is ours to edit
    for (unsigned i = 0; i < mutableOp.operands.size(); ++i) addUse(mutableOp.operands[i], Use{&mutableOp, i});
  });
}

void UseLists::removeUsesOf(Operation& op) {
  walk(op, [&](const Operation& visited) {
    auto& mutableOp = const_cast<Operation&>(visited);
    for (unsigned i = 0; i < mutableOp.operands.size(); ++i) removeUse(mutableOp.operands[i], Use{&mutableOp, i});
  });
}

}  // namespace tilesim::analysis
