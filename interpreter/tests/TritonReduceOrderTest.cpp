// Pins Triton's combine order for tt.reduce (LaunchOptions::reduceLayouts; docs/semantics.md "Reductions and
// scans"), against combine trees written out by hand from ReduceOpToLLVM's structure: each thread folds its
// registers in register order (acc = combine(acc, x)), lanes then combine as lane 0 of a shfl.bfly butterfly
// with xor offsets from the highest down (combine(own, partner)), then warps the same way. The non-associative
// combine a*a + 3b makes every tree a different number; a float sum checks that the rounding follows the same tree.
#include <cmath>
#include <functional>
#include <optional>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// y = reduce(x) with `combineBody` as the combine region (it defines %r from %a, %b); `prelude` computes the reduced
// `operand` from %x_1, the loaded x, when that is not x itself.
std::string reduceKernel(const std::string& type, int n, const std::string& combineBody,
                         const std::string& prelude = "", const std::string& operand = "%x_1") {
  const std::string count = std::to_string(n);
  const std::string tensor = "tensor<" + count + "x" + type + ">";
  const std::string pointers = "tensor<" + count + "x!tt.ptr<" + type + ">>";
  std::string text = "module {\n  tt.func public @k(%x_ptr: !tt.ptr<" + type + ">, %y_ptr: !tt.ptr<" + type + ">) {\n";
  text += "    %offs = tt.make_range {end = " + count + " : i32, start = 0 : i32} : tensor<" + count + "xi32>\n";
  text += "    %x = tt.splat %x_ptr : !tt.ptr<" + type + "> -> " + pointers + "\n";
  text += "    %x_0 = tt.addptr %x, %offs : " + pointers + ", tensor<" + count + "xi32>\n";
  text += "    %x_1 = tt.load %x_0 : " + pointers + "\n";
  text += prelude;
  text += "    %0 = \"tt.reduce\"(" + operand + ") <{axis = 0 : i32}> ({\n";
  text += "    ^bb0(%a: " + type + ", %b: " + type + "):\n";
  text += combineBody + "      tt.reduce.return %r : " + type + "\n    }) : (" + tensor + ") -> " + type + "\n";
  text += "    tt.store %y_ptr, %0 : !tt.ptr<" + type + ">\n    tt.return\n  }\n}\n";
  return text;
}

// c(a, b) = a*a + 3b (wrapping): unlike a*3 + b it also tells apart trees that differ only in the order of
// their levels (a*3 + b weighs x_i by 3^(zero bits of i) in every level order).
const char* kSquarePlusThree = R"(      %c3 = arith.constant 3 : i32
      %s = arith.muli %a, %a : i32
      %t = arith.muli %b, %c3 : i32
      %r = arith.addi %s, %t : i32
)";
const char* kAddF = "      %r = arith.addf %a, %b : f32\n";

int32_t c(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(a) + 3u * static_cast<uint32_t>(b));
}

LaunchOptions withLayout(const KernelRun& run, ReduceAxisLayout layout) {
  LaunchOptions options = testOptions();
  walk(*run.module()->kernel()->op(), [&](const Operation& op) {
    if (op.kind == OpKind::TTReduce) options.reduceLayouts[&op] = layout;
  });
  return options;
}

std::vector<int32_t> data(int n) {
  std::vector<int32_t> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i * 7 + 3) % 10 + i / 10;
  return x;
}

// The interpreter's c-reduction of x: in Triton's order for `layout`, or in the contract order without one.
int32_t reduceI32(const std::vector<int32_t>& x, std::optional<ReduceAxisLayout> layout) {
  KernelRun run(reduceKernel("i32", static_cast<int>(x.size()), kSquarePlusThree));
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(1, 0));
  LaunchResult result = layout ? run.run(withLayout(run, *layout)) : run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  return run.values<int32_t>("y_ptr")[0];
}

// sizePerThread 2, threadsPerWarp 4, warpsPerCTA 2 over 16 elements: thread (lane l, warp w) holds elements
// 8w + 2l and 8w + 2l + 1.
TEST(TritonReduceOrder, RegistersThenLaneButterflyThenWarps) {
  std::vector<int32_t> x = data(16);
  auto thread = [&](int lane, int warp) { return c(x[8 * warp + 2 * lane], x[8 * warp + 2 * lane + 1]); };
  // lanes: xor 2 first (lane 0 with 2, 1 with 3), then xor 1
  auto warpValue = [&](int warp) {
    return c(c(thread(0, warp), thread(2, warp)), c(thread(1, warp), thread(3, warp)));
  };
  const int32_t expected = c(warpValue(0), warpValue(1));
  EXPECT_EQ(reduceI32(x, ReduceAxisLayout{2, 4, 2}), expected);
  EXPECT_NE(reduceI32(x, std::nullopt), expected);  // and it is not the contract order's tree
}

// 32 elements on a 2 x 4 x 2 layout: each register repeats once (rep 1 holds elements 16 + ...), and the fold
// runs rep-major: acc = c(c(c(x[e], x[e+1]), x[e+16]), x[e+17]) with e = 8w + 2l.
TEST(TritonReduceOrder, RepeatedRegistersFoldInRegisterOrder) {
  std::vector<int32_t> x = data(32);
  auto thread = [&](int lane, int warp) {
    const int e = 8 * warp + 2 * lane;
    return c(c(c(x[e], x[e + 1]), x[e + 16]), x[e + 17]);
  };
  auto warpValue = [&](int warp) {
    return c(c(thread(0, warp), thread(2, warp)), c(thread(1, warp), thread(3, warp)));
  };
  EXPECT_EQ(reduceI32(x, ReduceAxisLayout{2, 4, 2}), c(warpValue(0), warpValue(1)));
}

// One element per thread, 8 lanes, one warp: the butterfly alone, xor 4, 2, 1.
TEST(TritonReduceOrder, ButterflyStartsAtTheHighestLaneBit) {
  std::vector<int32_t> x = data(8);
  const int32_t expected = c(c(c(x[0], x[4]), c(x[2], x[6])), c(c(x[1], x[5]), c(x[3], x[7])));
  EXPECT_EQ(reduceI32(x, ReduceAxisLayout{1, 8, 1}), expected);
  EXPECT_NE(expected, c(c(c(x[0], x[1]), c(x[2], x[3])), c(c(x[4], x[5]), c(x[6], x[7]))));
}

// A float sum whose rounding tells the trees apart: the interpreter's bits are those of the hand-written tree,
// and with the layout the triton profile adds no order bound (the result must match bit for bit).
TEST(TritonReduceOrder, FloatSumRoundsInTritonsOrder) {
  std::vector<float> x = {1e8f, 1.0f, -1e8f, 1.0f, 3.0f, 1e-3f, -3.0f, 0.5f, 7e7f, 0.25f, 1.0f, -7e7f, 2.0f, 0.125f, 5.0f, 1e-4f};
  KernelRun run(reduceKernel("f32", 16, kAddF));
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, std::vector<float>(1, 0));
  LaunchOptions options = withLayout(run, {4, 2, 2});
  options.profile = FloatProfile::Triton;
  LaunchResult result = run.run(options);
  ASSERT_TRUE(result.ok()) << describe(result);
  auto thread = [&](int lane, int warp) {
    const int e = 8 * warp + 4 * lane;
    return ((x[e] + x[e + 1]) + x[e + 2]) + x[e + 3];
  };
  auto warpValue = [&](int warp) { return thread(0, warp) + thread(1, warp); };
  const float expected = warpValue(0) + warpValue(1);
  EXPECT_EQ(floatBits(run.values<float>("y_ptr")[0]), floatBits(expected));
  float contractTree = 0;  // the lowest-bit-first tree gives other bits for this data
  {
    std::vector<float> level = x;
    while (level.size() > 1) {
      std::vector<float> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(level[i] + level[i + 1]);
      level = next;
    }
    contractTree = level[0];
  }
  EXPECT_NE(floatBits(contractTree), floatBits(expected));
}

// A layout that does not tile the extent is ignored: the contract order applies.
TEST(TritonReduceOrder, LayoutThatDoesNotTileTheExtentKeepsTheContractOrder) {
  std::vector<int32_t> x = data(8);
  const int32_t contract = c(c(c(x[0], x[1]), c(x[2], x[3])), c(c(x[4], x[5]), c(x[6], x[7])));
  EXPECT_EQ(reduceI32(x, ReduceAxisLayout{4, 4, 1}), contract);
}

}  // namespace
}  // namespace tilesim::enginetest

namespace tilesim::enginetest {
namespace {

// sum(x * x) with the product contracted into each thread's fold (ReduceAxisLayout::fusedMultiply), as the
// PTX of liger's rms_norm shows: acc = fma(x0, x0, round(x1 * x1)), then acc = fma(xj, xj, acc).
TEST(TritonReduceOrder, FusedProductFoldsWithFma) {
  ReduceAxisLayout layout{4, 2, 2, true};  // thread (lane l, warp w) holds 8w + 4l .. 8w + 4l + 3
  auto square = [](float v) {  // rounded, whatever the host compiler's -ffp-contract
    volatile float product = v * v;
    return static_cast<float>(product);
  };
  auto fusedSum = [&](const std::vector<float>& x) {
    auto thread = [&](int lane, int warp) {
      const int e = 8 * warp + 4 * lane;
      float acc = std::fma(x[e], x[e], square(x[e + 1]));
      acc = std::fma(x[e + 2], x[e + 2], acc);
      return std::fma(x[e + 3], x[e + 3], acc);
    };
    volatile float left = thread(0, 0) + thread(1, 0), right = thread(0, 1) + thread(1, 1);
    return left + right;
  };
  auto unfusedSum = [&](const std::vector<float>& x) {
    auto thread = [&](int lane, int warp) {
      const int e = 8 * warp + 4 * lane;
      volatile float acc = square(x[e]) + square(x[e + 1]);
      acc = acc + square(x[e + 2]);
      acc = acc + square(x[e + 3]);
      return static_cast<float>(acc);
    };
    volatile float left = thread(0, 0) + thread(1, 0), right = thread(0, 1) + thread(1, 1);
    return left + right;
  };
  // data on which fusing changes the bits (the first of a fixed pseudo-random sequence)
  std::vector<float> x(16);
  bool found = false;
  for (int seed = 0; seed < 1000 && !found; ++seed) {
    for (int i = 0; i < 16; ++i) {
      double v = std::fmod(0.6180339887 * (seed + 1) + 0.7548776662 * (i + 1) * (seed + 2), 1.0);
      x[i] = static_cast<float>((i % 2 ? -1.0 : 1.0) * (1.0 + 3.0 * v));
    }
    found = floatBits(fusedSum(x)) != floatBits(unfusedSum(x));
  }
  ASSERT_TRUE(found);
  KernelRun run(reduceKernel("f32", 16, kAddF, "    %sq = arith.mulf %x_1, %x_1 : tensor<16xf32>\n", "%sq"));
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, std::vector<float>(1, 0));
  ASSERT_TRUE(run.run(withLayout(run, layout)).ok());
  EXPECT_EQ(floatBits(run.values<float>("y_ptr")[0]), floatBits(fusedSum(x)));
}

}  // namespace
}  // namespace tilesim::enginetest
