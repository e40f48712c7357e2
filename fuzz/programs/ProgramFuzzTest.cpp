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
#include "fuzz/programs/ProgramCheck.h"
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

// The property for one plan (ProgramCheck.h); returns "" when it holds.
std::string checkKernel(const KernelPlan& plan) {
  CheckedProgram program;
  std::string message = checkProgram(plan, engine(), program);
  stats.droppedNodes += static_cast<int64_t>(program.built.droppedNodes.size());
  if (std::getenv("TILESIM_FUZZ_VERBOSE"))
    for (const std::string& dropped : program.built.droppedNodes) std::cerr << "dropped " << dropped << "\n";
  for (const auto& [name, count] : program.opCounts) {
    stats.ops += count;
    stats.opCounts[name] += count;
  }
  if (message.empty() && program.undefinedStore) ++stats.undefinedStores;
  return message;
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
  ReferenceOutcome reference = runReference(*kernel, built.arguments, built.grid, FloatProfile::Exact, built.module.get());
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

// The property runs the reference once for both profiles when referenceDependsOnProfile says the profile cannot
// matter; here both runs are made and must agree bit for bit for every such program (and the programs it sends to
// two runs must include some whose runs differ, or the criterion would be vacuous).
TEST(ProgramFuzz, ProfileIndependentReferencesAgree) {
  int independent = 0, dependent = 0, differing = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    KernelPlan plan = genKernelPlan()(rc::Random(seed * 0x9E3779B97F4A7C15ull), 100).value();
    BuiltKernel built = buildKernel(plan);
    if (!built.module) continue;
    std::optional<Function> kernel = built.module->kernel();
    ASSERT_TRUE(kernel);
    ReferenceOutcome exact = runReference(*kernel, built.arguments, built.grid, FloatProfile::Exact, built.module.get());
    ReferenceOutcome triton = runReference(*kernel, built.arguments, built.grid, FloatProfile::Triton, built.module.get());
    const bool same = exact.buffers == triton.buffers && exact.undefinedElements == triton.undefinedElements &&
                      exact.undefinedReachesMemory == triton.undefinedReachesMemory &&
                      exact.undefinedBehaviour == triton.undefinedBehaviour &&
                      exact.undefinedBehaviourPossible == triton.undefinedBehaviourPossible &&
                      exact.outOfBounds == triton.outOfBounds && exact.assertFails == triton.assertFails &&
                      exact.error == triton.error;
    if (referenceDependsOnProfile(*built.module)) {
      ++dependent;
      differing += !same;
    } else {
      ++independent;
      EXPECT_TRUE(same) << "seed " << seed << ": the profiles disagree on a program without profile-dependent ops\n"
                        << printModule(*built.module);
    }
  }
  std::cout << independent << " profile-independent programs agreed; " << dependent << " dependent, " << differing
            << " of them differ\n";
  EXPECT_GE(independent, 100);
  EXPECT_GE(differing, 1);
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
