// Hostile launches (issue 6, part 6): each test plants one input an attacker would try and asserts a clean
// outcome from the interpreter — a Report or a launch Diagnostic, never a crash, a hang, state leaking from one
// program into the next, a write into another buffer, or text that changes from run to run.
#include <sys/resource.h>

#include <cstdint>
#include <limits>
#include <set>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// Launches `ttir` (verified or not) and returns the outcome, diagnostics included.
LaunchOutcome launchRaw(std::string_view ttir, std::vector<LaunchArgument> arguments, std::array<int64_t, 3> grid,
                        const LaunchOptions& options, bool verify = true) {
  ParseResult parsed = parseModule(ttir, "hostile.ttir");
  EXPECT_TRUE(parsed.diagnostics.empty() && parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  if (!parsed.module) return {};
  if (verify)
    for (const Diagnostic& diagnostic : verifyModule(*parsed.module)) ADD_FAILURE() << "verify: " << diagnostic.str();
  static std::vector<std::unique_ptr<Module>> keep;  // reports refer to the module's text positions only
  keep.push_back(std::move(parsed.module));
  Launch launch;
  launch.module = keep.back().get();
  launch.kernel = launch.module->kernel();
  launch.arguments = std::move(arguments);
  launch.grid = grid;
  return runLaunch(launch, options);
}

// Runs `run` with the test options: no report, and the i32 buffer `name` holds `expected` afterwards.
void expectCleanRunLeaves(KernelRun& run, const std::string& name, const std::vector<int32_t>& expected) {
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(run.values<int32_t>(name), expected);
}

TEST(EngineHostile, TrapInsideCallDoesNotLeakCallDepth) {
  // Every program fails an assert inside @helper. 100 programs on one thread: each must report the assert,
  // none a false "call depth exceeds 64".
  KernelRun run(R"(module {
  tt.func public @caller(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %pid = tt.get_program_id x : i32
    %0 = tt.call @helper(%pid) : (i32) -> i32
    tt.store %x_ptr, %0 : !tt.ptr<i32>
    tt.return
  }
  tt.func private @helper(%i: i32) -> i32 attributes {noinline = true} {
    %c0_i32 = arith.constant 0 : i32
    %0 = arith.cmpi slt, %i, %c0_i32 : i32
    tt.assert %0, "never true" : i1
    tt.return %i : i32
  }
}
)");
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{0}).grid(100);
  LaunchOptions options = testOptions();
  options.threads = 1;
  LaunchResult result = run.run(options);
  EXPECT_EQ(result.total(Report::Kind::AssertFailed), 100);
  EXPECT_EQ(result.total(Report::Kind::Unsupported), 0) << describe(result);
}

constexpr const char* kStoreOne = R"(module {
  tt.func public @one(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    tt.store %x_ptr, %c1_i32 : !tt.ptr<i32>
    tt.return
  }
}
)";

TEST(EngineHostile, GridWhoseProductOverflowsIsADiagnostic) {
  // 2^31-1 cubed wraps int64; it must not run zero programs and succeed.
  const int64_t big = (int64_t{1} << 31) - 1;
  LaunchOutcome outcome = launchRaw(kStoreOne, {LaunchArgument::buffer("x_ptr", ScalarKind::I32, toBytes(std::vector<int32_t>{0}))},
                                    {big, big, big}, testOptions());
  ASSERT_FALSE(outcome.started());
  EXPECT_NE(outcome.diagnostics[0].message.find("more than 2^30 programs"), std::string::npos)
      << outcome.diagnostics[0].message;
}

TEST(EngineHostile, HugeThreadCountIsClamped) {
  LaunchOptions options = testOptions();
  options.threads = 100000;
  LaunchOutcome outcome = launchRaw(kStoreOne, {LaunchArgument::buffer("x_ptr", ScalarKind::I32, toBytes(std::vector<int32_t>{0}))},
                                    {1, 1, 1}, options);
  ASSERT_TRUE(outcome.started());
  EXPECT_TRUE(outcome.result.ok());
}

TEST(EngineHostile, I64ForCounterThatWouldOverflowEnds) {
  // for iv in [INT64_MAX - 5, INT64_MAX) step 4: iv = MAX-5, MAX-1, then iv + 4 overflows: the loop ends.
  KernelRun run(R"(module {
  tt.func public @count(%x_ptr: !tt.ptr<i32>, %lb: i64, %ub: i64) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i64 = arith.constant 4 : i64
    %n = scf.for %iv = %lb to %ub step %c4_i64 iter_args(%acc = %c0_i32) -> (i32) : i64 {
      %0 = arith.addi %acc, %c1_i32 : i32
      scf.yield %0 : i32
    }
    tt.store %x_ptr, %n : !tt.ptr<i32>
    tt.return
  }
}
)");
  const int64_t max = std::numeric_limits<int64_t>::max();
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{-1}).integer("lb", max - 5).integer("ub", max);
  expectCleanRunLeaves(run, "x_ptr", {2});
}

TEST(EngineHostile, WhileThatNeverEndsIsARunawayReport) {
  KernelRun run(R"(module {
  tt.func public @spin(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %r = scf.while (%a = %c0_i32) : (i32) -> (i32) {
      scf.condition(%true) %a : i32
    } do {
    ^bb0(%a: i32):
      scf.yield %a : i32
    }
    tt.store %x_ptr, %r : !tt.ptr<i32>
    tt.return
  }
}
)");
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{7}).grid(3);
  LaunchOptions options = testOptions();
  options.maxSteps = 10000;
  LaunchResult result = run.run(options);
  ASSERT_EQ(result.total(Report::Kind::StepLimit), 3) << describe(result);
  EXPECT_EQ(result.reports[0].op, "scf.while");
  EXPECT_EQ(result.reports[0].ttirPos.line, 5);
  EXPECT_EQ(run.values<int32_t>("x_ptr"), std::vector<int32_t>{7});  // the store after the loop never ran
}

TEST(EngineHostile, RunawayForIsARunawayReport) {
  KernelRun run(R"(module {
  tt.func public @long(%x_ptr: !tt.ptr<i32>, %ub: i32) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    scf.for %iv = %c0_i32 to %ub step %c1_i32  : i32 {
      tt.store %x_ptr, %iv : !tt.ptr<i32>
    }
    tt.return
  }
}
)");
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{0}).integer("ub", std::numeric_limits<int32_t>::max());
  LaunchOptions options = testOptions();
  options.maxSteps = 1000;
  LaunchResult result = run.run(options);
  ASSERT_EQ(result.total(Report::Kind::StepLimit), 1) << describe(result);
  EXPECT_EQ(result.reports[0].op, "scf.for");
  EXPECT_NE(result.reports[0].str().find("runaway"), std::string::npos);
}

TEST(EngineHostile, MisalignedLoadStoreAndAtomicAreReported) {
  // Two bytes past x_ptr[0]: an i32 access there is misaligned on the GPU (it traps).
  KernelRun run(R"(module {
  tt.func public @odd(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c2_i64 = arith.constant 2 : i64
    %c5_i32 = arith.constant 5 : i32
    %0 = tt.ptr_to_int %x_ptr : !tt.ptr<i32> -> i64
    %1 = arith.addi %0, %c2_i64 : i64
    %2 = tt.int_to_ptr %1 : i64 -> !tt.ptr<i32>
    %3 = tt.load %2 : !tt.ptr<i32>
    tt.store %2, %3 : !tt.ptr<i32>
    %4 = tt.atomic_rmw add, acq_rel, gpu, %2, %c5_i32 : (!tt.ptr<i32>, i32) -> i32
    tt.return
  }
}
)");
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{0x01020304, 0x05060708});
  LaunchResult result = run.run();
  EXPECT_EQ(result.total(Report::Kind::Misaligned), 3) << describe(result);
  EXPECT_EQ(run.values<int32_t>("x_ptr"), (std::vector<int32_t>{0x01020304, 0x05060708}));  // nothing written
  ASSERT_FALSE(result.reports.empty());
  EXPECT_NE(result.reports[0].message.find("byte offset 2 of x_ptr"), std::string::npos) << describe(result);
}

TEST(EngineHostile, OffsetLeavingTheBufferWindowIsWildNotAnotherBuffer) {
  // x_ptr + 2^38 i32 elements = 2^40 bytes: exactly the start of y_ptr's window. It must be reported as a
  // wild pointer, and y_ptr must keep its value.
  KernelRun run(R"(module {
  tt.func public @wild(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>, %off: i64) attributes {noinline = false} {
    %c9_i32 = arith.constant 9 : i32
    %0 = tt.addptr %x_ptr, %off : !tt.ptr<i32>, i64
    %1 = tt.load %0 : !tt.ptr<i32>
    tt.store %0, %c9_i32 : !tt.ptr<i32>
    tt.return
  }
}
)");
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{1}).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>{2});
  run.integer("off", int64_t{1} << 38);
  LaunchResult result = run.run();
  EXPECT_EQ(result.total(Report::Kind::OutOfBounds), 2) << describe(result);
  EXPECT_NE(describe(result).find("wild pointer"), std::string::npos) << describe(result);
  EXPECT_EQ(run.values<int32_t>("y_ptr"), std::vector<int32_t>{2});
  // A small step before the buffer and back stays exact (only a change of home window makes a pointer wild).
  KernelRun back(R"(module {
  tt.func public @back(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %cm1 = arith.constant -1 : i32
    %c2 = arith.constant 2 : i32
    %0 = tt.addptr %x_ptr, %cm1 : !tt.ptr<i32>, i32
    %1 = tt.addptr %0, %c2 : !tt.ptr<i32>, i32
    %2 = tt.load %1 : !tt.ptr<i32>
    tt.store %y_ptr, %2 : !tt.ptr<i32>
    tt.return
  }
}
)");
  back.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{1, 5}).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>{0});
  expectCleanRunLeaves(back, "y_ptr", {5});
}

TEST(EngineHostile, PlainStoreRacingWithAtomicsIsARace) {
  // Program 0 adds to y[0] atomically, program 1 stores to y[0] plainly: the result depends on their order.
  KernelRun run(R"(module {
  tt.func public @mixed(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c5_i32 = arith.constant 5 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.cmpi eq, %pid, %c0_i32 : i32
    scf.if %0 {
      %1 = tt.atomic_rmw add, acq_rel, gpu, %y_ptr, %c5_i32 : (!tt.ptr<i32>, i32) -> i32
    } else {
      tt.store %y_ptr, %c5_i32 : !tt.ptr<i32>
    }
    tt.return
  }
}
)");
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>{0}).grid(2);
  for (ProgramOrder order : {ProgramOrder::Forward, ProgramOrder::Reverse}) {
    LaunchOptions options = testOptions();
    options.threads = 1;
    options.order = order;
    LaunchResult result = run.run(options);
    EXPECT_EQ(result.total(Report::Kind::Race), 1) << describe(result);
  }
  // Atomics of several programs alone do not race.
  KernelRun atomicsOnly(R"(module {
  tt.func public @adds(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c5_i32 = arith.constant 5 : i32
    %1 = tt.atomic_rmw add, acq_rel, gpu, %y_ptr, %c5_i32 : (!tt.ptr<i32>, i32) -> i32
    tt.return
  }
}
)");
  atomicsOnly.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>{0}).grid(16);
  expectCleanRunLeaves(atomicsOnly, "y_ptr", {80});
}

TEST(EngineHostile, RaceReportTextIsTheSameOnEveryRun) {
  // 64 programs store to the same 64 elements and read them back: which program sees the race depends on
  // timing, but the printed reports must not.
  KernelRun run(R"(module {
  tt.func public @racy(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %pid = tt.get_program_id x : i32
    %offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %p = tt.splat %y_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %p_0 = tt.addptr %p, %offs : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    %v = tt.load %p_0 : tensor<64x!tt.ptr<i32>>
    %w = tt.splat %pid : i32 -> tensor<64xi32>
    %s = arith.addi %v, %w : tensor<64xi32>
    tt.store %p_0, %s : tensor<64x!tt.ptr<i32>>
    tt.return
  }
}
)");
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(64, 0)).grid(64);
  std::set<std::string> texts;
  for (int attempt = 0; attempt < 20; ++attempt) {
    LaunchOptions options = testOptions();
    options.threads = 8;
    options.order = attempt % 2 ? ProgramOrder::Shuffled : ProgramOrder::Forward;
    options.shuffleSeed = static_cast<uint64_t>(attempt);
    LaunchResult result = run.run(options);
    std::string text;
    for (const ReportGroup& group : result.groups) text += group.str() + "\n";
    EXPECT_GT(result.total(Report::Kind::Race), 0);
    texts.insert(text);
  }
  EXPECT_EQ(texts.size(), 1u) << *texts.begin() << "---\n" << *texts.rbegin();
}

TEST(EngineHostile, PrintLinesAreCappedAndCounted) {
  KernelRun run(R"(module {
  tt.func public @chatty(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %offs = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    tt.print " v: " {hex = false, isSigned = array<i32: 1>} : %offs : tensor<1024xi32>
    tt.return
  }
}
)");
  run.buffer("x_ptr", ScalarKind::I32, std::vector<int32_t>{0}).grid(8);
  LaunchOptions options = testOptions();
  options.maxPrintLines = 100;
  options.threads = 4;
  LaunchResult result = run.run(options);
  ASSERT_EQ(result.printed.size(), 100u);
  EXPECT_EQ(result.droppedPrintLines, 8 * 1024 - 100);
  EXPECT_EQ(result.printed.front().rfind("pid (0, 0, 0) idx (0)", 0), 0u) << result.printed.front();
  EXPECT_EQ(result.printed.back().rfind("pid (0, 0, 0) idx (99)", 0), 0u) << result.printed.back();
}

TEST(EngineHostile, UnverifiedGatherWithOversizedIndexTrapsCleanly) {
  // The verifier rejects this (index dim 0 is 8 > source 4); the interpreter, given it anyway, must not read
  // outside the source tile.
  constexpr const char* kGather = R"(module {
  tt.func public @g(%x_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %src = arith.constant dense<1.000000e+00> : tensor<4x4xf32>
    %idx = arith.constant dense<0> : tensor<8x4xi32>
    %0 = tt.gather %src[%idx] {axis = 1 : i32} : (tensor<4x4xf32>, tensor<8x4xi32>) -> tensor<8x4xf32>
    tt.return
  }
}
)";
  ParseResult parsed = parseModule(kGather, "gather.ttir");
  ASSERT_TRUE(parsed.module);
  EXPECT_FALSE(verifyModule(*parsed.module).empty());
  LaunchOutcome outcome = launchRaw(kGather, {LaunchArgument::buffer("x_ptr", ScalarKind::F32, toBytes(std::vector<float>{0}))},
                                    {1, 1, 1}, testOptions(), /*verify=*/false);
  ASSERT_TRUE(outcome.started());
  EXPECT_EQ(outcome.result.total(Report::Kind::Unsupported), 1);
}

// Out of memory inside a worker thread (the tiles of one program) ends the launch with a diagnostic.
TEST(EngineHostileDeathTest, OutOfMemoryInAWorkerIsADiagnostic) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string body = "    %pid = tt.get_program_id x : i32\n    %t0 = tt.splat %pid : i32 -> tensor<1048576xi32>\n";
  for (int i = 1; i < 200; ++i)  // 200 live tiles of 4 MiB each: 800 MiB, far above the limit set below
    body += "    %t" + std::to_string(i) + " = arith.addi %t" + std::to_string(i - 1) + ", %t0 : tensor<1048576xi32>\n";
  std::string ttir = "module {\n  tt.func public @big(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {\n" + body +
                     "    tt.return\n  }\n}\n";
  EXPECT_EXIT(
      {
        rlimit limit{};
        getrlimit(RLIMIT_AS, &limit);
        limit.rlim_cur = rlim_t{512} << 20;  // 512 MiB of address space
        setrlimit(RLIMIT_AS, &limit);
        LaunchOptions options = testOptions();
        options.threads = 2;
        LaunchOutcome outcome = launchRaw(ttir, {LaunchArgument::buffer("x_ptr", ScalarKind::I32, toBytes(std::vector<int32_t>{0}))},
                                          {2, 1, 1}, options);
        bool clean = !outcome.started() && outcome.diagnostics[0].message.find("out of memory") != std::string::npos;
        std::exit(clean ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace tilesim::enginetest
