// `tilesim bench CASE_DIR... [--autotune] [--record FILE]`: each case directory is checked (the case driver, as
// `tilesim run CASE` judges it) and timed (the GPU engine: --warmup untimed and --time timed launches with CUDA
// events, their median; the interpreter: the wall time of the checked run). With --autotune the cases are
// grouped by problem — the same kernel name and the same arguments (tensor names, dtypes and shapes, scalar
// values), as the configurations @triton.autotune tries for one key — and each problem's fastest verified
// configuration is kept: printed, and recorded with every timing in --record's JSON. The configurations are the
// TTIR Triton produced for each (tile sizes, num_warps, num_stages), one case directory each with the problem's
// arguments (tools/cli/tests/make_autotune_cases.py writes such a family). Exit 0 when every case ran and passed, 1 when one failed, 2
// when one could not run.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "conformance/runner/Conformance.h"
#include "ir/FileIO.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {

struct BenchFlags {
  std::vector<std::string> directories;
  std::string engine = "interp";  // --engine gpu times on the GPU
  std::string profile;  // empty: each case's recorded profile, else triton
  bool autotune = false;
  int iterations = 20;
  int warmup = 5;
  std::string record;
};

struct CaseTiming {
  std::string directory, name, problem;
  std::string status;  // "pass", "FAIL" or "error"
  std::string detail;  // the case driver's line, or why it could not run
  int numWarps = 0;
  std::array<int64_t, 3> grid{};
  double medianMs = 0, minMs = 0;  // 0: not timed
  int registers = -1, sharedBytes = 0;
};

// The problem a case solves: its kernel name and arguments, without the configuration (grid, num_warps, TTIR).
std::string problemOf(const GoldenCase& goldenCase) {
  std::string key = "@" + goldenCase.entry + "(";
  for (size_t i = 0; i < goldenCase.arguments.size(); ++i) {
    const CaseArgument& argument = goldenCase.arguments[i];
    key += i ? ", " : "";
    if (argument.isTensor) {
      key += fmt::format("{} {}[{}]", argument.name, argument.dtypeName, fmt::join(argument.shape, "x"));
    } else {
      key += argument.scalarIsFloat ? fmt::format("{}={}", argument.name, argument.floatValue)
                                    : fmt::format("{}={}", argument.name, argument.intValue);
    }
  }
  return key + ")";
}

double median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Times the case's launch on `engine` (which can time): the median and minimum of the timed launches.
std::string timeLaunch(const GoldenCase& goldenCase, const CaseOptions& options, Engine& engine, const BenchFlags& flags,
                       CaseTiming& timing) {
  int exitCode = kExitOk;
  std::unique_ptr<Module> module = loadModule(kernelFileFor(options, goldenCase.directory), exitCode);
  if (!module) return "its kernel does not load";
  CaseLaunch prepared = caseLaunch(goldenCase, *module);
  if (!prepared.error.empty()) return prepared.error;
  const CaseOptions caseOptions = optionsForCase(options, goldenCase);
  LaunchTiming measured;
  LaunchOutcome outcome = engine.runTimed(prepared.launch, LaunchOptions::comparedRun(caseOptions.profile, ProgramOrder::Forward, options.threads),
                                          {.warmup = flags.warmup, .iterations = flags.iterations}, &measured);
  if (!outcome.started() || measured.launchMs.empty()) {
    std::string why = "the timed launches did not run";
    for (const Diagnostic& diagnostic : outcome.diagnostics) why += ": " + diagnostic.str();
    return why;
  }
  timing.medianMs = median(measured.launchMs);
  timing.minMs = *std::min_element(measured.launchMs.begin(), measured.launchMs.end());
  timing.registers = measured.registers;
  timing.sharedBytes = measured.sharedBytes;
  return "";
}

CaseTiming benchCase(const std::string& directory, const CaseOptions& options, Engine& engine, const BenchFlags& flags) {
  CaseTiming timing;
  timing.directory = directory;
  CaseOutcome outcome = runCase(directory, options, engine);
  timing.name = outcome.name;
  if (outcome.status == CaseOutcome::Status::Error) {
    timing.status = "error";
    timing.detail = outcome.error;
    return timing;
  }
  const GoldenCase& goldenCase = *outcome.goldenCase;
  timing.name = goldenCase.name;
  timing.problem = problemOf(goldenCase);
  timing.numWarps = goldenCase.numWarps;
  timing.grid = goldenCase.grid;
  timing.status = outcome.passed() ? "pass" : "FAIL";
  timing.detail = outcome.line();
  if (!engine.canTime()) {  // the interpreter: the checked run's wall time
    timing.medianMs = timing.minMs = outcome.seconds * 1e3;
    return timing;
  }
  if (std::string error = timeLaunch(goldenCase, options, engine, flags, timing); !error.empty()) {
    timing.status = "error";
    timing.detail = error;
  }
  return timing;
}

// Per problem, the index of its fastest passing, timed case (or -1), in the order problems first appear.
std::vector<std::pair<std::string, int>> fastestPerProblem(const std::vector<CaseTiming>& timings) {
  std::vector<std::pair<std::string, int>> choices;
  std::map<std::string, size_t> slot;
  for (size_t i = 0; i < timings.size(); ++i) {
    const CaseTiming& timing = timings[i];
    if (timing.problem.empty()) continue;
    auto [found, added] = slot.emplace(timing.problem, choices.size());
    if (added) choices.emplace_back(timing.problem, -1);
    int& best = choices[found->second].second;
    if (timing.status == "pass" && timing.medianMs > 0 &&
        (best < 0 || timing.medianMs < timings[static_cast<size_t>(best)].medianMs))
      best = static_cast<int>(i);
  }
  return choices;
}

nlohmann::ordered_json recordOf(const std::vector<CaseTiming>& timings, const std::vector<std::pair<std::string, int>>& choices,
                                const Engine& engine, const BenchFlags& flags) {
  nlohmann::ordered_json json;
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  json["date"] = date;
  json["engine"] = engine.description();
  json["timing"] = engine.canTime() ? fmt::format("median of {} launches after {} untimed (CUDA events)", flags.iterations, flags.warmup)
                                    : std::string("wall time of one checked run");
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const CaseTiming& timing : timings)
    cases.push_back({{"case", timing.directory}, {"problem", timing.problem}, {"status", timing.status},
                     {"num_warps", timing.numWarps}, {"grid", timing.grid}, {"median_ms", timing.medianMs},
                     {"min_ms", timing.minMs}, {"registers", timing.registers}, {"shared_bytes", timing.sharedBytes},
                     {"detail", timing.detail}});
  json["cases"] = cases;
  nlohmann::ordered_json chosen = nlohmann::ordered_json::array();
  for (const auto& [problem, best] : choices)
    chosen.push_back({{"problem", problem}, {"fastest", best < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(timings[static_cast<size_t>(best)].directory)},
                      {"median_ms", best < 0 ? 0.0 : timings[static_cast<size_t>(best)].medianMs}});
  json["autotune"] = chosen;
  return json;
}

void printTimings(const std::vector<CaseTiming>& timings, bool wallTime) {
  std::printf("%-6s %12s %12s %5s %16s %5s %8s  %s\n", "status", wallTime ? "wall_ms" : "median_ms", wallTime ? "" : "min_ms",
              "warps", "grid", "regs", "shared", "case");
  for (const CaseTiming& timing : timings) {
    const std::string grid = fmt::format("{}x{}x{}", timing.grid[0], timing.grid[1], timing.grid[2]);
    std::printf("%-6s %12.5f %12s %5d %16s %5d %8d  %s\n", timing.status.c_str(), timing.medianMs,
                wallTime ? "" : fmt::format("{:.5f}", timing.minMs).c_str(), timing.numWarps, grid.c_str(), timing.registers,
                timing.sharedBytes, timing.directory.c_str());
    if (timing.status != "pass") std::printf("       %s\n", timing.detail.c_str());
  }
}

int runBench(const BenchFlags& flags) {
  std::vector<std::string> cases = caseDirectoriesOrReport(flags.directories);
  if (cases.empty()) return kExitBadInput;
  int exitCode = kExitOk;
  std::unique_ptr<Engine> engine = engineFor(flags.engine, exitCode);
  if (!engine) return exitCode;
  CaseOptions options = caseOptionsFromFlags(flags.profile, false, "", 0, LaunchOptions{}.maxSteps);
  std::unique_ptr<Engine> boundsEngine = boundsEngineFor(*engine);
  options.boundsEngine = boundsEngine.get();
  std::printf("bench: %zu case%s on %s; %s\n", cases.size(), cases.size() == 1 ? "" : "s", engine->description().c_str(),
              engine->canTime() ? fmt::format("median of {} launches after {} untimed", flags.iterations, flags.warmup).c_str()
                                : "wall time of one checked run (the interpreter has no device to time)");
  std::vector<CaseTiming> timings;
  for (const std::string& directory : cases) timings.push_back(benchCase(directory, options, *engine, flags));
  printTimings(timings, !engine->canTime());
  const std::vector<std::pair<std::string, int>> choices = fastestPerProblem(timings);
  if (flags.autotune)
    for (const auto& [problem, best] : choices) {
      if (best < 0) {
        std::printf("autotune %s: no configuration passed\n", problem.c_str());
        continue;
      }
      const CaseTiming& fastest = timings[static_cast<size_t>(best)];
      std::printf("autotune %s: fastest %s (%.5f ms, num_warps %d)\n", problem.c_str(), fastest.directory.c_str(),
                  fastest.medianMs, fastest.numWarps);
    }
  if (!flags.record.empty()) {
    if (std::string error = replaceFile(flags.record, recordOf(timings, choices, *engine, flags).dump(1) + "\n"); !error.empty()) {
      printError("--record: " + error);
      return kExitBadInput;
    }
    std::printf("wrote %s\n", flags.record.c_str());
  }
  const bool anyError = std::any_of(timings.begin(), timings.end(), [](const CaseTiming& t) { return t.status == "error"; });
  const bool anyFailure = std::any_of(timings.begin(), timings.end(), [](const CaseTiming& t) { return t.status == "FAIL"; });
  return anyError ? kExitBadInput : anyFailure ? kExitFailed : kExitOk;
}

}  // namespace

void addBenchCommand(CLI::App& app, int& exitCode) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* bench = app.add_subcommand(
      "bench", "check and time case directories (GPU: CUDA events); --autotune keeps each problem's fastest configuration");
  bench->add_option("cases", flags->directories, "case directories (with case.json), or directories holding them")->required();
  addEngineOption(*bench, flags->engine);
  bench->add_option("--profile", flags->profile, "float profile: exact or triton (default: the case's, else triton)")
      ->check(CLI::IsMember({"exact", "triton"}));
  bench->add_flag("--autotune", flags->autotune,
                  "group the cases by problem (kernel name and arguments) and print each problem's fastest passing one");
  bench->add_option("--time", flags->iterations, "timed launches per case on the GPU (default 20)")->check(CLI::Range(1, 100000));
  bench->add_option("--warmup", flags->warmup, "untimed launches before them (default 5)")->check(CLI::Range(0, 100000));
  bench->add_option("--record", flags->record, "write every timing and each problem's choice to FILE as JSON");
  bench->callback([flags, &exitCode] { exitCode = runBench(*flags); });
}

}  // namespace tilesim::cli
