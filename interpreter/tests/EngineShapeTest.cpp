// Engine semantics of shape ops (ir/Ops.def one-liners, SEMANTICS.md §4.1): tt.gather along either axis with an
// out-of-range index trapping as OutOfBounds, tt.histogram ignoring values outside [0, bins), tt.cat (a then b),
// tt.join / tt.split round trip on 2-D, tt.trans of a 3-D tile, tt.reshape (row-major), and expand_dims /
// broadcast / splat of a pointer (through the 4x8 offsets every kernel here builds).
#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// Loads x and idx (4x8 i32), gathers along `axis`, stores to y.
std::string gatherKernel(int axis) {
  return tileKernel("gather(%x_ptr: !tt.ptr<i32>, %idx_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>)", R"(
    %x = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %x_0 = tt.addptr %x, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    %x_1 = tt.load %x_0 : tensor<4x8x!tt.ptr<i32>>
    %i = tt.splat %idx_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %i_0 = tt.addptr %i, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    %i_1 = tt.load %i_0 : tensor<4x8x!tt.ptr<i32>>
    %g = tt.gather %x_1[%i_1] {axis = )" + std::to_string(axis) + R"( : i32} : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
    %y = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<4x8x!tt.ptr<i32>>
    %y_0 = tt.addptr %y, %offs : tensor<4x8x!tt.ptr<i32>>, tensor<4x8xi32>
    tt.store %y_0, %g : tensor<4x8x!tt.ptr<i32>>
)");
}

TEST(EngineShape, GatherAlongEachAxis) {
  std::vector<int32_t> x(32);
  for (int i = 0; i < 32; ++i) x[i] = 100 + i;
  for (int axis : {0, 1}) {
    SCOPED_TRACE(axis);
    const int extent = axis == 0 ? 4 : 8;
    std::vector<int32_t> idx(32), expected(32);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 8; ++c) {
        int at = (r * 5 + c * 3) % extent;
        idx[r * 8 + c] = at;
        expected[r * 8 + c] = axis == 0 ? x[at * 8 + c] : x[r * 8 + at];
      }
    KernelRun run(gatherKernel(axis));
    run.buffer("x_ptr", ScalarKind::I32, x).buffer("idx_ptr", ScalarKind::I32, idx)
        .buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(32, -1));
    LaunchResult result = run.run();
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(run.values<int32_t>("y_ptr"), expected);
  }
}

TEST(EngineShape, GatherIndexOutOfRangeTraps) {
  std::vector<int32_t> idx(32, 0);
  idx[2 * 8 + 3] = 8;  // axis 1 has extent 8
  KernelRun run(gatherKernel(1));
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>(32, 1)).buffer("idx_ptr", ScalarKind::I32, idx)
      .buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(32, -1));
  LaunchResult result = run.run();
  ASSERT_EQ(countOf(result, Report::Kind::OutOfBounds), 1) << describe(result);
  EXPECT_EQ(result.reports.front().op, "tt.gather");
  EXPECT_EQ(result.reports.front().lane, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(run.values<int32_t>("y_ptr"), std::vector<int32_t>(32, -1));  // the program stopped before the store
}

TEST(EngineShape, HistogramIgnoresValuesOutsideTheBins) {
  KernelRun run(R"(module {
  tt.func public @hist(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %1 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %3 = tt.load %2 : tensor<16x!tt.ptr<i32>>
    %4 = tt.histogram %3 : tensor<16xi32> -> tensor<8xi32>
    %5 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %6 = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %7 = tt.addptr %6, %5 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %7, %4 : tensor<8x!tt.ptr<i32>>
    tt.return
  }
}
)");
  std::vector<int32_t> x = {0, 1, 1, 7, 8, -1, 3, 3, 3, 100, 7, 0, -2147483647 - 1, 5, 2, 9};
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(8, -1));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expected(8, 0);
  for (int32_t v : x)
    if (v >= 0 && v < 8) ++expected[v];
  EXPECT_EQ(run.values<int32_t>("y_ptr"), expected);
}

TEST(EngineShape, CatJoinSplitTransReshape) {
  // a = 0..31 and b = 100..131 as 4x8 tiles (from the offsets):
  //   cat(a[row 0], b[row 0]) -> y[0..15]; join(a, b) -> 4x8x2 -> reshape 64 -> y[16..79];
  //   split(join(a, b)) -> (a', b') -> y[80..111], y[112..143];
  //   trans(reshape(a ++ b as 2x4x8), order [2, 0, 1]) -> 8x2x4 -> reshape 64 -> y[144..207].
  KernelRun run(tileKernel("shapes(%y_ptr: !tt.ptr<i32>)", R"(
    %cst = arith.constant dense<100> : tensor<4x8xi32>
    %cst_0 = arith.constant dense<100> : tensor<8xi32>
    %a = arith.addi %offs, %cst : tensor<4x8xi32>
    %b0 = arith.addi %cols, %cst_0 : tensor<8xi32>
    %cat = tt.cat %cols, %b0 : tensor<8xi32> -> tensor<16xi32>
    %j = tt.join %offs, %a : tensor<4x8xi32> -> tensor<4x8x2xi32>
    %j_0 = tt.reshape %j : tensor<4x8x2xi32> -> tensor<64xi32>
    %l, %r = tt.split %j : tensor<4x8x2xi32> -> tensor<4x8xi32>
    %l_0 = tt.reshape %l : tensor<4x8xi32> -> tensor<32xi32>
    %r_0 = tt.reshape %r : tensor<4x8xi32> -> tensor<32xi32>
    %ab = tt.join %offs, %a : tensor<4x8xi32> -> tensor<4x8x2xi32>
    %t0 = tt.trans %ab {order = array<i32: 2, 0, 1>} : tensor<4x8x2xi32> -> tensor<2x4x8xi32>
    %t1 = tt.trans %t0 {order = array<i32: 2, 0, 1>} : tensor<2x4x8xi32> -> tensor<8x2x4xi32>
    %t2 = tt.reshape %t1 : tensor<8x2x4xi32> -> tensor<64xi32>
    %o16 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %o32 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %o64 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c16_i32 = arith.constant 16 : i32
    %c80_i32 = arith.constant 80 : i32
    %c112_i32 = arith.constant 112 : i32
    %c144_i32 = arith.constant 144 : i32
    %y16 = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %y16_0 = tt.addptr %y16, %o16 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    tt.store %y16_0, %cat : tensor<16x!tt.ptr<i32>>
    %p1 = tt.addptr %y_ptr, %c16_i32 : !tt.ptr<i32>, i32
    %y64 = tt.splat %p1 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %y64_0 = tt.addptr %y64, %o64 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %y64_0, %j_0 : tensor<64x!tt.ptr<i32>>
    %p2 = tt.addptr %y_ptr, %c80_i32 : !tt.ptr<i32>, i32
    %y32 = tt.splat %p2 : !tt.ptr<i32> -> tensor<32x!tt.ptr<i32>>
    %y32_0 = tt.addptr %y32, %o32 : tensor<32x!tt.ptr<i32>>, tensor<32xi32>
    tt.store %y32_0, %l_0 : tensor<32x!tt.ptr<i32>>
    %p3 = tt.addptr %y_ptr, %c112_i32 : !tt.ptr<i32>, i32
    %y32_1 = tt.splat %p3 : !tt.ptr<i32> -> tensor<32x!tt.ptr<i32>>
    %y32_2 = tt.addptr %y32_1, %o32 : tensor<32x!tt.ptr<i32>>, tensor<32xi32>
    tt.store %y32_2, %r_0 : tensor<32x!tt.ptr<i32>>
    %p4 = tt.addptr %y_ptr, %c144_i32 : !tt.ptr<i32>, i32
    %y64_1 = tt.splat %p4 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %y64_2 = tt.addptr %y64_1, %o64 : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    tt.store %y64_2, %t2 : tensor<64x!tt.ptr<i32>>
)"));
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(208, -1));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> y = run.values<int32_t>("y_ptr");
  auto a = [](int r, int c) { return r * 8 + c; };
  auto b = [](int r, int c) { return 100 + r * 8 + c; };
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(y[i], i) << "cat a";
    EXPECT_EQ(y[8 + i], 100 + i) << "cat b";
  }
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) {
      EXPECT_EQ(y[16 + (r * 8 + c) * 2], a(r, c)) << "join";
      EXPECT_EQ(y[16 + (r * 8 + c) * 2 + 1], b(r, c)) << "join";
      EXPECT_EQ(y[80 + r * 8 + c], a(r, c)) << "split lhs";
      EXPECT_EQ(y[112 + r * 8 + c], b(r, c)) << "split rhs";
    }
  // ab[r][c][k] (4x8x2); t0 = trans [2,0,1]: t0[k][r][c] = ab[r][c][k];
  // t1 = trans [2,0,1] of t0 (2x4x8): t1[c][k][r] = t0[k][r][c].
  for (int c = 0; c < 8; ++c)
    for (int k = 0; k < 2; ++k)
      for (int r = 0; r < 4; ++r)
        EXPECT_EQ(y[144 + (c * 2 + k) * 4 + r], k == 0 ? a(r, c) : b(r, c)) << "trans " << c << k << r;
}

}  // namespace
}  // namespace tilesim::enginetest
