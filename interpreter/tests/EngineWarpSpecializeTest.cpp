// ttg.warp_specialize on the interpreter (issue 23): a one-warp worker partition (its tensors in a one-warp layout,
// which the verifier's G1 checks against the partition's num_warps) copies x into shared memory and signals
// an mbarrier, the default partition waits for it and writes the copy to y. The correct kernel must give y = x
// with no report under the round-robin schedule and random ones; each planted bug must give its report at its
// line: the arrival before the store (partition-race at the load, naming the store), no arrival at all (a
// deadlock naming the blocked wait), an arrival of 2 on a barrier expecting 1 (overshoot). Expected values come
// from the kernel's text: x copied through shared memory is x.
#include <string>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

const std::string kWarpSpecializedCopy = R"(#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @ws_copy(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) {
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ttg.warp_specialize(%x_ptr, %buf, %bar) attributes {requestedRegisters = array<i32: 24>}
    default {
      ttng.wait_barrier %bar, %c0_i32, %true : !ttg.memdesc<1xi64, #shared, #smem, mutable>
      %v = ttg.local_load %buf : !ttg.memdesc<64xf32, #shared, #smem, mutable> -> tensor<64xf32, #blocked>
      %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked>
      %ys = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
      %y = tt.addptr %ys, %r : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
      tt.store %y, %v : tensor<64x!tt.ptr<f32>, #blocked>
      ttg.warp_yield
    }
    partition0(%p: !tt.ptr<f32>, %b: !ttg.memdesc<64xf32, #shared, #smem, mutable>, %m: !ttg.memdesc<1xi64, #shared, #smem, mutable>) num_warps(1) {
      %t = arith.constant true
      EARLY_ARRIVE
      %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked1>
      %xs = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked1>
      %x = tt.addptr %xs, %r : tensor<64x!tt.ptr<f32>, #blocked1>, tensor<64xi32, #blocked1>
      %v = tt.load %x : tensor<64x!tt.ptr<f32>, #blocked1>
      ttg.local_store %v, %b : tensor<64xf32, #blocked1> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
      ARRIVE
      ttg.warp_return
    } : (!tt.ptr<f32>, !ttg.memdesc<64xf32, #shared, #smem, mutable>, !ttg.memdesc<1xi64, #shared, #smem, mutable>) -> ()
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    tt.return
  }
}
)";

const std::string kArrive = "ttng.arrive_barrier %m, 1, %t : !ttg.memdesc<1xi64, #shared, #smem, mutable>";

std::string kernelWith(const std::string& early, const std::string& arrive) {
  return withPlaceholders(kWarpSpecializedCopy, {{"EARLY_ARRIVE", early}, {"ARRIVE", arrive}});
}

std::vector<float> iota64() { return floatRamp(64, -7.25f); }

LaunchResult runCopy(const std::string& text, uint64_t seed, std::vector<float>* y) {
  KernelRun run(text);
  run.buffer("x_ptr", ScalarKind::F32, iota64()).buffer("y_ptr", ScalarKind::F32, std::vector<float>(64, 0.0f));
  LaunchOptions options = testOptions();
  options.scheduleSeed = seed;
  LaunchResult result = run.run(options);
  *y = run.values<float>("y_ptr");
  return result;
}

TEST(EngineWarpSpecialize, CopyThroughAPartitionUnderEverySchedule) {
  for (uint64_t seed : {0u, 1u, 2u, 3u, 99u}) {
    std::vector<float> y;
    LaunchResult result = runCopy(kernelWith("", kArrive), seed, &y);
    EXPECT_TRUE(result.reports.empty()) << "seed " << seed << ": " << describe(result);
    EXPECT_EQ(y, iota64()) << "seed " << seed;
  }
}

TEST(EngineWarpSpecialize, ArrivalBeforeTheStoreIsAPartitionRace) {
  const std::string text = kernelWith(kArrive, "");
  std::vector<float> y;
  LaunchResult result = runCopy(text, 0, &y);
  ASSERT_EQ(result.total(Report::Kind::PartitionRace), 1) << describe(result);
  const Report& race = result.reports.front();
  EXPECT_EQ(race.ttirPos.line, lineOf(text, "%v = ttg.local_load"));
  EXPECT_NE(race.message.find("ttg.local_store at line " + std::to_string(lineOf(text, "ttg.local_store"))), std::string::npos)
      << race.message;
  EXPECT_NE(race.message.find("partition0"), std::string::npos) << race.message;
}

TEST(EngineWarpSpecialize, NoArrivalIsADeadlockNamingTheWait) {
  const std::string text = kernelWith("", "");
  std::vector<float> y;
  LaunchResult result = runCopy(text, 0, &y);
  ASSERT_EQ(result.total(Report::Kind::BarrierMisuse), 1) << describe(result);
  const Report& deadlock = result.reports.front();
  EXPECT_EQ(deadlock.ttirPos.line, lineOf(text, "ttng.wait_barrier"));
  EXPECT_NE(deadlock.message.find("deadlock"), std::string::npos) << deadlock.message;
  EXPECT_NE(deadlock.message.find("the default partition at ttng.wait_barrier"), std::string::npos) << deadlock.message;
  EXPECT_EQ(y, std::vector<float>(64, 0.0f));  // the program stopped
}

TEST(EngineWarpSpecialize, TwoArrivalsOnABarrierExpectingOneOvershoot) {
  const std::string text = kernelWith("", "ttng.arrive_barrier %m, 2, %t : !ttg.memdesc<1xi64, #shared, #smem, mutable>");
  std::vector<float> y;
  LaunchResult result = runCopy(text, 0, &y);
  ASSERT_EQ(result.total(Report::Kind::BarrierMisuse), 1) << describe(result);
  EXPECT_EQ(result.reports.front().ttirPos.line, lineOf(text, "ttng.arrive_barrier %m, 2"));
  EXPECT_NE(result.reports.front().message.find("overshoot"), std::string::npos) << result.reports.front().message;
  EXPECT_EQ(y, iota64());  // the phase still completed
}

}  // namespace
}  // namespace tilesim::enginetest
