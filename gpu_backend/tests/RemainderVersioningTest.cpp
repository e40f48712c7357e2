// RemainderVersioning.h: which `(start + arange) % n` a launch may specialise on, the host check of their guards
// over every program of the grid (each expectation below is the guard's arithmetic done by hand: the last dividend
// start + lastOffset must not pass the signed maximum, start must not be negative, n must be positive), and what
// the specialisation buys in the PTX of Triton's matmul tutorial.
#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <regex>

#include "gpu_backend/Pipeline.h"
#include "gpu_backend/RemainderVersioning.h"
#include "ir/text/Parser.h"

namespace tilesim::gpu {
namespace {

std::unique_ptr<Module> parse(const std::string& text) {
  ParseResult parsed = parseModule(text, "test.ttir");
  EXPECT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  return std::move(parsed.module);
}

std::unique_ptr<Module> parseMatmul() {
  const auto path = std::filesystem::path(TILESIM_SOURCE_DIR) / "bench/gpu/ttir/matrix/matmul_64x64x32_w4_s3.ttir";
  ParseResult parsed = parseModuleFile(path.string());
  EXPECT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics[0].str());
  return std::move(parsed.module);
}

bool holds(const Module& module, std::vector<std::optional<uint64_t>> scalars, std::array<int64_t, 3> grid) {
  const Function kernel = *module.kernel();
  const analysis::AxisInfoAnalysis axisInfo(module);
  return remainderGuardsHold(kernel, findGuardedRemainders(kernel, axisInfo), scalars, grid);
}

// `(pid + offset + arange(0, length)) % n`, n a multiple of 16.
std::string offsetKernel(const std::string& offset, int length) {
  return R"(module {
  tt.func public @k(%n: i32 {tt.divisibility = 16 : i32}) {
    %offset = arith.constant )" + offset + R"( : i32
    %pid = tt.get_program_id x : i32
    %start = arith.addi %pid, %offset : i32
    %range = tt.make_range {end = )" + std::to_string(length) + R"( : i32, start = 0 : i32} : tensor<)" +
         std::to_string(length) + R"(xi32>
    %starts = tt.splat %start : i32 -> tensor<)" + std::to_string(length) + R"(xi32>
    %offs = arith.addi %starts, %range : tensor<)" + std::to_string(length) + R"(xi32>
    %nn = tt.splat %n : i32 -> tensor<)" + std::to_string(length) + R"(xi32>
    %wrapped = arith.remsi %offs, %nn : tensor<)" + std::to_string(length) + R"(xi32>
    tt.return
  }
}
)";
}

TEST(RemainderVersioning, FindsTheMatmulTutorialsRowAndColumnOffsets) {
  auto module = parseMatmul();
  ASSERT_TRUE(module);
  const analysis::AxisInfoAnalysis axisInfo(*module);
  const std::vector<GuardedRemainder> guarded = findGuardedRemainders(*module->kernel(), axisInfo);
  ASSERT_EQ(guarded.size(), 2u);  // offs_am % M and offs_bn % N; the scalar `pid % group_span` is not a tensor
  EXPECT_EQ(guarded[0].lastOffset, 63);
  EXPECT_EQ(guarded[1].lastOffset, 63);
}

TEST(RemainderVersioning, MatmulGuardsHoldForEveryProgramOfAPositiveProblem) {
  auto module = parseMatmul();
  ASSERT_TRUE(module);
  // a, b, c, M, N, K, stride_am, stride_bk, stride_cm; 512 / 64 = 8 tiles a side: 64 programs.
  std::vector<std::optional<uint64_t>> scalars = {std::nullopt, std::nullopt, std::nullopt, 512, 512, 512, 512, 512, 512};
  EXPECT_TRUE(holds(*module, scalars, {64, 1, 1}));
  scalars[4] = static_cast<uint64_t>(static_cast<uint32_t>(-512));  // N < 0: the divisor is not positive
  EXPECT_FALSE(holds(*module, scalars, {64, 1, 1}));
  scalars[4] = 512;
  scalars[3] = std::nullopt;  // an integer argument the launch did not bind: nothing to check with
  EXPECT_FALSE(holds(*module, scalars, {64, 1, 1}));
}

TEST(RemainderVersioning, ANegativeStartInAnyProgramRefusesTheLaunch) {
  auto module = parse(offsetKernel("-3", 16));
  ASSERT_TRUE(module);
  EXPECT_FALSE(holds(*module, {64}, {8, 1, 1}));  // programs 0..2 start below 0
  auto shifted = parse(offsetKernel("0", 16));
  ASSERT_TRUE(shifted);
  EXPECT_TRUE(holds(*shifted, {64}, {8, 1, 1}));
  EXPECT_FALSE(holds(*shifted, {0}, {8, 1, 1}));  // x % 0 is -1 in tilesim: not a remainder that keeps runs
}

TEST(RemainderVersioning, TheLastDividendMayNotPassTheSignedMaximum) {
  // start = pid + (INT_MAX - 47); the last dividend is start + 15, at most INT_MAX while pid <= 32.
  auto module = parse(offsetKernel(std::to_string(INT_MAX - 47), 16));
  ASSERT_TRUE(module);
  EXPECT_TRUE(holds(*module, {64}, {33, 1, 1}));
  EXPECT_FALSE(holds(*module, {64}, {34, 1, 1}));
}

TEST(RemainderVersioning, StartsTheHostCannotComputeAreNotSpecialised) {
  auto module = parse(R"(module {
  tt.func public @k(%p: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %start = tt.load %p : !tt.ptr<i32>
    %range = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %starts = tt.splat %start : i32 -> tensor<16xi32>
    %offs = arith.addi %starts, %range : tensor<16xi32>
    %nn = tt.splat %n : i32 -> tensor<16xi32>
    %wrapped = arith.remsi %offs, %nn : tensor<16xi32>
    tt.return
  }
}
)");
  ASSERT_TRUE(module);
  const analysis::AxisInfoAnalysis axisInfo(*module);
  EXPECT_EQ(findGuardedRemainders(*module->kernel(), axisInfo).size(), 1u);
  EXPECT_FALSE(holds(*module, {std::nullopt, 64}, {1, 1, 1}));  // the start is loaded: no host value
}

TEST(RemainderVersioning, GridsPastTheCheckLimitAreNotSpecialised) {
  auto module = parse(offsetKernel("0", 16));
  ASSERT_TRUE(module);
  EXPECT_TRUE(holds(*module, {64}, {1, 1, 1}));
  EXPECT_FALSE(holds(*module, {64}, {kMaxCheckedPrograms + 1, 1, 1}));
}

// The check the GPU engine keeps per kernel: built from the module (AxisInfo only when a tensor remsi is there),
// reused across launches with other arguments and grids without carrying anything from one to the next, and
// fast enough for the largest grid it accepts (4M programs).
TEST(RemainderVersioning, OneCheckPerKernelServesEveryLaunch) {
  auto module = parseMatmul();
  ASSERT_TRUE(module);
  const RemainderGuardCheck check(*module, *module->kernel());
  ASSERT_TRUE(check.possible());
  std::vector<std::optional<uint64_t>> scalars = {std::nullopt, std::nullopt, std::nullopt, 512, 512, 512, 512, 512, 512};
  EXPECT_TRUE(check.holds(scalars, {64, 1, 1}));
  scalars[4] = static_cast<uint64_t>(static_cast<uint32_t>(-512));
  EXPECT_FALSE(check.holds(scalars, {64, 1, 1}));
  scalars[4] = 512;
  EXPECT_TRUE(check.holds(scalars, {64, 1, 1}));

  auto vadd = parseModuleFile(std::string(TILESIM_SOURCE_DIR) + "/conformance/golden/vadd_f32/kernel.ttir");
  ASSERT_TRUE(vadd.module);
  EXPECT_FALSE(RemainderGuardCheck(*vadd.module, *vadd.module->kernel()).possible());

  auto wrapped = parse(offsetKernel("0", 16));
  ASSERT_TRUE(wrapped);
  const RemainderGuardCheck largest(*wrapped, *wrapped->kernel());
  EXPECT_TRUE(largest.holds({{64}}, {kMaxCheckedPrograms / 4, 2, 2}));
  EXPECT_FALSE(largest.holds({{64}}, {kMaxCheckedPrograms / 4, 2, 3}));  // one program too many
}

// Global loads of 8 or 16 bytes: vector ld.global, or the cp.async copies of a pipelined loop (PipelinedLoop.cpp).
int vectorLoads(const std::string& ptx) {
  static const std::regex load(R"(ld\.global(\.nc)?\.v[24]\.|cp\.async\.c[ag]\.shared\.global \[[^\]]+\], \[[^\]]+\], (8|16),)");
  return static_cast<int>(std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), load), std::sregex_iterator()));
}

TEST(RemainderVersioning, TheSpecialisedMatmulLoadsBInVectors) {
  auto module = parseMatmul();
  ASSERT_TRUE(module);
  CompileOptions options;
  options.profile = FloatProfile::Triton;
  const CompileResult plain = compileKernel(*module, *module->kernel(), options);
  options.assumeRemainderGuards = true;
  const CompileResult specialised = compileKernel(*module, *module->kernel(), options);
  ASSERT_TRUE(plain.ok() && specialised.ok());
  EXPECT_GT(vectorLoads(specialised.kernel->ptx), vectorLoads(plain.kernel->ptx));
}

}  // namespace
}  // namespace tilesim::gpu
