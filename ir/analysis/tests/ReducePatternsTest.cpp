// reduceFusesMultiply: an addf reduce over a single-use f32 mulf is the fusable shape; a second use of the product,
// a combine other than addf of the two arguments, or an f16 product is not.
#include <gtest/gtest.h>

#include <string>

#include "ir/analysis/ReducePatterns.h"
#include "ir/analysis/tests/AnalysisTestSupport.h"

namespace tilesim::analysis {
namespace {

using analysistest::definingOp;
using analysistest::parseVerified;

std::string kernel(const std::string& type, const std::string& combine, bool secondUse) {
  return R"(module {
  tt.func public @k(%p: !tt.ptr<)" + type + R"(>) {
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %ps = tt.splat %p : !tt.ptr<)" + type + R"(> -> tensor<8x!tt.ptr<)" + type + R"(>>
    %pp = tt.addptr %ps, %r : tensor<8x!tt.ptr<)" + type + R"(>>, tensor<8xi32>
    %x = tt.load %pp : tensor<8x!tt.ptr<)" + type + R"(>>
    %m = arith.mulf %x, %x : tensor<8x)" + type + R"(>
    %s = "tt.reduce"(%m) <{axis = 0 : i32}> ({
    ^bb0(%a: )" + type + ", %b: " + type + R"():
      %c = )" + combine + " : " + type + R"(
      tt.reduce.return %c : )" + type + R"(
    }) : (tensor<8x)" + type + ">) -> " + type + "\n" +
         (secondUse ? "    tt.store %pp, %m : tensor<8x!tt.ptr<" + type + ">>\n" : "") + R"(    tt.return
  }
}
)";
}

bool fuses(const std::string& text) {
  auto module = parseVerified(text);
  if (!module) return false;
  return reduceFusesMultiply(*definingOp(*module, "s"), *module->kernel());
}

TEST(ReducePatterns, AddfOverSingleUseF32ProductFuses) { EXPECT_TRUE(fuses(kernel("f32", "arith.addf %a, %b", false))); }

TEST(ReducePatterns, ProductWithAnotherUseDoesNotFuse) { EXPECT_FALSE(fuses(kernel("f32", "arith.addf %a, %b", true))); }

TEST(ReducePatterns, MaxCombineDoesNotFuse) { EXPECT_FALSE(fuses(kernel("f32", "arith.maxnumf %a, %b", false))); }

TEST(ReducePatterns, SwappedOrSelfAddDoesNotFuse) { EXPECT_FALSE(fuses(kernel("f32", "arith.addf %a, %a", false))); }

TEST(ReducePatterns, HalfProductDoesNotFuse) { EXPECT_FALSE(fuses(kernel("f16", "arith.addf %a, %b", false))); }

}  // namespace
}  // namespace tilesim::analysis
