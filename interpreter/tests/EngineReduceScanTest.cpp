// Engine semantics of tt.scan and tt.reduce beyond the golden cases (SEMANTICS.md §3.7-3.8, ir/Ops.def): reverse
// scans, multi-operand scans whose combine is not commutative (so the argument order acc-then-current shows), scans
// and reductions along either axis of a 2-D tile, argmin ties (smallest index wins), and combine regions holding
// their own constants. Integer data keeps every expected value exact in any combine order.
#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// Loads x (4x8 i32) as %x; `body` stores the results.
std::string tileLoadKernel(const std::string& extraParameters, const std::string& body) {
  return tileKernel("k(%x_ptr: !tt.ptr<i32>" + extraParameters + ")", R"(
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %x_0 = tt.addptr %x, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    %x_1 = tt.load %x_0 : tensor<4x8x!tt.ptr<i32>>
)" + body);
}

std::vector<int32_t> sampleTile() {
  std::vector<int32_t> x(32);
  for (int i = 0; i < 32; ++i) x[i] = (i * 37) % 19 - 9;
  return x;
}

TEST(EngineScan, ReverseCumsum) {
  KernelRun run(R"(module {
  tt.func public @rcumsum(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %x_0 = tt.addptr %x, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %x_1 = tt.load %x_0 : tensor<8x!tt.ptr<i32>>
    %0 = "tt.scan"(%x_1) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %2 = arith.addi %arg2, %arg3 : i32
      tt.scan.return %2 : i32
    }) : (tensor<8xi32>) -> tensor<8xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %y_0, %0 : tensor<8x!tt.ptr<i32>>
    tt.return
  }
}
)");
  std::vector<int32_t> x = {3, -1, 4, 1, -5, 9, 2, 6};
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(8, 0));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expected(8);
  for (int i = 0; i < 8; ++i)
    for (int j = i; j < 8; ++j) expected[i] += x[j];
  EXPECT_EQ(run.values<int32_t>("y_ptr"), expected);
}

TEST(EngineScan, TwoOperandAffineComposition) {
  // Each element (m, c) is the map v -> m * v + c; the scan composes them left to right:
  // combine((m1, c1), (m2, c2)) = (m1 * m2, c1 * m2 + c2), not commutative.
  KernelRun run(R"(module {
  tt.func public @affine(%m_ptr: !tt.ptr<i32>, %c_ptr: !tt.ptr<i32>, %outm_ptr: !tt.ptr<i32>, %outc_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %m = tt.splat %m_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %m_0 = tt.addptr %m, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %m_1 = tt.load %m_0 : tensor<8x!tt.ptr<i32>>
    %c = tt.splat %c_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %c_0 = tt.addptr %c, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %c_1 = tt.load %c_0 : tensor<8x!tt.ptr<i32>>
    %0:2 = "tt.scan"(%m_1, %c_1) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32):
      %1 = arith.muli %arg4, %arg6 : i32
      %2 = arith.muli %arg5, %arg6 : i32
      %3 = arith.addi %2, %arg7 : i32
      tt.scan.return %1, %3 : i32, i32
    }) : (tensor<8xi32>, tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>)
    %om = tt.splat %outm_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %om_0 = tt.addptr %om, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %om_0, %0#0 : tensor<8x!tt.ptr<i32>>
    %oc = tt.splat %outc_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %oc_0 = tt.addptr %oc, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %oc_0, %0#1 : tensor<8x!tt.ptr<i32>>
    tt.return
  }
}
)");
  std::vector<int32_t> m = {2, 1, 3, 1, 2, 1, 1, 2}, c = {1, 2, 3, 4, 5, 6, 7, 8};
  run.buffer("m_ptr", ScalarKind::I32, m).buffer("c_ptr", ScalarKind::I32, c)
      .buffer("outm_ptr", ScalarKind::I32, std::vector<int32_t>(8, 0))
      .buffer("outc_ptr", ScalarKind::I32, std::vector<int32_t>(8, 0));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expectedM(8), expectedC(8);
  int32_t accM = m[0], accC = c[0];
  expectedM[0] = accM;
  expectedC[0] = accC;
  for (int i = 1; i < 8; ++i) {
    accC = accC * m[i] + c[i];
    accM = accM * m[i];
    expectedM[i] = accM;
    expectedC[i] = accC;
  }
  EXPECT_EQ(run.values<int32_t>("outm_ptr"), expectedM);
  EXPECT_EQ(run.values<int32_t>("outc_ptr"), expectedC);
}

TEST(EngineScan, AlongAxisOneOf2D) {
  KernelRun run(tileLoadKernel(", %y_ptr: !tt.ptr<i32>", R"(
    %0 = "tt.scan"(%x_1) <{axis = 1 : i32, reverse = false}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %1 = arith.addi %arg2, %arg3 : i32
      tt.scan.return %1 : i32
    }) : (tensor<4x8xi32>) -> tensor<4x8xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    tt.store %y_0, %0 : tensor<4x8x!tt.ptr<i32>>
)"));
  std::vector<int32_t> x = sampleTile();
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(32, 0));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expected(32);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) expected[r * 8 + c] = x[r * 8 + c] + (c ? expected[r * 8 + c - 1] : 0);
  EXPECT_EQ(run.values<int32_t>("y_ptr"), expected);
}

TEST(EngineReduce, AlongAxisZeroOf2D) {
  KernelRun run(tileLoadKernel(", %y_ptr: !tt.ptr<i32>", R"(
    %0 = "tt.reduce"(%x_1) <{axis = 0 : i32}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %1 = arith.addi %arg2, %arg3 : i32
      tt.reduce.return %1 : i32
    }) : (tensor<4x8xi32>) -> tensor<8xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %cols : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %y_0, %0 : tensor<8x!tt.ptr<i32>>
)"));
  std::vector<int32_t> x = sampleTile();
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(8, 0));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expected(8, 0);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) expected[c] += x[r * 8 + c];
  EXPECT_EQ(run.values<int32_t>("y_ptr"), expected);
}

TEST(EngineReduce, ArgminTiesPickTheSmallestIndex) {
  // Triton's argmin combine (tie_break_left): lt = v1 < v2 or (v1 == v2 and i1 < i2), along axis 1.
  KernelRun run(tileLoadKernel(", %v_ptr: !tt.ptr<i32>, %i_ptr: !tt.ptr<i32>", R"(
    %0:2 = "tt.reduce"(%x_1, %cols_1) <{axis = 1 : i32}> ({
    ^bb0(%arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32):
      %1 = arith.cmpi eq, %arg4, %arg6 : i32
      %2 = arith.cmpi slt, %arg5, %arg7 : i32
      %3 = arith.andi %1, %2 : i1
      %4 = arith.cmpi slt, %arg4, %arg6 : i32
      %5 = arith.ori %4, %3 : i1
      %6 = arith.select %5, %arg4, %arg6 : i32
      %7 = arith.select %5, %arg5, %arg7 : i32
      tt.reduce.return %6, %7 : i32, i32
    }) : (tensor<4x8xi32>, tensor<4x8xi32>) -> (tensor<4xi32>, tensor<4xi32>)
    %v = tt.splat %v_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %v_0 = tt.addptr %v, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %v_0, %0#0 : tensor<4x!tt.ptr<i32>>
    %i = tt.splat %i_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %i_0 = tt.addptr %i, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %i_0, %0#1 : tensor<4x!tt.ptr<i32>>
)"));
  // Row 0: minimum at 2 and 7; row 1: all equal; row 2: minimum at 1, 4, 5, 6 (4 meets 5 first, then 1 meets
  // the winner of 4..7, so the index test decides); row 3: one minimum at the end.
  std::vector<int32_t> x = {5, 6, -3, 8, 9, 9, 9, -3,  4, 4, 4, 4, 4, 4, 4, 4,
                            1, 0, 3, 3, 0, 0, 0, 3,    9, 8, 7, 6, 5, 4, 3, -1};
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("v_ptr", ScalarKind::I32, std::vector<int32_t>(4, 99))
      .buffer("i_ptr", ScalarKind::I32, std::vector<int32_t>(4, 99));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> values(4), indices(4);
  for (int r = 0; r < 4; ++r) {
    int best = 0;
    for (int c = 1; c < 8; ++c)
      if (x[r * 8 + c] < x[r * 8 + best]) best = c;  // strict: the first minimum stays
    values[r] = x[r * 8 + best];
    indices[r] = best;
  }
  EXPECT_EQ(indices, (std::vector<int32_t>{2, 0, 1, 7}));
  EXPECT_EQ(run.values<int32_t>("v_ptr"), values);
  EXPECT_EQ(run.values<int32_t>("i_ptr"), indices);
}

TEST(EngineReduce, CombineRegionWithItsOwnConstant) {
  // combine(a, b) = max(max(a, b), 5): every row reduces to max(5, max of the row).
  KernelRun run(tileLoadKernel(", %y_ptr: !tt.ptr<i32>", R"(
    %0 = "tt.reduce"(%x_1) <{axis = 1 : i32}> ({
    ^bb0(%arg2: i32, %arg3: i32):
      %c5_i32 = arith.constant 5 : i32
      %1 = arith.maxsi %arg2, %arg3 : i32
      %2 = arith.maxsi %1, %c5_i32 : i32
      tt.reduce.return %2 : i32
    }) : (tensor<4x8xi32>) -> tensor<4xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %rows : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %y_0, %0 : tensor<4x!tt.ptr<i32>>
)"));
  std::vector<int32_t> x(32);
  for (int i = 0; i < 32; ++i) x[i] = i < 16 ? i % 5 - 2 : i - 10;  // rows 0-1 stay below 5
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(4, 0));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expected(4, 5);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) expected[r] = std::max(expected[r], x[r * 8 + c]);
  EXPECT_EQ(expected, (std::vector<int32_t>{5, 5, 13, 21}));
  EXPECT_EQ(run.values<int32_t>("y_ptr"), expected);
}

}  // namespace
}  // namespace tilesim::enginetest
