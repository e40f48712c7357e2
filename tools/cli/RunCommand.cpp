// `tilesim run`: launch a kernel on the interpreter.
//   tilesim run KERNEL.ttir --grid X[,Y,Z] --arg NAME=FILE.npy|VALUE ... [--out DIR]
//   tilesim run CASE_DIR [--out DIR]
// A kernel run prints the check reports and, without --out, the buffers the launch changed; with --out every
// buffer argument is written to DIR/NAME.npy (never over one of the input files). A case run also compares each
// output with the GPU's (`expected`) and prints pass/fail, bit-exact or max ulp and max abs error.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "conformance/runner/Compare.h"
#include "conformance/runner/Format.h"
#include "tools/cli/Cli.h"

namespace tilesim::cli {
namespace {

namespace fs = std::filesystem;

struct RunFlags {
  LaunchFlags launch;
  std::string outDirectory;
  bool quiet = false;
};

fs::path normalised(const std::string& path) {
  std::error_code error;
  fs::path result = fs::weakly_canonical(fs::absolute(path), error);
  return error ? fs::absolute(path).lexically_normal() : result;
}

// The path each buffer argument will be written to; empty on refusal (an output would overwrite an input).
std::vector<std::string> outputPaths(const PreparedLaunch& prepared, const std::string& directory) {
  std::vector<std::string> paths;
  for (size_t i = 0; i < prepared.launch.arguments.size(); ++i) {
    const LaunchArgument& argument = prepared.launch.arguments[i];
    if (argument.kind != LaunchArgument::Kind::Buffer) {
      paths.emplace_back();
      continue;
    }
    fs::path path = fs::path(directory) / (argument.name + ".npy");
    for (const std::string& input : prepared.inputPaths)
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

// Compares every output of a golden case; prints one line per output (and failing elements). Returns whether
// all passed, or nullopt when an expected file cannot be read.
std::optional<bool> compareCaseOutputs(const PreparedLaunch& prepared) {
  bool allPassed = true;
  const GoldenCase& goldenCase = *prepared.goldenCase;
  for (size_t i = 0; i < goldenCase.arguments.size(); ++i) {
    const CaseArgument& argument = goldenCase.arguments[i];
    if (!argument.isTensor || argument.expectedPath.empty()) continue;
    NpyLoad expected = readExpected(goldenCase, argument);
    if (!expected.ok()) {
      printError(expected.error);
      return std::nullopt;
    }
    const LaunchArgument& output = prepared.launch.arguments[i];
    CompareOptions options;
    options.isUnsigned = argument.dtype.isUnsigned;
    OutputComparison comparison = compareOutput(argument.name, argument.dtype.kind, argument.shape, output.bytes,
                                                expected.array.bytes, output.errorBound, options);
    std::printf("  %s\n", comparison.details().c_str());
    allPassed = allPassed && comparison.passed();
  }
  return allPassed;
}

int runRun(const RunFlags& flags) {
  PreparedLaunch prepared;
  if (int code = prepareLaunch(flags.launch, prepared); code != kExitOk) return code;
  std::vector<std::string> paths;
  if (!flags.outDirectory.empty()) {
    paths = outputPaths(prepared, flags.outDirectory);
    if (paths.empty()) return kExitBadInput;
    std::error_code error;
    fs::create_directories(flags.outDirectory, error);
    if (error || !fs::is_directory(flags.outDirectory)) {
      printError("--out " + flags.outDirectory + ": cannot create directory");
      return kExitBadInput;
    }
  }
  std::vector<std::vector<uint8_t>> before;
  for (const LaunchArgument& argument : prepared.launch.arguments) before.push_back(argument.bytes);

  auto start = std::chrono::steady_clock::now();
  LaunchOutcome outcome = runLaunch(prepared.launch, prepared.options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outcome.started()) {
    printDiagnostics(outcome.diagnostics);
    return kExitBadInput;
  }
  const LaunchResult& result = outcome.result;
  for (const std::string& unused : result.unusedArguments)
    std::printf("note: argument %s has no parameter of its name in the kernel (specialised to a constant)\n", unused.c_str());
  int64_t reports = printReports(result);

  const auto& grid = prepared.launch.grid;
  std::string title = prepared.goldenCase ? prepared.goldenCase->name : flags.launch.target;
  std::printf("%s: @%s on grid %lldx%lldx%lld (%s profile), %.3fs, %lld report%s\n", title.c_str(),
              prepared.launch.kernel->name().c_str(), static_cast<long long>(grid[0]), static_cast<long long>(grid[1]),
              static_cast<long long>(grid[2]), prepared.options.profile == FloatProfile::Triton ? "triton" : "exact",
              seconds, static_cast<long long>(reports), reports == 1 ? "" : "s");

  bool outputsPass = true;
  if (prepared.goldenCase) {
    std::optional<bool> compared = compareCaseOutputs(prepared);
    if (!compared) return kExitBadInput;
    outputsPass = *compared;
  } else if (paths.empty() && !flags.quiet) {
    for (size_t i = 0; i < prepared.launch.arguments.size(); ++i) {
      const LaunchArgument& argument = prepared.launch.arguments[i];
      if (argument.kind != LaunchArgument::Kind::Buffer || argument.bytes == before[i]) continue;
      std::printf("  %s = %s\n", argument.name.c_str(),
                  bufferSummary(argument, prepared.shapes[i], isNpyUnsigned(prepared.fileTypes[i])).c_str());
    }
  }

  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    const LaunchArgument& argument = prepared.launch.arguments[i];
    NpyArray array;
    array.type = prepared.fileTypes[i];
    array.shape = prepared.shapes[i];
    array.bytes = argument.bytes;
    if (std::string error = writeNpyFile(paths[i], array); !error.empty()) {
      printError(error);
      return kExitBadInput;
    }
    std::printf("  wrote %s\n", paths[i].c_str());
  }
  if (prepared.goldenCase) std::printf("%s\n", outputsPass && reports == 0 ? "PASS" : "FAIL");
  return outputsPass && reports == 0 ? kExitOk : kExitFailed;
}

}  // namespace

void addRunCommand(CLI::App& app, int& exitCode) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand("run", "run a kernel (with --grid and --arg) or a golden-case directory");
  flags->launch.addTo(*run);
  run->add_option("--out", flags->outDirectory, "write every buffer argument to DIR/NAME.npy (never over an input)");
  run->add_flag("--quiet", flags->quiet, "do not print the buffers a kernel run changed");
  run->callback([flags, &exitCode] { exitCode = runRun(*flags); });
}

}  // namespace tilesim::cli
