// Helpers every command uses: error printing and loading a TTIR file (parse, then verify).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "conformance/runner/Conformance.h"
#include "gpu_backend/TensorCoreChoice.h"
#include "gpu_backend/runtime/PtxasLevel.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"
#include "tools/cli/Cli.h"

namespace tilesim::cli {

void printError(const std::string& message) { std::fprintf(stderr, "tilesim: error: %s\n", message.c_str()); }

void printDiagnostics(const Diagnostics& diagnostics) {
  // A diagnostic without a position (a launch argument) gets the program name, like printError's lines.
  for (const Diagnostic& diagnostic : diagnostics)
    std::fprintf(stderr, "%s%s\n", diagnostic.pos.file.empty() ? "tilesim: " : "", diagnostic.str().c_str());
}

// One line per group of reports (same kind, program and op), the first 20 groups; then what was left out.
int64_t printReports(const LaunchResult& result) {
  constexpr size_t kMaxGroupsShown = 20;
  int64_t total = result.totalReports(), shown = 0;
  for (size_t i = 0; i < result.groups.size() && i < kMaxGroupsShown; ++i) {
    std::printf("%s\n", result.groups[i].str().c_str());
    shown += result.groups[i].count;
  }
  if (total > shown)
    std::printf("... and %lld more reports (%zu groups in all)\n", static_cast<long long>(total - shown),
                result.groups.size());
  return total;
}

namespace {
double gpuTimeoutSeconds = -1;  // --gpu-timeout; < 0: not given

std::optional<double> finiteNumber(const std::string& text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}
}  // namespace

CLI::Validator finiteRange(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        std::optional<double> value = finiteNumber(text);
        if (!value || *value < lo || *value > hi)
          return fmt::format("'{}' is not a finite number from {} to {}", text, lo, hi);
        return "";
      },
      fmt::format("NUMBER in [{} - {}]", lo, hi));
}

CLI::Validator powerOfTwoWarps() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < 1 || value > 32 || (value & (value - 1)) != 0)
          return "'" + text + "' is not a power of two from 1 to 32 (Triton's num_warps)";
        return "";
      },
      "1|2|4|8|16|32");
}

int checkEnvironment() {
  auto bad = [](const char* name, const char* value, const std::string& want) {
    printError(fmt::format("environment variable {}='{}': {}", name, value, want));
    return kExitBadInput;
  };
  if (const char* value = std::getenv("TILESIM_GPU_TIMEOUT"); value && *value) {
    std::optional<double> seconds = finiteNumber(value);
    if (!seconds || *seconds < 0 || *seconds > 1e6)
      return bad("TILESIM_GPU_TIMEOUT", value, "expected seconds from 0 to 1e6 (0 = no limit)");
  }
  if (const char* value = std::getenv("TILESIM_PTXAS_LEVEL"); value && *value && !gpu::ptxasLevelFromEnvironment())
    return bad("TILESIM_PTXAS_LEVEL", value, "expected auto or a ptxas optimisation level from 0 to 4");
  if (const char* value = std::getenv("TILESIM_TENSOR_CORES"); value && *value && !gpu::tensorCoreChoiceFromEnvironment())
    return bad("TILESIM_TENSOR_CORES", value, "expected auto, mma or wgmma");
  std::error_code error;
  if (const char* value = std::getenv("TILESIM_LIBDEVICE"); value && *value) {
    if (!std::filesystem::is_regular_file(value, error)) return bad("TILESIM_LIBDEVICE", value, "not a regular file (it names libdevice.10.bc)");
  }
  if (const char* value = std::getenv("TILESIM_CACHE_DIR"); value && *value) {
    if (std::filesystem::exists(value, error) && !std::filesystem::is_directory(value, error))
      return bad("TILESIM_CACHE_DIR", value, "exists and is not a directory");
  }
  return kExitOk;
}

std::vector<std::string> caseDirectoriesOrReport(const std::vector<std::string>& roots) {
  std::vector<std::string> missing;
  std::vector<std::string> cases = findCaseDirectories(roots, missing);
  for (const std::string& directory : missing) printError(directory + ": no such directory");
  if (!missing.empty()) return {};
  if (cases.empty()) printError("no case directories (with case.json) found");
  return cases;
}

void addEngineOption(CLI::App& command, std::string& engine) {
  command.add_option("--engine", engine, "the engine that runs the kernel: interp (default) or gpu")
      ->check(CLI::IsMember({"interp", "gpu"}));
  command.add_option("--gpu-timeout", gpuTimeoutSeconds,
                     "seconds a GPU launch may take before the GPU worker process is killed and the launch reported "
                     "(default: TILESIM_GPU_TIMEOUT, else 120; 0 = no limit)")
      ->check(finiteRange(0.0, 1e6));
}

std::unique_ptr<Engine> boundsEngineFor(const Engine& engine) {
  if (std::string(engine.name()) == engineKindName(EngineKind::Interpreter)) return nullptr;
  return createEngine(EngineKind::Interpreter).engine;
}

CaseOptions caseOptionsFromFlags(const std::string& profile, bool noCheck, const std::string& check, int threads,
                                 uint64_t maxSteps) {
  CaseOptions options;
  options.profile = profile == "exact" ? FloatProfile::Exact : FloatProfile::Triton;
  options.profileRequested = !profile.empty();  // else a case's recorded profile wins (optionsForCase)
  options.checks = !noCheck;
  options.checkUB = check == "ub";
  options.threads = threads;
  options.maxSteps = maxSteps;
  return options;
}

std::unique_ptr<Engine> engineFor(const std::string& name, int& exitCode) {
  std::optional<EngineKind> kind = parseEngineKind(name);
  if (!kind) {
    printError("--engine '" + name + "': expected interp or gpu");
    exitCode = kExitBadInput;
    return nullptr;
  }
  // The GPU engine reads its worker's timeout from the environment (gpu_backend/runtime/GpuWorker.h).
  if (gpuTimeoutSeconds >= 0) ::setenv("TILESIM_GPU_TIMEOUT", fmt::format("{}", gpuTimeoutSeconds).c_str(), 1);
  EngineChoice choice = createEngine(*kind);
  if (!choice.engine) {
    std::fprintf(stderr, "tilesim: skipped: the %s engine is not available: %s\n", name.c_str(),
                 choice.unavailable.c_str());
    exitCode = kExitEngineUnavailable;
  }
  return std::move(choice.engine);
}

std::unique_ptr<Module> parseModuleOrReport(const std::string& path, int& exitCode) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    printError(path + (std::filesystem::exists(path, error) ? ": not a regular file" : ": no such file"));
    exitCode = kExitBadInput;
    return nullptr;
  }
  ParseResult parsed = parseModuleFile(path);
  if (!parsed.diagnostics.empty() || !parsed.module) {
    printDiagnostics(parsed.diagnostics);
    exitCode = kExitFailed;
    return nullptr;
  }
  return std::move(parsed.module);
}

std::unique_ptr<Module> loadModule(const std::string& path, int& exitCode) {
  std::unique_ptr<Module> module = parseModuleOrReport(path, exitCode);
  if (!module) return nullptr;
  if (Diagnostics problems = verifyModule(*module); !problems.empty()) {
    printDiagnostics(problems);
    exitCode = kExitFailed;
    return nullptr;
  }
  return module;
}

}  // namespace tilesim::cli
