// parseTtgirReduces / matchReduceLayouts (conformance/runner/TtgirLayouts.h): blocked and sliced operand layouts,
// limits to the axis extent, layouts that keep the contract order, and a real TTGIR recorded by Triton 3.6.
#include "conformance/runner/TtgirLayouts.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ir/text/Parser.h"

namespace tilesim {
namespace {

const char* kText = R"(#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#linear = #ttg.linear<{register = [[0, 1]], lane = [[1, 0]], warp = [], block = []}>
module {
    %a = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      %r = arith.addf %p, %q : f32
      tt.reduce.return %r : f32
    }) : (tensor<1024xf32, #blocked>) -> f32 loc(#loc1)
    %b = "tt.reduce"(%y) <{axis = 1 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      tt.reduce.return %p : f32
    }) : (tensor<8x64xf32, #blocked1>) -> tensor<8xf32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %c = "tt.reduce"(%z) <{axis = 0 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      tt.reduce.return %p : f32
    }) : (tensor<16xf32, #ttg.slice<{dim = 0, parent = #blocked1}>>) -> f32
    %d = "tt.reduce"(%w) <{axis = 0 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      tt.reduce.return %p : f32
    }) : (tensor<32x2xf32, #linear>) -> tensor<2xf32, #ttg.slice<{dim = 0, parent = #linear}>>
}
)";

TEST(TtgirLayouts, ReadsBlockedAndSlicedOperandLayouts) {
  TtgirLayouts parsed = parseTtgirReduces(kText);
  ASSERT_EQ(parsed.reduces.size(), 4u);
  const TtgirReduce& first = parsed.reduces[0];
  EXPECT_TRUE(first.blocked);
  EXPECT_EQ(first.shape, std::vector<int64_t>{1024});
  EXPECT_EQ(first.layout.sizePerThread, 4);
  EXPECT_EQ(first.layout.threadsPerWarp, 32);
  EXPECT_EQ(first.layout.warpsPerCTA, 4);
  const TtgirReduce& second = parsed.reduces[1];  // axis 1 of #blocked1
  EXPECT_EQ(second.axis, 1);
  EXPECT_EQ(second.layout.sizePerThread, 2);
  EXPECT_EQ(second.layout.threadsPerWarp, 8);
  EXPECT_EQ(second.layout.warpsPerCTA, 2);
  // a slice that drops parent dim 0: the operand's axis 0 is the parent's dim 1; 16 = 2 * 8 leaves one warp
  const TtgirReduce& third = parsed.reduces[2];
  EXPECT_TRUE(third.blocked);
  EXPECT_EQ(third.layout.sizePerThread, 2);
  EXPECT_EQ(third.layout.threadsPerWarp, 8);
  EXPECT_EQ(third.layout.warpsPerCTA, 1);
  EXPECT_FALSE(parsed.reduces[3].blocked);  // #linear keeps the contract order
}

TEST(TtgirLayouts, MatchesARealKernelsReduceByPosition) {
  const std::string directory = std::string(TILESIM_SOURCE_DIR) + "/conformance/golden/reduce3d_f32";
  std::ifstream file(directory + "/kernel.ttgir");
  ASSERT_TRUE(file) << directory;
  std::stringstream text;
  text << file.rdbuf();
  TtgirLayouts parsed = parseTtgirReduces(text.str());
  ParseResult module = parseModuleFile(directory + "/kernel.ttir");
  ASSERT_TRUE(module.module);
  ReduceLayoutMatch match = matchReduceLayouts(parsed, *module.module->kernel());
  // reduce3d's first reduce is over a #blocked 4x8x16 (axis 1), its second over a #linear 32x2 layout
  ASSERT_EQ(parsed.reduces.size(), 2u);
  EXPECT_EQ(match.layouts.size(), 1u);
  EXPECT_EQ(match.unmatched, 1);
  const ReduceAxisLayout& layout = match.layouts.begin()->second;  // dim 1 of [1,1,4] x [4,2,4] x [1,4,1]
  EXPECT_EQ(layout.sizePerThread, 1);
  EXPECT_EQ(layout.threadsPerWarp, 2);
  EXPECT_EQ(layout.warpsPerCTA, 4);
}

// Issue 19: the regex reader divided by a zero sizePerThread (SIGFPE), overflowed the stack on a 100 KB line
// and threw out of std::stoll on an out-of-range number. Each is now a diagnostic with file:line:col.
TEST(TtgirLayouts, MalformedDefinitionsAreDiagnosticsWithPositions) {
  const std::string reduce = "\n  %a = \"tt.reduce\"(%x) <{axis = 0 : i32}> ({\n  ^bb0(%p: f32, %q: f32):\n"
                             "    tt.reduce.return %p : f32\n  }) : (tensor<1024xf32, #blocked>) -> f32\n";
  TtgirLayouts zero = parseTtgirReduces(
      "#blocked = #ttg.blocked<{sizePerThread = [0], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>" + reduce,
      "k.ttgir");
  EXPECT_EQ(zero.error, "k.ttgir:1:43: error: sizePerThread entry 0 is out of range (1..1048576)");
  EXPECT_TRUE(zero.reduces.empty());
  TtgirLayouts huge = parseTtgirReduces(
      "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [99999999999999999999999], warpsPerCTA = [4]}>",
      "k.ttgir");
  EXPECT_NE(huge.error.find("k.ttgir:1:"), std::string::npos) << huge.error;
  EXPECT_NE(huge.error.find("out of range"), std::string::npos) << huge.error;
  std::string longLine = "#blocked = #ttg.blocked<{sizePerThread = [";
  for (int i = 0; i < 50000; ++i) longLine += "1, ";
  longLine += "1]}>";
  EXPECT_NE(parseTtgirReduces(longLine, "k.ttgir").error.find("more than 16 entries"), std::string::npos);
  TtgirLayouts lengths = parseTtgirReduces(
      "#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [4]}>", "k.ttgir");
  EXPECT_NE(lengths.error.find("one non-zero length"), std::string::npos) << lengths.error;
  TtgirLayouts axis = parseTtgirReduces("\n\n  %a = \"tt.reduce\"(%x) <{axis = 99999999999 : i32}> ({})", "k.ttgir");
  EXPECT_NE(axis.error.find("k.ttgir:3:"), std::string::npos) << axis.error;
  std::string deep(100000, '(');
  EXPECT_NE(parseTtgirReduces("\"tt.reduce\"" + deep, "k.ttgir").error.find("unterminated"), std::string::npos);
}

}  // namespace
}  // namespace tilesim
