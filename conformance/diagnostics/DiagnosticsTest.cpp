// Runs every case in conformance/diagnostics/ (one planted bug each, see diagnostics.py) and checks that the
// interpreter reports it where it happens: kind, program, lane, op, TTIR line, Python source line, buffer and
// offset, as case.json's `expect_reports` says. Also checks the converse: the correct kernels recorded from
// real Triton (conformance/golden and golden-extra) produce no report at all, and UB cases are silent unless --check=ub is asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>

#include "conformance/runner/GoldenCase.h"
#include "interpreter/Interpreter.h"
#include "ir/text/Parser.h"

namespace tilesim {
namespace {

namespace fs = std::filesystem;

struct CaseRun {
  LaunchOutcome outcome;
  std::vector<LaunchArgument> arguments;  // after the launch
  std::string error;
};

CaseRun runCaseDirectory(const std::string& directory, bool checkUB, FloatProfile profile = FloatProfile::Exact) {
  CaseRun run;
  CaseLoad load = loadGoldenCase(directory);
  if (!load.ok()) {
    run.error = load.error;
    return run;
  }
  ParseResult parsed = parseModuleFile(load.goldenCase.kernelPath);
  if (!parsed.module) {
    run.error = parsed.diagnostics.empty() ? "parse failed" : parsed.diagnostics[0].str();
    return run;
  }
  CaseArguments arguments = buildCaseArguments(load.goldenCase);
  if (!arguments.error.empty()) {
    run.error = arguments.error;
    return run;
  }
  Launch launch;
  launch.module = parsed.module.get();
  launch.kernel = parsed.module->kernel(load.goldenCase.entry);
  launch.arguments = std::move(arguments.arguments);
  launch.grid = load.goldenCase.grid;
  LaunchOptions options;
  options.checkUB = checkUB;
  options.profile = profile;
  options.echoPrints = false;
  run.outcome = runLaunch(launch, options);
  run.arguments = std::move(launch.arguments);
  return run;
}

std::vector<std::string> caseDirectories(const std::string& root) {
  std::vector<std::string> result;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && fs::exists(entry.path() / "case.json")) result.push_back(entry.path().string());
  std::sort(result.begin(), result.end());
  return result;
}

const std::string kDiagnostics = std::string(TILESIM_SOURCE_DIR) + "/conformance/diagnostics";
const std::string kGolden = std::string(TILESIM_SOURCE_DIR) + "/conformance/golden";

TEST(Diagnostics, EveryPlantedBugIsReportedWhereItHappens) {
  std::vector<std::string> cases = caseDirectories(kDiagnostics);
  ASSERT_GE(cases.size(), 10u);
  for (const std::string& directory : cases) {
    SCOPED_TRACE(directory);
    nlohmann::json spec = nlohmann::json::parse(std::ifstream(directory + "/case.json"));
    const bool checkUB = spec.value("check", "") == "ub";
    CaseRun run = runCaseDirectory(directory, checkUB);
    ASSERT_TRUE(run.error.empty()) << run.error;
    ASSERT_TRUE(run.outcome.started()) << run.outcome.diagnostics[0].str();
    const std::vector<Report>& reports = run.outcome.result.reports;
    for (const auto& expected : spec["expect_reports"]) {
      std::string kind = expected["kind"];
      auto first = std::find_if(reports.begin(), reports.end(),
                                [&](const Report& r) { return reportKindName(r.kind) == kind; });
      ASSERT_NE(first, reports.end()) << "no " << kind << " report";
      const Report& report = *first;
      SCOPED_TRACE(report.str());
      if (expected.contains("program")) {
        std::array<int64_t, 3> program = expected["program"];
        EXPECT_EQ(report.program, program);
      }
      if (expected.contains("lane")) {
        EXPECT_EQ(report.lane, expected["lane"].get<std::vector<int64_t>>());
      }
      if (expected.contains("op")) {
        EXPECT_EQ(report.op, expected["op"].get<std::string>());
      }
      if (expected.contains("ttir_line")) {
        EXPECT_EQ(report.ttirPos.line, expected["ttir_line"].get<int>());
      }
      if (expected.contains("source")) {
        EXPECT_EQ(report.sourceLoc, expected["source"].get<std::string>());
      }
      if (expected.contains("buffer")) {
        EXPECT_EQ(report.buffer, expected["buffer"].get<std::string>());
      }
      if (expected.contains("byte_offset")) {
        EXPECT_EQ(report.byteOffset, expected["byte_offset"].get<int64_t>());
      }
    }
    // Nothing else: every report is of an expected kind.
    for (const Report& report : reports) {
      bool expectedKind = false;
      for (const auto& expected : spec["expect_reports"])
        expectedKind |= reportKindName(report.kind) == expected["kind"].get<std::string>();
      EXPECT_TRUE(expectedKind) << "unexpected report: " << report.str();
    }
    if (checkUB) {
      CaseRun quiet = runCaseDirectory(directory, false);
      ASSERT_TRUE(quiet.outcome.started());
      EXPECT_TRUE(quiet.outcome.result.reports.empty()) << "UB reported without --check=ub";
    }
  }
}

// Every report is counted in a group (kind, program, op): the unmasked load past the end of x reads x[100..127]
// in lanes 36..63 of program 1 (diagnostics.py:11), byte offsets 400..508.
TEST(Diagnostics, ReportsAreGroupedByProgramAndOp) {
  CaseRun run = runCaseDirectory(kDiagnostics + "/oob_unmasked_load", false);
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.outcome.result.groups.size(), 1u);
  const ReportGroup& group = run.outcome.result.groups[0];
  EXPECT_EQ(group.count, 28);
  EXPECT_EQ(group.first.lane, std::vector<int64_t>{36});
  EXPECT_EQ(group.lastLane, std::vector<int64_t>{63});
  EXPECT_EQ(group.minByteOffset, 400);
  EXPECT_EQ(group.maxByteOffset, 508);
  EXPECT_EQ(run.outcome.result.totalByKind[static_cast<size_t>(Report::Kind::OutOfBounds)], 28);
}

TEST(Diagnostics, CorrectGoldenKernelsReportNothing) {
  std::vector<std::string> cases = caseDirectories(kGolden);
  ASSERT_EQ(cases.size(), 15u);
  std::vector<std::string> extra = caseDirectories(std::string(TILESIM_SOURCE_DIR) + "/conformance/golden-extra");
  ASSERT_GE(extra.size(), 50u);
  cases.insert(cases.end(), extra.begin(), extra.end());
  for (const std::string& directory : cases) {
    SCOPED_TRACE(directory);
    CaseRun run = runCaseDirectory(directory, false);
    ASSERT_TRUE(run.error.empty()) << run.error;
    ASSERT_TRUE(run.outcome.started()) << run.outcome.diagnostics[0].str();
    for (const Report& report : run.outcome.result.reports) ADD_FAILURE() << report.str();
  }
}

// An infinite error bound accepts any GPU value, so a pass that rests on one proves nothing. Only the lanes
// docs/semantics.md lists as unconstrained may have one (division by zero and oversized shifts, libdevice on
// subnormal inputs, compare-reductions over NaN, and values that are themselves inf/NaN): the golden cases must
// have none; in golden-extra, the four cases recorded for those rules must have some, and only the cases that
// exercise the same rules may.
TEST(Diagnostics, ErrorBoundsAreFiniteExceptWhereDocumented) {
  const std::set<std::string> recordedForTheRules = {"int_divmod_i32", "int_divmod_i8_i64", "libdevice_exact_f32",
                                                     "reduce_minmax_nan_f32"};
  const std::set<std::string> sameRules = {"int_div_only_i32", "int_rem_only_i32", "int_shift_mulhi",
                                           "libdevice_transcendental_f32", "atomic_fadd_f32"};
  std::vector<std::string> cases = caseDirectories(kGolden);
  std::vector<std::string> extra = caseDirectories(std::string(TILESIM_SOURCE_DIR) + "/conformance/golden-extra");
  cases.insert(cases.end(), extra.begin(), extra.end());
  int unconstrainedCases = 0;
  for (const std::string& directory : cases) {
    SCOPED_TRACE(directory);
    CaseRun run = runCaseDirectory(directory, false, FloatProfile::Triton);
    ASSERT_TRUE(run.error.empty()) << run.error;
    ASSERT_TRUE(run.outcome.started());
    bool anyInfinite = false;
    for (const LaunchArgument& argument : run.arguments)
      for (double bound : argument.errorBound) anyInfinite |= std::isinf(bound);
    const std::string name = fs::path(directory).filename().string();
    if (recordedForTheRules.count(name)) {
      EXPECT_TRUE(anyInfinite) << "expected unconstrained lanes (the rule this case was recorded for)";
      ++unconstrainedCases;
    } else if (!sameRules.count(name)) {
      EXPECT_FALSE(anyInfinite) << "an output has an infinite error bound";
    }
  }
  EXPECT_EQ(unconstrainedCases, 4);
}

}  // namespace
}  // namespace tilesim
