// Triton's pipeline pass by pass (`tilesim passes`, `tilesim fuzz --engine triton-passes`; docs/ttgir.md "Pass by
// pass"): conformance/triton/triton_pipeline.py replays the installed Triton's make_ttir and make_ttgir one pass
// per pass manager and writes the module after each into a directory; this side reads them back and judges each
// with a caller's rule (the interpreter's result against the TTIR's), naming the first pass whose module differs
// with that pass's IR diff.
//
// Each module is one of: agrees, differs (the caller's message), or not runnable (tilesim cannot parse or verify
// it, or it holds `ttg.warp_specialize`, which the interpreter does not run yet: reason given). The first
// differing pass is the first module that differs; the diff shown is that pass's own (module before -> after).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace tilesim::fuzz {

struct PipelineOptions {
  int capability = 90;  // 80 or 90 (Triton's make_ttgir takes other paths per capability)
  int numWarps = 4;
  int numStages = 3;
  int injectAfter = -1;  // >= 1: fault injection after that pass (triton_pipeline.py INJECTIONS)
  std::string inject;    // addf-to-subf, cmpi-predicate, make-range-shift, drop-async-wait
};

// The injection kinds triton_pipeline.py knows (for option validation).
const std::vector<std::string>& pipelineInjectionKinds();

struct PipelineModule {
  int index = 0;       // 0: the input, k: after the k-th pass
  std::string pass;    // "input", "ttir.combine", "ttg.coalesce", ...
  std::string status;  // ok, injected, failed (the pass failed: `text` is its diagnostic)
  std::string path;    // the file in the output directory
  std::string text;
};

struct PipelineRun {
  enum class Kind { Ran, Unavailable, BadInput, Crashed };
  Kind kind = Kind::Unavailable;
  std::string message;  // why not Ran (the script's output, or why no Python could run it)
  std::string python;   // the Python that ran it
  std::vector<PipelineModule> modules;
  bool passFailed() const { return !modules.empty() && modules.back().status == "failed"; }
};

// Runs triton_pipeline.py on `ttirPath`, writing into `outDir` (created). Tries the Pythons of
// tritonPythonCandidates in order until one has triton.
PipelineRun runTritonPipeline(const std::string& ttirPath, const std::string& outDir, const PipelineOptions& options);

struct ModuleJudgement {
  enum class Kind { Agrees, Differs, NotRunnable };
  Kind kind = Kind::NotRunnable;
  std::string detail;  // Differs: what differs; NotRunnable: why
};

struct PipelineVerdict {
  std::vector<ModuleJudgement> judgements;  // one per module of the run (a failed pass: NotRunnable)
  int firstDiffering = -1;                  // the index of the first module that differs, -1 when none
  int notRunnable = 0;                      // modules not run, warp_specialize excluded
  int warpSpecialize = 0;                   // modules not run because they hold ttg.warp_specialize
};

// Parses and verifies each module (a module that does not is not runnable) and asks `judge` about it.
PipelineVerdict judgePipeline(const PipelineRun& run,
                              const std::function<ModuleJudgement(const Module&, const PipelineModule&)>& judge);

// The unified diff (diff -u, locations left out) from `before` to `after`; `scratchDir` holds the two inputs.
std::string passDiff(const PipelineModule& before, const PipelineModule& after, const std::string& scratchDir);

}  // namespace tilesim::fuzz
