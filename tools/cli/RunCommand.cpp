// `tilesim run`: launch a kernel on an engine (--engine interp|gpu; the interpreter by default).
//   tilesim run KERNEL.ttir --grid X[,Y,Z] --arg NAME=FILE.npy|VALUE ... [--out DIR]
//   tilesim run CASE_DIR [--out DIR]
// A kernel run prints the check reports and, without --out, the buffers the launch changed; with --out every
// buffer argument is written to DIR/NAME.npy (never over one of the input files). A case run also compares each
// output with the GPU's (`expected`) and prints pass/fail, bit-exact or max ulp and max abs error; it goes through
// the same case driver as `tilesim conformance` (conformance/runner/Conformance.h), under the profile the case
// records (case.json "profile") unless --profile is given. On the GPU engine a write outside a buffer (its
// redzones, ir/launch/Redzones.h) is an out-of-bounds report, printed, and fails the run.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "conformance/runner/Compare.h"
#include "conformance/runner/Conformance.h"
#include "conformance/runner/Format.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {

namespace fs = std::filesystem;

struct RunFlags {
  LaunchFlags launch;
  std::string outDirectory;
  bool quiet = false;
  int timeIterations = 0;  // --time N (GPU engine): time N more launches in this process
  int warmup = 10;
  int64_t bytes = 0;       // --bytes: bytes one launch moves, for GB/s (default: every buffer argument once)
  int numWarps = 0;        // 0: the case's, or 4 for a kernel file
  int numStages = 0;       // 0: the case's, or 3 for a kernel file
};

// `--time N`: after the run, the timing of the kernel's compile, load and N launches (Engine::runTimed), as one
// line a script can parse: "timing @K: source=compiled compile_ms=.. load_ms=.. launches=N median_ms=.. ...".
void printTiming(const PreparedLaunch& prepared, const LaunchTiming& timing, int64_t bytes) {
  std::vector<float> sorted = timing.launchMs;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.empty()) return;
  const double median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                          : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  if (bytes == 0)
    for (const LaunchArgument& argument : prepared.launch.arguments)
      if (argument.isBuffer() && !argument.isAlias()) bytes += static_cast<int64_t>(argument.bytes.size());
  std::printf("timing @%s: source=%s compile_ms=%.3f load_ms=%.3f launches=%zu median_ms=%.5f min_ms=%.5f "
              "max_ms=%.5f bytes=%lld gbps=%.1f threads=%d shared_bytes=%d registers=%d\n",
              prepared.launch.kernel->name().c_str(), timing.source.c_str(), timing.compileMs, timing.loadMs,
              sorted.size(), median, sorted.front(), sorted.back(), static_cast<long long>(bytes),
              static_cast<double>(bytes) / (median * 1e6), timing.threads, timing.sharedBytes, timing.registers);
}

fs::path normalised(const std::string& path) {
  std::error_code error;
  fs::path result = fs::weakly_canonical(fs::absolute(path), error);
  return error ? fs::absolute(path).lexically_normal() : result;
}

// Argument names become file names under --out, so only plain identifiers may (no `../precious`, no `/`).
bool isPlainIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Device and inode of the file a path names (following links), to recognise one file under two names.
std::optional<std::pair<dev_t, ino_t>> fileIdentity(const std::string& path) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return std::make_pair(info.st_dev, info.st_ino);
}

// The path each buffer argument will be written to; empty on refusal: a name that is not an identifier, an
// existing output that is a symlink or not a regular file, or one that is an input file under any name
// (same path, or same device and inode: a hard link). Outputs are then written by rename (writeNpyFile).
std::vector<std::string> outputPaths(const PreparedLaunch& prepared, const std::string& directory) {
  std::vector<std::string> kept = prepared.inputPaths;  // inputs and a case's own files: never replaced
  kept.insert(kept.end(), prepared.protectedPaths.begin(), prepared.protectedPaths.end());
  std::vector<std::pair<std::string, std::pair<dev_t, ino_t>>> inputs;
  for (const std::string& input : kept)
    if (!input.empty())
      if (auto identity = fileIdentity(input)) inputs.emplace_back(input, *identity);
  std::vector<std::string> paths;
  for (size_t i = 0; i < prepared.launch.arguments.size(); ++i) {
    const LaunchArgument& argument = prepared.launch.arguments[i];
    if (argument.kind != LaunchArgument::Kind::Buffer) {
      paths.emplace_back();
      continue;
    }
    if (!isPlainIdentifier(argument.name)) {
      printError(fmt::format("--out {}: argument name '{}' is not a plain identifier, so it cannot name a file in {}",
                             directory, argument.name, directory));
      return {};
    }
    fs::path path = fs::path(directory) / (argument.name + ".npy");
    struct stat link{};
    if (::lstat(path.c_str(), &link) == 0) {
      if (S_ISLNK(link.st_mode) || !S_ISREG(link.st_mode)) {
        printError(fmt::format("--out {}: {} exists and is {}; tilesim writes only regular files it can replace",
                               directory, path.string(), S_ISLNK(link.st_mode) ? "a symbolic link" : "not a regular file"));
        return {};
      }
      for (const auto& [input, identity] : inputs)
        if (identity == std::make_pair(link.st_dev, link.st_ino)) {
          printError(fmt::format("--out {}: writing {} would overwrite the input file {} (the same file); choose "
                                 "another directory", directory, path.string(), input));
          return {};
        }
    }
    for (const std::string& input : kept)
      if (!input.empty() && normalised(input) == normalised(path.string())) {
        printError(fmt::format("--out {}: writing {} would overwrite the input file {}; choose another directory",
                               directory, path.string(), input));
        return {};
      }
    paths.push_back(path.string());
  }
  return paths;
}

std::string bufferSummary(const LaunchArgument& argument, const std::vector<int64_t>& shape, bool isUnsigned) {
  int bytes = storageBytes(argument.elementKind);
  auto element = [&](int64_t i) {
    uint64_t bits = 0;
    std::memcpy(&bits, argument.bytes.data() + i * bytes, static_cast<size_t>(bytes));
    return formatElement(bits, argument.elementKind, isUnsigned);
  };
  std::vector<int64_t> flat = {static_cast<int64_t>(argument.bytes.size()) / bytes};
  return summarizeArray(shape.empty() ? std::span<const int64_t>(flat) : std::span<const int64_t>(shape), element);
}

// Writes every buffer argument to its path (empty paths are skipped). Returns false after printing an error.
bool writeOutputs(const PreparedLaunch& prepared, const std::vector<std::string>& paths) {
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    const LaunchArgument& argument = prepared.launch.arguments[i];
    NpyArray array;
    // The input file's dtype when it holds the element type bit for bit, else the element type's own: a header
    // always describes the bytes under it (an alias with no file of its own, a view of another dtype).
    array.type = npyTypeFits(prepared.fileTypes[i], argument.elementKind) ? prepared.fileTypes[i]
                                                                          : defaultNpyType(argument.elementKind);
    array.shape = prepared.shapes[i];
    array.bytes = argument.bytes;
    if (std::string error = writeNpyFile(paths[i], array); !error.empty()) {
      printError(error);
      return false;
    }
    std::printf("  wrote %s\n", paths[i].c_str());
  }
  return true;
}

// Checks `--out DIR` up front (no output may overwrite an input) and creates DIR. Empty paths when no --out.
std::optional<std::vector<std::string>> prepareOutputs(const PreparedLaunch& prepared, const std::string& directory) {
  if (directory.empty()) return std::vector<std::string>{};
  std::vector<std::string> paths = outputPaths(prepared, directory);
  if (paths.empty()) return std::nullopt;
  std::error_code error;
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory)) {
    printError("--out " + directory + ": cannot create directory");
    return std::nullopt;
  }
  return paths;
}

// A case directory: the case driver (conformance/runner) runs and judges it, exactly as `tilesim conformance`.
int runCaseTarget(const RunFlags& flags, Engine& engine) {
  const LaunchFlags& launch = flags.launch;
  if (!launch.arguments.empty() || !launch.grid.empty() || !launch.entry.empty()) {
    printError("--arg, --grid and --entry apply to a kernel file; " + launch.target + " is a case directory");
    return kExitBadInput;
  }
  CaseOptions options =
      caseOptionsFromFlags(launch.profile, launch.noCheck, launch.check, launch.threads, launch.maxSteps);
  std::unique_ptr<Engine> boundsEngine = boundsEngineFor(engine);
  options.boundsEngine = boundsEngine.get();
  CaseOutcome outcome = runCase(launch.target, options, engine);
  if (outcome.status == CaseOutcome::Status::Error) {
    // A diagnostic without a position already reads "error: ..." (Diagnostic::str): do not say it twice.
    const bool labelled = outcome.error.rfind("error: ", 0) == 0;
    std::fprintf(stderr, "tilesim: %s%s\n", labelled ? "" : "error: ", outcome.error.c_str());
    return kExitBadInput;
  }
  const GoldenCase& goldenCase = *outcome.goldenCase;
  for (const std::string& unused : outcome.launch.unusedArguments)
    std::printf("note: argument %s has no parameter of its name in the kernel (specialised to a constant)\n", unused.c_str());
  printReports(outcome.launch);
  const auto& grid = goldenCase.grid;
  std::printf("%s: @%s on grid %lldx%lldx%lld (%s profile%s, %s engine)\n", goldenCase.name.c_str(), goldenCase.entry.c_str(),
              static_cast<long long>(grid[0]), static_cast<long long>(grid[1]), static_cast<long long>(grid[2]),
              floatProfileName(outcome.profile), outcome.profileFromCase ? " as the case records; --profile overrides" : "",
              engine.name());
  if (!goldenCase.foundOnEngine.empty() && goldenCase.foundOnEngine != engine.name())
    std::printf("note: the fuzzer found this case on the %s engine; --engine %s replays that failure\n",
                goldenCase.foundOnEngine.c_str(), goldenCase.foundOnEngine.c_str());
  std::printf("%s\n", outcome.details().c_str());

  PreparedLaunch prepared;  // the outputs, in the shape --out writes
  prepared.launch.arguments = outcome.arguments;
  prepared.fileTypes = outcome.fileTypes;
  for (const CaseArgument& argument : goldenCase.arguments) {
    prepared.inputPaths.push_back(argument.isTensor ? argument.inputPath : "");
    prepared.shapes.push_back(argument.shape);
    if (!argument.expectedPath.empty()) prepared.protectedPaths.push_back(argument.expectedPath);
  }
  // Every file of the case directory (case.json, kernel.ttir, kernel.ttgir, recorded engine outputs): `--out
  // CASE` must not turn the case's expectations into this run's outputs.
  std::error_code listError;
  for (const auto& entry : fs::directory_iterator(launch.target, listError)) prepared.protectedPaths.push_back(entry.path().string());
  std::optional<std::vector<std::string>> paths = prepareOutputs(prepared, flags.outDirectory);
  if (!paths || !writeOutputs(prepared, *paths)) return kExitBadInput;
  std::printf("%s\n", outcome.passed() ? "PASS" : "FAIL");
  return outcome.passed() ? kExitOk : kExitFailed;
}

int runRun(const RunFlags& flags) {
  int exitCode = kExitOk;
  std::unique_ptr<Engine> engine = engineFor(flags.launch.engine, exitCode);
  if (!engine) return exitCode;
  std::error_code error;
  if (fs::is_directory(flags.launch.target, error) && isCaseDirectory(flags.launch.target))
    return runCaseTarget(flags, *engine);

  PreparedLaunch prepared;
  if (int code = prepareLaunch(flags.launch, prepared); code != kExitOk) return code;
  if (flags.numWarps > 0) prepared.launch.numWarps = flags.numWarps;
  if (flags.numStages > 0) prepared.launch.numStages = flags.numStages;
  std::optional<std::vector<std::string>> paths = prepareOutputs(prepared, flags.outDirectory);
  if (!paths) return kExitBadInput;
  std::vector<std::vector<uint8_t>> before;
  for (const LaunchArgument& argument : prepared.launch.arguments) before.push_back(argument.bytes);

  if (flags.timeIterations > 0 && !engine->canTime()) {
    printError("--time measures GPU launches; add --engine gpu");
    return kExitBadInput;
  }
  LaunchTiming timing;
  auto start = std::chrono::steady_clock::now();
  LaunchOutcome outcome = flags.timeIterations > 0
                              ? engine->runTimed(prepared.launch, prepared.options,
                                                 {.warmup = flags.warmup, .iterations = flags.timeIterations}, &timing)
                              : engine->run(prepared.launch, prepared.options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outcome.started()) {
    printDiagnostics(outcome.diagnostics);
    return outcome.kernelFailed ? kExitFailed : kExitBadInput;
  }
  const LaunchResult& result = outcome.result;
  for (const std::string& unused : result.unusedArguments)
    std::printf("note: argument %s has no parameter of its name in the kernel (specialised to a constant)\n", unused.c_str());
  int64_t reports = printReports(result);

  const auto& grid = prepared.launch.grid;
  std::printf("%s: @%s on grid %lldx%lldx%lld (%s profile, %s engine), %.3fs, %lld report%s\n", flags.launch.target.c_str(),
              prepared.launch.kernel->name().c_str(), static_cast<long long>(grid[0]), static_cast<long long>(grid[1]),
              static_cast<long long>(grid[2]), floatProfileName(prepared.options.profile), engine->name(), seconds,
              static_cast<long long>(reports), reports == 1 ? "" : "s");
  if (paths->empty() && !flags.quiet) {
    for (size_t i = 0; i < prepared.launch.arguments.size(); ++i) {
      const LaunchArgument& argument = prepared.launch.arguments[i];
      if (!argument.isBuffer() || argument.bytes == before[i]) continue;
      std::printf("  %s = %s\n", argument.name.c_str(),
                  bufferSummary(argument, prepared.shapes[i], isNpyUnsigned(prepared.fileTypes[i])).c_str());
    }
  }
  if (flags.timeIterations > 0) printTiming(prepared, timing, flags.bytes);
  if (!writeOutputs(prepared, *paths)) return kExitBadInput;
  return reports == 0 ? kExitOk : kExitFailed;
}

}  // namespace

void addRunCommand(CLI::App& app, int& exitCode) {
  auto [run, flags] =
      addLaunchCommand(app, "run", "run a kernel (with --grid and --arg) or a golden-case directory", runRun, exitCode);
  run->add_option("--out", flags->outDirectory, "write every buffer argument to DIR/NAME.npy (never over an input)");
  run->add_flag("--quiet", flags->quiet, "do not print the buffers a kernel run changed");
  run->add_option("--num-warps", flags->numWarps, "warps per program on the GPU engine (default: the case's, or 4)")
      ->check(powerOfTwoWarps());
  run->add_option("--num-stages", flags->numStages,
                  "GPU engine: Triton's num_stages for pipelined k loops (1 to 8; default: the case's, or 3)")
      ->check(CLI::Range(1, 8));
  run->add_option("--time", flags->timeIterations,
                  "GPU engine, kernel files: after the run, time N more launches with CUDA events and print the median")
      ->check(CLI::Range(1, 100000));
  run->add_option("--warmup", flags->warmup, "untimed launches before --time's (default 10)")->check(CLI::Range(0, 100000));
  run->add_option("--bytes", flags->bytes, "bytes one launch moves, for --time's GB/s (default: every buffer once)")
      ->check(CLI::Range(int64_t{1}, INT64_MAX));
}

}  // namespace tilesim::cli
