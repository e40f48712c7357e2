// The structured dominance rules of ir/analysis/Dominance.h, with a DominatorTree per multi-block region.
#include "ir/analysis/Dominance.h"

namespace tilesim::analysis {

std::vector<const Block*> successorBlocks(const Block& block) {
  const Operation* terminator = block.terminator();
  if (!terminator) return {};
  return {terminator->successors.begin(), terminator->successors.end()};
}

DominanceInfo::DominanceInfo(const Operation& root) {
  auto indexRegion = [&](const Region& region) {
    for (const auto& block : region.blocks)
      for (size_t i = 0; i < block->operations.size(); ++i) positions_[block->operations[i].get()] = i;
    if (region.blocks.size() < 2) return;
    RegionGraph& graph = multiBlockRegions_[&region];
    for (size_t i = 0; i < region.blocks.size(); ++i) graph.blockIndex[region.blocks[i].get()] = static_cast<int>(i);
    std::vector<std::vector<int>> successors(region.blocks.size());
    for (size_t i = 0; i < region.blocks.size(); ++i)
      for (const Block* successor : successorBlocks(*region.blocks[i]))
        successors[i].push_back(graph.blockIndex.at(successor));
    graph.tree = std::make_unique<DominatorTree>(successors);
  };
  walk(root, [&](const Operation& op) {
    for (const auto& region : op.regions) indexRegion(*region);
  });
}

const Operation* DominanceInfo::ancestorInRegion(const Operation& op, const Region* region) {
  const Operation* current = &op;
  while (current && current->parentBlock) {
    if (current->parentBlock->parentRegion == region) return current;
    current = current->parentOp();
  }
  return nullptr;
}

bool DominanceInfo::dominates(const Block& dominator, const Block& block) const {
  if (&dominator == &block) return true;
  if (dominator.parentRegion != block.parentRegion) return false;
  auto found = multiBlockRegions_.find(dominator.parentRegion);
  if (found == multiBlockRegions_.end()) return false;
  const RegionGraph& graph = found->second;
  return graph.tree->dominates(graph.blockIndex.at(&dominator), graph.blockIndex.at(&block));
}

bool DominanceInfo::locallyBefore(const Block& defBlock, const Operation* def, const Operation& user) const {
  const Operation* ancestor = ancestorInRegion(user, defBlock.parentRegion);
  if (!ancestor) return false;
  if (ancestor->parentBlock != &defBlock) return dominates(defBlock, *ancestor->parentBlock);
  if (!def) return true;  // a block argument: available throughout its block
  return ancestor != def && position(*def) < position(*ancestor);
}

bool DominanceInfo::dominates(const Value& value, const Operation& user) const {
  if (value.isBlockArgument()) return locallyBefore(*value.ownerBlock, nullptr, user);
  return locallyBefore(*value.definingOp->parentBlock, value.definingOp, user);
}

bool DominanceInfo::properlyDominates(const Operation& earlier, const Operation& later) const {
  if (!earlier.parentBlock) return false;
  return locallyBefore(*earlier.parentBlock, &earlier, later);
}

}  // namespace tilesim::analysis
