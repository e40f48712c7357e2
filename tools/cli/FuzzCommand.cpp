// `tilesim fuzz`: a differential fuzz campaign (fuzz/campaign/Campaign.h, docs/fuzzing.md), and
// `tilesim fuzz --merge A.json B.json ...`, which adds up shard summaries.
//   tilesim fuzz --count 1000 --seed 7 --jobs 2 --shard 0/4 --engine interp --json s0.json --emit-dir cases/
// Exit 0 when every program passed (skips are listed), 1 when one failed (its minimal case is written), 2 for bad
// arguments, 4 when the target engine is not available here ("skipped: ...": no GPU for gpu, no Python that
// imports triton for triton).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "fuzz/campaign/Campaign.h"
#include "ir/FileIO.h"
#include "tools/cli/Cli.h"

namespace tilesim::cli {
namespace {

struct FuzzFlags {
  int64_t count = 0;
  int64_t first = 0;
  double seconds = 0;
  uint64_t seed = 1;
  int jobs = 1;
  std::string shard = "0/1";
  std::string engine = "interp";
  std::string profile = "exact";
  std::string tritonRun = "cpu";
  std::string emitDir;
  std::string regressionDir = "conformance/regressions";
  std::string json;
  bool checkPtxas = false;
  bool noShrink = false;
  bool quiet = false;
  double hangSeconds = 120;
  int64_t maxFailures = 0;
  bool timings = false;
  std::vector<std::string> merge;
};

bool writeJson(const std::string& path, const fuzz::CampaignSummary& summary) {
  // By replacing the directory entry (ir/FileIO.h): a symlink at PATH is never written through.
  if (std::string error = replaceFile(path, summary.toJson().dump(1) + "\n"); !error.empty()) {
    printError("--json " + error);
    return false;
  }
  return true;
}

int runMerge(const FuzzFlags& flags) {
  std::optional<fuzz::CampaignSummary> total;
  std::set<std::pair<dev_t, ino_t>> files;
  for (const std::string& path : flags.merge) {
    std::string text, readError;
    if (!readRegularFile(path, kMaxJsonFileBytes, text, readError)) {
      printError("--merge: " + path + ": " + readError);
      return kExitBadInput;
    }
    struct stat info{};
    if (::stat(path.c_str(), &info) == 0 && !files.insert({info.st_dev, info.st_ino}).second) {
      printError("--merge: " + path + " is given twice (one file under two names counts its programs once)");
      return kExitBadInput;
    }
    nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      printError("--merge: " + path + " is not JSON");
      return kExitBadInput;
    }
    std::string error;
    std::optional<fuzz::CampaignSummary> summary = fuzz::CampaignSummary::fromJson(json, error);
    if (!summary) {
      printError("--merge: " + path + ": " + error);
      return kExitBadInput;
    }
    if (total && (total->seed != summary->seed || total->target != summary->target)) {
      printError("--merge: " + path + " is another campaign (seed or target differs)");
      return kExitBadInput;
    }
    if (total)
      for (const std::string& shard : summary->shards)
        if (std::find(total->shards.begin(), total->shards.end(), shard) != total->shards.end()) {
          printError("--merge: " + path + " holds shard " + shard + ", which an earlier file already holds");
          return kExitBadInput;
        }
    if (!total) total = std::move(summary);
    else total->merge(*summary);
  }
  std::fputs(total->human().c_str(), stdout);
  if (!flags.json.empty() && !writeJson(flags.json, *total)) return kExitBadInput;
  return total->failed > 0 ? kExitFailed : kExitOk;
}

int runFuzz(const FuzzFlags& flags) {
  if (!flags.merge.empty()) return runMerge(flags);
  if ((flags.count > 0) == (flags.seconds > 0)) {
    printError("give exactly one of --count N or --seconds N (N > 0)");
    return kExitBadInput;
  }
  if (!flags.emitDir.empty()) {  // one clear error up front, not one per program
    if (std::string error = realDirectory(flags.emitDir); !error.empty()) {
      printError("--emit-dir " + error);
      return kExitBadInput;
    }
  }
  struct stat regressions{};
  if (::lstat(flags.regressionDir.c_str(), &regressions) == 0 && !S_ISDIR(regressions.st_mode)) {
    printError("--regressions " + flags.regressionDir + ": exists and is not a directory (or is a symbolic link)");
    return kExitBadInput;
  }
  fuzz::CampaignOptions options;
  int shardIndex = 0, shardCount = 0;
  char tail = 0;
  if (std::sscanf(flags.shard.c_str(), "%d/%d%c", &shardIndex, &shardCount, &tail) != 2 || shardCount < 1 ||
      shardIndex < 0 || shardIndex >= shardCount) {
    printError("--shard '" + flags.shard + "': expected I/N with 0 <= I < N");
    return kExitBadInput;
  }
  options.seed = flags.seed;
  options.count = flags.count;
  options.first = flags.first;
  if (flags.count > 0 && flags.first >= flags.count) {
    printError("--first must be below --count");
    return kExitBadInput;
  }
  options.seconds = flags.seconds;
  options.jobs = flags.jobs;
  options.shardIndex = shardIndex;
  options.shardCount = shardCount;
  options.emitDir = flags.emitDir;
  options.regressionDir = flags.regressionDir;
  options.targetName = flags.engine;
  options.tritonProfile = flags.profile == "triton";
  options.shrink = !flags.noShrink;
  options.progress = !flags.quiet;
  options.timings = flags.timings;
  options.hangSeconds = flags.hangSeconds;
  if (flags.tritonRun != "cpu" && flags.engine != "triton") {
    printError("--triton-run applies to --engine triton only");
    return kExitBadInput;
  }
  if (flags.engine == "triton" || flags.engine == "triton-passes") {
    options.triton.passByPass = flags.engine == "triton-passes";
    // Each candidate of the shrinker runs the whole pipeline (about 1 s): 60 candidates keep a finding's shrinking
    // inside the default --hang-seconds.
    if (options.triton.passByPass) options.shrinkBudget = 60;
    // Real Triton on the CPU (fuzz/campaign/TritonTarget.h): a Python that imports triton, or "skipped".
    options.triton.timeoutSeconds = flags.hangSeconds > 0 ? std::min(60.0, flags.hangSeconds / 2) : 60.0;
    if (flags.tritonRun == "gpu") {
      // Triton's kernels on the GPU; TILESIM_TRITON_LAUNCHER=tilesim lets the interpreter stand in (tests).
      const char* launcher = std::getenv("TILESIM_TRITON_LAUNCHER");
      options.triton.launcher = launcher ? launcher : "cuda";
      if (options.triton.launcher != "cuda" && options.triton.launcher != "tilesim") {
        printError("TILESIM_TRITON_LAUNCHER='" + options.triton.launcher + "': expected cuda or tilesim");
        return kExitBadInput;
      }
      // A compile to a cubin takes seconds, not milliseconds.
      options.triton.timeoutSeconds = flags.hangSeconds > 0 ? std::min(300.0, flags.hangSeconds / 2) : 300.0;
    }
    fuzz::TritonProbe probe = fuzz::probeTritonTarget(options.triton);
    if (!probe.badInput.empty()) {
      printError(probe.badInput);
      return kExitBadInput;
    }
    if (!probe.unavailable.empty()) {
      std::fprintf(stderr, "tilesim: skipped: the triton target is not available: %s\n", probe.unavailable.c_str());
      return kExitEngineUnavailable;
    }
    std::fprintf(stderr, "tilesim fuzz: target %s: %s\n", flags.engine.c_str(), probe.version.c_str());
  } else if (flags.engine != "interp") {
    int exitCode = kExitOk;
    std::unique_ptr<Engine> probe = engineFor(flags.engine, exitCode);
    if (!probe) return exitCode;
    const std::string name = flags.engine;
    options.makeTarget = [name] {
      int ignored = 0;
      return engineFor(name, ignored);
    };
  }
  if (flags.checkPtxas) {
    options.checkPtxas = true;
    options.ptxas = fuzz::findPtxas();
    if (options.ptxas.empty())
      std::fprintf(stderr, "tilesim fuzz: skipped check: ptxas not found on PATH or in /usr/local/cuda/bin\n");
  }
  options.maxFailures = flags.maxFailures;
  // SIGINT / SIGTERM (Ctrl-C, `timeout`, a batch system's time limit): stop, then print and write the summary of
  // what finished. A second signal ends the process at once (the default action, restored by SA_RESETHAND).
  struct sigaction action {};
  action.sa_handler = [](int) { fuzz::requestCampaignStop(); };
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  fuzz::CampaignResult result = fuzz::runCampaign(options);
  std::fputs(result.summary.human().c_str(), stdout);
  const bool jsonWritten = flags.json.empty() || writeJson(flags.json, result.summary);
  const int code = !jsonWritten ? kExitBadInput : result.summary.failed > 0 ? kExitFailed : kExitOk;
  if (result.abandoned > 0) {
    // A worker is stuck in a program that never ended (inside the GPU driver): no destructor may run under it.
    std::fprintf(stderr, "tilesim fuzz: %d worker(s) abandoned in a program that did not finish; exiting\n",
                 result.abandoned);
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
  }
  return code;
}

}  // namespace

// A campaign runs thousands of launches a second, each a parallel region of 1 or 2 threads. libgomp's default
// wait policy spins a finished worker for a while (GOMP_SPINCOUNT 300000) before it sleeps; on a machine whose
// cores are all busy that spinning takes the CPU from the threads doing the work (2026-12-01, 2 cores at load 6,
// `tilesim fuzz --seconds 15 --jobs 1`: 30 programs/s with the default, 143 with OMP_WAIT_POLICY=passive).
// The policy is read when libgomp loads, so the only way to set it for this process is to start it again.
void reexecFuzzWithPassiveOpenMP(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "fuzz") != 0) return;
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;  // the user's choice
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  unsetenv("OMP_WAIT_POLICY");  // exec failed (no /proc): run as we are
}

void addFuzzCommand(CLI::App& app, int& exitCode) {
  auto flags = std::make_shared<FuzzFlags>();
  CLI::App* fuzz = app.add_subcommand("fuzz", "differential fuzz campaign: generated programs, interpreter as the oracle");
  fuzz->add_option("--count", flags->count, "programs 0..N-1 of the campaign (this shard runs its part)")->check(CLI::PositiveNumber);
  fuzz->add_option("--first", flags->first, "start at program index I (replay one: --first I --count I+1)")->check(CLI::NonNegativeNumber);
  fuzz->add_option("--seconds", flags->seconds, "run for N seconds (programs from 0 upward)")->check(finiteRange(1e-3, 1e9));
  fuzz->add_option("--seed", flags->seed, "campaign seed; program i is generated from (seed, i) alone (default 1)");
  fuzz->add_option("--jobs", flags->jobs, "worker threads (default 1)")->check(CLI::Range(1, 256));
  fuzz->add_option("--shard", flags->shard, "I/N: run the programs i with i % N == I (default 0/1)");
  fuzz->add_option("--engine", flags->engine, "target compared with the interpreter: interp (the lane-by-lane "
                                              "reference), gpu, triton (Triton 3.6's TTIR and TTGIR passes on "
                                              "the CPU, through $TILESIM_PYTHON, .venv or .venv-peer), or "
                                              "triton-passes (the same pipeline pass by pass, every module checked)")
      ->check(CLI::IsMember({"interp", "gpu", "triton", "triton-passes"}));
  fuzz->add_option("--profile", flags->profile, "gpu target: exact (bit for bit, default) or triton (within the "
                                                "interpreter's error bounds)")
      ->check(CLI::IsMember({"exact", "triton"}));
  fuzz->add_option("--triton-run", flags->tritonRun, "triton target: cpu (Triton's TTIR and TTGIR passes, the "
                                                    "optimised TTIR in the interpreter; default) or gpu (Triton "
                                                    "compiles and launches each program on the GPU)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  fuzz->add_option("--emit-dir", flags->emitDir, "write every program as a conformance case directory here");
  fuzz->add_option("--regressions", flags->regressionDir, "where minimal failing cases go (default conformance/regressions)");
  fuzz->add_option("--json", flags->json, "write the machine-readable summary (mergeable with --merge)");
  fuzz->add_flag("--check-ptxas", flags->checkPtxas, "also compile each program to PTX and assemble it with ptxas -arch=sm_90a");
  fuzz->add_flag("--no-shrink", flags->noShrink, "write failing programs as generated");
  fuzz->add_flag("--quiet", flags->quiet, "no live progress line on stderr");
  fuzz->add_option("--hang-seconds", flags->hangSeconds, "report a program still running after N s as a hang and "
                                                         "stop the campaign (default 120; 0: never)")
      ->check(finiteRange(0, 1e9));
  fuzz->add_option("--max-failures", flags->maxFailures, "stop the campaign once N programs have failed (programs "
                                                         "already running still finish; default: no limit)")
      ->check(CLI::PositiveNumber);
  fuzz->add_flag("--timings", flags->timings, "measure the wall time of each stage of the check (generate, build, "
                                              "print, parse, verify, reference, interpret, compare)");
  fuzz->add_option("--merge", flags->merge, "add up shard summaries (JSON files) instead of running")->expected(1, -1);
  fuzz->callback([flags, &exitCode] { exitCode = runFuzz(*flags); });
}

}  // namespace tilesim::cli
