// The steps of an interpreter launch, which runLaunch (Launch.cpp) takes in order:
//   1. checkGrid            the grid's dimensions and program count;
//   2. bindLaunch           arguments to parameters (ir/launch/Binding.h, the same binding the GPU engine uses);
//   3. layOutMemory         one address-space window per buffer that owns storage (LaunchPreparation.cpp);
//   4. prepareContext       functions, kernel argument tiles from the binding, cached constants (LaunchPreparation.cpp);
//   5. ProgramRuns::run     every program, in parallel, in the requested order; a launch that raced runs again
//                           on one thread so its race reports do not depend on timing (ProgramRuns.cpp);
//   6. collectResults       reports merged and sorted, prints, error bounds, alias views (ProgramRuns.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/Executor.h"
#include "interpreter/Interpreter.h"
#include "interpreter/Memory.h"
#include "ir/launch/Binding.h"

namespace tilesim {

// "" when every grid dimension is in [1, 2^31) and the grid has at most 2^30 programs (set in `programs`); else
// the message.
std::string checkGrid(const Launch& launch, int64_t& programs);

// Gives each buffer argument that owns its storage a window of `memory` (storageOf[i]: argument i's buffer, null
// for scalars and aliases) and turns on error-bound tracking where the launch needs it. "" or the message.
std::string layOutMemory(Launch& launch, const LaunchOptions& options, Memory& memory, std::vector<Buffer*>& storageOf);

// Fills `context` for the launch: the functions, the kernel's argument tiles (from `binding`, pointers into the
// windows of `storageOf`), the constants small enough to build once.
void prepareContext(LaunchContext& context, const Launch& launch, const LaunchOptions& options, const ProgramTrace* trace,
                    const LaunchBinding& binding, Memory& memory, const std::vector<Buffer*>& storageOf);

// The host threads to run `programs` programs on: the options', one for a launch too small to pay for waking
// workers, else every core; never more than the programs or kMaxThreads.
int chooseThreadCount(const Launch& launch, const LaunchOptions& options, int64_t programs);

// The tt.print lines of the launch: those of the lowest program ids, at most `limit` lines in all, whatever
// order the programs finish in; every other line is counted. Shared by the worker threads.
class PrintCollector {
 public:
  explicit PrintCollector(int64_t limit) : limit_(limit) {}
  void add(int64_t program, ProgramPrints prints);
  int64_t dropped() const { return dropped_; }
  std::map<int64_t, std::vector<std::string>> kept;

 private:
  std::mutex mutex_;
  int64_t limit_;
  int64_t kept_ = 0;
  int64_t dropped_ = 0;
};

// The programs of one launch: how races are detected (an access log for kernels without atomics, else the
// per-element shadow), the run, and the single-thread rerun of a launch that raced.
class ProgramRuns {
 public:
  ProgramRuns(Launch& launch, LaunchContext& context, Memory& memory, const std::vector<Buffer*>& storageOf,
              int64_t programs, int threads);
  void run();
  bool interrupted() const { return context_.stopped.load(); }
  // The program that ran out of host memory, if one did.
  std::optional<std::array<int64_t, 3>> outOfMemory() const;
  std::vector<ReportSink>& sinks() { return sinks_; }
  PrintCollector& prints() { return *prints_; }

 private:
  void chooseRaceDetection();
  void keepInputs();
  void runPrograms(int threadCount, const LaunchOptions& options);
  void runTracedProgram();
  bool raced();
  void rerunFromInputs();

  Launch& launch_;
  LaunchContext& context_;
  Memory& memory_;
  const std::vector<Buffer*>& storageOf_;
  int64_t programs_;
  int threads_;
  bool raceLog_ = false;
  size_t logBudget_ = 0;
  // Each buffer's inputs for the rerun: the caller's pristine copy when it has one, else a copy taken up front.
  std::vector<std::vector<uint8_t>> inputs_;
  std::vector<const uint8_t*> inputSource_;
  std::vector<ReportSink> sinks_;
  std::vector<AccessLog> logs_;
  std::unique_ptr<PrintCollector> prints_;
};

// Fills `result` from the finished runs: reports merged and sorted (at most maxReportsPerKind of each kind kept),
// report groups, tt.print lines (echoed when asked); copies error bounds into the arguments and refreshes alias
// views.
void collectResults(ProgramRuns& runs, Launch& launch, const LaunchOptions& options, const LaunchBinding& binding,
                    Memory& memory, const std::vector<Buffer*>& storageOf, LaunchResult& result);

}  // namespace tilesim
