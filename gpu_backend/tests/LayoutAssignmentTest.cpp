// LayoutAssignment on small TTIR kernels: default blocked layouts per shape (vector width from the memory ops),
// expand_dims inserting a dimension, reductions giving slice layouts, tt.trans composing with the permutation.
#include <gtest/gtest.h>

#include "gpu_backend/layout/LayoutAssignment.h"
#include "ir/text/Parser.h"

namespace tilesim::gpu {
namespace {

constexpr const char* kKernel = R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f16>, %y_ptr: !tt.ptr<f32>) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %rb = tt.broadcast %r2 : tensor<32x1xi32> -> tensor<32x64xi32>
    %cb = tt.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
    %i = arith.addi %rb, %cb : tensor<32x64xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<32x64x!tt.ptr<f16>>
    %xp = tt.addptr %xs, %i : tensor<32x64x!tt.ptr<f16>>, tensor<32x64xi32>
    %x = tt.load %xp : tensor<32x64x!tt.ptr<f16>>
    %xf = arith.extf %x : tensor<32x64xf16> to tensor<32x64xf32>
    %s = "tt.reduce"(%xf) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tt.reduce.return %t : f32
    }) : (tensor<32x64xf32>) -> tensor<32xf32>
    %tr = tt.trans %xf {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
    tt.return
  }
})";

const Value* valueNamed(const Function& kernel, const std::string& name) {
  const Value* found = nullptr;
  walk(*kernel.op(), [&](const Operation& op) {
    for (const auto& result : op.results)
      if (result->name == name) found = result.get();
  });
  return found;
}

TEST(LayoutAssignment, FollowsTheRules) {
  ParseResult parsed = parseModule(kKernel, "k.ttir");
  ASSERT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  Function kernel = *parsed.module->kernel();
  Diagnostics diagnostics;
  LayoutAssignment layouts = LayoutAssignment::assign(kernel, 4, diagnostics);
  ASSERT_TRUE(diagnostics.empty());
  // The 32x64 tensors are loaded as f16: 8 per thread along dim 1 (16 bytes).
  const LinearLayout* tile = layouts.layoutOf(valueNamed(kernel, "x"));
  ASSERT_TRUE(tile);
  EXPECT_EQ(vectorWidth(*tile), 8);
  EXPECT_EQ(*layouts.layoutOf(valueNamed(kernel, "xf")), *tile);  // same shape, same layout
  // expand_dims keeps the 1-D layout and adds a size-1 dimension: its registers are the operand's.
  const LinearLayout* r2 = layouts.layoutOf(valueNamed(kernel, "r2"));
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->outDims()[1].bits, 0);
  EXPECT_EQ(numRegisters(*r2), numRegisters(*layouts.layoutOf(valueNamed(kernel, "r"))));
  // The row sums have the slice layout of the tile along dim 1.
  const LinearLayout* sums = layouts.layoutOf(valueNamed(kernel, "s"));
  ASSERT_TRUE(sums);
  EXPECT_EQ(*sums, sliceLayout(*tile, 1, nullptr).withOutDims(tensorDims(std::vector<int64_t>{32})));
  // tt.trans moves no data: each hardware bit now names the swapped dimension.
  const LinearLayout* transposed = layouts.layoutOf(valueNamed(kernel, "tr"));
  ASSERT_TRUE(transposed);
  for (int reg = 0; reg < numRegisters(*tile); ++reg) {
    std::vector<int64_t> before = tile->unpackOutput(registerElement(*tile, reg));
    std::vector<int64_t> after = transposed->unpackOutput(registerElement(*transposed, reg));
    EXPECT_EQ(after, (std::vector<int64_t>{before[1], before[0]}));
  }
  EXPECT_NE(layouts.print(kernel).find("#L0 = {"), std::string::npos);
}

// With AxisInfo, sizePerThread is what the accesses can vectorise (Triton's coalesce): x_ptr + range with an
// x_ptr of unknown alignment moves 1 element per access; declared 16-divisible, 8 halves (16 bytes).
TEST(LayoutAssignment, SizePerThreadFollowsAxisInfo) {
  for (const char* attribute : {"", " {tt.divisibility = 16 : i32}"}) {
    const bool aligned = *attribute != 0;
    std::string text = std::string(R"(module {
  tt.func public @k(%x_ptr: !tt.ptr<f16>)") + attribute + R"() {
    %r = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<2048x!tt.ptr<f16>>
    %xp = tt.addptr %xs, %r : tensor<2048x!tt.ptr<f16>>, tensor<2048xi32>
    %x = tt.load %xp : tensor<2048x!tt.ptr<f16>>
    tt.return
  }
})";
    ParseResult parsed = parseModule(text, "k.ttir");
    ASSERT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
    Function kernel = *parsed.module->kernel();
    analysis::AxisInfoAnalysis axisInfo(*parsed.module);
    Diagnostics diagnostics;
    LayoutAssignment layouts = LayoutAssignment::assign(kernel, 4, diagnostics, &axisInfo);
    ASSERT_TRUE(diagnostics.empty());
    EXPECT_EQ(vectorWidth(*layouts.layoutOf(valueNamed(kernel, "x"))), aligned ? 8 : 1) << "aligned=" << aligned;
    EXPECT_EQ(accessVectorElements(axisInfo.info(*valueNamed(kernel, "xp")), 2), aligned ? 8 : 1);
  }
}

TEST(LayoutAssignment, RejectsNonPowerOfTwoShapes) {
  ParseResult parsed = parseModule(R"(module {
  tt.func public @k() {
    %r = tt.make_range {end = 12 : i32, start = 0 : i32} : tensor<12xi32>
    tt.return
  }
})", "k.ttir");
  ASSERT_TRUE(parsed.module);
  Diagnostics diagnostics;
  LayoutAssignment::assign(*parsed.module->kernel(), 4, diagnostics);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].message.find("power-of-two"), std::string::npos);
}

}  // namespace
}  // namespace tilesim::gpu
