// `tilesim passes CASE_DIR`: Triton 3.6's own pipeline (make_ttir, then make_ttgir for the case's target) run on
// the CPU one pass at a time (fuzz/campaign/TritonPipeline.h), the module after every pass interpreted on the
// case's inputs and compared with the case's kernel.ttir run the same way, and the first pass whose module
// computes something else named, with its IR diff. `--inject-after K --inject KIND` plants a wrong rewrite after
// pass K (a test of the localisation: the answer must be pass K). docs/ttgir.md "Pass by pass".
//
// The rule (the interpreter's comparison rules, Compare.h): every buffer bit for bit the TTIR run's, or within
// the TTIR run's error bound under the case's profile (triton unless the case records exact); and the same kinds
// of reports. Exit codes as for every command (Cli.h): 0 every module agrees, 1 a pass differs or failed or a
// module cannot be run (other than warp_specialize, which is listed and not yet run), 2 bad input, 4 skipped (no
// Python with triton here).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "conformance/runner/Conformance.h"
#include "fuzz/campaign/TritonPipeline.h"
#include "ir/FileIO.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {
namespace fs = std::filesystem;

struct PassesFlags {
  std::string caseDir;
  std::string target;  // sm_80 | sm_90; empty: kernel.ttgir's ttg.target, else sm_90
  int numWarps = 0;    // 0: the case's
  int numStages = 0;   // 0: case.json's num_stages, else Triton's default 3
  std::string keep;    // write the modules here (kept)
  int injectAfter = 0;
  std::string inject;
  int threads = 0;
};

// What one run of a module left: its buffers, their bounds, and the kinds of report it made.
struct ModuleRun {
  std::string error;  // why it did not start
  std::vector<LaunchArgument> arguments;
  std::multiset<std::string> reportKinds;
};

ModuleRun runModule(const Module& module, const GoldenCase& goldenCase, Engine& engine, const LaunchOptions& options) {
  ModuleRun run;
  CaseLaunch built = caseLaunch(goldenCase, module);
  if (!built.error.empty()) {
    run.error = built.error;
    return run;
  }
  Launch& launch = built.launch;
  LaunchOutcome outcome = engine.run(launch, options);
  if (!outcome.started()) {
    run.error = outcome.diagnostics.empty() ? "the launch did not start" : outcome.diagnostics.front().str();
    return run;
  }
  for (const Report& report : outcome.result.reports) run.reportKinds.insert(reportKindName(report.kind));
  run.arguments = std::move(launch.arguments);
  return run;
}

// `got` against the TTIR's run `reference`: "" when they agree, else what differs.
std::string compareRuns(const ModuleRun& got, const ModuleRun& reference) {
  std::string differences;
  for (size_t i = 0; i < reference.arguments.size() && i < got.arguments.size(); ++i) {
    const LaunchArgument& expected = reference.arguments[i];
    if (!expected.isBuffer()) continue;
    const int64_t count = static_cast<int64_t>(expected.bytes.size()) / storageBytes(expected.elementKind);
    const std::vector<int64_t> shape{count};
    OutputComparison comparison = compareOutput(expected.name, expected.elementKind, shape, got.arguments[i].bytes,
                                                expected.bytes, expected.errorBound);
    if (!comparison.passed()) differences += comparison.details() + "\n";
  }
  if (got.reportKinds != reference.reportKinds) {
    auto list = [](const std::multiset<std::string>& kinds) {
      std::string text;
      for (const std::string& kind : std::set<std::string>(kinds.begin(), kinds.end()))
        text += (text.empty() ? "" : ", ") + kind + " x" + std::to_string(kinds.count(kind));
      return text.empty() ? std::string("none") : text;
    };
    differences += "reports: " + list(got.reportKinds) + " (the TTIR's: " + list(reference.reportKinds) + ")\n";
  }
  return differences;
}

// The pipeline's options from the case and the flags; "" or what is wrong with the case.
std::string pipelineOptionsFor(const PassesFlags& flags, const GoldenCase& goldenCase, fuzz::PipelineOptions& options) {
  options.numWarps = flags.numWarps > 0 ? flags.numWarps : goldenCase.numWarps;
  options.numStages = 3;  // Triton's default (CUDAOptions.num_stages)
  std::string text, error;
  const std::string caseJson = (fs::path(flags.caseDir) / "case.json").string();
  if (!readRegularFile(caseJson, kMaxKernelFileBytes, text, error)) return caseJson + ": " + error;
  // num_stages is a compile option: case.json's own, else what a captured launch recorded (capture.num_stages,
  // capture.options.num_stages); a kernel's constexpr of that name (constexprs.num_stages) is not it.
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  auto numStagesIn = [](const nlohmann::json& object) -> const nlohmann::json* {
    return object.is_object() && object.contains("num_stages") ? &object["num_stages"] : nullptr;
  };
  const nlohmann::json* found = numStagesIn(json);
  if (!found && json.is_object() && json.contains("capture")) {
    const nlohmann::json& capture = json["capture"];
    found = numStagesIn(capture);
    if (!found && capture.is_object() && capture.contains("options")) found = numStagesIn(capture["options"]);
  }
  if (found) {
    const nlohmann::json& stages = *found;
    if (!stages.is_number_integer() || stages.get<int64_t>() < 1 || stages.get<int64_t>() > 8)
      return caseJson + ": num_stages must be an integer from 1 to 8";
    options.numStages = stages.get<int>();
  }
  if (flags.numStages > 0) options.numStages = flags.numStages;
  options.capability = 90;
  std::string ttgir;
  if (readRegularFile((fs::path(flags.caseDir) / "kernel.ttgir").string(), kMaxKernelFileBytes, ttgir, error) &&
      ttgir.find("ttg.target = \"cuda:80\"") != std::string::npos)
    options.capability = 80;
  if (!flags.target.empty()) options.capability = flags.target == "sm_80" ? 80 : 90;
  options.injectAfter = flags.injectAfter > 0 ? flags.injectAfter : -1;
  options.inject = flags.inject;
  return "";
}

// The directory the modules go to: --keep, else a fresh temporary one (removed at the end).
std::string workDirectory(const PassesFlags& flags, std::string& error) {
  if (!flags.keep.empty()) {
    std::error_code code;
    fs::create_directories(flags.keep, code);
    if (code || !fs::is_directory(flags.keep)) error = "--keep " + flags.keep + ": cannot create the directory";
    return flags.keep;
  }
  std::error_code code;
  std::string pattern = (fs::temp_directory_path(code) / "tilesim-passes-XXXXXX").string();
  if (code || !::mkdtemp(pattern.data())) error = "cannot make a temporary directory";
  return pattern;
}

int reportVerdict(const PassesFlags& flags, const fuzz::PipelineRun& run, const fuzz::PipelineVerdict& verdict,
                  const std::string& workDir) {
  int agree = 0;
  for (size_t i = 0; i < run.modules.size(); ++i) {
    const fuzz::PipelineModule& module = run.modules[i];
    const fuzz::ModuleJudgement& judgement = verdict.judgements[i];
    const char* word = judgement.kind == fuzz::ModuleJudgement::Kind::Agrees ? "agrees"
                       : judgement.kind == fuzz::ModuleJudgement::Kind::Differs ? "DIFFERS"
                                                                                 : "not run";
    agree += judgement.kind == fuzz::ModuleJudgement::Kind::Agrees;
    std::printf("[%3d] %-40s %s%s%s%s\n", module.index, module.pass.c_str(), word, module.status == "injected" ? " (injected)" : "",
                judgement.detail.empty() || judgement.kind == fuzz::ModuleJudgement::Kind::Differs ? "" : ": ",
                judgement.kind == fuzz::ModuleJudgement::Kind::Differs ? "" : judgement.detail.c_str());
  }
  std::printf("%zu modules (the input and %zu passes): %d agree with the TTIR, %d not runnable, %d with "
              "warp_specialize (not run yet)\n",
              run.modules.size(), run.modules.empty() ? 0 : run.modules.size() - 1, agree, verdict.notRunnable,
              verdict.warpSpecialize);
  int exitCode = verdict.notRunnable > 0 ? kExitFailed : kExitOk;
  if (run.passFailed()) {
    const fuzz::PipelineModule& failed = run.modules.back();
    std::printf("pass %d %s failed:\n%s\n", failed.index, failed.pass.c_str(), failed.text.c_str());
    exitCode = kExitFailed;
  }
  if (verdict.firstDiffering >= 0) {
    const size_t at = static_cast<size_t>(verdict.firstDiffering);
    std::printf("first differing pass: %d %s\n%s", run.modules[at].index, run.modules[at].pass.c_str(),
                verdict.judgements[at].detail.c_str());
    if (at > 0) std::printf("%s", fuzz::passDiff(run.modules[at - 1], run.modules[at], workDir).c_str());
    exitCode = kExitFailed;
  }
  if (!flags.keep.empty()) std::printf("modules kept in %s\n", flags.keep.c_str());
  return exitCode;
}

int runPasses(const PassesFlags& flags) {
  if ((flags.injectAfter > 0) != !flags.inject.empty()) {
    printError("--inject-after and --inject go together");
    return kExitBadInput;
  }
  CaseLoad load = loadGoldenCase(flags.caseDir);
  if (!load.ok()) {
    printError(load.error);
    return kExitBadInput;
  }
  const GoldenCase& goldenCase = load.goldenCase;
  fuzz::PipelineOptions pipelineOptions;
  if (std::string problem = pipelineOptionsFor(flags, goldenCase, pipelineOptions); !problem.empty()) {
    printError(problem);
    return kExitBadInput;
  }
  int exitCode = kExitOk;
  std::unique_ptr<Module> ttir = loadModule(goldenCase.kernelPath, exitCode);
  if (!ttir) return exitCode;
  std::unique_ptr<Engine> engine = engineFor("interp", exitCode);
  if (!engine) return exitCode;
  CaseOptions caseOptions;
  caseOptions.threads = flags.threads;
  caseOptions = optionsForCase(caseOptions, goldenCase);
  LaunchOptions launchOptions;
  launchOptions.profile = caseOptions.profile;
  launchOptions.checkUB = goldenCase.checkUB;
  launchOptions.threads = flags.threads;
  launchOptions.echoPrints = false;
  const ModuleRun reference = runModule(*ttir, goldenCase, *engine, launchOptions);
  if (!reference.error.empty()) {
    printError(goldenCase.kernelPath + ": " + reference.error);
    return kExitBadInput;
  }
  std::string error;
  const std::string workDir = workDirectory(flags, error);
  if (!error.empty()) {
    printError(error);
    return kExitBadInput;
  }
  std::printf("%s: Triton's pipeline for sm_%d, num_warps %d, num_stages %d, pass by pass\n", goldenCase.name.c_str(),
              pipelineOptions.capability, pipelineOptions.numWarps, pipelineOptions.numStages);
  std::fflush(stdout);
  fuzz::PipelineRun run = fuzz::runTritonPipeline(goldenCase.kernelPath, workDir, pipelineOptions);
  auto cleanUp = [&] {
    std::error_code ignored;
    if (flags.keep.empty()) fs::remove_all(workDir, ignored);
  };
  switch (run.kind) {
    case fuzz::PipelineRun::Kind::Unavailable:
      std::fprintf(stderr, "tilesim: skipped: no Python with triton here: %s\n", run.message.c_str());
      cleanUp();
      return kExitEngineUnavailable;
    case fuzz::PipelineRun::Kind::BadInput:
      printError(run.message);
      cleanUp();
      return kExitBadInput;
    case fuzz::PipelineRun::Kind::Crashed:
    case fuzz::PipelineRun::Kind::Ran:
      break;
  }
  if (flags.injectAfter > 0 && run.modules.size() > static_cast<size_t>(flags.injectAfter) &&
      run.modules[static_cast<size_t>(flags.injectAfter)].status == "not-injected") {
    printError("--inject " + flags.inject + " found nothing to rewrite after pass " + std::to_string(flags.injectAfter) +
               " (" + run.modules[static_cast<size_t>(flags.injectAfter)].pass + ")");
    cleanUp();
    return kExitBadInput;
  }
  fuzz::PipelineVerdict verdict = fuzz::judgePipeline(run, [&](const Module& module, const fuzz::PipelineModule&) {
    ModuleRun got = runModule(module, goldenCase, *engine, launchOptions);
    if (!got.error.empty()) return fuzz::ModuleJudgement{fuzz::ModuleJudgement::Kind::NotRunnable, "cannot run it: " + got.error};
    std::string differences = compareRuns(got, reference);
    if (differences.empty()) return fuzz::ModuleJudgement{fuzz::ModuleJudgement::Kind::Agrees, ""};
    return fuzz::ModuleJudgement{fuzz::ModuleJudgement::Kind::Differs, differences};
  });
  exitCode = reportVerdict(flags, run, verdict, workDir);
  if (run.kind == fuzz::PipelineRun::Kind::Crashed) {
    std::printf("Triton's pipeline died: %s\n", run.message.c_str());
    exitCode = kExitFailed;
  }
  cleanUp();
  return exitCode;
}

}  // namespace

void addPassesCommand(CLI::App& app, int& exitCode) {
  auto [command, flags] = addCommandWithFlags(
      app, "passes",
      "run Triton 3.6's pipeline on a case pass by pass (CPU, needs the triton package), interpret the "
      "module after each pass and name the first pass whose result differs from the TTIR's",
      runPasses, exitCode);
  command->add_option("case", flags->caseDir, "case directory (case.json + kernel.ttir)")->required();
  command->add_option("--target", flags->target, "sm_80 or sm_90 (default: kernel.ttgir's ttg.target, else sm_90)")
      ->check(CLI::IsMember({"sm_80", "sm_90"}));
  command->add_option("--num-warps", flags->numWarps, "num_warps (default: the case's)")->check(powerOfTwoWarps());
  command->add_option("--num-stages", flags->numStages, "num_stages, 1 to 8 (default: case.json's, or its capture's, else 3)")
      ->check(CLI::Range(1, 8));
  command->add_option("--keep", flags->keep, "write every module (NNN-PASS.mlir) and manifest.tsv into DIR and keep them");
  command->add_option("--inject-after", flags->injectAfter, "fault injection: rewrite the module after pass K wrongly")
      ->check(CLI::Range(1, 1000));
  command->add_option("--inject", flags->inject, "what --inject-after does: " + [] {
        std::string kinds;
        for (const std::string& kind : fuzz::pipelineInjectionKinds()) kinds += (kinds.empty() ? "" : ", ") + kind;
        return kinds;
      }())
      ->check(CLI::IsMember(fuzz::pipelineInjectionKinds()));
  command->add_option("--threads", flags->threads, "worker threads (0 = all cores)")
      ->check(CLI::Range(0, kMaxThreadsFlag));
}

}  // namespace tilesim::cli
