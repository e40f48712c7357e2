// The real-Triton target of a campaign (`tilesim fuzz --engine triton`, docs/fuzzing.md "Real Triton as a
// target"): each program's printed TTIR goes to a Triton worker (TritonWorker.h), which runs Triton 3.6's TTIR
// passes (make_ttir for sm_90, then the target-independent passes make_ttgir runs: sccp, licm, triton_licm,
// loop_aware_cse, canonicalizer, cse) and make_ttgir; the interpreter then runs the optimised TTIR on the same
// inputs and its buffers must be bit for bit the original's (two NaNs equal whatever their payloads), with no
// report the original did not have. Triton's TTIR passes have no fast-math and do not reassociate; the one rewrite
// allowed to change float bits is combine's dot fusion (addf(dot(a, b, 0), c) -> dot(a, b, c)): where the
// optimised kernel has fewer addf than the original and a tt.dot, a difference is judged under the triton
// profile's bounds instead. Outcomes, as checks of the campaign summary:
//   triton-crash          Triton aborted, or one of its passes failed (a verifier error) on valid TTIR: a finding;
//   triton-rejects-input  Triton's parser rejects tilesim's printed TTIR: a finding (tilesim's printer, or Triton);
//   triton-output-rejected  tilesim cannot parse, verify or run the TTIR Triton printed: a finding (tilesim);
//   triton-opt-mismatch   the optimised TTIR computes something else: a finding;
//   triton-known (skipped)  a failure matching a known Triton bug of docs/findings.md (T3 ...), counted, not shrunk;
//   target-unavailable (skipped)  the worker gave no answer in time (it is killed and restarted).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/campaign/TritonWorker.h"
#include "fuzz/programs/KernelGen.h"
#include "fuzz/programs/ProgramCheck.h"
#include "fuzz/programs/RegressionWriter.h"
#include "ir/launch/Engine.h"

namespace tilesim::fuzz {

struct TritonTargetOptions {
  std::string python;     // resolved by probeTritonTarget
  std::string script;     // conformance/triton/triton_worker.py
  double timeoutSeconds = 60;  // per program (compile request)
  // "" : on the CPU (the passes above). "cuda" (`--triton-run gpu`): Triton compiles each program for sm_90 and
  // launches it (TritonGpuRun.cpp); "tilesim": the same with the interpreter standing in for the GPU (tests).
  std::string launcher;
  // `--engine triton-passes` (TritonPassesRun.cpp): Triton's pipeline pass by pass (TritonPipeline.h), every
  // module after every pass run by the interpreter against the original; a difference names its pass.
  bool passByPass = false;
};

struct TritonProbe {
  std::string badInput;     // TILESIM_PYTHON names no executable: a usage error
  std::string unavailable;  // no Python here can import triton: the target is skipped
  std::string version;      // "triton 3.6.0 (PYTHON)" when available
};

// Finds a Python whose worker starts (TritonWorker.h's candidates, in order) and the worker script; sets
// options.python and options.script.
TritonProbe probeTritonTarget(TritonTargetOptions& options);

// What the target concluded about one program (Campaign.cpp turns it into its verdict).
struct TritonVerdict {
  bool failed = false, skipped = false;
  std::string check, message;
  FailureClass failure;
  std::map<std::string, std::string> files;  // written beside a regression case: the optimised TTIR, the TTGIR
  std::vector<EngineOutputs> others;          // --triton-run gpu: Triton's buffers, for the regression case

  // A program the check did not judge (`check` says why: target-ub, target-unavailable, triton-known, ...).
  static TritonVerdict skip(std::string check, std::string message) {
    TritonVerdict verdict;
    verdict.skipped = true;
    verdict.check = std::move(check);
    verdict.message = std::move(message);
    return verdict;
  }
  // A finding of failure class `kind` (what the shrinker keeps), `buffers` the outputs that differ.
  static TritonVerdict finding(std::string check, std::string kind, std::string message,
                               std::vector<std::string> buffers = {}) {
    TritonVerdict verdict;
    verdict.failed = true;
    verdict.check = std::move(check);
    verdict.message = std::move(message);
    verdict.failure = {std::move(kind), std::move(buffers)};
    return verdict;
  }
};

class TritonTarget {
 public:
  explicit TritonTarget(const TritonTargetOptions& options);
  // `program` has passed the interpreter's own checks (its exactOutputs are the reference's). `ran(name)` counts
  // the checks that ran: triton-ttir, triton-ttgir, triton-compare. Without `compareResults` (a program with
  // undefined behaviour in some lane, whose result the optimiser may change) Triton still compiles it, and a
  // clean compile is skipped as `target-ub`.
  TritonVerdict check(const KernelPlan& plan, const CheckedProgram& program, Engine& interpreter, bool compareResults,
                      const std::function<void(const char*)>& ran);

 private:
  // --triton-run gpu (TritonGpuRun.cpp): Triton compiles and launches the program, its buffers are judged against
  // the interpreter's under the triton profile (bit for bit where only exact ops touched a value, within the
  // interpreter's error bounds elsewhere), as `--engine gpu --profile triton` judges tilesim's GPU backend.
  TritonVerdict checkOnGpu(const KernelPlan& plan, const CheckedProgram& program, bool compareResults,
                           const std::function<void(const char*)>& ran);

  // --engine triton-passes (TritonPassesRun.cpp): triton_pipeline.py per program (a fresh process: a pass that
  // aborts costs one program); outcomes triton-pass-mismatch (a module after pass P computes something else: the
  // failure's kind names P, so shrinking keeps the same pass), triton-crash, triton-output-rejected (tilesim cannot
  // parse or run a module: the kind names the pass), as for the triton target.
  TritonVerdict checkPassByPass(const KernelPlan& plan, const CheckedProgram& program, Engine& interpreter,
                                bool compareResults, const std::function<void(const char*)>& ran);

  TritonWorker worker_;
  bool onGpu_ = false;
  bool passByPass_ = false;
};

// The interpreter on a module Triton's passes made from `program` (exact profile, one thread) against the original's
// outputs: `difference` (per buffer) and `reports` (new ones) empty when they agree — bit for bit, or, where the
// module has fewer arith.addf than the program and a tt.dot (combine's dot fusion), within the triton profile's
// bounds. `startError` when the launch could not start.
struct OptimisedComparison {
  std::string startError, difference, reports;
  std::vector<std::string> differing;  // the buffers that differ
};
OptimisedComparison compareOptimised(const KernelPlan& plan, const CheckedProgram& program, Engine& interpreter,
                                     const Module& optimised, const std::string& optimisedText,
                                     const std::function<void(const char*)>& ran);

// A Triton failure (crash, pass failure, parse error, failed compile): known ones are skipped, the others are
// findings whose kind (what the shrinker keeps) is the concise diagnostic without numbers.
TritonVerdict tritonFailure(const std::string& check, const std::string& stage, const std::string& diagnostic,
                            const std::string& programText);

// The first error line of an MLIR diagnostic without its file position, with the failing pass when named:
// "failed to legalize unresolved materialization ... (pass ConvertTritonToTritonGPU)".
std::string conciseTritonDiagnostic(const std::string& diagnostic);

// The known Triton bug (docs/findings.md) a failure's diagnostic matches, "T3: ..."; "" for none.
std::string knownTritonFinding(const std::string& diagnostic);

}  // namespace tilesim::fuzz
