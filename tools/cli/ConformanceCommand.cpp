// `tilesim conformance DIR... [--determinism]`: run every golden case found under the directories, one line
// per case as it finishes (`[3/15] PASS vadd_f32  out_ptr: pass, bit-exact ...`), details of failures, and a
// summary. Exit 0 when every case passed, 1 when one failed or could not run, 2 when no case was found.
#include <cstdio>
#include <filesystem>

#include "conformance/runner/Conformance.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {

struct ConformanceFlags {
  std::vector<std::string> directories;
  bool determinism = false;
  std::string profile;  // empty: each case's recorded profile (case.json "profile"), else triton
  bool noCheck = false;
  std::string check;
  int threads = 0;
  uint64_t maxSteps = LaunchOptions{}.maxSteps;
  bool verbose = false;
  bool contractOrder = false;
  std::string from = "ttir";  // which recorded kernel file runs: kernel.ttir or kernel.ttgir
  std::string engine = "interp";
};

int runConformanceCommand(const ConformanceFlags& flags) {
  std::vector<std::string> cases = caseDirectoriesOrReport(flags.directories);
  if (cases.empty()) return kExitBadInput;
  if (flags.from == "ttgir") {  // only the cases that recorded Triton's TTGIR
    const size_t all = cases.size();
    std::erase_if(cases, [](const std::string& c) { return !std::filesystem::exists(std::filesystem::path(c) / "kernel.ttgir"); });
    std::printf("--from ttgir: %zu of %zu case%s have a kernel.ttgir\n", cases.size(), all, all == 1 ? "" : "s");
    if (cases.empty()) {
      printError("no case directory with a kernel.ttgir found");
      return kExitBadInput;
    }
  }
  int exitCode = kExitOk;
  std::unique_ptr<Engine> engine = engineFor(flags.engine, exitCode);
  if (!engine) return exitCode;
  CaseOptions options =
      caseOptionsFromFlags(flags.profile, flags.noCheck, flags.check, flags.threads, flags.maxSteps);
  options.determinism = flags.determinism;
  options.tritonReduceOrder = !flags.contractOrder;
  options.fromTtgir = flags.from == "ttgir";
  std::unique_ptr<Engine> boundsEngine = boundsEngineFor(*engine);
  options.boundsEngine = boundsEngine.get();
  std::printf("running %zu case%s on %s (%s profile%s%s)\n", cases.size(), cases.size() == 1 ? "" : "s",
              engine->description().c_str(),
              flags.profile.empty() ? "triton unless a case records its own" : flags.profile.c_str(),
              flags.determinism ? ", determinism across threads and program orders" : "",
              boundsEngine && options.profile == FloatProfile::Triton ? ", judged with the interpreter's error bounds" : "");
  std::fflush(stdout);
  int width = static_cast<int>(std::to_string(cases.size()).size());
  ConformanceSummary summary = runConformance(cases, options, *engine, [&](const CaseOutcome& outcome, size_t index, size_t total) {
    std::string text = flags.verbose || !outcome.passed() ? outcome.details() : outcome.line();
    std::printf("[%*zu/%zu] %s\n", width, index + 1, total, text.c_str());
    std::fflush(stdout);
  });
  std::printf("%s\n", summary.str().c_str());
  return summary.allPassed() ? kExitOk : kExitFailed;
}

}  // namespace

void addConformanceCommand(CLI::App& app, int& exitCode) {
  auto [command, flags] =
      addCommandWithFlags(app, "conformance", "run every golden case (a directory with case.json) under DIR...",
                          runConformanceCommand, exitCode);
  command->add_option("directories", flags->directories, "case directories or directories holding cases")->required();
  command->add_flag("--determinism", flags->determinism,
                    "also require identical outputs with 1 thread and all threads, programs forward/reverse/shuffled");
  command->add_option("--profile", flags->profile, "float profile: triton or exact, over what a case records (default: the case's, else triton)")
      ->check(CLI::IsMember({"exact", "triton"}));
  command->add_flag("--no-check", flags->noCheck, "skip out-of-bounds, undefined-lane and race checks");
  command->add_option("--check", flags->check, "extra checks: 'ub'")->check(CLI::IsMember({"ub"}));
  command->add_option("--threads", flags->threads, "worker threads (0 = all cores)")->check(CLI::Range(0, kMaxThreadsFlag));
  command->add_option("--max-steps", flags->maxSteps,
                      "end a program that runs more than N ops and loop iterations with a 'runaway' report (0 = no limit)")
      ->capture_default_str();
  command->add_flag("--contract-order", flags->contractOrder,
                    "combine tt.reduce in the contract order even when a case has kernel.ttgir (default: Triton's order)");
  addEngineOption(*command, flags->engine);
  command->add_option("--from", flags->from, "which recorded kernel runs: ttir (kernel.ttir, default) or ttgir (kernel.ttgir, "
                      "Triton's TTGIR of the same kernel; cases without one are skipped)")
      ->check(CLI::IsMember({"ttir", "ttgir"}));
  command->add_flag("-v,--verbose", flags->verbose, "print details (reports, failing elements) for passing cases too");
}

}  // namespace tilesim::cli
