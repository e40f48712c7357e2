// Engine behaviour a conformance case cannot express, because it is not in the buffers or the reports: tt.print
// output collected in program order in the GPU's line format (docs/semantics.md "Control flow and calls"), and byte-identical outputs over
// thread counts and program orders set through LaunchOptions. Control flow itself (scf.while, scf.for, scf.if,
// tt.call, tt.assert) is pinned by the conformance cases in conformance/engine/control/.
#include <string>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// %6: the `width` floats of x_ptr that program %pid owns (x[pid * width + i]), and %3 their offsets; the kernel
// defines %pid and %c<width>_i32 before it.
std::string loadProgramSlice(int width) {
  const std::string w = std::to_string(width);
  return "    %0 = arith.muli %pid, %c" + w + "_i32 : i32\n"
         "    %1 = tt.make_range {end = " + w + " : i32, start = 0 : i32} : tensor<" + w + "xi32>\n"
         "    %2 = tt.splat %0 : i32 -> tensor<" + w + "xi32>\n"
         "    %3 = arith.addi %2, %1 : tensor<" + w + "xi32>\n"
         "    %4 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<" + w + "x!tt.ptr<f32>>\n"
         "    %5 = tt.addptr %4, %3 : tensor<" + w + "x!tt.ptr<f32>>, tensor<" + w + "xi32>\n"
         "    %6 = tt.load %5 : tensor<" + w + "x!tt.ptr<f32>>\n";
}

TEST(EngineControl, PrintIsCollectedInProgramOrder) {
  KernelRun run(R"(module {
  tt.func public @show(%x_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c2_i32 = arith.constant 2 : i32
    %pid = tt.get_program_id x : i32
    tt.print " pid: " {hex = false, isSigned = array<i32: 1>} : %pid : i32
)" + loadProgramSlice(2) + R"(    tt.print " x: " {hex = false, isSigned = array<i32: 0>} : %6 : tensor<2xf32>
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
)" + loadProgramSlice(16) + R"(    %7 = math.exp %6 : tensor<16xf32>
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
