// The conformance runner: runs golden cases on the interpreter and judges them against the GPU's outputs.
// One case = parse kernel.ttir, verify it, launch it with the case's arguments (float profile `triton`, checks
// on), then compare every buffer that has an `expected` file (Compare.h). A case passes when every output passes
// and the launch reported nothing (no out-of-bounds access, undefined lane, race, assert or UB).
// Determinism mode runs each case several ways (1 thread and all threads; programs in forward, reverse and
// shuffled order) and requires byte-identical buffers from all of them, since a Triton grid has no order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "conformance/runner/Compare.h"
#include "conformance/runner/GoldenCase.h"
#include "interpreter/Interpreter.h"

namespace tilesim {

struct CaseOptions {
  FloatProfile profile = FloatProfile::Triton;
  bool checks = true;
  bool checkUB = false;
  int threads = 0;  // 0 = all
  ProgramOrder order = ProgramOrder::Forward;
  bool determinism = false;  // also require identical outputs across threads and program orders
  int maxFailuresShown = 5;
};

struct CaseOutcome {
  enum class Status { Passed, Failed, Error };
  Status status = Status::Error;
  std::string directory;
  std::string name;  // the directory's last component
  std::string error;  // Error: why the case could not run (may span lines: one diagnostic each)
  std::vector<OutputComparison> outputs;
  LaunchResult launch;
  std::vector<std::string> determinismProblems;  // "out_ptr differs between 1 thread/forward and all threads/reverse"
  double seconds = 0;

  bool passed() const { return status == Status::Passed; }
  // "PASS vadd_f32  out_ptr bit-exact" / "FAIL softmax_f32  out_ptr: 3 of 37000 failing, max 4 ulp ..."
  std::string line() const;
  // line() followed by reports, failing elements and determinism problems, indented.
  std::string details() const;
};

// Runs the case in `directory` (which holds case.json and kernel.ttir).
CaseOutcome runCase(const std::string& directory, const CaseOptions& options);

// Case directories under the given roots: a root that is a case is itself; otherwise every directory below it
// (recursively) that holds a case.json, sorted. Roots that do not exist are reported in `missing`.
std::vector<std::string> findCaseDirectories(const std::vector<std::string>& roots, std::vector<std::string>& missing);

struct ConformanceSummary {
  int passed = 0;
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
                                  const std::function<void(const CaseOutcome&, size_t, size_t)>& progress);

}  // namespace tilesim
