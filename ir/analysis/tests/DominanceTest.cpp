// Dominance: structured rules over nested regions, and the Cooper-Harvey-Kennedy tree on hand-made CFGs
// (diamond, loop, irreducible, unreachable).
#include <gtest/gtest.h>

#include "ir/analysis/Dominance.h"
#include "ir/analysis/DominatorTree.h"
#include "ir/analysis/tests/AnalysisTestSupport.h"

namespace tilesim::analysis {
namespace {

using analysistest::definingOp;
using analysistest::findValue;
using analysistest::parseVerified;

TEST(Dominance, StructuredRegions) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
      %t = arith.addi %acc, %i : i32
      %u = arith.muli %t, %n : i32
      scf.yield %u : i32
    }
    %after = arith.addi %s, %c1 : i32
    tt.return
  }
}
)");
  DominanceInfo dominance(*module->kernel()->op());
  Operation *forOp = definingOp(*module, "s"), *t = definingOp(*module, "t"), *u = definingOp(*module, "u");
  Operation* after = definingOp(*module, "after");
  EXPECT_TRUE(dominance.dominates(*findValue(*module, "n"), *u));     // function argument, nested use
  EXPECT_TRUE(dominance.dominates(*findValue(*module, "c0"), *t));    // earlier op, nested use
  EXPECT_TRUE(dominance.dominates(*findValue(*module, "acc"), *t));   // block argument of the loop body
  EXPECT_TRUE(dominance.dominates(*findValue(*module, "t"), *u));     // earlier in the same block
  EXPECT_FALSE(dominance.dominates(*findValue(*module, "u"), *t));    // later in the same block
  EXPECT_FALSE(dominance.dominates(*findValue(*module, "t"), *after)); // defined inside, used outside
  EXPECT_FALSE(dominance.dominates(*findValue(*module, "s"), *t));    // a result inside its own op
  EXPECT_TRUE(dominance.dominates(*findValue(*module, "s"), *after));
  EXPECT_FALSE(dominance.dominates(*findValue(*module, "acc"), *after));  // a block argument outside its block
  EXPECT_TRUE(dominance.properlyDominates(*definingOp(*module, "c1"), *u));
  EXPECT_FALSE(dominance.properlyDominates(*forOp, *t));  // an op does not dominate what it contains
  EXPECT_FALSE(dominance.properlyDominates(*t, *t));
}

TEST(Dominance, MultiBlockRegionUsesTheTreeAndUnreachableBlocksAreDominated) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%n: i32) {
    %a = arith.addi %n, %n : i32
    tt.return
  }
}
)");
  // TTIR has no branch ops yet: a second block is unreachable, so (LLVM's convention) everything dominates it.
  Operation* function = module->kernel()->op();
  Block& second = function->region(0).addBlock();
  auto use = std::make_unique<Operation>(OpKind::ArithAddI);
  use->operands = {findValue(*module, "a"), findValue(*module, "a")};
  use->addResult(Type::i32(), "b");
  Operation* inSecond = second.append(std::move(use));
  DominanceInfo dominance(*function);
  EXPECT_TRUE(dominance.dominates(function->region(0).front(), second));
  EXPECT_TRUE(dominance.dominates(*findValue(*module, "a"), *inSecond));
  EXPECT_FALSE(dominance.dominates(second, function->region(0).front()));
}

TEST(DominatorTree, Diamond) {
  // 0 -> 1, 2; 1 -> 3; 2 -> 3
  DominatorTree tree({{1, 2}, {3}, {3}, {}});
  EXPECT_EQ(tree.immediateDominator(1), 0);
  EXPECT_EQ(tree.immediateDominator(2), 0);
  EXPECT_EQ(tree.immediateDominator(3), 0);
  EXPECT_TRUE(tree.dominates(0, 3));
  EXPECT_FALSE(tree.dominates(1, 3));
  EXPECT_TRUE(tree.dominates(3, 3));
  EXPECT_FALSE(tree.properlyDominates(3, 3));
}

TEST(DominatorTree, LoopWithExit) {
  // 0 -> 1; 1 -> 2, 4; 2 -> 3; 3 -> 1; 4 exit
  DominatorTree tree({{1}, {2, 4}, {3}, {1}, {}});
  EXPECT_EQ(tree.immediateDominator(1), 0);
  EXPECT_EQ(tree.immediateDominator(2), 1);
  EXPECT_EQ(tree.immediateDominator(3), 2);
  EXPECT_EQ(tree.immediateDominator(4), 1);
  EXPECT_TRUE(tree.dominates(1, 3));
  EXPECT_FALSE(tree.dominates(2, 4));
}

TEST(DominatorTree, IrreducibleAndUnreachable) {
  // 0 -> 1, 2; 1 <-> 2 (two entries into the cycle); 3 has no path from 0 but points into the graph.
  DominatorTree tree({{1, 2}, {2}, {1}, {1}});
  EXPECT_EQ(tree.immediateDominator(1), 0);
  EXPECT_EQ(tree.immediateDominator(2), 0);
  EXPECT_FALSE(tree.isReachable(3));
  EXPECT_TRUE(tree.dominates(1, 3));   // unreachable: dominated by everything
  EXPECT_FALSE(tree.dominates(3, 1));
}

TEST(DominatorTree, CyclesEnteredFromTwoSides) {
  // Irreducible cycles reached from two sides (the shape of the paper's Figure 4): 3 <-> 4 and 4 <-> 5, entered
  // from 1 and from 2; no node but the entry dominates any other.
  DominatorTree tree({{1, 2}, {3}, {4, 5}, {4}, {3, 5}, {4}});
  for (int node = 1; node < 6; ++node) EXPECT_EQ(tree.immediateDominator(node), 0) << node;
}

}  // namespace
}  // namespace tilesim::analysis
