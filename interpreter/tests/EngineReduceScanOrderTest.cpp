// Pins the combine order of tt.reduce and tt.scan stated in docs/semantics.md "Reductions and scans": reduce is a
// tree over the index bits, lowest bit first (blocks of 2, then 4, ...; left operand = lower index); scan is
// Kogge-Stone (distance 1, 2, 4, ...; left operand = the earlier element in scan order). Each test checks the
// interpreter against a tiny independent model of that order: non-associative integer combines (a*3 + b) whose
// value spells out the tree, argmax ties (the first index wins), and float sums whose rounding depends on the order.
#include <functional>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// A 1-D kernel over n elements of `type`: y = op(x) with the given combine body (arguments %a, %b -> %r).
std::string kernel(const std::string& type, int n, const std::string& opName, const std::string& attributes,
                   const std::string& combineBody, bool reduce) {
  const std::string tensor = "tensor<" + std::to_string(n) + "x" + type + ">";
  const std::string pointers = "tensor<" + std::to_string(n) + "x!tt.ptr<" + type + ">>";
  const std::string resultType = reduce ? type : tensor;
  std::string text = "module {\n  tt.func public @k(%x_ptr: !tt.ptr<" + type + ">, %y_ptr: !tt.ptr<" + type +
                     ">) attributes {noinline = false} {\n";
  text += "    %offs = tt.make_range {end = " + std::to_string(n) + " : i32, start = 0 : i32} : tensor<" +
          std::to_string(n) + "xi32>\n";
  text += "    %x = tt.splat %x_ptr : !tt.ptr<" + type + "> -> " + pointers + "\n";
  text += "    %x_0 = tt.addptr %x, %offs : " + pointers + ", tensor<" + std::to_string(n) + "xi32>\n";
  text += "    %x_1 = tt.load %x_0 : " + pointers + "\n";
  text += "    %0 = \"" + opName + "\"(%x_1) <{" + attributes + "}> ({\n    ^bb0(%a: " + type + ", %b: " + type + "):\n";
  text += combineBody + "      " + opName + ".return %r : " + type + "\n    }) : (" + tensor + ") -> " + resultType + "\n";
  if (reduce) {
    text += "    tt.store %y_ptr, %0 : !tt.ptr<" + type + ">\n";
  } else {
    text += "    %y = tt.splat %y_ptr : !tt.ptr<" + type + "> -> " + pointers + "\n";
    text += "    %y_0 = tt.addptr %y, %offs : " + pointers + ", tensor<" + std::to_string(n) + "xi32>\n";
    text += "    tt.store %y_0, %0 : " + pointers + "\n";
  }
  return text + "    tt.return\n  }\n}\n";
}

const char* kTimesThreePlus = R"(      %c3 = arith.constant 3 : i32
      %t = arith.muli %a, %c3 : i32
      %r = arith.addi %t, %b : i32
)";

int32_t timesThreePlus(int32_t a, int32_t b) { return static_cast<int32_t>(static_cast<uint32_t>(a) * 3u + static_cast<uint32_t>(b)); }

// The documented reduction tree, written recursively: a block of 2^j elements is the combine of its two halves.
template <typename T> T treeReduce(const std::vector<T>& x, size_t begin, size_t count, const std::function<T(T, T)>& combine) {
  if (count == 1) return x[begin];
  return combine(treeReduce(x, begin, count / 2, combine), treeReduce(x, begin + count / 2, count / 2, combine));
}

// The documented scan: Kogge-Stone, distance 1, 2, 4, ...; `reverse` mirrors the index.
template <typename T> std::vector<T> koggeStone(std::vector<T> x, bool reverse, const std::function<T(T, T)>& combine) {
  const size_t n = x.size();
  auto at = [&](size_t i) -> T& { return x[reverse ? n - 1 - i : i]; };
  for (size_t d = 1; d < n; d *= 2) {
    std::vector<T> previous(n);
    for (size_t i = 0; i < n; ++i) previous[i] = at(i);
    for (size_t i = d; i < n; ++i) at(i) = combine(previous[i - d], previous[i]);
  }
  return x;
}

TEST(ReduceOrder, NonAssociativeCombineRevealsTheLowestBitFirstTree) {
  for (int n : {2, 4, 8, 16, 64}) {
    std::vector<int32_t> x(n);
    for (int i = 0; i < n; ++i) x[i] = (i * 7 + 3) % 10;
    KernelRun run(kernel("i32", n, "tt.reduce", "axis = 0 : i32", kTimesThreePlus, true));
    run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(1, 0));
    LaunchResult result = run.run();
    ASSERT_TRUE(result.ok()) << describe(result);
    int32_t expected = treeReduce<int32_t>(x, 0, x.size(), timesThreePlus);
    EXPECT_EQ(run.values<int32_t>("y_ptr")[0], expected) << "n = " << n;
    if (n == 4) {
      EXPECT_EQ(expected, timesThreePlus(timesThreePlus(x[0], x[1]), timesThreePlus(x[2], x[3])));
    }
  }
}

TEST(ScanOrder, NonAssociativeCombineRevealsKoggeStone) {
  for (bool reverse : {false, true})
    for (int n : {2, 8, 32}) {
      std::vector<int32_t> x(n);
      for (int i = 0; i < n; ++i) x[i] = (i * 5 + 1) % 7;
      KernelRun run(kernel("i32", n, "tt.scan", std::string("axis = 0 : i32, reverse = ") + (reverse ? "true" : "false"),
                           kTimesThreePlus, false));
      run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(n, 0));
      LaunchResult result = run.run();
      ASSERT_TRUE(result.ok()) << describe(result);
      EXPECT_EQ(run.values<int32_t>("y_ptr"), koggeStone<int32_t>(x, reverse, timesThreePlus))
          << "n = " << n << (reverse ? " reverse" : "");
    }
  // Spelled out for n = 4: y[3] = c(c(x0, x1), c(x2, x3)) (distance 1, then 2), y[2] = c(x0, c(x1, x2)).
  std::vector<int32_t> x = {1, 2, 3, 4};
  std::vector<int32_t> scanned = koggeStone<int32_t>(x, false, timesThreePlus);
  EXPECT_EQ(scanned[3], timesThreePlus(timesThreePlus(1, 2), timesThreePlus(3, 4)));
  EXPECT_EQ(scanned[2], timesThreePlus(1, timesThreePlus(2, 3)));
}

TEST(ReduceOrder, ArgmaxTiesPickTheFirstIndex) {
  // Triton's argmax combine with tie_break_left, on (value, index) pairs, over 16 elements with many ties.
  const std::string text = R"(module {
  tt.func public @argmax(%x_ptr: !tt.ptr<i32>, %v_ptr: !tt.ptr<i32>, %i_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %x_0 = tt.addptr %x, %offs : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %x_1 = tt.load %x_0 : tensor<16x!tt.ptr<i32>>
    %0:2 = "tt.reduce"(%x_1, %offs) <{axis = 0 : i32}> ({
    ^bb0(%v1: i32, %i1: i32, %v2: i32, %i2: i32):
      %1 = arith.cmpi eq, %v1, %v2 : i32
      %2 = arith.cmpi slt, %i1, %i2 : i32
      %3 = arith.andi %1, %2 : i1
      %4 = arith.cmpi sgt, %v1, %v2 : i32
      %5 = arith.ori %4, %3 : i1
      %6 = arith.select %5, %v1, %v2 : i32
      %7 = arith.select %5, %i1, %i2 : i32
      tt.reduce.return %6, %7 : i32, i32
    }) : (tensor<16xi32>, tensor<16xi32>) -> (i32, i32)
    tt.store %v_ptr, %0#0 : !tt.ptr<i32>
    tt.store %i_ptr, %0#1 : !tt.ptr<i32>
    tt.return
  }
}
)";
  const std::vector<std::vector<int32_t>> cases = {
      {1, 9, 2, 9, 3, 9, 4, 9, 5, 9, 6, 9, 7, 9, 8, 9},  // first maximum at 1
      {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7},  // all equal: 0
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 5},  // 9 before 15 (they meet only at the last level)
      {0, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};  // 3 and 4 sit in different halves of every level
  for (const std::vector<int32_t>& x : cases) {
    KernelRun run(text);
    run.buffer("x_ptr", ScalarKind::I32, x).buffer("v_ptr", ScalarKind::I32, std::vector<int32_t>(1, -1))
        .buffer("i_ptr", ScalarKind::I32, std::vector<int32_t>(1, -1));
    LaunchResult result = run.run();
    ASSERT_TRUE(result.ok()) << describe(result);
    int32_t best = 0;
    for (int32_t i = 1; i < 16; ++i)
      if (x[i] > x[best]) best = i;
    EXPECT_EQ(run.values<int32_t>("i_ptr")[0], best);
    EXPECT_EQ(run.values<int32_t>("v_ptr")[0], x[best]);
  }
}

const char* kAddF = "      %r = arith.addf %a, %b : f32\n";
float addFloats(float a, float b) { return a + b; }

TEST(ReduceOrder, FloatSumRoundsInTheDocumentedOrder) {
  // Values whose sum depends on the order: big terms that cancel and small ones that are absorbed.
  std::vector<float> x = {1e8f, 1.0f, -1e8f, 1.0f, 3.0f, 1e-3f, -3.0f, 0.5f, 7e7f, 0.25f, 1.0f, -7e7f, 2.0f, 0.125f, 5.0f, 1e-4f};
  const float expected = treeReduce<float>(x, 0, x.size(), addFloats);
  float sequential = x[0], halving[16];
  for (size_t i = 1; i < x.size(); ++i) sequential += x[i];
  std::copy(x.begin(), x.end(), halving);
  for (size_t m = 8; m >= 1; m /= 2)
    for (size_t i = 0; i < m; ++i) halving[i] += halving[i + m];
  ASSERT_NE(floatBits(expected), floatBits(sequential));  // the data tells the orders apart
  ASSERT_NE(floatBits(expected), floatBits(halving[0]));
  KernelRun run(kernel("f32", 16, "tt.reduce", "axis = 0 : i32", kAddF, true));
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, std::vector<float>(1, 0));
  LaunchResult result = run.run();
  ASSERT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(floatBits(run.values<float>("y_ptr")[0]), floatBits(expected));
}

TEST(ScanOrder, FloatCumsumRoundsInTheDocumentedOrder) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = (i % 3 == 0 ? 1e7f : 0.3f) * (i % 2 ? -1.0f : 1.0f) + static_cast<float>(i) * 0.01f;
  for (bool reverse : {false, true}) {
    KernelRun run(kernel("f32", 32, "tt.scan", std::string("axis = 0 : i32, reverse = ") + (reverse ? "true" : "false"),
                         kAddF, false));
    run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, std::vector<float>(32, 0));
    LaunchResult result = run.run();
    ASSERT_TRUE(result.ok()) << describe(result);
    std::vector<float> expected = koggeStone<float>(x, reverse, addFloats);
    std::vector<float> got = run.values<float>("y_ptr");
    int differsFromSequential = 0;
    float running = 0;
    for (int step = 0; step < 32; ++step) {
      int i = reverse ? 31 - step : step;
      running = step == 0 ? x[i] : running + x[i];
      differsFromSequential += floatBits(running) != floatBits(expected[i]);
      EXPECT_EQ(floatBits(got[i]), floatBits(expected[i])) << i << (reverse ? " reverse" : "");
    }
    EXPECT_GT(differsFromSequential, 0) << "the data should tell Kogge-Stone from a sequential scan";
  }
}

}  // namespace
}  // namespace tilesim::enginetest
