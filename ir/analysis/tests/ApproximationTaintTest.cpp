// ApproximationTaint: which values the triton profile knows only within a bound, through straight-line code,
// loops, calls, and where such a value reaches a use the interpreter's bounds do not follow.
#include <gtest/gtest.h>

#include <string>

#include "ir/analysis/ApproximationTaint.h"
#include "ir/analysis/tests/AnalysisTestSupport.h"

namespace tilesim::analysis {
namespace {

using analysistest::findValue;
using analysistest::parseVerified;

// "mnemonic (operand k)" of the first unfollowed use, "" when there is none.
std::string firstUnfollowed(const Module& module) {
  ApproximationTaint taint(module, *module.kernel());
  std::optional<ApproximationTaint::UnfollowedUse> use = taint.firstUnfollowedUse();
  return use ? std::string(use->user->name()) + " (operand " + std::to_string(use->operand) + ")" : "";
}

// %f = `floatOp` %x, %x, then fptosi, a store of the integer, and a branch on it.
std::string branchOnConvertedFloat(const std::string& floatOp) {
  return R"(module {
  tt.func public @k(%x: f32, %p: !tt.ptr<i32>) {
    %f = )" + floatOp + R"( %x, %x : f32
    %i = arith.fptosi %f : f32 to i32
    %z = arith.constant 0 : i32
    tt.store %p, %i : !tt.ptr<i32>
    %c = arith.cmpi sgt, %i, %z : i32
    scf.if %c {
      tt.store %p, %z : !tt.ptr<i32>
    }
    tt.return
  }
}
)";
}

TEST(ApproximationTaint, FollowsIntoIntegersAndStoresButNotIntoBranches) {
  auto module = parseVerified(branchOnConvertedFloat("arith.divf"));
  ASSERT_TRUE(module);
  ApproximationTaint taint(*module, *module->kernel());
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "f")));
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "i")));
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "c")));
  EXPECT_FALSE(taint.isApproximate(*findValue(*module, "z")));
  EXPECT_FALSE(taint.isApproximate(*findValue(*module, "x")));  // kernel arguments are exact
  EXPECT_EQ(firstUnfollowed(*module), "scf.if (operand 0)");   // the store of %i is followed
}

TEST(ApproximationTaint, ExactValuesReachBranchesFreely) {
  auto module = parseVerified(branchOnConvertedFloat("arith.addf"));  // addf is exact under both profiles
  ASSERT_TRUE(module);
  ApproximationTaint taint(*module, *module->kernel());
  EXPECT_FALSE(taint.isApproximate(*findValue(*module, "f")));
  EXPECT_EQ(firstUnfollowed(*module), "");
}

TEST(ApproximationTaint, LoopCarriedValuesJoinTheirYieldsAndTheInductionVariableFollowsTheBounds) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%x: f32, %n: i32, %p: !tt.ptr<i32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = scf.for %iv = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) : i32 {
      %t = math.exp2 %acc : f32
      %u = arith.addi %iv, %c1 : i32
      scf.yield %t : f32
    }
    %i = arith.fptosi %s : f32 to i32
    %w = scf.for %jv = %c0 to %i step %c1 iter_args(%b = %c0) -> (i32) : i32 {
      scf.yield %jv : i32
    }
    tt.return
  }
}
)");
  ASSERT_TRUE(module);
  ApproximationTaint taint(*module, *module->kernel());
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "acc")));  // the second iteration carries exp2's result
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "s")));
  EXPECT_FALSE(taint.isApproximate(*findValue(*module, "iv")));  // exact bounds: an exact induction variable
  EXPECT_FALSE(taint.isApproximate(*findValue(*module, "u")));
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "jv")));   // an approximate upper bound
  EXPECT_EQ(firstUnfollowed(*module), "scf.for (operand 1)");
}

TEST(ApproximationTaint, CallResultsAreApproximateWhenAnOperandOrTheCalleeIs) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%x: f32, %p: !tt.ptr<i32>) {
    %r = tt.call @plain(%x) : (f32) -> f32
    %q = tt.call @approximate(%x) : (f32) -> f32
    %e = math.log %x : f32
    %s = tt.call @plain(%e) : (f32) -> f32
    tt.return
  }
  tt.func private @plain(%a: f32) -> f32 attributes {noinline = true} {
    %0 = arith.mulf %a, %a : f32
    tt.return %0 : f32
  }
  tt.func private @approximate(%a: f32) -> f32 attributes {noinline = true} {
    %0 = math.sin %a : f32
    tt.return %0 : f32
  }
}
)");
  ASSERT_TRUE(module);
  ApproximationTaint taint(*module, *module->kernel());
  EXPECT_FALSE(taint.isApproximate(*findValue(*module, "r")));
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "q")));
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "s")));
  EXPECT_EQ(firstUnfollowed(*module), "");
}

TEST(ApproximationTaint, AnAtomicFollowsItsValueNotItsAddress) {
  auto module = parseVerified(R"(module {
  tt.func public @k(%x: f32, %p: !tt.ptr<f32>) {
    %e = math.sqrt %x : f32
    %old = tt.atomic_rmw fadd, acq_rel, gpu, %p, %e : (!tt.ptr<f32>, f32) -> f32
    %i = arith.fptosi %old : f32 to i32
    %q = tt.addptr %p, %i : !tt.ptr<f32>, i32
    %again = tt.atomic_rmw fadd, acq_rel, gpu, %q, %x : (!tt.ptr<f32>, f32) -> f32
    tt.return
  }
}
)");
  ASSERT_TRUE(module);
  ApproximationTaint taint(*module, *module->kernel());
  EXPECT_TRUE(taint.isApproximate(*findValue(*module, "old")));  // a float atomic add's order is open
  EXPECT_EQ(firstUnfollowed(*module), "tt.atomic_rmw (operand 0)");
}

}  // namespace
}  // namespace tilesim::analysis
