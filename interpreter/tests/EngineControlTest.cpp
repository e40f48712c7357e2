// Engine semantics of control flow and side effects: scf.while with a data-dependent trip count, scf.for with
// iter_args and a step other than 1, nested scf.if with results, tt.call of a noinline helper, tt.assert (an
// AssertFailed report at the first failing lane), tt.print (collected in program order, GPU line format of
// SEMANTICS.md §3.10), and determinism of the outputs over thread counts and program orders.
#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

TEST(EngineControl, WhileWithDataDependentTripCount) {
  // Collatz: steps until n reaches 1, one program per input.
  KernelRun run(R"(module {
  tt.func public @collatz(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %pid = tt.get_program_id x : i32
    %0 = tt.addptr %x_ptr, %pid : !tt.ptr<i32>, i32
    %n = tt.load %0 : !tt.ptr<i32>
    %steps:2 = scf.while (%n_0 = %n, %count = %c0_i32) : (i32, i32) -> (i32, i32) {
      %1 = arith.cmpi ne, %n_0, %c1_i32 : i32
      scf.condition(%1) %n_0, %count : i32, i32
    } do {
    ^bb0(%n_0: i32, %count: i32):
      %2 = arith.remsi %n_0, %c2_i32 : i32
      %3 = arith.cmpi eq, %2, %c0_i32 : i32
      %4 = arith.divsi %n_0, %c2_i32 : i32
      %5 = arith.muli %n_0, %c3_i32 : i32
      %6 = arith.addi %5, %c1_i32 : i32
      %n_1 = arith.select %3, %4, %6 : i32
      %count_2 = arith.addi %count, %c1_i32 : i32
      scf.yield %n_1, %count_2 : i32, i32
    }
    %7 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %7, %steps#1 : !tt.ptr<i32>
    tt.return
  }
}
)");
  std::vector<int32_t> x = {1, 2, 3, 6, 7, 27};
  run.buffer("x_ptr", ScalarKind::I32, x).buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(6, -1)).grid(6);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expected;
  for (int32_t n : x) {
    int32_t steps = 0;
    for (; n != 1; ++steps) n = n % 2 == 0 ? n / 2 : 3 * n + 1;
    expected.push_back(steps);
  }
  EXPECT_EQ(expected[5], 111);
  EXPECT_EQ(run.values<int32_t>("y_ptr"), expected);
}

TEST(EngineControl, ForWithIterArgsAndStepThree) {
  // for i in range(lb, ub, 3): acc = acc * 2 + i; count += 1; lanes += i (a tensor iter_arg).
  KernelRun run(R"(module {
  tt.func public @loop(%y_ptr: !tt.ptr<i32>, %lb: i32, %ub: i32) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c3_i32 = arith.constant 3 : i32
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %acc:3 = scf.for %i = %lb to %ub step %c3_i32 iter_args(%acc_0 = %c0_i32, %count = %c0_i32, %lanes = %offs) -> (i32, i32, tensor<4xi32>)  : i32 {
      %0 = arith.muli %acc_0, %c2_i32 : i32
      %acc_1 = arith.addi %0, %i : i32
      %count_2 = arith.addi %count, %c1_i32 : i32
      %1 = tt.splat %i : i32 -> tensor<4xi32>
      %lanes_3 = arith.addi %lanes, %1 : tensor<4xi32>
      scf.yield %acc_1, %count_2, %lanes_3 : i32, i32, tensor<4xi32>
    }
    tt.store %y_ptr, %acc#0 : !tt.ptr<i32>
    %2 = tt.addptr %y_ptr, %c1_i32 : !tt.ptr<i32>, i32
    tt.store %2, %acc#1 : !tt.ptr<i32>
    %3 = tt.addptr %y_ptr, %c2_i32 : !tt.ptr<i32>, i32
    %4 = tt.splat %3 : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %5 = tt.addptr %4, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %5, %acc#2 : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
)");
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(6, -1)).integer("lb", 2).integer("ub", 20);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  int32_t acc = 0, count = 0, sum = 0;
  for (int32_t i = 2; i < 20; i += 3) {
    acc = acc * 2 + i;
    ++count;
    sum += i;
  }
  EXPECT_EQ(count, 6);
  EXPECT_EQ(run.values<int32_t>("y_ptr"), (std::vector<int32_t>{acc, count, sum, sum + 1, sum + 2, sum + 3}));
}

TEST(EngineControl, NestedIfWithResults) {
  KernelRun run(R"(module {
  tt.func public @nested(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c2_i32 = arith.constant 2 : i32
    %c100_i32 = arith.constant 100 : i32
    %c200_i32 = arith.constant 200 : i32
    %c400_i32 = arith.constant 400 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.cmpi slt, %pid, %c2_i32 : i32
    %1 = scf.if %0 -> (i32) {
      %2 = arith.cmpi eq, %pid, %c0_i32 : i32
      %3 = scf.if %2 -> (i32) {
        scf.yield %c100_i32 : i32
      } else {
        scf.yield %c200_i32 : i32
      }
      scf.yield %3 : i32
    } else {
      %4 = arith.cmpi eq, %pid, %c2_i32 : i32
      %5 = scf.if %4 -> (i32) {
        %6 = arith.muli %pid, %c100_i32 : i32
        %7 = arith.addi %6, %c100_i32 : i32
        scf.yield %7 : i32
      } else {
        scf.yield %c400_i32 : i32
      }
      scf.yield %5 : i32
    }
    %8 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %8, %1 : !tt.ptr<i32>
    tt.return
  }
}
)");
  run.buffer("y_ptr", ScalarKind::I32, std::vector<int32_t>(4, -1)).grid(4);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(run.values<int32_t>("y_ptr"), (std::vector<int32_t>{100, 200, 300, 400}));
}

TEST(EngineControl, CallOfNoinlineHelper) {
  // y[pid] = helper(pid, x[pid]) + 1 with helper(i, s) = float(i) * s.
  KernelRun run(R"(module {
  tt.func public @caller(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %cst = arith.constant 1.000000e+00 : f32
    %pid = tt.get_program_id x : i32
    %0 = tt.addptr %x_ptr, %pid : !tt.ptr<f32>, i32
    %1 = tt.load %0 : !tt.ptr<f32>
    %2 = tt.call @helper(%pid, %1) : (i32, f32) -> f32
    %3 = arith.addf %2, %cst : f32
    %4 = tt.addptr %y_ptr, %pid : !tt.ptr<f32>, i32
    tt.store %4, %3 : !tt.ptr<f32>
    tt.return
  }
  tt.func private @helper(%i: i32, %s: f32) -> f32 attributes {noinline = true} {
    %0 = arith.sitofp %i : i32 to f32
    %1 = arith.mulf %0, %s : f32
    tt.return %1 : f32
  }
}
)");
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>{0.5f, 1.5f, -2.0f, 0.25f})
      .buffer("y_ptr", ScalarKind::F32, std::vector<float>(4, 0.0f))
      .grid(4);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(run.values<float>("y_ptr"), (std::vector<float>{1.0f, 2.5f, -3.0f, 1.75f}));
}

TEST(EngineControl, AssertFailureReportsTheFirstFailingLane) {
  KernelRun run(R"(module {
  tt.func public @check(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c16_i32 = arith.constant 16 : i32
    %cst = arith.constant dense<10> : tensor<16xi32>
    %pid = tt.get_program_id x : i32
    %0 = arith.muli %pid, %c16_i32 : i32
    %1 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %2 = tt.splat %0 : i32 -> tensor<16xi32>
    %3 = arith.addi %2, %1 : tensor<16xi32>
    %4 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %5 = tt.addptr %4, %3 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %6 = tt.load %5 : tensor<16x!tt.ptr<i32>>
    %7 = arith.cmpi slt, %6, %cst : tensor<16xi32>
    tt.assert %7, "x must stay below 10" : tensor<16xi1>
    tt.return
  }
}
)");
  std::vector<int32_t> x(32, 1);
  x[16 + 5] = 12;  // program 1, lanes 5 and 9
  x[16 + 9] = 10;
  run.buffer("x_ptr", ScalarKind::I32, x).grid(2);
  LaunchResult result = run.run();
  ASSERT_EQ(countOf(result, Report::Kind::AssertFailed), 1) << describe(result);
  ASSERT_EQ(result.reports.size(), 1u) << describe(result);
  const Report& report = result.reports.front();
  EXPECT_EQ(report.op, "tt.assert");
  EXPECT_EQ(report.program, (std::array<int64_t, 3>{1, 0, 0}));
  EXPECT_EQ(report.lane, std::vector<int64_t>{5});
  EXPECT_NE(report.message.find("x must stay below 10"), std::string::npos) << report.message;
}

TEST(EngineControl, PrintIsCollectedInProgramOrder) {
  KernelRun run(R"(module {
  tt.func public @show(%x_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c2_i32 = arith.constant 2 : i32
    %pid = tt.get_program_id x : i32
    tt.print " pid: " {hex = false, isSigned = array<i32: 1>} : %pid : i32
    %0 = arith.muli %pid, %c2_i32 : i32
    %1 = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %2 = tt.splat %0 : i32 -> tensor<2xi32>
    %3 = arith.addi %2, %1 : tensor<2xi32>
    %4 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<2x!tt.ptr<f32>>
    %5 = tt.addptr %4, %3 : tensor<2x!tt.ptr<f32>>, tensor<2xi32>
    %6 = tt.load %5 : tensor<2x!tt.ptr<f32>>
    tt.print " x: " {hex = false, isSigned = array<i32: 0>} : %6 : tensor<2xf32>
    tt.return
  }
}
)");
  run.buffer("x_ptr", ScalarKind::F32, std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f, 0.0f, -0.5f}).grid(3);
  std::vector<std::string> expected;
  const std::vector<std::string> values = {"1.500000", "-2.000000", "0.250000", "3.000000", "0.000000", "-0.500000"};
  for (int p = 0; p < 3; ++p) {
    std::string head = "pid (" + std::to_string(p) + ", 0, 0)";
    expected.push_back(head + " pid: " + std::to_string(p));
    for (int i = 0; i < 2; ++i) expected.push_back(head + " idx (" + std::to_string(i) + ") x: " + values[2 * p + i]);
  }
  for (ProgramOrder order : {ProgramOrder::Forward, ProgramOrder::Reverse, ProgramOrder::Shuffled}) {
    LaunchOptions options = testOptions();
    options.order = order;
    LaunchResult result = run.run(options);
    EXPECT_TRUE(result.ok()) << describe(result);
    EXPECT_EQ(result.printed, expected) << "order " << static_cast<int>(order);
  }
}

TEST(EngineDeterminism, SameBytesForEveryThreadCountAndProgramOrder) {
  // Per program: a row of 16 floats, exp, row sum, normalise, running sum; 16 programs.
  KernelRun run(R"(module {
  tt.func public @rows(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c16_i32 = arith.constant 16 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.muli %pid, %c16_i32 : i32
    %1 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %2 = tt.splat %0 : i32 -> tensor<16xi32>
    %3 = arith.addi %2, %1 : tensor<16xi32>
    %4 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %5 = tt.addptr %4, %3 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %6 = tt.load %5 : tensor<16x!tt.ptr<f32>>
    %7 = math.exp %6 : tensor<16xf32>
    %8 = "tt.reduce"(%7) <{axis = 0 : i32}> ({
    ^bb0(%arg2: f32, %arg3: f32):
      %14 = arith.addf %arg2, %arg3 : f32
      tt.reduce.return %14 : f32
    }) : (tensor<16xf32>) -> f32
    %9 = tt.splat %8 : f32 -> tensor<16xf32>
    %10 = arith.divf %7, %9 : tensor<16xf32>
    %11 = "tt.scan"(%10) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%arg2: f32, %arg3: f32):
      %15 = arith.addf %arg2, %arg3 : f32
      tt.scan.return %15 : f32
    }) : (tensor<16xf32>) -> tensor<16xf32>
    %12 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %13 = tt.addptr %12, %3 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %13, %11 : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}
)");
  std::vector<float> x(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 137.0f - 3.0f;
  run.buffer("x_ptr", ScalarKind::F32, x).buffer("y_ptr", ScalarKind::F32, std::vector<float>(256, 0.0f)).grid(16);
  LaunchOptions reference = testOptions();
  reference.threads = 1;
  EXPECT_TRUE(run.run(reference).ok());
  const std::vector<uint8_t> expected = run.bytes("y_ptr");
  for (int threads : {1, 2})
    for (ProgramOrder order : {ProgramOrder::Forward, ProgramOrder::Reverse, ProgramOrder::Shuffled}) {
      LaunchOptions options = testOptions();
      options.threads = threads;
      options.order = order;
      options.shuffleSeed = 12345;
      LaunchResult result = run.run(options);
      EXPECT_TRUE(result.ok()) << describe(result);
      EXPECT_EQ(run.bytes("y_ptr"), expected) << threads << " threads, order " << static_cast<int>(order);
    }
  // Each row's running sum ends at 1 (a normalised row) up to rounding.
  std::vector<float> y = run.values<float>("y_ptr");
  for (int p = 0; p < 16; ++p) EXPECT_NEAR(y[p * 16 + 15], 1.0f, 1e-5f) << p;
}

}  // namespace
}  // namespace tilesim::enginetest
