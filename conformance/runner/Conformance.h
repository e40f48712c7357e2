// The case driver: runs conformance cases on an engine and judges them. `tilesim run CASE`, `tilesim conformance`
// and the tests all go through runCase, so a case means the same thing everywhere. One case = parse kernel.ttir,
// verify it, launch it with the case's arguments (float profile `triton`, checks on, `check: ub` honoured,
// aliases as one buffer), then judge:
//   - every buffer with an `expected` file is compared (Compare.h; `unordered` outputs as multisets);
//   - a case with `expect_reports` (a planted bug) passes when exactly those reports appear: each entry matched
//     by a report with the fields it names, every report of a kind some entry names, and as many reports of a
//     kind in total as `expect_report_counts` says;
//   - any other case passes only when the launch reported nothing.
// Determinism mode runs each case several ways (1 thread and all threads; programs in forward, reverse and
// shuffled order) and requires byte-identical buffers from all of them, since a Triton grid has no order.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conformance/runner/Compare.h"
#include "conformance/runner/GoldenCase.h"
#include "ir/launch/Engine.h"

namespace tilesim {

struct CaseOptions {
  FloatProfile profile = FloatProfile::Triton;
  // False: a case that records its profile (case.json "profile") runs under that one instead of `profile`;
  // true: `profile` was asked for (--profile) and overrides it.
  bool profileRequested = false;
  bool checks = true;
  bool checkUB = false;
  int threads = 0;  // 0 = all
  uint64_t maxSteps = LaunchOptions{}.maxSteps;  // per program (LaunchOptions::maxSteps)
  ProgramOrder order = ProgramOrder::Forward;
  bool determinism = false;  // also require identical outputs across threads and program orders
  // Combine tt.reduce in Triton's order when the case has kernel.ttgir (LaunchOptions::reduceLayouts).
  bool tritonReduceOrder = true;
  // Run the case's kernel.ttgir (Triton's TTGIR of the same kernel) instead of its kernel.ttir (issue 23).
  bool fromTtgir = false;
  int maxFailuresShown = 5;
  // An engine without error bounds of its own (the GPU engine) is judged with this engine's (the interpreter's):
  // under the triton profile, a case with expected outputs is also run on `boundsEngine` — same arguments,
  // profile and checks, but tt.reduce in the contract order with bounds that cover every order (the GPU
  // engine's reduction order need not be Triton's) — and each output is compared with compareWithReference
  // (Compare.h). Null, or the engine itself: the engine's own bounds (the interpreter's case).
  Engine* boundsEngine = nullptr;
};

struct CaseOutcome {
  enum class Status { Passed, Failed, Error };
  Status status = Status::Error;
  std::string directory;
  std::string name;  // the directory's last component
  std::string error;  // Error: why the case could not run (may span lines: one diagnostic each)
  std::string engine;  // Engine::name() of the engine that ran it
  FloatProfile profile = FloatProfile::Triton;  // the profile it ran under (optionsForCase)
  bool profileFromCase = false;                 // that profile is the one case.json records
  std::string boundsEngine;  // Engine::name() of the engine whose bounds judged the outputs, when another one
  std::vector<OutputComparison> outputs;
  LaunchResult launch;
  bool expectsReports = false;               // a diagnostics case
  std::vector<std::string> reportProblems;   // expected reports missing, or reports no entry allows
  std::vector<LaunchArgument> arguments;     // the launch's arguments after the run (outputs)
  std::vector<NpyType> fileTypes;            // per argument: the NumPy dtype of its input file
  std::optional<GoldenCase> goldenCase;      // as loaded
  std::vector<std::string> determinismProblems;  // "out_ptr differs between 1 thread/forward and all threads/reverse"
  double seconds = 0;

  bool passed() const { return status == Status::Passed; }
  // "PASS vadd_f32  out_ptr bit-exact" / "FAIL softmax_f32  out_ptr: 3 of 37000 failing, max 4 ulp ..."
  std::string line() const;
  // line() followed by reports, failing elements and determinism problems, indented.
  std::string details() const;
};

// The options a case runs under: `options`, with the case's recorded profile (case.json "profile") unless
// options.profileRequested.
CaseOptions optionsForCase(const CaseOptions& options, const GoldenCase& goldenCase);

// Runs the case in `directory` (which holds case.json and kernel.ttir) on `engine`.
CaseOutcome runCase(const std::string& directory, const CaseOptions& options, Engine& engine);

// The kernel file a case runs from: directory/kernel.ttir, or directory/kernel.ttgir under options.fromTtgir.
std::string kernelFileFor(const CaseOptions& options, const std::string& directory);

// The problems with a launch's reports for a case that expects some (empty: exactly the expected reports).
std::vector<std::string> checkExpectedReports(const GoldenCase& goldenCase, const LaunchResult& result);

// Case directories under the given roots: a root that is a case is itself; otherwise every directory below it
// (recursively) that holds a case.json, sorted. Roots that do not exist are reported in `missing`.
std::vector<std::string> findCaseDirectories(const std::vector<std::string>& roots, std::vector<std::string>& missing);

struct ConformanceSummary {
  int passed = 0;
  int diagnosticsPassed = 0;  // of those, cases that passed by reporting exactly their planted bug
  int failed = 0;
  int errors = 0;
  int bitExactOutputs = 0;
  int boundedOutputs = 0;  // passed only thanks to error bounds
  double seconds = 0;
  bool allPassed() const { return failed == 0 && errors == 0; }
  std::string str() const;
};

// Runs each case in order and calls `progress` after each with its outcome, its 0-based position and the count.
ConformanceSummary runConformance(const std::vector<std::string>& caseDirectories, const CaseOptions& options,
                                  Engine& engine, const std::function<void(const CaseOutcome&, size_t, size_t)>& progress);

}  // namespace tilesim
