// Runs every case in conformance/diagnostics/ (one planted bug each, see diagnostics.py) through the case driver
// (conformance/runner) on the interpreter engine and checks that it reports the bug where it happens: kind,
// program, lane, op, TTIR line, Python source line, buffer and offset, as case.json's `expect_reports` says. Also checks the converse: the correct kernels recorded from
// real Triton (conformance/golden and golden-extra) produce no report at all, and UB cases are silent unless --check=ub is asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <fstream>
#include <nlohmann/json.hpp>

#include "conformance/runner/Conformance.h"
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

// The case's launch of `module` (its kernel, parsed) with `arguments` (the case's, perhaps changed by the test).
Launch caseLaunch(const GoldenCase& goldenCase, const Module& module, std::vector<LaunchArgument> arguments) {
  Launch launch;
  launch.module = &module;
  launch.kernel = module.kernel(goldenCase.entry);
  launch.arguments = std::move(arguments);
  launch.grid = goldenCase.grid;
  return launch;
}

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
  Launch launch = caseLaunch(load.goldenCase, *parsed.module, std::move(arguments.arguments));
  LaunchOptions options;
  options.checkUB = checkUB;
  options.profile = profile;
  options.echoPrints = false;
  InterpreterEngine engine;
  run.outcome = engine.run(launch, options);
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
    InterpreterEngine engine;
    CaseOptions options;
    options.profile = FloatProfile::Exact;
    CaseOutcome outcome = runCase(directory, options, engine);
    ASSERT_NE(outcome.status, CaseOutcome::Status::Error) << outcome.error;
    EXPECT_TRUE(outcome.expectsReports);
    EXPECT_TRUE(outcome.passed()) << outcome.details();
    for (const std::string& problem : outcome.reportProblems) ADD_FAILURE() << problem;
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

// Two pointers into one buffer (case.json alias_of): the launch has one buffer, as on the GPU, so an in-place shift
// that reads what another program writes is a race. Given as two private copies instead, the same kernel reports
// nothing — which is why aliasing must be modelled — and the case driver then says the planted race is missing.
TEST(Diagnostics, AliasedPointersShareOneBuffer) {
  const std::string directory = kDiagnostics + "/race_two_pointers_one_buffer";
  CaseRun shared = runCaseDirectory(directory, false);
  ASSERT_TRUE(shared.error.empty()) << shared.error;
  ASSERT_TRUE(shared.outcome.started()) << shared.outcome.diagnostics[0].str();
  EXPECT_EQ(shared.outcome.result.total(Report::Kind::Race), 16) << "src[64..79] are both read and written";
  ASSERT_EQ(shared.arguments.size(), 2u);
  EXPECT_TRUE(shared.arguments[1].isAlias());
  // After the launch the alias holds its view of the storage: dst[i] is src[i + 16].
  EXPECT_TRUE(std::equal(shared.arguments[1].bytes.begin(), shared.arguments[1].bytes.end(),
                         shared.arguments[0].bytes.begin() + 64));

  CaseLoad load = loadGoldenCase(directory);
  ASSERT_TRUE(load.ok()) << load.error;
  ParseResult parsed = parseModuleFile(load.goldenCase.kernelPath);
  ASSERT_TRUE(parsed.module);
  CaseArguments built = buildCaseArguments(load.goldenCase);
  ASSERT_TRUE(built.error.empty()) << built.error;
  Launch launch = caseLaunch(load.goldenCase, *parsed.module, std::move(built.arguments));
  launch.arguments[1].aliasOf.clear();  // dst as a private copy
  LaunchOptions options;
  options.echoPrints = false;
  InterpreterEngine engine;
  LaunchOutcome separate = engine.run(launch, options);
  ASSERT_TRUE(separate.started());
  EXPECT_EQ(separate.result.total(Report::Kind::Race), 0);
  std::vector<std::string> problems = checkExpectedReports(load.goldenCase, separate.result);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("not reported"), std::string::npos) << problems[0];
}

// Bad aliases are diagnostics naming the argument: a target that does not exist, a view past the storage's end,
// a cycle, and a view whose start breaks the divisibility the kernel was specialised for.
TEST(Diagnostics, BadAliasesAreDiagnosed) {
  CaseLoad load = loadGoldenCase(kDiagnostics + "/race_two_pointers_one_buffer");
  ASSERT_TRUE(load.ok()) << load.error;
  ParseResult parsed = parseModuleFile(load.goldenCase.kernelPath);
  ASSERT_TRUE(parsed.module);
  InterpreterEngine engine;
  for (int variant = 0; variant < 4; ++variant) {
    CaseArguments built = buildCaseArguments(load.goldenCase);
    ASSERT_TRUE(built.error.empty()) << built.error;
    Launch launch = caseLaunch(load.goldenCase, *parsed.module, std::move(built.arguments));
    if (variant == 0) launch.arguments[1].aliasOf = "nowhere";
    if (variant == 1) launch.arguments[1].aliasOffset = 128;  // 128 floats from float 32 of a 144-float buffer
    if (variant == 3) launch.arguments[1].aliasOffset = 4;  // fits, but breaks the kernel's tt.divisibility = 16
    if (variant == 2) launch.arguments[1].aliasOf = "dst_ptr";  // itself: a cycle
    LaunchOutcome outcome = engine.run(launch, LaunchOptions{});
    ASSERT_FALSE(outcome.started()) << "variant " << variant;
    EXPECT_NE(outcome.diagnostics[0].message.find("dst_ptr"), std::string::npos) << outcome.diagnostics[0].str();
  }
}

}  // namespace
}  // namespace tilesim
