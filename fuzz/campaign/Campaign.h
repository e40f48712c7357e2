// Differential fuzz campaigns (`tilesim fuzz`, docs/fuzzing.md). A campaign is the sequence of program indices
// 0, 1, 2, ...; program i is generated from programSeed(S, i) alone, so any subset of indices can run anywhere, in any
// order, on any number of threads, and give the same programs and results. A shard I/N runs the indices i with
// i % N == I, so N shards together run exactly the unsharded campaign.
//
// Per program: generate (KernelGen), print, re-parse, verify, then
//   - target interp: the interpreter against the independent lane-by-lane reference, four runs (1 and 2 threads,
//     forward/reverse/shuffled program order, exact and triton profiles; ProgramCheck.h);
//   - target gpu (any Engine): the same interpreter property, then the interpreter (the oracle) against the engine
//     under one profile: bit for bit under `exact`, within the interpreter's per-element bounds under `triton`;
//   - target triton: the same interpreter property, then Triton 3.6's TTIR passes and make_ttgir on the printed
//     program (a Python worker process per job, TritonTarget.h), the optimised TTIR in the interpreter against
//     the original, bit for bit;
//   - target triton-passes: the same, with Triton's pipeline run one pass at a time and the module after every
//     pass in the interpreter (TritonPassesRun.cpp): a difference names the first pass that made it;
//   - optionally --check-ptxas: tilesim's GPU pipeline to PTX, assembled by ptxas -arch=sm_90a.
// A failing program is shrunk (Shrink.h) and written to the regression directory as a conformance case.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/campaign/TritonTarget.h"
#include "fuzz/programs/KernelGen.h"
#include "fuzz/programs/ProgramCheck.h"
#include "ir/launch/Engine.h"

namespace tilesim::fuzz {

uint64_t programSeed(uint64_t campaignSeed, int64_t index);
// The plan of program `index` of campaign `seed` (RapidCheck's generator driven by rc::Random(programSeed)).
KernelPlan planFor(uint64_t campaignSeed, int64_t index);

// The features a program uses (swarm testing turns them on per program); sorted, e.g. {"2d", "loop", "reduce"}.
// `arguments` (the built launch's, optional) add the views' alignments: view-16, view-8 (8 but not 16 bytes),
// view-4, view-unaligned, shared-storage.
std::vector<std::string> programFeatures(const KernelPlan& plan, const std::map<std::string, int64_t>& opCounts,
                                         const std::vector<LaunchArgument>* arguments = nullptr);

enum class ProgramStatus : uint8_t { Passed, Failed, Skipped };

struct ProgramRecord {
  int64_t index = 0;
  uint64_t seed = 0;
  ProgramStatus status = ProgramStatus::Passed;
  std::string check;         // the failing (or skipped) check: "mismatch", "gpu-mismatch", "ptxas", ...
  std::string message;       // its first line
  std::string casePath;      // the minimal case written for a failure
  uint64_t digest = 0;       // hash of the printed program and the interpreter's outputs (equal runs, equal digests)
  std::map<std::string, int64_t> opCounts;
  std::vector<std::string> dtypes;    // element dtypes of the buffers
  std::vector<std::string> features;
};

// The mergeable summary of a campaign (or of several shards: merge adds them up).
struct CampaignSummary {
  uint64_t seed = 0;
  std::string target = "interp";
  int64_t programs = 0, passed = 0, failed = 0, skipped = 0;
  double seconds = 0;                        // wall time (summed over merged shards)
  double cpuSeconds = 0;                     // user + system CPU time of the campaign's process and the children
                                             // it waited for: ptxas, Triton workers (getrusage)
  StageSeconds stages;                       // per-stage wall time summed over jobs (with --timings)
  bool timed = false;                        // `stages` was measured
  uint64_t digest = 0;                       // sum of the programs' digests (order independent)
  std::map<std::string, int64_t> ops;        // op mnemonic -> occurrences
  std::map<std::string, int64_t> programsWithOp;
  std::map<std::string, int64_t> dtypes;     // dtype -> programs using it
  std::map<std::string, int64_t> features;   // feature -> programs
  std::map<std::string, int64_t> combos;     // "2d+loop+reduce" -> programs
  std::map<std::string, int64_t> skips;      // check -> programs skipped by it ("ptxas-absent", "gpu-unsupported")
  std::map<std::string, int64_t> checks;     // check -> programs that ran it ("reference", "round-trip", ...)
  std::map<std::string, int64_t> skipReasons;  // "ptxas-unsupported: tt.dot with ... is not supported" -> programs
  std::vector<ProgramRecord> failures;       // opCounts cleared
  std::vector<std::string> shards;           // "I/N" of each merged shard

  void add(const ProgramRecord& record);
  void merge(const CampaignSummary& other);
  nlohmann::ordered_json toJson() const;
  static std::optional<CampaignSummary> fromJson(const nlohmann::json& json, std::string& error);
  std::string human() const;  // the final summary for people
};

// Ops of the op table a generated program can contain, and those it cannot (with the reason).
struct CoverageExclusion {
  const char* mnemonic;
  const char* reason;
};
const std::vector<CoverageExclusion>& coverageExclusions();
std::vector<std::string> coverableOps();  // the op table minus the exclusions
// Percent of coverableOps() that `ops` contains.
double coveragePercent(const std::map<std::string, int64_t>& ops, std::vector<std::string>* missing = nullptr);

struct CampaignOptions {
  uint64_t seed = 1;
  int64_t count = 0;            // indices below count (in this shard); 0: until `seconds`
  int64_t first = 0;            // the lowest index (replaying one program: first = i, count = i + 1)
  double seconds = 0;           // wall-clock bound; 0: none
  int jobs = 1;
  int shardIndex = 0, shardCount = 1;
  std::string emitDir;          // every program as a conformance case (interpreter's triton outputs as expected)
  std::string regressionDir;    // minimal failing cases ("" : conformance/regressions of the source tree)
  std::string targetName = "interp";
  // The engine compared with the interpreter (null: interp target). One per job: engines need not be thread-safe.
  std::function<std::unique_ptr<Engine>()> makeTarget;
  // Target triton (targetName "triton"): the worker's Python and script (probeTritonTarget, TritonTarget.h).
  TritonTargetOptions triton;
  bool tritonProfile = false;   // gpu target: compare under the triton profile (bounds) instead of exact bits
  bool checkPtxas = false;
  std::string ptxas;            // resolved path; empty with checkPtxas: skipped visibly
  bool shrink = true;
  int shrinkBudget = 400;       // candidate plans tried per failure
  double shrinkGraceSeconds = 30;  // with `seconds`: no shrinking step starts later than seconds + this
  bool progress = false;        // live line on stderr
  // A program (target run, or one shrinking step) that has not finished after this many seconds is reported as a
  // "hang" failure and abandoned: the campaign stops, summarises what finished and returns with
  // CampaignResult::abandoned set (the stuck threads cannot be joined: a GPU kernel that never ends holds its
  // thread inside the driver, so the caller must end the process without running destructors). 0: wait forever.
  double hangSeconds = 120;
  // Stop once this many programs have failed (0: no limit). The programs other jobs are running then still finish,
  // so with jobs > 1 a few more may fail. The mutation score (fuzz/mutants/) stops at the first.
  int64_t maxFailures = 0;
  bool timings = false;         // measure the time per stage (CampaignSummary::stages)
  bool keepRecords = false;     // fill CampaignResult::records (tests)
};

struct CampaignResult {
  CampaignSummary summary;
  std::vector<ProgramRecord> records;  // sorted by index, when keepRecords
  int abandoned = 0;                   // worker threads still stuck in a hung program (see hangSeconds)
};

CampaignResult runCampaign(const CampaignOptions& options);

// Under the triton profile: "" unless the kernel of `module` uses a value computed by an approximate float op
// (div.full, the math functions, libdevice, a float tt.dot or atomic add), or anything computed from it, where
// the interpreter's error bounds do not follow it: a control-flow decision (scf.if, scf.for bounds, a while's
// condition), an atomic's address or mask, block pointers and descriptors, inline asm; then the op. Integers,
// booleans, addresses, gather indices and stores derived from such values are followed (docs/findings.md G9).
// The gpu target skips the programs it names (`target-unspecified`).
std::string unfollowedApproximateValue(const Module& module);

// Asks a running campaign to stop (async-signal-safe: SIGINT/SIGTERM handlers call it): no new program starts,
// and programs still running 10 s later are abandoned as "interrupted"; the summary covers what finished.
void requestCampaignStop();

// ptxas on PATH or in /usr/local/cuda/bin; "" when absent.
std::string findPtxas();

}  // namespace tilesim::fuzz
