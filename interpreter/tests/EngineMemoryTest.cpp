// Engine semantics of pointers and memory that real Triton TTIR cannot show: block pointers (tt.make_tensor_ptr,
// tt.advance, boundary-checked tt.load / tt.store with zero and NaN padding; Triton 3.6 rewrites these away
// before printing TTIR), pointer <-> integer round trips, the undefined-lane rule for masked loads without
// `other`, and a 3-D grid. Expected values come from SEMANTICS.md §3.2-3.3 and docs/semantics.md.
#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

TEST(EngineBlockPointer, LoadPadsZeroAndNaNAndAdvances) {
  // a is a 3x5 row-major matrix; a 4x8 block at (0,0) and, after tt.advance by (2,3), at (2,3).
  KernelRun run(tileKernel("bp_load(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", R"(
    %c0_i32 = arith.constant 0 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c5_i64 = arith.constant 5 : i64
    %cst = arith.constant dense<32> : tensor<4x8xi32>
    %bp = tt.make_tensor_ptr %a_ptr, [%c3_i64, %c5_i64], [%c5_i64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    %zero = tt.load %bp {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<4x8xf32>>
    %bp_0 = tt.advance %bp, [%c2_i32, %c3_i32] : <tensor<4x8xf32>>
    %nan = tt.load %bp_0 {boundaryCheck = array<i32: 0, 1>, padding = 2 : i32} : !tt.ptr<tensor<4x8xf32>>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %zero : tensor<4x8x!tt.ptr<f32>>
    %out_1 = tt.addptr %out_0, %cst : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_1, %nan : tensor<4x8x!tt.ptr<f32>>
)"));
  std::vector<float> a(15);
  for (int i = 0; i < 15; ++i) a[i] = 1.5f + static_cast<float>(i);
  run.buffer("a_ptr", ScalarKind::F32, a).buffer("out_ptr", ScalarKind::F32, std::vector<float>(64, -7.0f));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<uint32_t> out = run.values<uint32_t>("out_ptr");
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) {
      uint32_t zeroPadded = r < 3 && c < 5 ? floatBits(a[r * 5 + c]) : floatBits(0.0f);
      EXPECT_EQ(out[r * 8 + c], zeroPadded) << "zero padding at " << r << "," << c;
      int row = 2 + r, col = 3 + c;
      uint32_t nanPadded = row < 3 && col < 5 ? floatBits(a[row * 5 + col]) : 0x7FC00000u;
      EXPECT_EQ(out[32 + r * 8 + c], nanPadded) << "nan padding at " << r << "," << c;
    }
}

TEST(EngineBlockPointer, CheckedStoreSkipsOutOfRangeLanes) {
  // A 4x8 block at (1,2) of a 3x5 matrix: only rows 1..2 and columns 2..4 are written. The lanes past the end
  // of a row would land inside the buffer (the next row) and the lanes past the last row outside it: neither
  // may be written or reported.
  KernelRun run(tileKernel("bp_store(%out_ptr: !tt.ptr<f32>)", R"(
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c5_i64 = arith.constant 5 : i64
    %v = arith.sitofp %offs : tensor<4x8xi32> to tensor<4x8xf32>
    %bp = tt.make_tensor_ptr %out_ptr, [%c3_i64, %c5_i64], [%c5_i64, %c1_i64], [%c1_i32, %c2_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    tt.store %bp, %v {boundaryCheck = array<i32: 0, 1>} : !tt.ptr<tensor<4x8xf32>>
)"));
  run.buffer("out_ptr", ScalarKind::F32, std::vector<float>(15, -1.0f));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<float> expected(15, -1.0f);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c)
      if (1 + r < 3 && 2 + c < 5) expected[(1 + r) * 5 + 2 + c] = static_cast<float>(r * 8 + c);
  EXPECT_EQ(run.values<float>("out_ptr"), expected);
}

TEST(EngineBlockPointer, UncheckedDimOutsideBufferIsReported) {
  // a is 3x8; the 4x8 block checks only dim 1, so row 3 is read although it lies past the end of a_ptr.
  KernelRun run(tileKernel("bp_oob(%a_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>)", R"(
    %c0_i32 = arith.constant 0 : i32
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c8_i64 = arith.constant 8 : i64
    %bp = tt.make_tensor_ptr %a_ptr, [%c3_i64, %c8_i64], [%c8_i64, %c1_i64], [%c0_i32, %c0_i32] {order = array<i32: 1, 0>} : <tensor<4x8xf32>>
    %a = tt.load %bp {boundaryCheck = array<i32: 1>, padding = 1 : i32} : !tt.ptr<tensor<4x8xf32>>
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
    %out_0 = tt.addptr %out, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
    tt.store %out_0, %a : tensor<4x8x!tt.ptr<f32>>
)"));
  std::vector<float> a(24);
  for (int i = 0; i < 24; ++i) a[i] = static_cast<float>(i) * 0.25f;
  run.buffer("a_ptr", ScalarKind::F32, a).buffer("out_ptr", ScalarKind::F32, std::vector<float>(32, 0.0f));
  LaunchResult result = run.run();
  EXPECT_EQ(countOf(result, Report::Kind::OutOfBounds), 8) << describe(result);
  ASSERT_FALSE(result.reports.empty());
  const Report& first = result.reports.front();
  EXPECT_EQ(first.kind, Report::Kind::OutOfBounds);
  EXPECT_EQ(first.op, "tt.load");
  EXPECT_EQ(first.buffer, "a_ptr");
  EXPECT_EQ(first.byteOffset, 24 * 4);
  EXPECT_EQ(first.lane, (std::vector<int64_t>{3, 0})) << first.str();
  std::vector<float> out = run.values<float>("out_ptr");
  for (int i = 0; i < 24; ++i) EXPECT_EQ(out[i], a[i]) << i;
}

TEST(EnginePointer, IntToPtrRoundTrip) {
  // ptr_to_int, +8 bytes, int_to_ptr: the pointer to x[2].
  KernelRun run(R"(module {
  tt.func public @roundtrip(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c8_i64 = arith.constant 8 : i64
    %0 = tt.ptr_to_int %x_ptr : !tt.ptr<f32> -> i64
    %1 = arith.addi %0, %c8_i64 : i64
    %2 = tt.int_to_ptr %1 : i64 -> !tt.ptr<f32>
    %3 = tt.load %2 : !tt.ptr<f32>
    tt.store %out_ptr, %3 : !tt.ptr<f32>
    tt.return
  }
}
)");
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>{1.0f, 2.0f, 3.25f, 4.0f})
      .buffer("out_ptr", ScalarKind::F32, std::vector<float>{0.0f});
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(run.values<float>("out_ptr"), std::vector<float>{3.25f});
}

// x has n = 10 elements; lanes 10..15 are masked off (their addresses are past the end and never touched).
std::string maskedKernel(bool storeMasked) {
  return std::string(R"(module {
  tt.func public @masked(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>, %n: i32) attributes {noinline = false} {
    %offs = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %m = tt.splat %n : i32 -> tensor<16xi32>
    %mask = arith.cmpi slt, %offs, %m : tensor<16xi32>
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %x_0 = tt.addptr %x, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %x_1 = tt.load %x_0, %mask : tensor<16x!tt.ptr<f32>>
    %w = arith.mulf %x_1, %x_1 : tensor<16xf32>
    %y = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %y_0 = tt.addptr %y, %offs : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
)") + (storeMasked ? "    tt.store %y_0, %w, %mask : tensor<16x!tt.ptr<f32>>\n"
                   : "    tt.store %y_0, %w : tensor<16x!tt.ptr<f32>>\n") +
         "    tt.return\n  }\n}\n";
}

TEST(EngineChecks, MaskedLoadWithoutOtherIsFineWhenTheStoreMaskHidesIt) {
  KernelRun run(maskedKernel(true));
  std::vector<float> x(10);
  for (int i = 0; i < 10; ++i) x[i] = static_cast<float>(i) - 3.0f;
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, std::vector<float>(16, 99.0f)).integer("n", 10);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<float> y = run.values<float>("y_ptr");
  for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], i < 10 ? x[i] * x[i] : 99.0f) << i;
}

TEST(EngineChecks, UnmaskedStoreOfUndefinedLanesIsReported) {
  KernelRun run(maskedKernel(false));
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>(10, 2.0f))
      .buffer("y_ptr", ScalarKind::F32, std::vector<float>(16, 0.0f))
      .integer("n", 10);
  LaunchResult result = run.run();
  EXPECT_EQ(countOf(result, Report::Kind::UndefinedUse), 6) << describe(result);
  EXPECT_EQ(countOf(result, Report::Kind::OutOfBounds), 0) << describe(result);
  ASSERT_FALSE(result.reports.empty());
  EXPECT_EQ(result.reports.front().op, "tt.store");
  EXPECT_EQ(result.reports.front().lane, std::vector<int64_t>{10});
}

TEST(EngineGrid, ThreeDimensionalGridIdsAndNumPrograms) {
  KernelRun run(R"(module {
  tt.func public @grid3d(%out_ptr: !tt.ptr<i32>, %num_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %c10_i32 = arith.constant 10 : i32
    %c100_i32 = arith.constant 100 : i32
    %px = tt.get_program_id x : i32
    %py = tt.get_program_id y : i32
    %pz = tt.get_program_id z : i32
    %nx = tt.get_num_programs x : i32
    %ny = tt.get_num_programs y : i32
    %nz = tt.get_num_programs z : i32
    %0 = arith.muli %py, %c10_i32 : i32
    %1 = arith.addi %px, %0 : i32
    %2 = arith.muli %pz, %c100_i32 : i32
    %value = arith.addi %1, %2 : i32
    %3 = arith.muli %ny, %pz : i32
    %4 = arith.addi %py, %3 : i32
    %5 = arith.muli %nx, %4 : i32
    %idx = arith.addi %px, %5 : i32
    %6 = tt.addptr %out_ptr, %idx : !tt.ptr<i32>, i32
    tt.store %6, %value : !tt.ptr<i32>
    %7 = arith.muli %idx, %c3_i32 : i32
    %8 = tt.addptr %num_ptr, %7 : !tt.ptr<i32>, i32
    tt.store %8, %nx : !tt.ptr<i32>
    %9 = tt.addptr %8, %c1_i32 : !tt.ptr<i32>, i32
    tt.store %9, %ny : !tt.ptr<i32>
    %10 = tt.addptr %8, %c2_i32 : !tt.ptr<i32>, i32
    tt.store %10, %nz : !tt.ptr<i32>
    tt.return
  }
}
)");
  run.buffer("out_ptr", ScalarKind::I32, std::vector<int32_t>(12, -1))
      .buffer("num_ptr", ScalarKind::I32, std::vector<int32_t>(36, -1))
      .grid(2, 3, 2);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> out = run.values<int32_t>("out_ptr"), nums = run.values<int32_t>("num_ptr");
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 2; ++x) EXPECT_EQ(out[x + 2 * (y + 3 * z)], x + 10 * y + 100 * z);
  for (int p = 0; p < 12; ++p) {
    EXPECT_EQ(nums[3 * p], 2);
    EXPECT_EQ(nums[3 * p + 1], 3);
    EXPECT_EQ(nums[3 * p + 2], 2);
  }
}

}  // namespace
}  // namespace tilesim::enginetest
