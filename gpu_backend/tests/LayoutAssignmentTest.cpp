// LayoutAssignment on small TTIR kernels: default blocked layouts per shape (vector width from the memory ops),
// expand_dims inserting a dimension, reductions giving slice layouts, tt.trans composing with the permutation;
// under the triton profile, values computed from a tensor-core dot keep its layout (attention).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include "gpu_backend/Pipeline.h"
#include "gpu_backend/layout/LayoutAssignment.h"
#include "interpreter/Interpreter.h"
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

// A kernel parsed from text, its AxisInfo and its layouts (num_warps 4, the exact profile's rules).
struct Assigned {
  ParseResult parsed;
  std::optional<Function> kernel;
  std::optional<analysis::AxisInfoAnalysis> axisInfo;
  std::optional<LayoutAssignment> layouts;
  Diagnostics diagnostics;

  explicit Assigned(const std::string& text) : parsed(parseModule(text, "k.ttir")) {
    if (!parsed.module) return;
    kernel = *parsed.module->kernel();
    axisInfo.emplace(*parsed.module);
    layouts.emplace(LayoutAssignment::assign(*kernel, 4, diagnostics, &*axisInfo));
  }
  const Value* value(const std::string& name) const { return valueNamed(*kernel, name); }
  const LinearLayout& layoutOf(const std::string& name) const { return *layouts->layoutOf(value(name)); }
};

// Parses and assigns `text`, failing the test on a parse error or a diagnostic.
#define ASSIGN_OR_FAIL(name, text)                                                                         \
  Assigned name(text);                                                                                    \
  ASSERT_TRUE(name.parsed.module) << (name.parsed.diagnostics.empty() ? "" : name.parsed.diagnostics[0].str()); \
  ASSERT_TRUE(name.diagnostics.empty())

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
    ASSIGN_OR_FAIL(k, text);
    EXPECT_EQ(vectorWidth(k.layoutOf("x")), aligned ? 8 : 1) << "aligned=" << aligned;
    EXPECT_EQ(accessVectorElements(k.axisInfo->info(*k.value("xp")), 2), aligned ? 8 : 1);
  }
}

// A load contiguous along dimension 0 (attention's k, read as [d][n] with d contiguous: k + n * 64 + d) gets its
// own blocked layout fastest along d, 8 halves (16 bytes) per vector there, as Triton's coalesce pass orders it;
// a load of the same shape contiguous along the last dimension keeps the default one.
TEST(LayoutAssignment, ALoadContiguousAlongDimensionZeroIsCoalescedAlongIt) {
  const std::string text = R"(module {
  tt.func public @k(%k_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %c64 = arith.constant dense<64> : tensor<1x64xi32>
    %d = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %d2 = tt.expand_dims %d {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %n2 = tt.expand_dims %d {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %rows = arith.muli %n2, %c64 : tensor<1x64xi32>
    %db = tt.broadcast %d2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %nb = tt.broadcast %rows : tensor<1x64xi32> -> tensor<64x64xi32>
    %o = arith.addi %db, %nb : tensor<64x64xi32>
    %ks = tt.splat %k_ptr : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>>
    %kp = tt.addptr %ks, %o : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    %k = tt.load %kp : tensor<64x64x!tt.ptr<f16>>
    %t = tt.trans %o {order = array<i32: 1, 0>} : tensor<64x64xi32> -> tensor<64x64xi32>
    %rp = tt.addptr %ks, %t : tensor<64x64x!tt.ptr<f16>>, tensor<64x64xi32>
    %r = tt.load %rp : tensor<64x64x!tt.ptr<f16>>
    tt.return
  }
})";
  ASSIGN_OR_FAIL(kernel, text);
  EXPECT_EQ(coalescedDimension(kernel.axisInfo->info(*kernel.value("kp")), 2), 0);
  EXPECT_EQ(coalescedDimension(kernel.axisInfo->info(*kernel.value("rp")), 2), 1);
  const RegisterRun k = registerRun(kernel.layoutOf("k"));
  EXPECT_EQ(k.dim, 0);
  EXPECT_EQ(k.elements, 8);
  const RegisterRun r = registerRun(kernel.layoutOf("r"));
  EXPECT_EQ(r.dim, 1);
  EXPECT_EQ(r.elements, 8);
  // k's layout is the default one with its two dimensions swapped.
  const std::vector<int64_t> shape{64, 64};
  const LinearLayout coalesced = coalescedLayout(shape, 4, 8, 0);
  EXPECT_EQ(kernel.layoutOf("k"), coalesced);
  for (int reg = 0; reg < numRegisters(coalesced); ++reg)
    for (int lane : {0, 5, 31}) {
      const std::vector<int64_t> swapped = kernel.layouts->defaultLayout(shape).apply(std::vector<int64_t>{1, lane, reg});
      EXPECT_EQ(coalesced.apply(std::vector<int64_t>{1, lane, reg}), (std::vector<int64_t>{swapped[1], swapped[0]}));
    }
}

// A column-major b (fp8 matmul: b_ptrs = b + k + n * stride, advanced by BLOCK_K each iteration): the loop
// carries the pointers in the load's coalesced layout — the iter_arg, the advanced pointers and the loop's result —
// so no iteration converts a tensor of pointers through shared memory.
TEST(LayoutAssignment, PointersACoalescedLoadAdvancesAreCarriedInItsLayout) {
  const std::string text = R"(module {
  tt.func public @k(%b_ptr: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<64> : tensor<64x64xi32>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %k2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %n2 = tt.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %s = tt.splat %stride : i32 -> tensor<1x64xi32>
    %ns = arith.muli %n2, %s : tensor<1x64xi32>
    %kb = tt.broadcast %k2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %nb = tt.broadcast %ns : tensor<1x64xi32> -> tensor<64x64xi32>
    %o = arith.addi %kb, %nb : tensor<64x64xi32>
    %bs = tt.splat %b_ptr : !tt.ptr<f8E4M3FN> -> tensor<64x64x!tt.ptr<f8E4M3FN>>
    %b0 = tt.addptr %bs, %o : tensor<64x64x!tt.ptr<f8E4M3FN>>, tensor<64x64xi32>
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %b0) -> (tensor<64x64x!tt.ptr<f8E4M3FN>>) : i32 {
      %b = tt.load %ptrs : tensor<64x64x!tt.ptr<f8E4M3FN>>
      %next = tt.addptr %ptrs, %step : tensor<64x64x!tt.ptr<f8E4M3FN>>, tensor<64x64xi32>
      scf.yield %next : tensor<64x64x!tt.ptr<f8E4M3FN>>
    }
    tt.return
  }
})";
  ASSIGN_OR_FAIL(kernel, text);
  const LinearLayout& loaded = kernel.layoutOf("b");
  EXPECT_EQ(registerRun(loaded).dim, 0);
  EXPECT_EQ(registerRun(loaded).elements, 16);  // 16 one-byte elements along k
  const Operation* loop = kernel.value("last")->definingOp;
  EXPECT_EQ(*kernel.layouts->layoutOf(loop->region(0).front().argument(1)), loaded);
  EXPECT_EQ(kernel.layoutOf("next"), loaded);
  EXPECT_EQ(kernel.layoutOf("last"), loaded);
  EXPECT_NE(kernel.layoutOf("b0"), loaded);  // the init: converted once, at the entry
}

// Triton's tutorial 06 (flash attention forward, real-kernels): under the triton profile the softmax and the
// rescaling between the two dots stay in the first dot's mma layout (the broadcast of the row maximum
// included), P goes into the second dot from there, and only the loop's exit value takes a blocked layout again.
TEST(LayoutAssignment, AttentionStaysInTheMmaLayoutBetweenItsDots) {
  const std::string path =
      std::string(TILESIM_SOURCE_DIR) + "/conformance/real-kernels/tut06_attention_fwd_f16_attn_fwd_0/kernel.ttir";
  ParseResult parsed = parseModuleFile(path);
  ASSERT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  Function kernel = *parsed.module->kernel();
  analysis::AxisInfoAnalysis axisInfo(*parsed.module);
  Diagnostics diagnostics;
  LayoutAssignment layouts = LayoutAssignment::assign(kernel, 4, diagnostics, &axisInfo, false, /*tensorCores=*/true);
  ASSERT_TRUE(diagnostics.empty());
  auto layoutOf = [&](const char* name) {
    const Value* value = valueNamed(kernel, name);
    EXPECT_NE(value, nullptr) << name;
    return value ? layouts.layoutOf(value) : nullptr;
  };
  const LinearLayout* mma = layoutOf("qk");  // the first dot
  ASSERT_NE(mma, nullptr);
  EXPECT_NE(*mma, layouts.defaultLayout(std::vector<int64_t>{128, 64}));
  // qk * scale, qk - m[:, None] (the broadcast and the subtraction), exp2, acc * alpha[:, None], p.to(f16), the
  // second dot.
  for (const char* name : {"qk_57", "qk_59", "qk_60", "p", "acc_65", "acc_66", "p_77", "acc_78"})
    if (const LinearLayout* layout = layoutOf(name)) {
      EXPECT_EQ(*layout, *mma) << name;
    }
  // The row statistics are the mma layout's slices.
  const LinearLayout* rowMax = layoutOf("m_ij");
  ASSERT_NE(rowMax, nullptr);
  for (const char* name : {"m_ij_55", "alpha_61", "l_i_63"})
    if (const LinearLayout* layout = layoutOf(name)) {
      EXPECT_EQ(*layout, *rowMax) << name;
    }
  // The epilogue (acc / l_i[:, None] after the loop) is back in the blocked layout of its shape.
  const LinearLayout* epilogue = layoutOf("acc_33");
  ASSERT_NE(epilogue, nullptr);
  EXPECT_EQ(*epilogue, layouts.defaultLayout(std::vector<int64_t>{128, 64}));
  // Without tensor cores (the exact profile) nothing is in an mma layout.
  Diagnostics exactDiagnostics;
  LayoutAssignment exact = LayoutAssignment::assign(kernel, 4, exactDiagnostics, &axisInfo);
  EXPECT_EQ(*exact.layoutOf(valueNamed(kernel, "p")), exact.defaultLayout(std::vector<int64_t>{128, 64}));
}

// The benchmark's attention at D 128 with BLOCK_N 64 (Triton 3.6's TTIR, bench/gpu/ttir/matrix): q k^T is [64, 64]
// but acc is [64, 128], so alpha[:, None] broadcasts into the shape of the second dot's accumulator, which is
// assigned after it. The broadcast takes that dot's layout (its rows are the first dot's, a register broadcast),
// not the blocked one: before 2026-12-07 it was blocked, and every iteration moved a [64, 128] f32 tile through
// shared memory to rescale acc (36 ld.shared and 32 st.shared in the loop's PTX; 168 registers, Triton 140).
TEST(LayoutAssignment, ABroadcastIntoALaterDotsAccumulatorTakesItsLayout) {
  const std::string path = std::string(TILESIM_SOURCE_DIR) + "/bench/gpu/ttir/matrix/attention_d128_64x64_w4_s3.ttir";
  ParseResult parsed = parseModuleFile(path);
  ASSERT_TRUE(parsed.module) << path;
  Function kernel = *parsed.module->kernel();
  analysis::AxisInfoAnalysis axisInfo(*parsed.module);
  Diagnostics diagnostics;
  LayoutAssignment layouts = LayoutAssignment::assign(kernel, 4, diagnostics, &axisInfo, false, /*tensorCores=*/true);
  ASSERT_TRUE(diagnostics.empty());
  const Value *broadcast = valueNamed(kernel, "acc_56"), *second = valueNamed(kernel, "acc_59");
  ASSERT_NE(broadcast, nullptr);
  ASSERT_NE(second, nullptr);
  ASSERT_EQ(broadcast->definingOp->kind, OpKind::TTBroadcast);
  ASSERT_EQ(second->definingOp->kind, OpKind::TTDot);
  EXPECT_EQ(*layouts.layoutOf(broadcast), *layouts.layoutOf(second));
  EXPECT_NE(*layouts.layoutOf(broadcast), layouts.defaultLayout(std::vector<int64_t>{64, 128}));
  EXPECT_EQ(*layouts.layoutOf(valueNamed(kernel, "acc_57")), *layouts.layoutOf(second));  // acc * alpha[:, None]
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

// The order the triton profile lowers each reduce in, as the interpreter is told it (tritonReduceLayouts): the
// differential case reduce_order_f32 (gpu_diff_reduce_order_triton runs it on a GPU) has, with 4 warps, 1-D
// reduces over 4096 elements as Triton's blocked layout {4 per thread, 32 lanes, 4 warps} (8 repeats), a 32x128
// tile whose rows live in one warp's lanes {4, 32, 1} and whose columns are spread over the warps {1, 1, 4}.
TEST(TritonReduceLayouts, FollowTheBackendsLayouts) {
  std::ifstream file(std::string(TILESIM_SOURCE_DIR) + "/gpu_backend/tests/cases/reduce_order_f32/kernel.ttir");
  std::stringstream text;
  text << file.rdbuf();
  ParseResult parsed = parseModule(text.str(), "kernel.ttir");
  ASSERT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  Function kernel = *parsed.module->kernel();
  std::map<const Operation*, ReduceAxisLayout> layouts = tritonReduceLayouts(*parsed.module, kernel, 4);
  std::vector<std::string> seen;
  walk(*kernel.op(), [&](const Operation& op) {
    if (op.kind != OpKind::TTReduce) return;
    auto found = layouts.find(&op);
    ASSERT_NE(found, layouts.end()) << op.result(0)->name;
    const ReduceAxisLayout& l = found->second;
    seen.push_back(fmt::format("{}:{},{},{}{}", op.result(0)->name, l.sizePerThread, l.threadsPerWarp, l.warpsPerCTA,
                               l.fusedMultiply ? " fused" : ""));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"sum:4,32,4", "dot:4,32,4 fused", "max:4,32,4", "affine:4,32,4",
                                            "rows:4,32,1", "cols:1,1,4"}));
  // With 1 warp the 1-D reduces keep 4 per thread and 32 lanes, now 32 repeats and no cross-warp round.
  std::map<const Operation*, ReduceAxisLayout> oneWarp = tritonReduceLayouts(*parsed.module, kernel, 1);
  ASSERT_EQ(oneWarp.size(), 6u);
  EXPECT_EQ(oneWarp.begin()->second.warpsPerCTA, 1);
  EXPECT_TRUE(tritonReduceLayouts(*parsed.module, kernel, 3).empty());  // not a power of two: nothing

  // The case tells the orders apart: the interpreter in the GPU's order and in the contract order disagree on
  // the f32 sums and the i32 combine (so a GPU reducing in any other order fails gpu_diff_reduce_order_triton).
  auto run = [&](const std::map<const Operation*, ReduceAxisLayout>& order) {
    std::mt19937 random(23);
    std::uniform_real_distribution<float> unit(-1, 1);
    std::uniform_int_distribution<int> exponent(-20, 20);
    std::vector<float> x(4096), y(4096);
    for (float& v : x) v = std::ldexp(unit(random), exponent(random));
    for (float& v : y) v = 1.25f + 0.75f * unit(random);  // products as spread as x
    auto bytes = [](const auto& values) {
      std::vector<uint8_t> out(values.size() * sizeof(values[0]));
      std::memcpy(out.data(), values.data(), out.size());
      return out;
    };
    Launch launch;
    launch.module = parsed.module.get();
    launch.kernel = kernel;
    launch.arguments = {LaunchArgument::buffer("x_ptr", ScalarKind::F32, bytes(x)),
                        LaunchArgument::buffer("y_ptr", ScalarKind::F32, bytes(y)),
                        LaunchArgument::buffer("out_ptr", ScalarKind::F32, bytes(std::vector<float>(192, 0.0f))),
                        LaunchArgument::buffer("iout_ptr", ScalarKind::I32, bytes(std::vector<int32_t>(1, 0)))};
    LaunchOptions options;
    options.profile = FloatProfile::Triton;
    options.threads = 1;
    options.echoPrints = false;
    options.reduceLayouts = order;
    LaunchOutcome outcome = runLaunch(launch, options);
    EXPECT_TRUE(outcome.started());
    std::vector<float> out(192);
    std::memcpy(out.data(), launch.arguments[2].bytes.data(), 192 * sizeof(float));
    int32_t affine = 0;
    std::memcpy(&affine, launch.arguments[3].bytes.data(), sizeof affine);
    return std::make_pair(out, affine);
  };
  auto [gpuOrder, gpuAffine] = run(layouts);
  auto [contract, contractAffine] = run({});
  EXPECT_NE(gpuOrder[0], contract[0]);  // the 4096-element sum
  EXPECT_NE(gpuOrder[1], contract[1]);  // the sum of products (fused fold)
  EXPECT_EQ(gpuOrder[2], contract[2]);  // max: any order
  EXPECT_NE(gpuAffine, contractAffine);
  int rowsDiffer = 0, colsDiffer = 0;
  for (int i = 0; i < 32; ++i) rowsDiffer += gpuOrder[8 + i] != contract[8 + i];
  for (int i = 0; i < 128; ++i) colsDiffer += gpuOrder[64 + i] != contract[64 + i];
  EXPECT_GT(rowsDiffer, 0);
  EXPECT_GT(colsDiffer, 0);
}

}  // namespace
}  // namespace tilesim::gpu
