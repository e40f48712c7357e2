// Helpers every command uses: error printing and loading a TTIR file (parse, then verify).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

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
}  // namespace

void addEngineOption(CLI::App& command, std::string& engine) {
  command.add_option("--engine", engine, "the engine that runs the kernel: interp (default) or gpu")
      ->check(CLI::IsMember({"interp", "gpu"}));
  command.add_option("--gpu-timeout", gpuTimeoutSeconds,
                     "seconds a GPU launch may take before the GPU worker process is killed and the launch reported "
                     "(default: TILESIM_GPU_TIMEOUT, else 120; 0 = no limit)")
      ->check(CLI::Range(0.0, 1e6));
}

std::unique_ptr<Engine> boundsEngineFor(const Engine& engine) {
  if (std::string(engine.name()) == engineKindName(EngineKind::Interpreter)) return nullptr;
  return createEngine(EngineKind::Interpreter).engine;
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

std::unique_ptr<Module> loadModule(const std::string& path, int& exitCode) {
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
  if (Diagnostics problems = verifyModule(*parsed.module); !problems.empty()) {
    printDiagnostics(problems);
    exitCode = kExitFailed;
    return nullptr;
  }
  return std::move(parsed.module);
}

}  // namespace tilesim::cli
