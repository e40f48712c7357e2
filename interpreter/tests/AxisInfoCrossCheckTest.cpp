// AxisInfo against the interpreter: for every kernel of the conformance suite (every directory under
// conformance/ with case.json and kernel.ttir: golden, golden-extra, real-kernels, diagnostics, unspecified,
// regressions) run AxisInfo, then trace the first, middle and last program (ProgramTrace) and check every claim
// on every integer and pointer result tile the program computes (ir/analysis/AxisInfoCheck.h). Pointers are checked as
// byte addresses: tilesim places each buffer at a multiple of 2^40 (interpreter/Memory.h), so a buffer's base is
// divisible by any tt.divisibility Triton can claim. Any wrong claim fails the test; the counts are printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "conformance/runner/GoldenCase.h"
#include "interpreter/Interpreter.h"
#include "ir/analysis/AxisInfo.h"
#include "ir/analysis/AxisInfoCheck.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim {
namespace {

namespace fs = std::filesystem;
using analysis::AxisInfoAnalysis;

std::vector<std::string> caseDirectories() {
  std::vector<std::string> result;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(TILESIM_SOURCE_DIR) / "conformance"))
    if (entry.is_directory() && fs::exists(entry.path() / "case.json") && fs::exists(entry.path() / "kernel.ttir"))
      result.push_back(entry.path().string());
  std::sort(result.begin(), result.end());
  return result;
}

// First, middle and last program of the grid (fewer when they coincide).
std::vector<std::array<int64_t, 3>> programsToTrace(const std::array<int64_t, 3>& grid) {
  std::set<std::array<int64_t, 3>> programs = {{0, 0, 0},
                                               {grid[0] / 2, grid[1] / 2, grid[2] / 2},
                                               {grid[0] - 1, grid[1] - 1, grid[2] - 1}};
  return {programs.begin(), programs.end()};
}

// tt.divisibility on a kernel argument is a precondition of the launch, not something AxisInfo derives: Triton
// compiles a kernel with it only for arguments that satisfy it. A launch that breaks it (a pointer alias at an
// unaligned byte offset, a scalar that is not a multiple) voids every claim built on it; such launches are
// listed and not checked. Returns one line per broken precondition.
std::vector<std::string> brokenDivisibilityPreconditions(const Function& kernel, const std::vector<LaunchArgument>& arguments) {
  std::vector<std::string> broken;
  auto find = [&](const std::string& name) -> const LaunchArgument* {
    for (const LaunchArgument& argument : arguments)
      if (argument.name == name) return &argument;
    return nullptr;
  };
  for (size_t i = 0; i < kernel.numArguments(); ++i) {
    const Attribute* divisibility = findAttribute(kernel.argumentAttributes(i), "tt.divisibility");
    const LaunchArgument* argument = find(kernel.argumentName(i));
    if (!divisibility || divisibility->kind() != Attribute::Kind::Integer || !argument) continue;
    const int64_t required = divisibility->intValue();
    int64_t actual = 0;  // buffers start at multiples of 2^40: only alias offsets can break it
    if (argument->kind == LaunchArgument::Kind::Scalar) actual = argument->intValue;
    for (const LaunchArgument* view = argument; view && view->isAlias(); view = find(view->aliasOf))
      actual += static_cast<int64_t>(view->aliasOffset);
    if (required > 0 && actual % required != 0)
      broken.push_back(kernel.argumentName(i) + " is " + std::to_string(actual) + " (bytes past a buffer start, or "
                       "the scalar) but tt.divisibility = " + std::to_string(required));
  }
  return broken;
}

struct Totals {
  int kernels = 0;
  int programs = 0;
  std::vector<std::string> skippedLaunches;  // broken tt.divisibility preconditions
  std::set<const Value*> kernelValues;  // SSA values of the current kernel with at least one checked tile
  size_t values = 0;                    // summed over kernels
  int64_t tiles = 0;
  int64_t claims = 0;
  std::vector<std::string> wrong;
  // Negative control: the same tile checked against claims one step stronger (double the divisibility, the
  // contiguity or the constancy of one dim). Refuting some of them shows the checker can fail at all.
  int64_t strongerClaims = 0, strongerRefuted = 0;
};

void checkTile(const AxisInfoAnalysis& axisInfo, const Value& value, const Tile& tile, const std::string& where,
               Totals& totals) {
  Type type = value.type;
  if (!analysis::tracksAxisInfo(type)) return;
  // Combine regions of tt.reduce / tt.scan run on whole slices: their tiles do not have the IR's shape.
  std::vector<int64_t> shape(type.shape().begin(), type.shape().end());
  if (tile.type() != type) return;
  std::vector<int64_t> values(static_cast<size_t>(tile.size()));
  const bool pointer = type.element().isPointer();
  for (int64_t lane = 0; lane < tile.size(); ++lane)
    values[lane] = pointer ? static_cast<int64_t>(tile.bitsAt(lane)) : tile.signedAt(lane);
  const int64_t step = pointer ? storageBytes(type.element().pointee().scalarKind()) : 1;
  const int width = pointer ? 64 : type.element().bitWidth();
  analysis::AxisInfoCheck check = analysis::checkAxisInfo(axisInfo.info(value), values, shape, step, width);
  totals.kernelValues.insert(&value);
  ++totals.tiles;
  totals.claims += check.claimsChecked;
  for (const std::string& failure : check.failures)
    totals.wrong.push_back(where + " " + type.str() + " " + value.name + ": " + failure);
  const analysis::AxisInfo claims = axisInfo.info(value);
  for (int d = 0; d < claims.rank(); ++d) {
    const int64_t size = shape.empty() ? 1 : shape[d];
    for (int which = 0; which < 3; ++which) {
      analysis::AxisInfo stronger = claims;
      int64_t& claim = which == 0 ? stronger.divisibility[d] : which == 1 ? stronger.contiguity[d] : stronger.constancy[d];
      if ((which == 0 && claim >= analysis::kMaxDivisibility) || (which > 0 && claim * 2 > size)) continue;
      claim *= 2;
      ++totals.strongerClaims;
      totals.strongerRefuted += !analysis::checkAxisInfo(stronger, values, shape, step, width).failures.empty();
    }
  }
}

TEST(AxisInfoCrossCheck, EveryClaimHoldsInEveryTracedProgramOfTheConformanceSuite) {
  Totals totals;
  std::vector<std::string> directories = caseDirectories();
  ASSERT_GE(directories.size(), 60u);
  for (const std::string& directory : directories) {
    SCOPED_TRACE(directory);
    CaseLoad load = loadGoldenCase(directory);
    ASSERT_TRUE(load.ok()) << load.error;
    const GoldenCase& goldenCase = load.goldenCase;
    ParseResult parsed = parseModuleFile(goldenCase.kernelPath);
    ASSERT_TRUE(parsed.module) << parsed.diagnostics[0].str();
    ASSERT_TRUE(verifyModule(*parsed.module).empty());
    AxisInfoAnalysis axisInfo(*parsed.module);
    ++totals.kernels;
    for (const auto& program : programsToTrace(goldenCase.grid)) {
      CaseArguments arguments = buildCaseArguments(goldenCase);
      ASSERT_TRUE(arguments.error.empty()) << arguments.error;
      Launch launch;
      launch.module = parsed.module.get();
      launch.kernel = parsed.module->kernel(goldenCase.entry);
      launch.arguments = std::move(arguments.arguments);
      launch.grid = goldenCase.grid;
      std::vector<std::string> broken = brokenDivisibilityPreconditions(*launch.kernel, launch.arguments);
      if (!broken.empty()) {
        totals.skippedLaunches.push_back(fs::path(directory).filename().string() + ": " + broken[0]);
        break;  // the same arguments for every traced program
      }
      LaunchOptions options;
      options.echoPrints = false;
      options.checkUB = goldenCase.checkUB;
      const std::string where = fs::path(directory).filename().string() + " program (" + std::to_string(program[0]) +
                                "," + std::to_string(program[1]) + "," + std::to_string(program[2]) + ")";
      ProgramTrace trace;
      trace.program = program;
      trace.hook = [&](const Operation& op, const std::vector<TileRef>& results) {
        for (size_t i = 0; i < results.size() && i < op.numResults(); ++i)
          if (results[i]) checkTile(axisInfo, *op.result(i), *results[i], where + " " + std::string(op.name()), totals);
      };
      LaunchOutcome outcome = runLaunch(launch, options, &trace);
      ASSERT_TRUE(outcome.started()) << outcome.diagnostics[0].str();
      ++totals.programs;
    }
    totals.values += totals.kernelValues.size();
    totals.kernelValues.clear();
  }
  std::printf("AxisInfo cross-check: %d kernels, %d programs, %zu values, %lld tiles, %lld claims, %zu wrong\n",
              totals.kernels, totals.programs, totals.values, static_cast<long long>(totals.tiles),
              static_cast<long long>(totals.claims), totals.wrong.size());
  std::printf("AxisInfo cross-check: %zu launches not checked (they break a tt.divisibility precondition)\n",
              totals.skippedLaunches.size());
  for (const std::string& skipped : totals.skippedLaunches) std::printf("  not checked: %s\n", skipped.c_str());
  std::printf("AxisInfo cross-check negative control: %lld of %lld claims one step stronger are refuted\n",
              static_cast<long long>(totals.strongerRefuted), static_cast<long long>(totals.strongerClaims));
  for (size_t i = 0; i < totals.wrong.size() && i < 20; ++i) std::printf("  wrong: %s\n", totals.wrong[i].c_str());
  EXPECT_TRUE(totals.wrong.empty());
  EXPECT_GT(totals.strongerRefuted, 0);
}

}  // namespace
}  // namespace tilesim
