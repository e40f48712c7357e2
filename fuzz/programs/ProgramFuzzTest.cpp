// The differential property for the interpreter (docs/fuzzing.md): a random well-defined kernel (KernelGen.h) is
// built, printed, re-parsed and verified; the interpreter runs it with checks on, and every buffer must equal, bit
// for bit, what the independent lane-by-lane reference (ReferenceEval.h) computes (two NaNs of a float dtype
// compare equal: every NaN an op produces is canonical, docs/semantics.md; elements where an undefined lane was
// stored are skipped). Reports allowed: undefined-value exactly when the reference sees an undefined lane reach
// memory, undefined-behavior (--check=ub) exactly when the reference sees a UB lane. Programs in forward, reverse
// and shuffled order on 1 and 2 threads, and under the triton profile, must give identical bytes.
//
// A failure is shrunk by RapidCheck and written as a conformance case under conformance/regressions/fuzz_<hash>/
// (or $TILESIM_FUZZ_REGRESSIONS/...), replayable with `tilesim run DIR`.
// Cases: RC_PARAMS="max_success=N seed=S" (default below); TILESIM_FUZZ_CASES=N runs a campaign of N cases with
// progress on stderr.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <chrono>
#include <filesystem>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <optional>

#include "conformance/runner/Conformance.h"
#include "interpreter/Interpreter.h"
#include "fuzz/programs/KernelGen.h"
#include "fuzz/programs/ReferenceEval.h"
#include "fuzz/programs/RegressionWriter.h"
#include "ir/FloatBits.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "ir/verify/Verifier.h"

namespace tilesim::fuzz {
namespace {

// The engine under test. The interpreter is compared with the independent lane-by-lane reference here; campaigns
// against other engines (the GPU backend, Triton) use the interpreter as their oracle (docs/fuzzing.md).
Engine& engine() {
  static InterpreterEngine interpreter;
  return interpreter;
}

// A campaign (TILESIM_FUZZ_CASES) or the bounded default, which runs well under a minute in an ASan+UBSan build.
const int64_t kCampaignCases = [] {
  const char* cases = std::getenv("TILESIM_FUZZ_CASES");
  int64_t n = cases ? std::atoll(cases) : 0;
  std::string params = "max_success=" + std::to_string(n > 0 ? n : 1000) + " max_size=100";
  setenv("RC_PARAMS", params.c_str(), /*overwrite=*/0);
  return n;
}();

struct Failure {
  std::string message;
  KernelPlan plan;
};
std::optional<Failure> lastFailure;  // the most recent failing plan: after shrinking, the smallest

struct Stats {
  int64_t cases = 0, droppedNodes = 0, undefinedStores = 0, ops = 0;
  std::map<std::string, int64_t> opCounts;  // printed with TILESIM_FUZZ_VERBOSE: what the generator reaches
} stats;

bool sameElement(uint64_t a, uint64_t b, ScalarKind kind) {
  if (a == b) return true;
  return isFloatKind(kind) && isNaNBits(a, kind) && isNaNBits(b, kind);
}

std::string compareBuffers(const LaunchArgument& got, const std::vector<uint8_t>& expected,
                           const std::vector<uint8_t>& undefined) {
  const int bytes = storageBytes(got.elementKind);
  std::string message;
  int shown = 0;
  for (size_t offset = 0; offset < expected.size(); offset += bytes) {
    uint64_t a = 0, b = 0;
    std::memcpy(&a, got.bytes.data() + offset, bytes);
    std::memcpy(&b, expected.data() + offset, bytes);
    if (undefined[offset / bytes] || sameElement(a, b, got.elementKind)) continue;
    if (shown++ < 4) {
      char line[160];
      std::snprintf(line, sizeof line, "  %s[%zu]: interpreter 0x%llx, reference 0x%llx\n", got.name.c_str(),
                    offset / bytes, static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
      message += line;
    }
  }
  return message;
}

struct RunConfig {
  ProgramOrder order;
  int threads;
  uint64_t seed;
  FloatProfile profile;
};

// The property for one plan; returns "" when it holds.
std::string checkKernel(const KernelPlan& plan, BuiltKernel* keep = nullptr, ReferenceOutcome* keepReference = nullptr) {
  BuiltKernel built = buildKernel(plan);
  if (!built.error.empty()) return "builder: " + built.error;
  stats.droppedNodes += static_cast<int64_t>(built.droppedNodes.size());
  if (std::getenv("TILESIM_FUZZ_VERBOSE"))
    for (const std::string& dropped : built.droppedNodes) std::cerr << "dropped " << dropped << "\n";
  const std::string text = printModule(*built.module);
  ParseResult parsed = parseModule(text, "fuzz.ttir");
  if (!parsed.diagnostics.empty()) return "re-parse failed: " + parsed.diagnostics[0].str() + "\n" + text;
  Diagnostics diagnostics = verifyModule(*parsed.module);
  if (!diagnostics.empty()) return "verifier rejects the builder's module: " + diagnostics[0].str() + "\n" + text;
  std::optional<Function> kernel = parsed.module->kernel();
  if (!kernel) return "no kernel in\n" + text;
  walk(*kernel->op(), [](const Operation& op) {
    ++stats.ops;
    ++stats.opCounts[std::string(op.name())];
  });

  ReferenceOutcome reference = runReference(*kernel, built.arguments, built.grid);
  if (!reference.error.empty()) return reference.error + "\n" + text;
  // Math functions differ between the profiles (ExactMath vs correctly rounded), so the triton run has its own.
  ReferenceOutcome tritonReference = runReference(*kernel, built.arguments, built.grid, FloatProfile::Triton);
  if (!tritonReference.error.empty()) return tritonReference.error + "\n" + text;
  if (reference.outOfBounds) return "generator bug: the reference saw an out-of-bounds access\n" + text;
  if (reference.undefinedReachesMemory) ++stats.undefinedStores;

  // Every run must match the reference of its profile; runs of one profile must give identical bytes.
  const RunConfig configs[] = {{ProgramOrder::Forward, 1, 1, FloatProfile::Exact},
                               {ProgramOrder::Reverse, 2, 1, FloatProfile::Exact},
                               {ProgramOrder::Shuffled, 2, plan.dataSeed | 1, FloatProfile::Exact},
                               {ProgramOrder::Shuffled, 2, plan.dataSeed + 7, FloatProfile::Triton}};
  std::vector<LaunchArgument> first;
  FloatProfile firstProfile = FloatProfile::Exact;
  for (const RunConfig& config : configs) {
    const ReferenceOutcome& expected = config.profile == FloatProfile::Exact ? reference : tritonReference;
    Launch launch;
    launch.module = parsed.module.get();
    launch.kernel = kernel;
    launch.arguments = built.arguments;
    launch.grid = built.grid;
    LaunchOptions options;
    options.threads = config.threads;
    options.order = config.order;
    options.shuffleSeed = config.seed;
    options.echoPrints = false;
    options.profile = config.profile;
    options.checkUB = true;
    LaunchOutcome outcome = engine().run(launch, options);
    if (!outcome.started()) return "launch did not start: " + outcome.diagnostics[0].str() + "\n" + text;
    std::string reports;
    bool undefinedReported = false, ubReported = false;
    for (const Report& report : outcome.result.reports) {
      if (report.kind == Report::Kind::UndefinedUse) undefinedReported = true;
      else if (report.kind == Report::Kind::UndefinedBehavior) ubReported = true;
      else reports += "  unexpected report: " + report.str() + "\n";
    }
    if (!reports.empty()) return reports + text;
    if (ubReported != reference.undefinedBehaviour && !(ubReported && reference.undefinedBehaviourPossible))
      return std::string(ubReported ? "interpreter reports undefined behaviour, the reference sees none"
                                    : "the reference sees undefined behaviour (div by 0, shift, float->int), the interpreter reports none") +
             "\n" + built.summary + text;
    if (undefinedReported != reference.undefinedReachesMemory)
      return std::string(undefinedReported ? "interpreter reports an undefined value reaching memory, the reference does not"
                                           : "the reference sees an undefined value reach memory, the interpreter reports nothing") +
             "\n" + text;
    if (first.empty() || config.profile != firstProfile) {
      std::string mismatches;
      size_t buffer = 0;
      for (const LaunchArgument& argument : launch.arguments)
        if (argument.kind == LaunchArgument::Kind::Buffer) {
          mismatches += compareBuffers(argument, expected.buffers.at(buffer), expected.undefinedElements.at(buffer));
          ++buffer;
        }
      if (!mismatches.empty()) return "interpreter and reference disagree:\n" + mismatches + built.summary + text;
      first = std::move(launch.arguments);
      firstProfile = config.profile;
    } else {
      for (size_t i = 0; i < first.size(); ++i)
        if (first[i].bytes != launch.arguments[i].bytes)
          return "result depends on program order or threads (" + first[i].name + ")\n" + text;
    }
  }
  if (keep) *keep = std::move(built);
  if (keepReference) *keepReference = std::move(reference);
  return "";
}

std::string regressionDirectory() {
  const char* dir = std::getenv("TILESIM_FUZZ_REGRESSIONS");
  return dir ? dir : std::string(TILESIM_SOURCE_DIR) + "/conformance/regressions";
}

// Writes the shrunk failure as a conformance case; returns the path or an error.
std::string saveRegression(const Failure& failure) {
  BuiltKernel built = buildKernel(failure.plan);
  if (!built.module) return "(not saved: " + built.error + ")";
  std::optional<Function> kernel = built.module->kernel();
  ReferenceOutcome reference = runReference(*kernel, built.arguments, built.grid);
  if (!reference.error.empty()) return "(not saved: " + reference.error + ")";
  const std::string text = printModule(*built.module);
  char name[32];
  std::snprintf(name, sizeof name, "fuzz_%08zx", std::hash<std::string>{}(text) & 0xFFFFFFFFu);
  std::string first = failure.message.substr(0, failure.message.find("\nblock"));
  first = first.substr(0, first.find("\nmodule"));
  std::string error = writeRegressionCase(regressionDirectory(), name, built, reference.buffers, first);
  return error.empty() ? regressionDirectory() + "/" + name : "(not saved: " + error + ")";
}

TEST(ProgramFuzz, InterpreterMatchesLaneByLaneReference) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t progressEvery = kCampaignCases > 0 ? std::max<int64_t>(1, kCampaignCases / 20) : 0;
  bool success = rc::check("interpreter == lane-by-lane reference", [&] {
    KernelPlan plan = *genKernelPlan();
    if (std::getenv("TILESIM_FUZZ_VERBOSE")) std::cerr << describePlan(plan);
    std::string message = checkKernel(plan);
    if (++stats.cases % (progressEvery ? progressEvery : INT64_MAX) == 0) {
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cerr << "[fuzz] " << stats.cases << " cases, " << stats.ops << " ops, " << seconds << " s\n";
    }
    if (!message.empty()) {
      lastFailure = Failure{message, plan};
      RC_FAIL(message);
    }
  });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "program fuzz: " << stats.cases << " kernels (" << stats.ops << " ops, " << stats.droppedNodes
            << " nodes dropped by the builder, " << stats.undefinedStores << " with undefined stores) in " << seconds
            << " s\n";
  if (std::getenv("TILESIM_FUZZ_VERBOSE"))
    for (const auto& [name, count] : stats.opCounts) std::cout << "  " << name << " " << count << "\n";
  if (!success && lastFailure) {
    std::string saved = saveRegression(*lastFailure);
    ADD_FAILURE() << "shrunk failure saved as " << saved << "\n" << lastFailure->message;
  }
  EXPECT_TRUE(success);
}

// Every case the fuzzer saved in conformance/regressions/ must pass once its bug is fixed (a case kept for a bug
// that is still open is listed in docs/fuzzing.md and named `open_*`, which this test skips).
TEST(ProgramFuzz, RegressionCasesPass) {
  const std::filesystem::path root = std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance/regressions";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "no regression cases";
  std::vector<std::string> missing;
  int ran = 0;
  for (const std::string& directory : findCaseDirectories({root.string()}, missing)) {
    if (std::filesystem::path(directory).filename().string().rfind("open_", 0) == 0) continue;
    CaseOptions options;
    options.determinism = true;
    CaseOutcome outcome = runCase(directory, options, engine());
    EXPECT_TRUE(outcome.passed()) << outcome.line() << "\n" << outcome.details();
    ++ran;
  }
  std::cout << "replayed " << ran << " regression cases\n";
}

}  // namespace
}  // namespace tilesim::fuzz
