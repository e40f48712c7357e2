// Running golden cases: load, parse, verify, launch, compare; and the determinism sweep over thread counts and
// program orders. Everything that goes wrong before the comparison is an Error outcome carrying the messages.
#include "conformance/runner/Conformance.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>

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

LaunchOptions launchOptions(const CaseOptions& options, int threads, ProgramOrder order) {
  LaunchOptions launchOptions;
  launchOptions.profile = options.profile;
  launchOptions.checks = options.checks;
  launchOptions.checkUB = options.checkUB;
  launchOptions.threads = threads;
  launchOptions.order = order;
  launchOptions.echoPrints = false;
  return launchOptions;
}

// Fills `outcome` up to the end of the comparison; returns false (with outcome.error) when the case cannot run.
bool runAndCompare(const CaseOptions& options, CaseOutcome& outcome) {
  CaseLoad load = loadGoldenCase(outcome.directory);
  if (!load.ok()) {
    outcome.error = load.error;
    return false;
  }
  const GoldenCase& goldenCase = load.goldenCase;

  ParseResult parsed = parseModuleFile(goldenCase.kernelPath);
  if (!parsed.diagnostics.empty()) {
    outcome.error = joinDiagnostics(parsed.diagnostics);
    return false;
  }
  if (Diagnostics problems = verifyModule(*parsed.module); !problems.empty()) {
    outcome.error = joinDiagnostics(problems);
    return false;
  }
  std::optional<Function> kernel = parsed.module->kernel(goldenCase.entry);
  if (!kernel) {
    outcome.error = goldenCase.kernelPath + ": no kernel named '" + goldenCase.entry + "'";
    return false;
  }

  CaseArguments built = buildCaseArguments(goldenCase);
  if (!built.error.empty()) {
    outcome.error = built.error;
    return false;
  }
  Launch launch;
  launch.module = parsed.module.get();
  launch.kernel = kernel;
  launch.arguments = std::move(built.arguments);
  launch.grid = goldenCase.grid;
  LaunchOutcome launched = runLaunch(launch, launchOptions(options, options.threads, options.order));
  if (!launched.started()) {
    outcome.error = joinDiagnostics(launched.diagnostics);
    return false;
  }
  outcome.launch = std::move(launched.result);

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
    outcome.outputs.push_back(compareOutput(argument.name, argument.dtype.kind, argument.shape, output.bytes,
                                            expected.array.bytes, output.errorBound, compareOptions));
  }
  return true;
}

// Runs every variant and records which buffers differ from the first variant's.
void checkDeterminism(const CaseOptions& options, CaseOutcome& outcome) {
  CaseLoad load = loadGoldenCase(outcome.directory);
  ParseResult parsed = parseModuleFile(load.goldenCase.kernelPath);
  if (!load.ok() || !parsed.module) return;  // runAndCompare succeeded, so this does not happen
  std::vector<std::vector<uint8_t>> reference;
  for (const Variant& variant : kVariants) {
    CaseArguments built = buildCaseArguments(load.goldenCase);
    Launch launch;
    launch.module = parsed.module.get();
    launch.kernel = parsed.module->kernel(load.goldenCase.entry);
    launch.arguments = std::move(built.arguments);
    launch.grid = load.goldenCase.grid;
    LaunchOutcome launched = runLaunch(launch, launchOptions(options, variant.threads, variant.order));
    if (!launched.started()) {
      outcome.determinismProblems.push_back(std::string(variant.label) + ": " + joinDiagnostics(launched.diagnostics));
      continue;
    }
    bool isReference = &variant == &kVariants[0];
    if (isReference) reference.resize(launch.arguments.size());
    for (size_t i = 0; i < launch.arguments.size(); ++i) {
      const LaunchArgument& argument = launch.arguments[i];
      if (argument.kind != LaunchArgument::Kind::Buffer) continue;
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

CaseOutcome runCase(const std::string& directory, const CaseOptions& options) {
  auto start = std::chrono::steady_clock::now();
  CaseOutcome outcome;
  outcome.directory = directory;
  fs::path path = fs::path(directory).lexically_normal();
  outcome.name = (path.has_filename() ? path : path.parent_path()).filename().string();  // "golden/vadd/" too
  if (runAndCompare(options, outcome)) {
    bool outputsPass = std::all_of(outcome.outputs.begin(), outcome.outputs.end(),
                                   [](const OutputComparison& output) { return output.passed(); });
    if (options.determinism) checkDeterminism(options, outcome);
    outcome.status = outputsPass && outcome.launch.ok() && outcome.determinismProblems.empty()
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
  if (outputs.empty()) text += " (no outputs to compare);";
  int64_t reports = 0;
  for (int64_t count : launch.totalByKind) reports += count;
  if (reports > 0) text += fmt::format(" {} report{};", reports, reports == 1 ? "" : "s");
  if (!determinismProblems.empty()) text += " NOT DETERMINISTIC;";
  text.pop_back();
  return text + fmt::format("  ({:.2f}s)", seconds);
}

std::string CaseOutcome::details() const {
  std::string text = line();
  if (status == Status::Error) {
    if (error.find('\n') != std::string::npos) text += "\n" + indent(error);
    return text;
  }
  for (const Report& report : launch.reports) text += "\n  " + report.str();
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
  return fmt::format("{} case{}: {} passed, {} failed, {} errors; outputs: {} bit-exact, {} within error bounds ({:.1f}s)",
                     count, count == 1 ? "" : "s", passed, failed, errors, bitExactOutputs, boundedOutputs, seconds);
}

ConformanceSummary runConformance(const std::vector<std::string>& caseDirectories, const CaseOptions& options,
                                  const std::function<void(const CaseOutcome&, size_t, size_t)>& progress) {
  ConformanceSummary summary;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < caseDirectories.size(); ++i) {
    CaseOutcome outcome = runCase(caseDirectories[i], options);
    switch (outcome.status) {
      case CaseOutcome::Status::Passed: ++summary.passed; break;
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
