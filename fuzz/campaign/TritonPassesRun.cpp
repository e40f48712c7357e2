// `tilesim fuzz --engine triton-passes` (TritonTarget.h, docs/ttgir.md "Pass by pass"): each program's TTIR
// through Triton 3.6's pipeline for sm_90 one pass at a time (TritonPipeline.h: make_ttir's passes, then
// make_ttgir's), and the module after every pass run by the interpreter against the original program, as the
// triton target judges its one optimised module (compareOptimised). The first pass whose module differs is the
// finding; its kind names the pass, so the shrinker keeps a program that the same pass breaks, and the modules
// before and after that pass and their diff are written beside the regression case.
#include <filesystem>
#include <fstream>

#include "fuzz/campaign/ScratchDirectory.h"
#include "fuzz/campaign/TritonPipeline.h"
#include "fuzz/campaign/TritonTarget.h"

namespace tilesim::fuzz {
namespace {

namespace fs = std::filesystem;

// What a failing pass or a crash says, as the triton target classifies it (known Triton bugs are skipped).
TritonVerdict pipelineFailure(const PipelineRun& run, const CheckedProgram& program) {
  if (run.kind == PipelineRun::Kind::BadInput)
    return tritonFailure("triton-rejects-input", "Triton's parser rejects tilesim's TTIR", run.message, program.text);
  if (run.kind == PipelineRun::Kind::Crashed)
    return tritonFailure("triton-crash", "the compiler aborted", run.message, program.text);
  const PipelineModule& failed = run.modules.back();
  return tritonFailure("triton-crash", "pass " + failed.pass + " failed", failed.text, program.text);
}

}  // namespace

TritonVerdict TritonTarget::checkPassByPass(const KernelPlan& plan, const CheckedProgram& program, Engine& interpreter,
                                            bool compareResults, const std::function<void(const char*)>& ran) {
  ScratchDirectory scratch("tilesim-triton-passes");
  if (scratch.path.empty()) return TritonVerdict::skip("target-unavailable", "cannot make a temporary directory");
  const std::string ttirPath = (fs::path(scratch.path) / "program.ttir").string();
  std::ofstream(ttirPath) << program.text;
  PipelineOptions options;
  options.numWarps = plan.numWarps;
  PipelineRun run = runTritonPipeline(ttirPath, (fs::path(scratch.path) / "passes").string(), options);
  if (run.kind == PipelineRun::Kind::Unavailable) return TritonVerdict::skip("target-unavailable", run.message);
  if (run.kind != PipelineRun::Kind::Ran || run.passFailed()) return pipelineFailure(run, program);
  ran("triton-passes-pipeline");
  if (!compareResults)
    return TritonVerdict::skip("target-ub",
                               "the program has undefined behaviour in some lane; Triton's passes ran, "
                               "their modules are not compared");
  PipelineVerdict verdict = judgePipeline(run, [&](const Module& module, const PipelineModule& step) {
    if (!module.kernel()) return ModuleJudgement{ModuleJudgement::Kind::NotRunnable, "no kernel in it"};
    OptimisedComparison compared = compareOptimised(plan, program, interpreter, module, step.text, ran);
    if (!compared.startError.empty()) return ModuleJudgement{ModuleJudgement::Kind::NotRunnable, compared.startError};
    if (compared.difference.empty() && compared.reports.empty()) return ModuleJudgement{ModuleJudgement::Kind::Agrees, ""};
    return ModuleJudgement{ModuleJudgement::Kind::Differs,
                           compared.difference + (compared.reports.empty() ? "" : "  new reports:\n" + compared.reports)};
  });
  for (size_t i = 0; i < run.modules.size(); ++i) {
    const ModuleJudgement& judgement = verdict.judgements[i];
    const PipelineModule& step = run.modules[i];
    if (judgement.kind == ModuleJudgement::Kind::NotRunnable &&
        judgement.detail != "not runnable yet (warp_specialize)") {
      TritonVerdict rejected = TritonVerdict::finding(
          "triton-output-rejected",
          "triton-output-rejected: after " + step.pass + ": " + withoutNumbers(judgement.detail),
          "triton-output-rejected: tilesim cannot run the module after pass " + std::to_string(step.index) + " " +
              step.pass + ": " + judgement.detail + "\n" + program.text);
      rejected.files["after-" + step.pass + ".mlir"] = step.text;
      return rejected;
    }
    if (i == static_cast<size_t>(verdict.firstDiffering)) {
      const PipelineModule& before = run.modules[i > 0 ? i - 1 : 0];
      const std::string diff = passDiff(before, step, scratch.path);
      TritonVerdict mismatch =
          TritonVerdict::finding("triton-pass-mismatch", "triton-pass-mismatch: " + step.pass,
                                 "triton-pass-mismatch: the module after pass " + std::to_string(step.index) + " " +
                                     step.pass + " computes something else than the program\n" + judgement.detail +
                                     program.built.summary + program.text + "\n// the pass's diff:\n" + diff);
      mismatch.failure.buffers = {};
      mismatch.files["before-" + step.pass + ".mlir"] = before.text;
      mismatch.files["after-" + step.pass + ".mlir"] = step.text;
      mismatch.files["pass.diff"] = diff;
      return mismatch;
    }
  }
  ran("triton-passes-agree");
  return TritonVerdict{};
}

}  // namespace tilesim::fuzz
