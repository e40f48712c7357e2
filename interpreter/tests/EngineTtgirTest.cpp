// TTGIR on the interpreter (issue 23): the checks a recorded kernel cannot show, each planted in a small TTGIR
// kernel — an async copy read before the ttg.async_wait that covers its commit group (async-hazard, at the read's
// line, naming the copy's), the commit-group count of async_wait, an mbarrier wait that can never complete
// (mbarrier), and a use after ttg.local_dealloc (shared-memory). Expected values come from the kernels' text:
// x copied through shared memory is x.
#include <string>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// x (128 f32) through shared memory into y, with two async copies of 64 elements in two commit groups; WAIT is
// replaced by the test's wait.
const std::string kCopyKernel = R"(#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copy(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c64 = arith.constant dense<64> : tensor<64xi32, #blocked>
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %x0 = tt.addptr %xs, %r : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    %x1 = tt.addptr %x0, %c64 : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64xf32, #shared, #smem, mutable>
    %b0 = ttg.memdesc_index %buf[%c0_i32] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
    %b1 = ttg.memdesc_index %buf[%c1_i32] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
    %t0 = ttg.async_copy_global_to_local %x0, %b0 : tensor<64x!tt.ptr<f32>, #blocked> -> <64xf32, #shared, #smem, mutable>
    %g0 = ttg.async_commit_group tokens %t0
    %t1 = ttg.async_copy_global_to_local %x1, %b1 : tensor<64x!tt.ptr<f32>, #blocked> -> <64xf32, #shared, #smem, mutable>
    %g1 = ttg.async_commit_group tokens %t1
    WAIT
    %v0 = ttg.local_load %b0 : !ttg.memdesc<64xf32, #shared, #smem, mutable> -> tensor<64xf32, #blocked>
    %v1 = ttg.local_load %b1 : !ttg.memdesc<64xf32, #shared, #smem, mutable> -> tensor<64xf32, #blocked>
    %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %y0 = tt.addptr %ys, %r : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    %y1 = tt.addptr %y0, %c64 : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    tt.store %y0, %v0 : tensor<64x!tt.ptr<f32>, #blocked>
    tt.store %y1, %v1 : tensor<64x!tt.ptr<f32>, #blocked>
    ttg.local_dealloc %buf : !ttg.memdesc<2x64xf32, #shared, #smem, mutable>
    USE_AFTER_FREE
    tt.return
  }
}
)";

std::string kernelWith(std::string wait, std::string afterFree = "") {
  return withPlaceholders(kCopyKernel, {{"WAIT", wait}, {"USE_AFTER_FREE", afterFree}});
}

std::vector<float> iota128() { return floatRamp(128, 0.5f); }

LaunchResult runCopy(KernelRun& run) {
  run.buffer("x_ptr", ScalarKind::F32, iota128()).buffer("y_ptr", ScalarKind::F32, std::vector<float>(128, -1.0f));
  return run.run();
}

TEST(EngineTtgir, CopyThroughSharedMemoryAfterItsWait) {
  KernelRun run(kernelWith("%w = ttg.async_wait %g1 {num = 0 : i32}"));
  LaunchResult result = runCopy(run);
  EXPECT_TRUE(result.reports.empty()) << describe(result);
  EXPECT_EQ(run.values<float>("y_ptr"), iota128());
}

TEST(EngineTtgir, ReadBeforeTheWaitIsAnAsyncHazardAtTheRead) {
  const std::string text = kernelWith("");
  KernelRun run(text);
  LaunchResult result = runCopy(run);
  ASSERT_EQ(result.total(Report::Kind::AsyncHazard), 2) << describe(result);  // both buffers are read early
  const Report* first = nullptr;
  for (const Report& report : result.reports)
    if (report.kind == Report::Kind::AsyncHazard && !first) first = &report;
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->op, "ttg.local_load");
  EXPECT_EQ(first->ttirPos.line, lineOf(text, "%v0 = ttg.local_load"));
  EXPECT_NE(first->message.find("at line " + std::to_string(lineOf(text, "%t0 = ttg.async_copy"))), std::string::npos)
      << first->message;
}

TEST(EngineTtgir, AsyncWaitLeavesTheNewestGroupsInFlight) {
  // num = 1: group 0 (buffer 0) has completed, group 1 (buffer 1) has not: only the second read is early.
  const std::string text = kernelWith("%w = ttg.async_wait %g1 {num = 1 : i32}");
  KernelRun run(text);
  LaunchResult result = runCopy(run);
  ASSERT_EQ(result.total(Report::Kind::AsyncHazard), 1) << describe(result);
  for (const Report& report : result.reports) {
    if (report.kind != Report::Kind::AsyncHazard) continue;
    EXPECT_EQ(report.ttirPos.line, lineOf(text, "%v1 = ttg.local_load"));
  }
  std::vector<float> y = run.values<float>("y_ptr"), x = iota128();
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 64), std::vector<float>(x.begin(), x.begin() + 64));
}

TEST(EngineTtgir, UseAfterDeallocIsReported) {
  const std::string text = kernelWith("%w = ttg.async_wait {num = 0 : i32}",
                                      "%z = ttg.local_load %b0 : !ttg.memdesc<64xf32, #shared, #smem, mutable> -> tensor<64xf32, #blocked>");
  KernelRun run(text);
  LaunchResult result = runCopy(run);
  ASSERT_EQ(result.total(Report::Kind::SharedMemoryMisuse), 1) << describe(result);
  EXPECT_EQ(result.reports.back().ttirPos.line, lineOf(text, "%z = ttg.local_load"));
  EXPECT_NE(result.reports.back().message.find("ttg.local_dealloc at line " + std::to_string(lineOf(text, "ttg.local_dealloc"))),
            std::string::npos) << result.reports.back().message;
}

// An mbarrier expecting one arrival: PHASE_OPS run before the wait for phase parity 0.
const std::string kBarrierKernel = R"(#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @barrier(%y_ptr: !tt.ptr<i32>) {
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %c7_i32 = arith.constant 7 : i32
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    PHASE_OPS
    ttng.wait_barrier %bar, %c0_i32 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    tt.store %y_ptr, %c7_i32 : !tt.ptr<i32>
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    tt.return
  }
}
)";

LaunchResult runBarrier(const std::string& phaseOps, std::vector<int32_t>* y) {
  KernelRun run(withPlaceholders(kBarrierKernel, {{"PHASE_OPS", phaseOps}}));
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>{0});
  LaunchResult result = run.run();
  *y = run.values<int32_t>("y_ptr");
  return result;
}

TEST(EngineTtgir, MbarrierPhaseCompletesWithItsArrival) {
  std::vector<int32_t> y;
  LaunchResult result = runBarrier("ttng.barrier_expect %bar, 0, %true : !ttg.memdesc<1xi64, #shared, #smem, mutable>", &y);
  EXPECT_TRUE(result.reports.empty()) << describe(result);
  EXPECT_EQ(y, std::vector<int32_t>{7});
}

TEST(EngineTtgir, MbarrierWaitWithoutArrivalIsADeadlock) {
  std::vector<int32_t> y;
  LaunchResult result = runBarrier("", &y);
  ASSERT_EQ(result.total(Report::Kind::BarrierMisuse), 1) << describe(result);
  EXPECT_EQ(result.reports[0].op, "ttng.wait_barrier");
  EXPECT_NE(result.reports[0].message.find("deadlock"), std::string::npos) << result.reports[0].message;
  EXPECT_EQ(y, std::vector<int32_t>{0});  // the program stopped at the wait
}

TEST(EngineTtgir, MbarrierExpectingBytesNoCopyDeliversIsADeadlock) {
  std::vector<int32_t> y;
  LaunchResult result = runBarrier("ttng.barrier_expect %bar, 256, %true : !ttg.memdesc<1xi64, #shared, #smem, mutable>", &y);
  ASSERT_EQ(result.total(Report::Kind::BarrierMisuse), 1) << describe(result);
  EXPECT_NE(result.reports[0].message.find("256 transaction byte(s) missing"), std::string::npos) << result.reports[0].message;
}

// An async warp_group_dot reads %a from shared memory until a warp_group_dot_wait retires it; the local_store
// into %a comes before (WAIT_FIRST) or after (WAIT_LAST) that wait.
const std::string kDotKernel = R"(#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dot(%y_ptr: !tt.ptr<f32>) {
    %one = arith.constant dense<1.000000e+00> : tensor<64x16xf16, #blocked>
    %two = arith.constant dense<2.000000e+00> : tensor<64x16xf16, #blocked>
    %bone = arith.constant dense<1.000000e+00> : tensor<16x16xf16, #blocked>
    %acc = arith.constant dense<0.000000e+00> : tensor<64x16xf32, #mma>
    %a = ttg.local_alloc %one : (tensor<64x16xf16, #blocked>) -> !ttg.memdesc<64x16xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc %bone : (tensor<16x16xf16, #blocked>) -> !ttg.memdesc<16x16xf16, #shared, #smem, mutable>
    %d = ttng.warp_group_dot %a, %b, %acc {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<64x16xf16, #shared, #smem, mutable> * !ttg.memdesc<16x16xf16, #shared, #smem, mutable> -> tensor<64x16xf32, #mma>
    WAIT_FIRST
    ttg.local_store %two, %a : tensor<64x16xf16, #blocked> -> !ttg.memdesc<64x16xf16, #shared, #smem, mutable>
    WAIT_LAST
    tt.return
  }
}
)";

LaunchResult runDot(bool waitFirst, std::string* text) {
  const std::string_view wait =
      "%w:3 = ttng.warp_group_dot_wait %d, %a, %b {pendings = 0 : i32} : tensor<64x16xf32, #mma>, "
      "!ttg.memdesc<64x16xf16, #shared, #smem, mutable>, !ttg.memdesc<16x16xf16, #shared, #smem, mutable>";
  const std::string_view none;
  *text =
      withPlaceholders(kDotKernel, {{"WAIT_FIRST", waitFirst ? wait : none}, {"WAIT_LAST", waitFirst ? none : wait}});
  KernelRun run(*text);
  run.buffer("y_ptr", ScalarKind::F32, std::vector<float>{0.0f});
  return run.run();
}

TEST(EngineTtgir, OverwritingWhatAnInFlightDotReadsIsAnAsyncHazard) {
  std::string text;
  LaunchResult early = runDot(/*waitFirst=*/false, &text);
  ASSERT_EQ(early.total(Report::Kind::AsyncHazard), 1) << describe(early);
  EXPECT_EQ(early.reports[0].op, "ttg.local_store");
  EXPECT_EQ(early.reports[0].ttirPos.line, lineOf(text, "ttg.local_store"));
  EXPECT_NE(early.reports[0].message.find("ttng.warp_group_dot at line " + std::to_string(lineOf(text, "%d = ttng.warp_group_dot"))),
            std::string::npos) << early.reports[0].message;
  LaunchResult retired = runDot(/*waitFirst=*/true, &text);
  EXPECT_TRUE(retired.reports.empty()) << describe(retired);
}

}  // namespace
}  // namespace tilesim::enginetest
