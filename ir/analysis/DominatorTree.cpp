// Cooper-Harvey-Kennedy dominators (see DominatorTree.h). Nodes are numbered by postorder for the
// intersection walk: a node's dominator always has a larger postorder number than the node.
#include "ir/analysis/DominatorTree.h"

#include <algorithm>

namespace tilesim::analysis {

DominatorTree::DominatorTree(const std::vector<std::vector<int>>& successors) {
  const int count = static_cast<int>(successors.size());
  immediateDominators_.assign(count, -1);
  depth_.assign(count, 0);
  if (count == 0) return;

  // Postorder by an explicit-stack depth-first search from the entry.
  std::vector<int> postorder, postorderNumber(count, -1);
  std::vector<bool> visited(count, false);
  std::vector<std::pair<int, size_t>> stack{{0, 0}};
  visited[0] = true;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < successors[node].size()) {
      int successor = successors[node][next++];
      if (!visited[successor]) {
        visited[successor] = true;
        stack.push_back({successor, 0});
      }
      continue;
    }
    postorderNumber[node] = static_cast<int>(postorder.size());
    postorder.push_back(node);
    stack.pop_back();
  }
  std::vector<std::vector<int>> predecessors(count);
  for (int node = 0; node < count; ++node)
    if (visited[node])
      for (int successor : successors[node]) predecessors[successor].push_back(node);

  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (postorderNumber[a] < postorderNumber[b]) a = immediateDominators_[a];
      while (postorderNumber[b] < postorderNumber[a]) b = immediateDominators_[b];
    }
    return a;
  };
  immediateDominators_[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {  // reverse postorder
      int node = *it;
      if (node == 0) continue;
      int candidate = -1;
      for (int predecessor : predecessors[node]) {
        if (immediateDominators_[predecessor] < 0) continue;  // not processed yet
        candidate = candidate < 0 ? predecessor : intersect(predecessor, candidate);
      }
      if (candidate != immediateDominators_[node]) {
        immediateDominators_[node] = candidate;
        changed = true;
      }
    }
  }
  for (auto it = postorder.rbegin(); it != postorder.rend(); ++it)
    if (*it != 0) depth_[*it] = depth_[immediateDominators_[*it]] + 1;
}

bool DominatorTree::dominates(int dominator, int node) const {
  if (!isReachable(node)) return true;
  if (!isReachable(dominator)) return false;
  while (depth_[node] > depth_[dominator]) node = immediateDominators_[node];
  return node == dominator;
}

}  // namespace tilesim::analysis
