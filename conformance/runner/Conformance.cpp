// Running conformance cases on an engine: load, parse, verify, launch, judge (outputs, expected reports); and the
// determinism sweep over thread counts and program orders. Everything that goes wrong before the judgement is an
// Error outcome carrying the messages.
#include "conformance/runner/Conformance.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "conformance/runner/TtgirLayouts.h"
#include "ir/Assert.h"
#include "ir/FileIO.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim {
namespace {

namespace fs = std::filesystem;

std::string joinDiagnostics(const Diagnostics& diagnostics) {
  std::string text;
  for (const Diagnostic& diagnostic : diagnostics) text += (text.empty() ? "" : "\n") + diagnostic.str();
  return text;
}

struct Variant {
  const char* label;
  int threads;
  ProgramOrder order;
};

// The launch setups determinism mode compares; the first is the reference.
constexpr Variant kVariants[] = {
    {"1 thread/forward", 1, ProgramOrder::Forward},
    {"all threads/forward", 0, ProgramOrder::Forward},
    {"all threads/reverse", 0, ProgramOrder::Reverse},
    {"all threads/shuffled", 0, ProgramOrder::Shuffled},
};

// Triton's reduce layouts from the case's kernel.ttgir, when it has one and options ask for Triton's order. A
// kernel.ttgir that is not a regular file, is too large or does not parse sets `error` (the case fails).
std::map<const Operation*, ReduceAxisLayout> reduceLayouts(const CaseOptions& options, const std::string& kernelPath,
                                                           const Function& kernel, std::string& error) {
  if (!options.tritonReduceOrder) return {};
  const std::string ttgir = (std::filesystem::path(kernelPath).parent_path() / "kernel.ttgir").string();
  std::error_code missing;
  if (!std::filesystem::exists(std::filesystem::symlink_status(ttgir, missing))) return {};
  std::string text, readError;
  if (!readRegularFile(ttgir, kMaxKernelFileBytes, text, readError)) {
    error = ttgir + ": " + readError;
    return {};
  }
  TtgirLayouts parsed = parseTtgirReduces(text, ttgir);
  if (!parsed.error.empty()) {
    error = parsed.error;
    return {};
  }
  return matchReduceLayouts(parsed, kernel).layouts;
}

LaunchOptions launchOptions(const CaseOptions& options, int threads, ProgramOrder order) {
  LaunchOptions launchOptions = LaunchOptions::comparedRun(options.profile, order, threads);
  launchOptions.checks = options.checks;
  launchOptions.checkUB = options.checkUB;
  launchOptions.maxSteps = options.maxSteps;
  return launchOptions;
}

// Sorts a buffer's elements by their bits, so two buffers holding the same multiset compare equal. Each element
// (at most 8 bytes) is sorted as one uint64_t: any fixed order serves, and no byte-string compare is needed (GCC
// 12 at -O3 flagged the memcmp of sorting std::vector<std::vector<uint8_t>> as -Wstringop-overread).
std::vector<uint8_t> sortedElements(const std::vector<uint8_t>& bytes, ScalarKind kind) {
  const size_t size = static_cast<size_t>(storageBytes(kind));
  TILESIM_ASSERT(size >= 1 && size <= sizeof(uint64_t), "element of " + std::to_string(size) + " bytes");
  std::vector<uint64_t> elements(bytes.size() / size, 0);
  for (size_t i = 0; i < elements.size(); ++i) std::memcpy(&elements[i], bytes.data() + i * size, size);
  std::sort(elements.begin(), elements.end());
  std::vector<uint8_t> sorted(elements.size() * size);
  for (size_t i = 0; i < elements.size(); ++i) std::memcpy(sorted.data() + i * size, &elements[i], size);
  return sorted;
}

bool reportMatches(const ExpectedReport& expected, const Report& report) {
  return expected.kind == reportKindName(report.kind) && (!expected.program || *expected.program == report.program) &&
         (!expected.lane || *expected.lane == report.lane) && (!expected.op || *expected.op == report.op) &&
         (!expected.ttirLine || *expected.ttirLine == report.ttirPos.line) &&
         (!expected.source || *expected.source == report.sourceLoc) &&
         (!expected.buffer || *expected.buffer == report.buffer) &&
         (!expected.byteOffset || *expected.byteOffset == report.byteOffset);
}

std::string describeExpected(const ExpectedReport& expected) {
  std::string text = expected.kind;
  if (expected.op) text += " at " + *expected.op;
  if (expected.ttirLine) text += fmt::format(" (TTIR line {})", *expected.ttirLine);
  if (expected.program) text += fmt::format(" in program ({}, {}, {})", (*expected.program)[0], (*expected.program)[1], (*expected.program)[2]);
  if (expected.lane) text += fmt::format(", lane ({})", fmt::join(*expected.lane, ", "));
  if (expected.buffer) text += ", buffer " + *expected.buffer;
  if (expected.byteOffset) text += fmt::format(", byte offset {}", *expected.byteOffset);
  if (expected.source) text += ", source " + *expected.source;
  return text;
}

// The case as `engine` should see it: expected reports that name other engines ("engines": a check this engine
// does not run) dropped; when none is left, the case expects no report at all from this engine.
GoldenCase expectationsFor(const GoldenCase& goldenCase, const std::string& engine) {
  GoldenCase forEngine = goldenCase;
  forEngine.expectReports.clear();
  for (const ExpectedReport& expected : goldenCase.expectReports)
    if (expected.engines.empty() || std::find(expected.engines.begin(), expected.engines.end(), engine) != expected.engines.end())
      forEngine.expectReports.push_back(expected);
  if (!goldenCase.expectReports.empty() && forEngine.expectReports.empty()) {
    forEngine.expectsReports = false;
    forEngine.expectReportCounts.clear();
  }
  return forEngine;
}

}  // namespace

std::string kernelFileFor(const CaseOptions& options, const std::string& directory) {
  return (std::filesystem::path(directory) / (options.fromTtgir ? "kernel.ttgir" : "kernel.ttir")).string();
}

namespace {

// Fills `outcome` up to the end of the comparison; returns false (with outcome.error) when the case cannot run.
bool runAndCompare(const CaseOptions& requested, Engine& engine, CaseOutcome& outcome) {
  CaseLoad load = loadGoldenCase(outcome.directory);
  if (!load.ok()) {
    outcome.error = load.error;
    return false;
  }
  const GoldenCase goldenCase = expectationsFor(load.goldenCase, engine.name());
  const CaseOptions options = optionsForCase(requested, goldenCase);
  outcome.profile = options.profile;
  outcome.profileFromCase = goldenCase.profile && !requested.profileRequested;

  const std::string kernelFile = options.fromTtgir ? kernelFileFor(options, goldenCase.directory) : goldenCase.kernelPath;
  ParseResult parsed = parseModuleFile(kernelFile);
  if (!parsed.diagnostics.empty()) {
    outcome.error = joinDiagnostics(parsed.diagnostics);
    return false;
  }
  if (Diagnostics problems = verifyModule(*parsed.module); !problems.empty()) {
    outcome.error = joinDiagnostics(problems);
    return false;
  }
  CaseLaunch built = caseLaunch(goldenCase, *parsed.module);
  if (!built.error.empty()) {
    outcome.error = built.launch.kernel ? built.error : kernelFile + ": " + built.error;  // which file lacks it
    return false;
  }
  Launch& launch = built.launch;
  LaunchOptions launchSetup = launchOptions(options, options.threads, options.order);
  launchSetup.checkUB = launchSetup.checkUB || goldenCase.checkUB;
  std::string ttgirError;
  launchSetup.reduceLayouts = reduceLayouts(options, goldenCase.kernelPath, *launch.kernel, ttgirError);
  if (!ttgirError.empty()) {
    outcome.error = ttgirError;
    return false;
  }
  LaunchOutcome launched = engine.run(launch, launchSetup);
  if (!launched.started()) {
    outcome.error = joinDiagnostics(launched.diagnostics);
    return false;
  }
  outcome.launch = std::move(launched.result);

  // The bounds engine's run of the same launch (CaseOptions::boundsEngine): its outputs and error bounds.
  std::vector<LaunchArgument> referenceArguments;
  const bool hasExpected = std::any_of(goldenCase.arguments.begin(), goldenCase.arguments.end(), [](const CaseArgument& a) {
    return a.isTensor && !a.expectedPath.empty();
  });
  if (options.boundsEngine && options.boundsEngine != &engine && options.profile == FloatProfile::Triton && hasExpected) {
    CaseArguments again = buildCaseArguments(goldenCase);
    Launch reference = launch;
    reference.arguments = std::move(again.arguments);
    LaunchOptions referenceSetup = launchSetup;
    referenceSetup.reduceLayouts.clear();  // bounds that cover any reduction order
    LaunchOutcome referenced = options.boundsEngine->run(reference, referenceSetup);
    if (!referenced.started()) {
      outcome.error = std::string("the ") + options.boundsEngine->name() +
                      " engine, whose error bounds judge this engine's outputs, cannot run the case: " +
                      joinDiagnostics(referenced.diagnostics);
      return false;
    }
    referenceArguments = std::move(reference.arguments);
    outcome.boundsEngine = options.boundsEngine->name();
  }

  for (size_t i = 0; i < goldenCase.arguments.size(); ++i) {
    const CaseArgument& argument = goldenCase.arguments[i];
    if (!argument.isTensor || argument.expectedPath.empty()) continue;
    NpyLoad expected = readExpected(goldenCase, argument);
    if (!expected.ok()) {
      outcome.error = expected.error;
      return false;
    }
    const LaunchArgument& output = launch.arguments[i];
    CompareOptions compareOptions;
    compareOptions.maxFailuresShown = options.maxFailuresShown;
    compareOptions.isUnsigned = argument.dtype.isUnsigned;
    if (argument.unordered) {
      const std::vector<int64_t> flat = {static_cast<int64_t>(output.bytes.size()) / storageBytes(argument.dtype.kind)};
      outcome.outputs.push_back(compareOutput(argument.name + " (unordered)", argument.dtype.kind, flat,
                                              sortedElements(output.bytes, argument.dtype.kind),
                                              sortedElements(expected.array.bytes, argument.dtype.kind), {},
                                              compareOptions));
    } else if (!referenceArguments.empty()) {
      const LaunchArgument& reference = referenceArguments[i];
      outcome.outputs.push_back(compareWithReference(argument.name, argument.dtype.kind, argument.shape, output.bytes,
                                                     expected.array.bytes, reference.bytes, reference.errorBound,
                                                     compareOptions));
    } else {
      outcome.outputs.push_back(compareOutput(argument.name, argument.dtype.kind, argument.shape, output.bytes,
                                              expected.array.bytes, output.errorBound, compareOptions));
    }
  }
  outcome.expectsReports = goldenCase.expectsReports;
  if (goldenCase.expectsReports) outcome.reportProblems = checkExpectedReports(goldenCase, outcome.launch);
  outcome.arguments = std::move(launch.arguments);
  outcome.fileTypes = std::move(built.fileTypes);
  outcome.goldenCase = goldenCase;
  return true;
}

// Runs every variant and records which buffers differ from the first variant's.
void checkDeterminism(const CaseOptions& requested, Engine& engine, CaseOutcome& outcome) {
  CaseLoad load = loadGoldenCase(outcome.directory);
  ParseResult parsed = parseModuleFile(requested.fromTtgir ? kernelFileFor(requested, load.goldenCase.directory)
                                                           : load.goldenCase.kernelPath);
  if (!load.ok() || !parsed.module) return;  // runAndCompare succeeded, so this does not happen
  const CaseOptions options = optionsForCase(requested, load.goldenCase);
  std::vector<std::vector<uint8_t>> reference;
  for (const Variant& variant : kVariants) {
    CaseLaunch built = caseLaunch(load.goldenCase, *parsed.module);
    if (!built.error.empty()) {  // runAndCompare built the same launch, so this does not happen either
      outcome.determinismProblems.push_back(std::string(variant.label) + ": " + built.error);
      continue;
    }
    Launch& launch = built.launch;
    LaunchOptions launchSetup = launchOptions(options, variant.threads, variant.order);
    launchSetup.checkUB = launchSetup.checkUB || load.goldenCase.checkUB;
    std::string ttgirError;  // runAndCompare read the same kernel.ttgir without error
    launchSetup.reduceLayouts = reduceLayouts(options, load.goldenCase.kernelPath, *launch.kernel, ttgirError);
    LaunchOutcome launched = engine.run(launch, launchSetup);
    if (!launched.started()) {
      outcome.determinismProblems.push_back(std::string(variant.label) + ": " + joinDiagnostics(launched.diagnostics));
      continue;
    }
    bool isReference = &variant == &kVariants[0];
    if (isReference) reference.resize(launch.arguments.size());
    for (size_t i = 0; i < launch.arguments.size(); ++i) {
      const LaunchArgument& argument = launch.arguments[i];
      if (argument.kind != LaunchArgument::Kind::Buffer) continue;
      const CaseArgument* declared = i < load.goldenCase.arguments.size() ? &load.goldenCase.arguments[i] : nullptr;
      if (declared && declared->orderDependent && !declared->expectedPath.empty()) {
        // Any order is allowed, but each variant's result must still be within its bound of the GPU's.
        NpyLoad expected = readExpected(load.goldenCase, *declared);
        CompareOptions compareOptions;
        compareOptions.isUnsigned = declared->dtype.isUnsigned;
        OutputComparison comparison = expected.ok()
            ? compareOutput(argument.name, declared->dtype.kind, declared->shape, argument.bytes, expected.array.bytes,
                            argument.errorBound, compareOptions)
            : OutputComparison{};
        if (!expected.ok() || !comparison.passed())
          outcome.determinismProblems.push_back(fmt::format("{} (order-dependent) fails its comparison under {}",
                                                            argument.name, variant.label));
        continue;
      }
      if (isReference) reference[i] = argument.bytes;
      else if (reference.size() == launch.arguments.size() && reference[i] != argument.bytes)
        outcome.determinismProblems.push_back(fmt::format("{} differs between {} and {}", argument.name,
                                                          kVariants[0].label, variant.label));
    }
  }
}

std::string firstLine(const std::string& text) {
  size_t newline = text.find('\n');
  if (newline == std::string::npos) return text;
  size_t more = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  return text.substr(0, newline) + fmt::format(" (and {} more)", more);
}

// Each line of `text`, indented by two spaces.
std::string indent(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

}  // namespace

CaseOptions optionsForCase(const CaseOptions& options, const GoldenCase& goldenCase) {
  CaseOptions effective = options;
  if (goldenCase.profile && !options.profileRequested) effective.profile = *goldenCase.profile;
  return effective;
}

std::vector<std::string> checkExpectedReports(const GoldenCase& goldenCase, const LaunchResult& result) {
  std::vector<std::string> problems;
  for (const ExpectedReport& expected : goldenCase.expectReports) {
    bool found = std::any_of(result.reports.begin(), result.reports.end(),
                             [&](const Report& report) { return reportMatches(expected, report); });
    if (!found) problems.push_back("expected " + describeExpected(expected) + ": not reported");
  }
  for (const Report& report : result.reports) {
    // A case that expects races also allows the same-value races of the same kernel: in a read-modify-write
    // race some lanes happen to store the bytes another program stored, and those lanes are reported so.
    const std::string kind = reportKindName(report.kind);
    bool allowed = std::any_of(goldenCase.expectReports.begin(), goldenCase.expectReports.end(),
                               [&](const ExpectedReport& expected) {
                                 return expected.kind == kind || (expected.kind == "race" && kind == "same-value-race");
                               });
    if (!allowed) problems.push_back("unexpected report: " + report.str());
  }
  for (const auto& [kind, count] : goldenCase.expectReportCounts) {
    int64_t made = 0;
    for (size_t k = 0; k < kReportKindCount; ++k)
      if (kind == reportKindName(static_cast<Report::Kind>(k))) made = result.totalByKind[k];
    if (made != count) problems.push_back(fmt::format("expected {} {} report{}, the launch made {}", count, kind, count == 1 ? "" : "s", made));
  }
  return problems;
}

CaseOutcome runCase(const std::string& directory, const CaseOptions& options, Engine& engine) {
  auto start = std::chrono::steady_clock::now();
  CaseOutcome outcome;
  outcome.directory = directory;
  outcome.engine = engine.name();
  fs::path path = fs::path(directory).lexically_normal();
  outcome.name = (path.has_filename() ? path : path.parent_path()).filename().string();  // "golden/vadd/" too
  if (runAndCompare(options, engine, outcome)) {
    bool outputsPass = std::all_of(outcome.outputs.begin(), outcome.outputs.end(),
                                   [](const OutputComparison& output) { return output.passed(); });
    bool reportsPass = outcome.expectsReports ? outcome.reportProblems.empty() : outcome.launch.ok();
    // A case whose planted bug is a race has order-dependent outputs by definition; every other case must not.
    const bool expectsRace = std::any_of(outcome.goldenCase->expectReports.begin(), outcome.goldenCase->expectReports.end(),
                                         [](const ExpectedReport& expected) { return expected.kind == "race"; });
    if (options.determinism && !expectsRace) checkDeterminism(options, engine, outcome);
    outcome.status = outputsPass && reportsPass && outcome.determinismProblems.empty()
                         ? CaseOutcome::Status::Passed
                         : CaseOutcome::Status::Failed;
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

std::string CaseOutcome::line() const {
  if (status == Status::Error) return fmt::format("ERROR {}  {}", name, firstLine(error));
  std::string text = fmt::format("{} {} ", passed() ? "PASS " : "FAIL ", name);
  for (const OutputComparison& output : outputs) text += " " + output.summary() + ";";
  const int64_t reports = launch.totalReports();
  if (expectsReports) {
    text += reportProblems.empty() ? fmt::format(" the planted bug reported ({} report{});", reports, reports == 1 ? "" : "s")
                                   : fmt::format(" {} report problem{};", reportProblems.size(), reportProblems.size() == 1 ? "" : "s");
  } else {
    if (outputs.empty()) text += " (no outputs to compare);";
    if (reports > 0) text += fmt::format(" {} report{};", reports, reports == 1 ? "" : "s");
  }
  if (!determinismProblems.empty()) text += " NOT DETERMINISTIC;";
  if (!boundsEngine.empty()) text += " (" + boundsEngine + " bounds);";
  text.pop_back();
  return text + fmt::format("  ({:.2f}s)", seconds);
}

std::string CaseOutcome::details() const {
  std::string text = line();
  if (status == Status::Error) {
    if (error.find('\n') != std::string::npos) text += "\n" + indent(error);
    return text;
  }
  if (expectsReports) {
    for (const std::string& problem : reportProblems) text += "\n  " + problem;
  } else {
    for (const Report& report : launch.reports) text += "\n  " + report.str();
  }
  for (const OutputComparison& output : outputs)
    for (const std::string& failure : output.failureLines()) text += "\n  " + failure;
  for (const std::string& problem : determinismProblems) text += "\n  determinism: " + problem;
  return text;
}

std::vector<std::string> findCaseDirectories(const std::vector<std::string>& roots, std::vector<std::string>& missing) {
  std::vector<std::string> found;
  for (const std::string& root : roots) {
    std::error_code error;
    if (!fs::is_directory(root, error)) {
      missing.push_back(root);
      continue;
    }
    if (isCaseDirectory(root)) {
      found.push_back(root);
      continue;
    }
    std::vector<std::string> below;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error))
      if (it->is_directory(error) && isCaseDirectory(it->path().string())) below.push_back(it->path().string());
    std::sort(below.begin(), below.end());
    found.insert(found.end(), below.begin(), below.end());
  }
  return found;
}

std::string ConformanceSummary::str() const {
  int count = passed + failed + errors;
  return fmt::format("{} case{}: {} passed ({} by reporting their planted bug), {} failed, {} errors; outputs: {} "
                     "bit-exact, {} within error bounds ({:.1f}s)",
                     count, count == 1 ? "" : "s", passed, diagnosticsPassed, failed, errors, bitExactOutputs,
                     boundedOutputs, seconds);
}

ConformanceSummary runConformance(const std::vector<std::string>& caseDirectories, const CaseOptions& options,
                                  Engine& engine, const std::function<void(const CaseOutcome&, size_t, size_t)>& progress) {
  ConformanceSummary summary;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < caseDirectories.size(); ++i) {
    CaseOutcome outcome = runCase(caseDirectories[i], options, engine);
    switch (outcome.status) {
      case CaseOutcome::Status::Passed:
        ++summary.passed;
        if (outcome.expectsReports) ++summary.diagnosticsPassed;
        break;
      case CaseOutcome::Status::Failed: ++summary.failed; break;
      case CaseOutcome::Status::Error: ++summary.errors; break;
    }
    for (const OutputComparison& output : outcome.outputs) {
      if (output.bitExact()) ++summary.bitExactOutputs;
      else if (output.passed()) ++summary.boundedOutputs;
    }
    if (progress) progress(outcome, i, caseDirectories.size());
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace tilesim
