// DominatorTree: immediate dominators of a control-flow graph given as successor lists (node 0 is the entry),
// computed with the iterative algorithm of Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm"
// (2001): visit the nodes in reverse postorder and intersect the dominator chains of the processed predecessors
// until nothing changes. It knows nothing about the IR; ir/analysis/Dominance.h builds one per region that has
// more than one block. Convention (LLVM's): a node unreachable from the entry is dominated by every node.
#pragma once

#include <vector>

namespace tilesim::analysis {

class DominatorTree {
 public:
  explicit DominatorTree(const std::vector<std::vector<int>>& successors);

  int numNodes() const { return static_cast<int>(immediateDominators_.size()); }
  bool isReachable(int node) const { return immediateDominators_[node] >= 0; }
  // The immediate dominator; the entry is its own, an unreachable node has -1.
  int immediateDominator(int node) const { return immediateDominators_[node]; }
  // Reflexive: every node dominates itself.
  bool dominates(int dominator, int node) const;
  bool properlyDominates(int dominator, int node) const { return dominator != node && dominates(dominator, node); }

 private:
  std::vector<int> immediateDominators_;
  std::vector<int> depth_;  // in the dominator tree; entry 0
};

}  // namespace tilesim::analysis
