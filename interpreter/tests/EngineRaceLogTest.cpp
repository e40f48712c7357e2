// Race detection by access log (ProgramRuns.cpp, Executor.h): kernels without atomics run with per-program element
// intervals instead of the per-element shadow, and only a conflict found in them reruns the launch with the
// shadow. accessLogsConflict is checked against a brute-force pairwise oracle on random intervals; the launches
// check that the log's merging of per-lane accesses (reversed lanes: one record by the bitmap; interleaved
// lanes: sorted runs) never hides a race and that the shadow rerun reports it per lane, on 1 and several
// threads. (A conflict the log invents would cost only the rerun's time: the shadow then reports nothing.)
#include <random>

#include "interpreter/Executor.h"
#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

bool bruteForceConflict(const std::vector<AccessRecord>& records) {
  for (size_t i = 0; i < records.size(); ++i)
    for (size_t j = i + 1; j < records.size(); ++j) {
      const AccessRecord& a = records[i];
      const AccessRecord& b = records[j];
      if (a.buffer != b.buffer || a.program == b.program || !(a.write || b.write)) continue;
      if (a.begin < b.end && b.begin < a.end) return true;
    }
  return false;
}

TEST(EngineRaceLog, ConflictSweepAgreesWithPairwiseOracle) {
  std::mt19937_64 random(7);
  int conflicts = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int count = 1 + static_cast<int>(random() % 12);
    const uint64_t span = 4 + random() % 60;
    std::vector<AccessRecord> records;
    for (int i = 0; i < count; ++i) {
      AccessRecord r;
      r.begin = random() % span;
      r.end = r.begin + 1 + random() % 8;
      r.program = static_cast<uint32_t>(random() % 4);
      r.buffer = static_cast<uint32_t>(1 + random() % 2);
      r.write = random() % 3 == 0;
      records.push_back(r);
    }
    const bool expected = bruteForceConflict(records);
    conflicts += expected;
    std::vector<AccessRecord> sorted = records;
    ASSERT_EQ(accessLogsConflict(sorted), expected) << "trial " << trial;
  }
  EXPECT_GT(conflicts, 500);  // both answers were exercised
  EXPECT_LT(conflicts, 3500);
}

// Each of 2 programs stores its id to 64 elements: y[(63 - lane) * step + pid * shift], lanes in reverse order.
constexpr const char* kReversedStores = R"(module {
  tt.func public @k(%y_ptr: !tt.ptr<i32>, %step: i32, %shift: i32) attributes {noinline = false} {
    %pid = tt.get_program_id x : i32
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c63 = arith.constant dense<63> : tensor<64xi32>
    %rev = arith.subi %c63, %r : tensor<64xi32>
    %st = tt.splat %step : i32 -> tensor<64xi32>
    %scaled = arith.muli %rev, %st : tensor<64xi32>
    %sh = arith.muli %pid, %shift : i32
    %shs = tt.splat %sh : i32 -> tensor<64xi32>
    %offs = arith.addi %scaled, %shs : tensor<64xi32>
    %p = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %q = tt.addptr %p, %offs : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    %v = tt.splat %pid : i32 -> tensor<64xi32>
    tt.store %q, %v : tensor<64x!tt.ptr<i32>>
    tt.return
  }
}
)";

LaunchResult runReversed(int64_t step, int64_t shift, int threads, std::vector<int32_t>* out = nullptr) {
  KernelRun run(kReversedStores);
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(256, -1)).integer("step", step).integer("shift", shift).grid(2);
  LaunchOptions options = testOptions();
  options.threads = threads;
  LaunchResult result = run.run(options);
  if (out) *out = run.values<int32_t>("y_ptr");
  return result;
}

TEST(EngineRaceLog, ReversedAndInterleavedStoresOfDisjointElementsDoNotRace) {
  for (int threads : {1, 2, 4}) {
    std::vector<int32_t> y;
    LaunchResult blocks = runReversed(1, 64, threads, &y);  // [0, 64) and [64, 128)
    EXPECT_TRUE(blocks.ok()) << describe(blocks);
    EXPECT_EQ(y[0], 0);
    EXPECT_EQ(y[127], 1);
    LaunchResult interleaved = runReversed(2, 1, threads, &y);  // even and odd elements of [0, 128)
    EXPECT_TRUE(interleaved.ok()) << describe(interleaved);
    EXPECT_EQ(y[126], 0);
    EXPECT_EQ(y[127], 1);
  }
}

TEST(EngineRaceLog, OverlapOfOneElementOrAllIsReportedPerLane) {
  for (int threads : {1, 2, 4}) {
    LaunchResult one = runReversed(1, 63, threads);  // [0, 64) and [63, 127): element 63
    EXPECT_EQ(one.total(Report::Kind::Race), 1) << describe(one);
    ASSERT_FALSE(one.reports.empty());
    EXPECT_EQ(one.reports[0].buffer, "y_ptr");
    EXPECT_EQ(one.reports[0].byteOffset, 63 * 4);
    LaunchResult all = runReversed(2, 0, threads);  // both programs: the even elements of [0, 128)
    EXPECT_EQ(all.total(Report::Kind::Race), 64) << describe(all);
  }
}

}  // namespace
}  // namespace tilesim::enginetest
