// Dominance over TTIR's regions. Structured control flow (scf.for / scf.if / scf.while, tt.reduce, ...) nests
// regions inside ops, so most queries need no graph at all:
//   - a value defined in a block dominates the later ops of that block and everything nested in them;
//   - a block argument dominates every op of its block (and everything nested);
//   - an op's results do not dominate the op itself nor the ops inside its own regions.
// Only a region with several blocks (unstructured cf.br / cf.cond_br, in a tt.func body) needs a CFG: for those,
// DominanceInfo builds a DominatorTree (ir/analysis/DominatorTree.h) over the region's blocks, with edges from
// successorBlocks() below, and a def in block A dominates a use in block B != A when A dominates B.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/IR.h"
#include "ir/analysis/DominatorTree.h"

namespace tilesim::analysis {

// The CFG successors of a block: its terminator's successors (cf.br: one, cf.cond_br: two; none otherwise).
std::vector<const Block*> successorBlocks(const Block& block);

class DominanceInfo {
 public:
  // Covers every region nested under `root` (a tt.func, usually).
  explicit DominanceInfo(const Operation& root);

  // Whether `value` is available as an operand of `user`: its definition dominates `user`.
  bool dominates(const Value& value, const Operation& user) const;
  // `earlier` runs before `later` on every path: same block and earlier, or `earlier`'s block dominates the
  // block of `later`'s ancestor in that region. An op does not properly dominate itself or what it contains.
  bool properlyDominates(const Operation& earlier, const Operation& later) const;
  // Block dominance inside one region (reflexive); false for blocks of different regions.
  bool dominates(const Block& dominator, const Block& block) const;

 private:
  struct RegionGraph {
    std::unordered_map<const Block*, int> blockIndex;
    std::unique_ptr<DominatorTree> tree;
  };
  // `op` or the op that contains it whose parent block is in `region`; null when `op` is not under `region`.
  static const Operation* ancestorInRegion(const Operation& op, const Region* region);
  // Position of `op` in its block, precomputed.
  size_t position(const Operation& op) const { return positions_.at(&op); }
  // Both in `block`'s region: position order in one block, the region's dominator tree across blocks.
  bool locallyBefore(const Block& defBlock, const Operation* def, const Operation& user) const;

  std::unordered_map<const Operation*, size_t> positions_;
  std::unordered_map<const Region*, RegionGraph> multiBlockRegions_;
};

}  // namespace tilesim::analysis
